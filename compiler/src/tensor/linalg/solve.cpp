// SolveTriangular and Solve (solve_triangular, solve): make_node, perform
// through kernels/linalg.h (lapack_op.cpp's driver), infer_shape and the
// gradients (Giles 2008: b̄ = op(A)^-T x̄, Ā = -b̄ x^T, restricted or folded
// onto the part of A the op reads).
#include <utility>

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"

namespace theano::tensor::linalg {
namespace {

ApplyPtr make_solve_node(const LapackOp& op, int b_ndim, std::vector<Var> inputs) {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << op.name() << " takes 2 inputs, got " << inputs.size();
  THEANO_USER_CHECK(b_ndim == 1 || b_ndim == 2, ValueError) << op.name() << ": b_ndim must be 1 or 2, got " << b_ndim;
  const Var b = as_tensor_variable(inputs[1]);
  const StaticShape core = tensor_type(b)->ndim() >= b_ndim ? detail::core_static(b, b_ndim) : StaticShape{};
  return detail::make_lapack_node(op, {inputs[0], b}, {core});
}

std::vector<Var> solve_shape(const LapackOp& op, int b_ndim, const std::vector<std::vector<Var>>& shapes) {
  std::vector<Var> s = detail::batch_shape(op, shapes);
  const std::vector<Var>& b = shapes[1];
  s.insert(s.end(), b.end() - b_ndim, b.end());
  return s;
}

}  // namespace

THEANO_REGISTER_OP(SolveTriangular);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(Solve);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp

int SolveTriangular::la_kind() const { return THEANO_LA_SOLVE_TRIANGULAR; }
int Solve::la_kind() const { return THEANO_LA_SOLVE; }

Solve::Solve(std::string assume_a, bool lower, int b_ndim)
    : assume_a_(std::move(assume_a)), lower_(lower), b_ndim_(b_ndim) {
  THEANO_USER_CHECK(assume_a_ == "gen" || assume_a_ == "sym" || assume_a_ == "pos", ValueError)
      << "Solve: assume_a must be \"gen\", \"sym\" or \"pos\", got \"" << assume_a_ << "\"";
}

std::vector<std::int64_t> Solve::la_options() const {
  return {assume_a_ == "gen" ? 0 : assume_a_ == "sym" ? 1 : 2, lower_, b_ndim_};
}

ApplyPtr SolveTriangular::make_node(std::vector<Var> inputs) const {
  return make_solve_node(*this, b_ndim_, std::move(inputs));
}
ApplyPtr Solve::make_node(std::vector<Var> inputs) const { return make_solve_node(*this, b_ndim_, std::move(inputs)); }

void SolveTriangular::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void Solve::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> SolveTriangular::infer_shape(const Apply&,
                                                           const std::vector<std::vector<Var>>& shapes) const {
  return {solve_shape(*this, b_ndim_, shapes)};
}
std::vector<std::vector<Var>> Solve::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {solve_shape(*this, b_ndim_, shapes)};
}

// x = op(A)^-1 b: b̄ = op(A)^-T x̄; Ā = -b̄ x^T (op(A) = A) or -x b̄^T (A^T),
// in A's triangle read (without the diagonal when it is taken as ones).
std::vector<Var> SolveTriangular::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var()};
  const Var& A = node.input(0);
  const Var gb = OpPtr(new SolveTriangular(lower_, !trans_, unit_diagonal_, b_ndim_))->apply1({A, gz});
  const Var gc = detail::as_column(gb, b_ndim_), xc = detail::as_column(node.output(0), b_ndim_);
  const Var outer = trans_ ? matmul(xc, matrix_transpose(gc)) : matmul(gc, matrix_transpose(xc));
  Var mask = lower_ ? detail::tril_mask(A) : matrix_transpose(detail::tril_mask(A));
  if (unit_diagonal_) mask = sub(mask, detail::eye_like(A));
  return {detail::sum_to(neg(mul(outer, mask)), A), detail::sum_to(gb, node.input(1))};
}

// x = A^-1 b: b̄ = A^-T x̄, Ā = -b̄ x^T; for sym / pos the matrix solved is
// the symmetric one built from A's triangle, so Ā folds onto that triangle.
std::vector<Var> Solve::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var()};
  const Var& A = node.input(0);
  const bool gen = assume_a_ == "gen";
  const Var gb = gen ? OpPtr(new Solve("gen", lower_, b_ndim_))->apply1({matrix_transpose(A), gz})
                     : OpPtr(new Solve(assume_a_, lower_, b_ndim_))->apply1({A, gz});
  const Var G = neg(matmul(detail::as_column(gb, b_ndim_), matrix_transpose(detail::as_column(node.output(0), b_ndim_))));
  const Var gA = gen ? G : detail::fold_onto_triangle(G, lower_);
  return {detail::sum_to(gA, A), detail::sum_to(gb, node.input(1))};
}

Var solve_triangular(const TensorLike& a, const TensorLike& b, bool lower, int trans, bool unit_diagonal) {
  THEANO_USER_CHECK(trans == 0 || trans == 1, ValueError)
      << "solve_triangular: trans must be 0 (\"N\") or 1 (\"T\"), got " << trans;
  auto [av, bv] = detail::as_common_float(a, b);
  const int b_ndim = tensor_type(bv)->ndim() == 1 ? 1 : 2;
  return OpPtr(new SolveTriangular(lower, trans == 1, unit_diagonal, b_ndim))->apply1({av, bv});
}

Var solve(const TensorLike& a, const TensorLike& b, std::string_view assume_a, bool lower) {
  auto [av, bv] = detail::as_common_float(a, b);
  const int b_ndim = tensor_type(bv)->ndim() == 1 ? 1 : 2;
  return OpPtr(new Solve(std::string(assume_a), lower, b_ndim))->apply1({av, bv});
}

}  // namespace theano::tensor::linalg
