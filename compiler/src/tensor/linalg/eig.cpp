// Eig (eig, eigvals): make_node with complex outputs, perform through
// kernels/linalg_eig.h (lapack_op.cpp's driver), infer_shape; no gradient and
// no C++ lowering (generated code has no complex type: the perform fallback runs).
#include "theano/tensor/linalg_eig.h"

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"

namespace theano::tensor::linalg {

THEANO_REGISTER_OP(Eig,
                   .no_cpp = "complex outputs: generated code has no complex C type yet; the node runs through "
                             "perform (kernels/linalg_eig.h) in a compiled function",
                   .no_cuda = "complex outputs: CUDA units have no complex type either (cuSOLVER's Xgeev, CUDA "
                              "12.6+, would be its kernel); the node runs on the host");

int Eig::la_kind() const { return THEANO_LA_EIG; }

std::vector<int> Eig::core_out_ranks() const { return compute_v_ ? std::vector<int>{1, 2} : std::vector<int>{1}; }

ApplyPtr Eig::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const StaticShape sq = detail::square_core(x);
  const Dim n = sq.empty() ? Dim() : sq[0];
  const DType cd = tensor_type(x)->dtype() == DType::Float32 ? DType::Complex64 : DType::Complex128;
  std::vector<StaticShape> outs{StaticShape{n}};
  if (compute_v_) outs.push_back(StaticShape{n, n});
  return detail::make_lapack_node(*this, {x}, outs, {cd, cd});
}

void Eig::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> Eig::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return detail::eigen_shapes(shapes[0], compute_v_);
}

std::vector<Var> Eig::grad(const Apply&, const std::vector<Var>& output_grads) const {
  THEANO_USER_CHECK(!detail::any_grad(output_grads), ValueError) << name()
                                      << ": no gradient (as PyTensor's Eig); for a symmetric matrix use eigh, "
                                         "whose gradient exists";
  return {Var()};
}

std::pair<Var, Var> eig(const TensorLike& x) {
  const std::vector<Var> outs = (*OpPtr(new Eig(true)))({detail::as_float(x)});
  return {outs[0], outs[1]};
}

Var eigvals(const TensorLike& x) { return OpPtr(new Eig(false))->apply1({detail::as_float(x)}); }

}  // namespace theano::tensor::linalg
