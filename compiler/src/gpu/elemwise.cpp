// GpuElemwise (gpu/ops.h): the host Elemwise's typing over GPU arrays of one
// context; perform and infer_shape are the host op's on the host twin node.
#include "theano/gpu/ops.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"

namespace theano::gpu {

GpuElemwise::GpuElemwise(IntrusivePtr<const tensor::Elemwise> host) : host_(std::move(host)) {
  THEANO_INTERNAL_CHECK(host_ && host_->inplace_pattern().empty())
      << "GpuElemwise wraps an Elemwise without an inplace pattern";
}

Props GpuElemwise::props() const { return {{"scalar_op", host_->scalar_op()->name()}}; }

std::string GpuElemwise::name() const { return "GpuElemwise{" + host_->scalar_op()->name() + "}"; }

bool GpuElemwise::equals(const Op& other) const {
  const auto* o = dynamic_cast<const GpuElemwise*>(&other);
  return o && (o == this || host_->equals(*o->host_));
}

std::size_t GpuElemwise::hash() const { return host_->hash() * 7 + 0x67707565; }

THEANO_REGISTER_OP(
    GpuElemwise,
    .no_grad = "made by the GPU transfer rewrite after gradients are taken: the host Elemwise carries the gradient",
    .no_cuda = "a GPU op: its C++ lowering (codegen/src/emit/lower/gpu.cpp) is the CUDA kernel and its launch");

ApplyPtr GpuElemwise::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << name() << ": needs at least one input";
  const GpuArrayType* first = nullptr;
  std::vector<Var> host_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const GpuArrayType* t = gpu_type(inputs[i]);
    THEANO_USER_CHECK(t, TypeError) << name() << ": input " << i << " (" << inputs[i].str()
                                    << ") must be a GPU array, got "
                                    << (inputs[i] ? inputs[i].type()->str() : std::string("a null Var"));
    if (!first) first = t;
    THEANO_USER_CHECK(t->context() == first->context(), TypeError)
        << name() << ": input " << i << " lives on " << t->context() << " but input 0 on " << first->context()
        << "; transfer it first";
    THEANO_USER_CHECK(t->ndim() == first->ndim(), TypeError)
        << name() << ": input " << i << " has " << t->ndim() << " dimensions, input 0 has " << first->ndim()
        << " (GPU inputs are not padded: build the host Elemwise, then move it)";
    host_inputs.push_back(t->host_type()->make_variable());
  }
  ApplyPtr h = host_->make_node(std::move(host_inputs));
  std::vector<Var> outs;
  for (int k = 0; k < h->nout(); ++k) {
    const tensor::TensorType* ot = tensor::tensor_type(h->output(k));
    outs.push_back(GpuArrayType::of(*ot, first->context())->make_variable());
  }
  return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
}

ApplyPtr GpuElemwise::host_node(const Apply& node) const {
  std::vector<Var> host_inputs;
  for (const Var& in : node.inputs()) host_inputs.push_back(gpu_type(in)->host_type()->make_variable(in.name()));
  return host_->make_node(std::move(host_inputs));
}

void GpuElemwise::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const ApplyPtr h = host_node(node);
  host_->perform(*h, inputs, outputs);
}

std::vector<std::vector<Var>> GpuElemwise::infer_shape(const Apply& node,
                                                       const std::vector<std::vector<Var>>& shapes) const {
  check_input_shapes(name(), node, shapes);
  const ApplyPtr h = host_node(node);
  return host_->infer_shape(*h, shapes);
}

}  // namespace theano::gpu
