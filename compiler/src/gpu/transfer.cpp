// GpuFromHost and HostFromGpu (gpu/ops.h): type checks, reference perform
// (the identity on values), shapes and gradients (the transfer back).
#include <sstream>

#include "theano/gpu/ops.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"

namespace theano::gpu {

GpuFromHost::GpuFromHost(std::string context) : context_(std::move(context)) {
  THEANO_USER_CHECK(parse_context(context_), ValueError)
      << "GpuFromHost: unknown GPU context '" << context_ << "'; expected cuda<N> or " << kEmulatedContext;
}

THEANO_REGISTER_OP(GpuFromHost, .no_cuda = "a transfer: its C++ lowering is the device copy (ctx->gpu_copy)");

ApplyPtr GpuFromHost::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "GpuFromHost takes 1 input, got " << inputs.size();
  const tensor::TensorType* t = tensor::tensor_type(inputs[0]);
  THEANO_USER_CHECK(t, TypeError) << "GpuFromHost: input " << inputs[0].str() << " must be a host tensor, got "
                                  << (inputs[0] ? inputs[0].type()->str() : std::string("a null Var"));
  THEANO_USER_CHECK(gpu_dtype_supported(t->dtype()), TypeError)
      << "GpuFromHost: input " << inputs[0].str() << " has dtype " << dtype_name(t->dtype())
      << ", which has no GPU kernels yet";
  Var out = GpuArrayType::of(*t, context_)->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void GpuFromHost::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = inputs[0].copy();  // a transfer makes a new array (no view_map)
}

void check_input_shapes(const std::string& op, const Apply& node, const std::vector<std::vector<Var>>& shapes) {
  THEANO_USER_CHECK(shapes.size() == static_cast<std::size_t>(node.nin()), ValueError)
      << op << ".infer_shape: " << shapes.size() << " input shapes for " << node.nin() << " inputs";
  for (int i = 0; i < node.nin(); ++i) {
    const Var& in = node.input(i);
    const int nd = gpu_type(in) ? gpu_type(in)->ndim() : tensor::tensor_type(in) ? tensor::tensor_type(in)->ndim() : 0;
    THEANO_USER_CHECK(shapes[static_cast<std::size_t>(i)].size() == static_cast<std::size_t>(nd), ValueError)
        << op << ".infer_shape: the shape given for input " << i << " (" << in.str() << ") has "
        << shapes[static_cast<std::size_t>(i)].size() << " dimensions, its type " << in.type()->str() << " has " << nd;
  }
}

std::vector<std::vector<Var>> GpuFromHost::infer_shape(const Apply& node,
                                                       const std::vector<std::vector<Var>>& shapes) const {
  check_input_shapes(name(), node, shapes);
  return {shapes[0]};
}

std::vector<Var> GpuFromHost::grad(const Apply&, const std::vector<Var>& output_grads) const {
  return {host_from_gpu(output_grads[0])};
}

THEANO_REGISTER_OP(HostFromGpu, .no_cuda = "a transfer: its C++ lowering is the device copy (ctx->gpu_copy)");

ApplyPtr HostFromGpu::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "HostFromGpu takes 1 input, got " << inputs.size();
  const GpuArrayType* t = gpu_type(inputs[0]);
  THEANO_USER_CHECK(t, TypeError) << "HostFromGpu: input " << inputs[0].str() << " must be a GPU array, got "
                                  << (inputs[0] ? inputs[0].type()->str() : std::string("a null Var"));
  Var out = t->host_type()->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void HostFromGpu::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = inputs[0].copy();  // a transfer makes a new array (no view_map)
}

std::vector<std::vector<Var>> HostFromGpu::infer_shape(const Apply& node,
                                                       const std::vector<std::vector<Var>>& shapes) const {
  check_input_shapes(name(), node, shapes);
  return {shapes[0]};
}

std::vector<Var> HostFromGpu::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  return {gpu_from_host(output_grads[0], gpu_type(node.input(0))->context())};
}

Var gpu_from_host(const Var& x, const std::string& context) { return OpPtr(new GpuFromHost(context))->apply1({x}); }

Var host_from_gpu(const Var& x) { return OpPtr(new HostFromGpu())->apply1({x}); }

const Apply* as_host_from_gpu(const Var& v) {
  const Apply* n = v.owner();
  return n && dynamic_cast<const HostFromGpu*>(n->op().get()) ? n : nullptr;
}

const Apply* as_gpu_from_host(const Var& v) {
  const Apply* n = v.owner();
  return n && dynamic_cast<const GpuFromHost*>(n->op().get()) ? n : nullptr;
}

}  // namespace theano::gpu
