// LUFactor and PivotToPermutation (lu_factor, pivot_to_permutation) and the
// graphs built on them (lu_solve, lu): make_node, perform through
// kernels/linalg.h (lapack_op.cpp's driver), infer_shape and LU's gradient
// (P^T dA = dL U + L dU, the triangular parts of L^-1 P^T dA U^-1).
#include <utility>

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor::linalg {
namespace {

/// The permutation matrices P[..., i, j] = (p[..., i] == j) of a batch of
/// int64 row indices p, in `dtype`.
Var permutation_matrix(const Var& p, DType dtype) {
  const int nd = tensor_type(p)->ndim();
  const Var j = arange(shape_i(p, nd - 1), DType::Int64);
  return cast(eq(detail::as_column(p, 1), j), dtype);
}

/// L (unit lower) and U of a packed LU.
std::pair<Var, Var> unpack(const Var& LU) {
  const Var low = detail::tril_mask(LU), I = detail::eye_like(LU);
  return {add(mul(LU, sub(low, I)), I), mul(LU, sub(1.0, sub(low, I)))};
}

}  // namespace

THEANO_REGISTER_OP(LUFactor);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(PivotToPermutation, .no_cuda = "cuSOLVER form not yet written: the node runs on the host");

int LUFactor::la_kind() const { return THEANO_LA_LU_FACTOR; }
int PivotToPermutation::la_kind() const { return THEANO_LA_PIV_TO_PERM; }

ApplyPtr LUFactor::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const StaticShape sq = detail::square_core(x);
  const Dim n = sq.empty() ? Dim() : sq[0];
  return detail::make_lapack_node(*this, {x}, {StaticShape{n, n}, StaticShape{n}}, {std::nullopt, DType::Int32});
}

ApplyPtr PivotToPermutation::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var p = as_tensor_variable(inputs[0]);
  const StaticShape core = tensor_type(p)->ndim() >= 1 ? detail::core_static(p, 1) : StaticShape{};
  return detail::make_lapack_node(*this, {p}, {core}, {DType::Int64});
}

void LUFactor::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void PivotToPermutation::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> LUFactor::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0], std::vector<Var>(shapes[0].begin(), shapes[0].end() - 1)};
}
std::vector<std::vector<Var>> PivotToPermutation::infer_shape(const Apply&,
                                                              const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

// A = P L U: Ā = P L^-T M U^-T with M = tril(L^T L̄, -1) + triu(Ū U^T), L̄ and Ū
// the parts of the packed output's gradient (L's diagonal is not an output).
std::vector<Var> LUFactor::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  if (!g) return {Var()};
  const Var& LU = node.output(0);
  const auto [L, U] = unpack(LU);
  const Var strict = sub(detail::tril_mask(LU), detail::eye_like(LU));
  const Var Lbar = mul(g, strict), Ubar = mul(g, sub(1.0, strict));
  const Var M = add(mul(matmul(matrix_transpose(L), Lbar), strict),
                    mul(matmul(Ubar, matrix_transpose(U)), sub(1.0, strict)));
  // L^-T M (L unit lower), then (L^-T M) U^-T = (U^-1 (L^-T M)^T)^T.
  const Var Y = solve_triangular(LU, M, true, 1, true);
  const Var Z = matrix_transpose(solve_triangular(LU, matrix_transpose(Y), false, 0));
  const Var P = permutation_matrix(OpPtr(new PivotToPermutation(true))->apply1({node.output(1)}), tensor_type(LU)->dtype());
  return {detail::sum_to(matmul(P, Z), node.input(0))};
}

std::vector<Var> PivotToPermutation::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::pair<Var, Var> lu_factor(const TensorLike& x) {
  const std::vector<Var> outs = (*OpPtr(new LUFactor()))({detail::as_float(x)});
  return {outs[0], outs[1]};
}

Var pivot_to_permutation(const TensorLike& piv, bool inverse) {
  return OpPtr(new PivotToPermutation(inverse))->apply1({as_tensor_variable(piv)});
}

// A = P L U, P[i, p[i]] = 1. A x = b: x = U^-1 L^-1 P^T b; A^T x = b: x = P L^-T U^-T b.
Var lu_solve(const std::pair<TensorLike, TensorLike>& lu_and_piv, const TensorLike& b, int trans) {
  THEANO_USER_CHECK(trans == 0 || trans == 1, ValueError) << "lu_solve: trans must be 0 or 1, got " << trans;
  auto [LU, bv] = detail::as_common_float(lu_and_piv.first, b);
  const int b_ndim = tensor_type(bv)->ndim() == 1 ? 1 : 2;
  const Var P = permutation_matrix(pivot_to_permutation(lu_and_piv.second, true), tensor_type(LU)->dtype());
  const Var bc = detail::as_column(bv, b_ndim);
  Var x;
  if (trans == 0) {
    const Var y = solve_triangular(LU, matmul(matrix_transpose(P), bc), true, 0, true);
    x = solve_triangular(LU, y, false, 0);
  } else {
    const Var z = solve_triangular(LU, bc, false, 1);
    x = matmul(P, solve_triangular(LU, z, true, 1, true));
  }
  return detail::from_column(x, b_ndim);
}

std::vector<Var> lu(const TensorLike& x, bool permute_l, bool p_indices) {
  const auto [LU, piv] = lu_factor(x);
  const auto [L, U] = unpack(LU);
  const Var p = pivot_to_permutation(piv, true);
  if (p_indices && !permute_l) return {p, L, U};
  const Var P = permutation_matrix(p, tensor_type(LU)->dtype());
  if (permute_l) return {matmul(P, L), U};
  return {P, L, U};
}

}  // namespace theano::tensor::linalg
