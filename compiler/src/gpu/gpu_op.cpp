// GpuOp (gpu/ops.h): a host op's GPU form, typed and performed through its
// host twin node.
#include <algorithm>

#include "theano/gpu/ops.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/random.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

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

std::optional<std::vector<bool>> gpu_op_inputs(const Apply& node) {
  const Op& op = *node.op();
  if (!op.destroy_map().empty()) return std::nullopt;
  const auto n = static_cast<std::size_t>(node.nin());
  auto only = [n](std::initializer_list<std::size_t> data) {
    std::vector<bool> r(n, false);
    for (std::size_t i : data)
      if (i < n) r[i] = true;
    return r;
  };
  // Views and shape ops: the array; the shape and index inputs stay host scalars.
  if (dynamic_cast<const tensor::DimShuffle*>(&op) || dynamic_cast<const tensor::Alloc*>(&op) ||
      dynamic_cast<const tensor::Reshape*>(&op) || dynamic_cast<const tensor::Subtensor*>(&op) ||
      dynamic_cast<const tensor::Split*>(&op))
    return only({0});
  // Join: every input, copied by a kernel of the output's dtype.
  if (dynamic_cast<const tensor::Join*>(&op)) {
    const tensor::TensorType* out = tensor::tensor_type(node.output(0));
    for (const Var& v : node.inputs()) {
      const tensor::TensorType* t = tensor::tensor_type(v);
      if (!out || !t || t->dtype() != out->dtype()) return std::nullopt;
    }
    return std::vector<bool>(n, true);
  }
  // Reductions and the nnet ops: every input (a fused reduction's too; the labels).
  if (dynamic_cast<const tensor::CAReduce*>(&op) || dynamic_cast<const tensor::ArgReduce*>(&op) ||
      dynamic_cast<const tensor::nnet::Softmax*>(&op) || dynamic_cast<const tensor::nnet::LogSoftmax*>(&op) ||
      dynamic_cast<const tensor::nnet::CrossentropyCategorical1Hot*>(&op) ||
      dynamic_cast<const tensor::nnet::CrossentropyCategorical1HotGrad*>(&op))
    return std::vector<bool>(n, true);
  // Indexing that writes or gathers: x and the value (IncSubtensor's bounds
  // stay host scalars); the advanced ops' index vector too. Increments
  // repeated by AdvancedIncSubtensor1 need an atomic add of x's dtype.
  if (dynamic_cast<const tensor::IncSubtensor*>(&op)) return only({0, 1});
  if (dynamic_cast<const tensor::AdvancedSubtensor1*>(&op)) return std::vector<bool>(n, true);
  if (const auto* a = dynamic_cast<const tensor::AdvancedIncSubtensor1*>(&op)) {
    const tensor::TensorType* x = tensor::tensor_type(node.input(0));
    const bool atomic = x && (x->dtype() == DType::Float32 || x->dtype() == DType::Float64 ||
                              x->dtype() == DType::Int32 || x->dtype() == DType::UInt32 ||
                              x->dtype() == DType::Int64 || x->dtype() == DType::UInt64);
    if (!a->set_instead_of_inc() && !atomic) return std::nullopt;
    return std::vector<bool>(n, true);
  }
  // Made from host scalars alone: no GPU input (the GpuOp names its context).
  if (dynamic_cast<const tensor::ARange*>(&op) || dynamic_cast<const tensor::Eye*>(&op))
    return std::vector<bool>(n, false);
  // Random samples: the parameters (the state and the size stay host values).
  if (dynamic_cast<const tensor::RandomFunction*>(&op)) return only({2, 3});
  // BLAS (cuBLAS; float32 / float64 only): the matrices and vectors, not alpha / beta.
  const bool blas = dynamic_cast<const tensor::Dot*>(&op) || dynamic_cast<const tensor::Dot22*>(&op) ||
                    dynamic_cast<const tensor::Gemm*>(&op) || dynamic_cast<const tensor::Gemv*>(&op) ||
                    dynamic_cast<const tensor::Ger*>(&op);
  if (!blas) return std::nullopt;
  const tensor::TensorType* out = tensor::tensor_type(node.output(0));
  if (!out || (out->dtype() != DType::Float32 && out->dtype() != DType::Float64)) return std::nullopt;
  const std::vector<bool> data = (dynamic_cast<const tensor::Gemm*>(&op) || dynamic_cast<const tensor::Gemv*>(&op) ||
                                  dynamic_cast<const tensor::Ger*>(&op))
                                     ? only({0, 2, 3})
                                     : std::vector<bool>(n, true);  // Dot, Dot22
  for (std::size_t i = 0; i < n; ++i) {  // cuBLAS multiplies arrays of one dtype
    const tensor::TensorType* t = tensor::tensor_type(node.input(static_cast<int>(i)));
    if (data[i] && (!t || t->dtype() != out->dtype())) return std::nullopt;
  }
  return data;
}

std::vector<bool> gpu_op_outputs(const Apply& node) {
  if (dynamic_cast<const tensor::RandomFunction*>(node.op().get())) return {false, true};
  return {};
}

}  // namespace theano::gpu
