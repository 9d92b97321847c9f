// GpuOp (gpu/ops.h): a host op's GPU form, typed and performed through its
// host twin node.
#include <algorithm>

#include "theano/gpu/ops.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano::gpu {

GpuOp::GpuOp(OpPtr host, std::vector<bool> gpu_inputs, std::vector<bool> gpu_outputs, std::string context)
    : host_(std::move(host)),
      gpu_inputs_(std::move(gpu_inputs)),
      gpu_outputs_(std::move(gpu_outputs)),
      context_(std::move(context)),
      type_name_("Gpu" + std::string(host_->type_name())) {
  if (std::all_of(gpu_outputs_.begin(), gpu_outputs_.end(), [](bool g) { return g; })) gpu_outputs_.clear();
}

Props GpuOp::props() const {
  Props p = host_->props();
  std::vector<std::int64_t> on_gpu;
  for (bool g : gpu_inputs_) on_gpu.push_back(g);
  p.push_back({"gpu_inputs", on_gpu});
  if (!gpu_outputs_.empty()) {
    std::vector<std::int64_t> out_gpu;
    for (bool g : gpu_outputs_) out_gpu.push_back(g);
    p.push_back({"gpu_outputs", out_gpu});
  }
  if (!context_.empty()) p.push_back({"context", context_});
  return p;
}

std::string GpuOp::name() const { return "Gpu" + host_->name(); }

bool GpuOp::equals(const Op& other) const {
  const auto* o = dynamic_cast<const GpuOp*>(&other);
  return o && (o == this || (o->gpu_inputs_ == gpu_inputs_ && o->gpu_outputs_ == gpu_outputs_ &&
                              o->context_ == context_ && host_->equals(*o->host_)));
}

std::size_t GpuOp::hash() const {
  return host_->hash() * 13 + gpu_inputs_.size() + gpu_outputs_.size() * 31 + 0x67707530;
}

// Folded as its host op would be (not a GpuAlloc, not a random draw).
bool GpuOp::foldable() const { return host_->foldable(); }

THEANO_REGISTER_OP(
    GpuOp, .kinds = {},
    .no_grad = "made by the GPU transfer rewrite after gradients are taken: the host op carries the gradient",
    .no_cuda = "a GPU op: its C++ lowering (lower_gpu_op) runs the host op's GPU form");

ApplyPtr GpuOp::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == gpu_inputs_.size(), TypeError)
      << name() << " takes " << gpu_inputs_.size() << " inputs, got " << inputs.size();
  std::string context;
  std::size_t context_from = 0;  // the input that set `context`
  std::vector<Var> host_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const GpuArrayType* t = gpu_type(inputs[i]);
    if (!gpu_inputs_[i]) {
      THEANO_USER_CHECK(!t, TypeError) << name() << ": input " << i << " (" << inputs[i].str()
                                       << ") must be a host value, got " << t->str();
      host_inputs.push_back(inputs[i]);
      continue;
    }
    THEANO_USER_CHECK(t, TypeError) << name() << ": input " << i << " (" << inputs[i].str()
                                    << ") must be a GPU array, got "
                                    << (inputs[i] ? inputs[i].type()->str() : std::string("a null Var"));
    if (context.empty()) {
      context = t->context();
      context_from = i;
    }
    THEANO_USER_CHECK(t->context() == context, TypeError)
        << name() << ": input " << context_from << " lives on " << context << " but input " << i << " lives on "
        << t->context();
    host_inputs.push_back(t->host_type()->make_variable());
  }
  if (context.empty()) context = context_;
  THEANO_USER_CHECK(!context.empty(), TypeError) << name() << ": no GPU input and no GPU context";
  ApplyPtr h = host_->make_node(std::move(host_inputs));
  std::vector<Var> outs;
  THEANO_USER_CHECK(gpu_outputs_.empty() || static_cast<int>(gpu_outputs_.size()) == h->nout(), TypeError)
      << name() << ": " << gpu_outputs_.size() << " output flags for " << h->nout() << " outputs";
  for (int k = 0; k < h->nout(); ++k) {
    const tensor::TensorType* ot = tensor::tensor_type(h->output(k));
    THEANO_USER_CHECK(ot, TypeError) << name() << ": output " << k << " is not a tensor";
    outs.push_back(gpu_output(k) ? GpuArrayType::of(*ot, context)->make_variable() : ot->make_variable());
  }
  return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
}

ApplyPtr GpuOp::host_node(const Apply& node) const {
  std::vector<Var> host_inputs;
  for (int i = 0; i < node.nin(); ++i) {
    const Var& in = node.input(i);
    host_inputs.push_back(gpu_inputs_[static_cast<std::size_t>(i)] ? gpu_type(in)->host_type()->make_variable(in.name())
                                                                   : in);
  }
  return host_->make_node(std::move(host_inputs));
}

void GpuOp::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const ApplyPtr h = host_node(node);
  host_->perform(*h, inputs, outputs);
}

std::vector<std::vector<Var>> GpuOp::infer_shape(const Apply& node, const std::vector<std::vector<Var>>& shapes) const {
  check_input_shapes(name(), node, shapes);
  const ApplyPtr h = host_node(node);
  return host_->infer_shape(*h, shapes);
}

namespace {
/// The op's GPU form of `node`: what it states, else, where it has a kernel
/// form for the node, every input and output on the device (Op::gpu_form).
std::optional<GpuPlacement> placement(const Apply& node) {
  const Op& op = *node.op();
  if (std::optional<GpuPlacement> p = op.gpu_form(node)) return p;
  const std::optional<KernelSignature> sig = tensor::kernel_signature(node);
  if (sig && op.kernel_form(*sig)) return GpuPlacement::all(node.nin());
  return std::nullopt;
}
}  // namespace

std::optional<std::vector<bool>> gpu_op_inputs(const Apply& node) {
  const Op& op = *node.op();
  if (!op.destroy_map().empty()) return std::nullopt;  // a GpuOp writes fresh buffers or views
  std::optional<GpuPlacement> p = placement(node);
  if (!p) return std::nullopt;
  THEANO_INTERNAL_CHECK(static_cast<int>(p->inputs.size()) == node.nin())
      << op.name() << "::gpu_form placed " << p->inputs.size() << " inputs of a node with " << node.nin();
  return std::move(p->inputs);
}

std::vector<bool> gpu_op_outputs(const Apply& node) {
  std::optional<GpuPlacement> p = placement(node);
  return p ? std::move(p->outputs) : std::vector<bool>{};
}

}  // namespace theano::gpu
