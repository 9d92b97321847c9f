// Cholesky, CholeskyGrad and CholeskySolve (cholesky, cho_solve): make_node,
// perform through kernels/linalg.h (lapack_op.cpp's driver), infer_shape and
// the gradients (Murray 2016 for the factor, one CholeskyGrad node;
// cho_solve's through A = C C^T).
#include <utility>

#include "linalg_util.h"
#include "theano/gradient.h"
#include "theano/graph/clone.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"

namespace theano::tensor::linalg {

using detail::core_static;

THEANO_REGISTER_OP(Cholesky);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(CholeskySolve);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(CholeskyGrad);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp (cuBLAS trmm, trsm)

int Cholesky::la_kind() const { return THEANO_LA_CHOLESKY; }
int CholeskySolve::la_kind() const { return THEANO_LA_CHO_SOLVE; }
int CholeskyGrad::la_kind() const { return THEANO_LA_CHOLESKY_GRAD; }

ApplyPtr Cholesky::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const int nd = tensor_type(x)->ndim();
  StaticShape core = nd >= 2 ? core_static(x, 2) : StaticShape{};
  if (nd >= 2 && !core[0]) core[0] = core[1];
  if (nd >= 2 && !core[1]) core[1] = core[0];
  return detail::make_lapack_node(*this, {x}, {core});
}

void Cholesky::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> Cholesky::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

namespace {

/// Murray 2016, eq. 10, as a graph of products and solves: the lower factor
/// L (only its lower triangle read) and L̄ (likewise) give
/// Φ(L^-T (P + P^T) L^-1) with P = Φ(L^T L̄); for an upper factor the same on
/// the transposes, transposed back. CholeskyGrad computes exactly this in one
/// node; this graph is its reference and the expression its own gradient
/// differentiates.
Var cholesky_grad_graph(const Var& factor, const Var& factor_grad, bool lower) {
  const Var F = lower ? factor : matrix_transpose(factor);
  const Var G = lower ? factor_grad : matrix_transpose(factor_grad);
  const Var L = mul(F, detail::tril_mask(F));
  const Var Lbar = mul(G, detail::tril_mask(G));
  const Var P = detail::phi(matmul(matrix_transpose(L), Lbar));
  // Z = L^-T P^T; L^-T Z^T = L^-T P L^-1, folded: Φ of it plus its transpose.
  const Var Z = solve_triangular(L, matrix_transpose(P), true, 1);
  const Var S = solve_triangular(L, matrix_transpose(Z), true, 1);
  return detail::fold_onto_triangle(S, lower);
}

}  // namespace

// L = chol(A): with P = Φ(L^T L̄), G = L^-T P L^-1 is the gradient for a
// symmetric dA (Murray 2016, eq. 10), folded onto the triangle read: one
// CholeskyGrad node. The upper factor U = L^T of the same A: its transposes.
std::vector<Var> Cholesky::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var g = OpPtr(new CholeskyGrad(lower_))->apply1({node.output(0), gz});
  return {detail::sum_to(g, node.input(0))};
}

ApplyPtr CholeskyGrad::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs, got " << inputs.size();
  const Var f = as_tensor_variable(inputs[0]);
  StaticShape core = tensor_type(f)->ndim() >= 2 ? core_static(f, 2) : StaticShape{};
  if (core.size() == 2 && !core[0]) core[0] = core[1];
  if (core.size() == 2 && !core[1]) core[1] = core[0];
  return detail::make_lapack_node(*this, {f, inputs[1]}, {core});
}

void CholeskyGrad::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> CholeskyGrad::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  std::vector<Var> s = detail::batch_shape(*this, shapes);
  const std::vector<Var>& f = shapes[0];
  s.insert(s.end(), f.end() - 2, f.end());
  return {s};
}

// The Lop of the graph CholeskyGrad computes (cholesky_grad_graph), so the
// second derivative of anything through a cholesky is the exact one.
std::vector<Var> CholeskyGrad::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var()};
  const Var& f = node.input(0);
  const Var& g = node.input(1);
  // The graph on fresh variables, then bound to the inputs: a Lop with
  // respect to the inputs themselves would also follow any path from one to
  // the other (input 1 is usually a function of input 0) and count it twice.
  const Var fv = f.type()->make_variable("factor"), gv = g.type()->make_variable("factor_grad");
  const Var ref = cholesky_grad_graph(fv, gv, lower_);
  std::vector<Var> out = Lop(std::vector<Var>{ref}, std::vector<Var>{fv, gv}, std::vector<Var>{gz});
  out = clone_replace(out, {{fv, f}, {gv, g}});
  return {detail::sum_to(out.at(0), f), detail::sum_to(out.at(1), g)};
}

ApplyPtr CholeskySolve::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs, got " << inputs.size();
  THEANO_USER_CHECK(b_ndim_ == 1 || b_ndim_ == 2, ValueError) << name() << ": b_ndim must be 1 or 2, got " << b_ndim_;
  const Var b = as_tensor_variable(inputs[1]);
  const StaticShape core = tensor_type(b)->ndim() >= b_ndim_ ? core_static(b, b_ndim_) : StaticShape{};
  return detail::make_lapack_node(*this, {inputs[0], b}, {core});
}

void CholeskySolve::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> CholeskySolve::infer_shape(const Apply&,
                                                         const std::vector<std::vector<Var>>& shapes) const {
  std::vector<Var> s = detail::batch_shape(*this, shapes);
  const std::vector<Var>& b = shapes[1];
  s.insert(s.end(), b.end() - b_ndim_, b.end());
  return {s};
}

// x = A^-1 b with A = C C^T (lower) or C^T C: b̄ = A^-1 x̄ (A symmetric),
// Ā = -b̄ x^T; then C̄ = (Ā + Ā^T) C (lower) or C (Ā + Ā^T) (upper), in the
// triangle read.
std::vector<Var> CholeskySolve::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var()};
  const Var& C = node.input(0);
  const Var gb = OpPtr(new CholeskySolve(lower_, b_ndim_))->apply1({C, gz});
  const Var gA = neg(matmul(detail::as_column(gb, b_ndim_), matrix_transpose(detail::as_column(node.output(0), b_ndim_))));
  const Var S = add(gA, matrix_transpose(gA));
  const Var gC = lower_ ? mul(matmul(S, C), detail::tril_mask(C)) : mul(matmul(C, S), matrix_transpose(detail::tril_mask(C)));
  return {detail::sum_to(gC, C), detail::sum_to(gb, node.input(1))};
}

Var cholesky(const TensorLike& x, bool lower, std::string_view on_error) {
  THEANO_USER_CHECK(on_error == "raise" || on_error == "nan", ValueError)
      << "cholesky: on_error must be \"raise\" or \"nan\", got \"" << on_error << "\"";
  return OpPtr(new Cholesky(lower, on_error == "nan"))->apply1({detail::as_float(x)});
}

Var cho_solve(const std::pair<TensorLike, bool>& c_and_lower, const TensorLike& b) {
  auto [c, bv] = detail::as_common_float(c_and_lower.first, b);
  const int b_ndim = tensor_type(bv)->ndim() == 1 ? 1 : 2;
  return OpPtr(new CholeskySolve(c_and_lower.second, b_ndim))->apply1({c, bv});
}

}  // namespace theano::tensor::linalg
