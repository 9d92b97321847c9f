// Expm (expm, expm_frechet): make_node, perform through kernels/linalg_expm.h
// (lapack_op.cpp's driver), infer_shape and the gradient, the Fréchet
// derivative at A^T read from the block matrix exponential (docs/linalg.md).
#include "theano/tensor/linalg_expm.h"

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor::linalg {

THEANO_REGISTER_OP(Expm);  // GPU form: codegen/src/emit/lower/gpu_expm.cpp (cuBLAS products, cuSOLVER solve)

int Expm::la_kind() const { return THEANO_LA_EXPM; }

ApplyPtr Expm::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  return detail::make_lapack_node(*this, {x}, {detail::square_core(x)});
}

void Expm::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> Expm::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

// d exp(A)[E] = L(A, E); <Ḡ, L(A, E)> = <L(A^T, Ḡ), E>, so Ā = L(A^T, Ḡ).
std::vector<Var> Expm::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& A = node.input(0);
  return {expm_frechet(matrix_transpose(A), gz)};
}

Var expm(const TensorLike& x) { return OpPtr(new Expm())->apply1({detail::as_float(x)}); }

Var expm_frechet(const TensorLike& a, const TensorLike& e) {
  auto [A, E] = detail::as_common_float(a, e);
  const int nd = tensor_type(A)->ndim();
  THEANO_USER_CHECK(nd >= 2 && tensor_type(E)->ndim() == nd, ValueError)
      << "expm_frechet: A (" << A.str() << ") and E (" << E.str()
      << ") must be square matrices (or batches) of one rank >= 2, got ranks " << nd << " and "
      << tensor_type(E)->ndim();
  // [[A, E], [0, A]], the batch dims of A and E broadcast by the additions.
  const Var Ab = add(A, zeros_like(E)), Eb = add(E, zeros_like(A));
  const Var top = concatenate({Ab, Eb}, nd - 1);
  const Var bottom = concatenate({zeros_like(Ab), Ab}, nd - 1);
  const Var big = expm(concatenate({top, bottom}, nd - 2));
  const Var n = shape_i(A, nd - 1);
  std::vector<Index> idx(static_cast<std::size_t>(nd - 2), Index(all));
  idx.emplace_back(slice(Bound(), n));
  idx.emplace_back(slice(n, Bound()));
  return subtensor(big, idx);
}

}  // namespace theano::tensor::linalg
