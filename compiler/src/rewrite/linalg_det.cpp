// Rewrites of determinants (theano/tensor/linalg.h; docs/linalg.md,
// "Rewrites"): the determinant of a matrix of known structure as a product of
// its diagonal (no LU), of an inverse as a reciprocal, of a symmetric matrix
// factored elsewhere through that factor; and the stabilizations of their
// logarithms: log(det(A)) through slogdet, log(prod(x)) as a sum of logs, so
// that log-determinants of large matrices do not overflow where the
// determinant itself does (det(100 I) of size 200 is 1e400).
#include <cmath>

#include "algebra.h"
#include "linalg_match.h"
#include "linalg_rewrites.h"
#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace L = theano::tensor::linalg;
using la::op_of;
using la::Structure;

namespace {

int rank(const Var& v) { return T::tensor_type(v)->ndim(); }

/// The diagonal of the last two axes.
Var matrix_diagonal(const Var& x) { return L::diagonal(x, 0, -2, -1); }

/// prod over the last axis.
Var prod_last(const Var& d) { return T::prod(d, T::Axes(rank(d) - 1)); }

/// v after a run-time check that x's last two axes are equal (when not known statically).
Var square_checked(const Var& v, const Var& x, const char* what) {
  if (la::is_square(x)) return v;
  const int n = rank(x);
  return T::assert_op(v, {T::eq(T::shape_i(x, n - 2), T::shape_i(x, n - 1))},
                      std::string(what) + ": expected a square matrix, got {} x {}",
                      {T::shape_i(x, n - 2), T::shape_i(x, n - 1)});
}

/// v when it is d = diagonal(C) of a Cholesky factor C (positive, or NaN with on_error="nan").
bool is_cholesky_diagonal(const Var& v) {
  const auto* ed = op_of<L::ExtractDiag>(v);
  if (!ed || ed->offset() != 0) return false;
  const Var& c = v.owner()->input(0);
  const int n = rank(c);
  return ed->axis1() == n - 2 && ed->axis2() == n - 1 && op_of<L::Cholesky>(c);
}

/// Whether every element of v is known >= 0 or NaN.
bool nonnegative(const Var& v) {
  if (!v || !v.owner()) return false;
  for (const char* f : {"abs", "exp", "sqr", "sqrt"})
    if (T::is_elemwise(v.owner(), f)) return true;
  return is_cholesky_diagonal(v);
}

}  // namespace

// det(T) -> prod(diagonal(T)) for T triangular or diagonal (cholesky(X), tril, triu, alloc_diag, c * eye);
// det(alloc_diag(v)) -> prod(v); det(L L^T) -> prod(sqr(diagonal(L))) for a square triangular L;
// det(inv(X)) -> 1 / det(X)
NodeRewriterPtr local_det_of_structure() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_det_of_structure", {"Det"},
      "det(T) -> prod(diagonal(T)) for T triangular / diagonal; det(alloc_diag(v)) -> prod(v); det(L L^T) -> "
      "prod(sqr(diagonal(L))) for L triangular; det(inv(X)) -> 1 / det(X)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        if (op_of<L::MatrixInverse>(x)) {  // a singular X stays an error, as inv's
          const Var d = L::det(x.owner()->input(0));
          return fitted_exact(T::reciprocal(T::assert_op(d, {T::all_(T::neq(d, constant_like(0, d)))},
                                                         "det(inv(X)): X is singular")),
                              node, {});
        }
        if (op_of<L::AllocDiag>(x) && la::structure_of(x) == Structure::Diagonal)
          return fitted_exact(prod_last(x.owner()->input(0)), node, {});
        if (la::structure_of(x) != Structure::General)
          return fitted_exact(square_checked(prod_last(matrix_diagonal(x)), x, "det"), node, {});
        if (const std::optional<la::Product> p = la::product_of(x);
            p && rank(p->left) >= 2 && rank(p->right) >= 2 && la::transpose_input(p->right) == p->left &&
            la::structure_of(p->left) != Structure::General && la::is_square(p->left))
          return fitted_exact(prod_last(T::sqr(matrix_diagonal(p->left))), node, {});
        return RewriteResult::fail("the matrix has no known structure");
      });
  return r;
}

// det(A) -> prod(sqr(diagonal(L))) when L = cholesky(A) is computed anyway and A is known symmetric;
// det(A) -> sign * exp(logabsdet) when slogdet(A) is computed anyway
NodeRewriterPtr local_det_of_factored() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_det_of_factored", {"Det"},
      "det(A) -> prod(sqr(diagonal(cholesky(A)))) for a symmetric A factored elsewhere; det(A) -> sign * "
      "exp(logabsdet) of an slogdet(A) computed elsewhere",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        std::optional<bool> symmetric;
        for (const Client& c : fg.clients(x)) {
          if (c.is_output() || c.node == &node) continue;
          if (op_of<L::SLogDet>(c.node->output(0)))
            return fitted_exact(T::mul(c.node->output(0), T::exp(c.node->output(1))), node, {});
          const auto* ch = op_of<L::Cholesky>(c.node->output(0));
          if (!ch || ch->nan_on_error()) continue;
          // cholesky reads one triangle: its factor is A's only when A is symmetric.
          if (!symmetric) symmetric = la::is_symmetric(x);
          if (*symmetric) return fitted_exact(prod_last(T::sqr(matrix_diagonal(c.node->output(0)))), node, {});
        }
        return RewriteResult::fail("A is not factored elsewhere (by a cholesky of a symmetric A, or slogdet)");
      });
  return r;
}

namespace {

/// (-1)^(row swaps) of lu_factor's pivots (piv[i] != i is a swap), in d's dtype (d: the factor's diagonal).
Var pivot_sign(const Var& piv, const Var& d) {
  const int nd = rank(piv);
  const Var swapped = T::neq(piv, T::arange(T::shape_i(piv, nd - 1), DType::Int64));
  return T::prod(T::switch_(swapped, constant_like(-1, d), constant_like(1, d)), T::Axes(nd - 1));
}

}  // namespace

// det(A) -> prod(diagonal(LU)) * (-1)^swaps, slogdet(A) -> (prod(sign(diagonal(LU))) * (-1)^swaps,
// sum(log(abs(diagonal(LU))))) when {LU, piv} = lu_factor(A) is computed anyway (a solve's, shared)
NodeRewriterPtr local_det_of_lu() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_det_of_lu", {"Det", "SLogDet"},
      "det(A) -> prod(diagonal(LU)) * (-1)^swaps; slogdet(A) -> (prod(sign(diagonal(LU))) * (-1)^swaps, "
      "sum(log(abs(diagonal(LU))))) for an lu_factor(A) computed elsewhere",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        for (const Client& c : fg.clients(x)) {
          if (c.is_output() || !op_of<L::LUFactor>(c.node->output(0))) continue;
          const Var d = matrix_diagonal(c.node->output(0));
          const Var sign = pivot_sign(c.node->output(1), d);
          if (op_of<L::Det>(node.output(0))) return fitted_exact(T::mul(prod_last(d), sign), node, {});
          const Var s = fit_exact(T::mul(prod_last(T::sign(d)), sign), node.output(0), {});
          const Var l = fit_exact(T::sum(T::log(T::abs(d)), T::Axes(rank(d) - 1)), node.output(1), {});
          if (!s || !l) return RewriteResult::fail("the replacement cannot keep the output types");
          return std::vector<Var>{s, l};
        }
        return RewriteResult::fail("A is not LU-factored elsewhere");
      });
  return r;
}

// log(det(A)) -> switch(sign < 0, nan, logabsdet); log(abs(det(A))) -> logabsdet, (sign, logabsdet) = slogdet(A)
NodeRewriterPtr local_log_det() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_det", {"Elemwise:log"},
      "log(det(A)) -> switch(sign < 0, nan, logabsdet); log(abs(det(A))) -> logabsdet with (sign, logabsdet) = "
      "slogdet(A)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var d = node.input(0);
        const bool absolute = bool(owner_input(d, "abs"));
        if (absolute) d = owner_input(d, "abs");
        if (!op_of<L::Det>(d)) return RewriteResult::fail("input is not det(A) or abs(det(A))");
        const auto [sign, logabs] = L::slogdet(d.owner()->input(0));
        if (absolute) return fitted_exact(logabs, node, {});
        return fitted_exact(T::switch_(T::lt(sign, constant_like(0, sign)), constant_like(NAN, logabs), logabs), node,
                            {});
      });
  return r;
}

// sign(det(A)) -> sign of slogdet(A): right where det underflows to 0 (det(0.01 I) of size 200 is 1e-400)
NodeRewriterPtr local_sign_det() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sign_det", {"Elemwise:sign"}, "sign(det(A)) -> sign with (sign, logabsdet) = slogdet(A)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& d = node.input(0);
        if (!op_of<L::Det>(d)) return RewriteResult::fail("input is not det(A)");
        return fitted_exact(L::slogdet(d.owner()->input(0)).first, node, {});
      });
  return r;
}

// log(prod(x)) -> sum(log(x)) for x >= 0 (abs, exp, sqr, sqrt, the diagonal of a Cholesky factor);
// log(prod(sqr(y))) -> 2 * sum(log(|y|)); log(abs(prod(x))) -> sum(log(abs(x)));
// log(prod(x)) -> switch(prod(sign(x)) < 0, nan, sum(log(abs(x)))) otherwise (float x)
NodeRewriterPtr local_log_prod() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_prod", {"Elemwise:log"},
      "log(prod(x)) -> sum(log(x)) for x >= 0; log(prod(sqr(y))) -> 2 * sum(log(|y|)); log(abs(prod(x))) -> "
      "sum(log(abs(x))); log(prod(x)) -> switch(prod(sign(x)) < 0, nan, sum(log(abs(x))))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var p = node.input(0);
        const bool absolute = bool(owner_input(p, "abs"));
        if (absolute) p = owner_input(p, "abs");
        const auto* red = op_of<T::CAReduce>(p);
        if (!red || red->scalar_op() != "mul" || red->pre()) return RewriteResult::fail("input is not a prod");
        const Var& x = p.owner()->input(0);
        if (!is_float(T::tensor_type(x)->dtype()) || !is_float(T::tensor_type(p)->dtype()))
          return RewriteResult::fail("not a float product");
        const T::Axes axes(red->axes());
        if (const Var y = owner_input(x, "sqr")) {
          const Var s = T::sum(T::log(nonnegative(y) ? y : T::abs(y)), axes);
          return fitted_exact(T::mul(constant_like(2, s), s), node, {});
        }
        if (nonnegative(x)) return fitted_exact(T::sum(T::log(x), axes), node, {});
        const Var logabs = T::sum(T::log(T::abs(x)), axes);
        if (absolute) return fitted_exact(logabs, node, {});
        const Var sign = T::prod(T::sign(x), axes);
        return fitted_exact(T::switch_(T::lt(sign, constant_like(0, sign)), constant_like(NAN, logabs), logabs), node,
                            {});
      });
  return r;
}

// inv(inv(A)) -> A
NodeRewriterPtr local_inv_of_inv() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_inv_of_inv", {"MatrixInverse"}, "inv(inv(A)) -> A",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        if (!op_of<L::MatrixInverse>(x)) return RewriteResult::fail("input is not an inverse");
        return fitted_exact(x.owner()->input(0), node, {});
      });
  return r;
}

// inv(D) -> alloc_diag(1 / diagonal(D)) for a diagonal D (checked nonsingular: a zero is an AssertionError, as
// inv's singular-matrix error)
NodeRewriterPtr local_inv_of_diag() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_inv_of_diag", {"MatrixInverse"}, "inv(D) -> alloc_diag(1 / diagonal(D)) for D diagonal",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        if (la::structure_of(x) != Structure::Diagonal || !la::is_square(x))
          return RewriteResult::fail("input is not a known square diagonal matrix");
        const Var d = matrix_diagonal(x);
        const Var checked = T::assert_op(d, {T::all_(T::neq(d, constant_like(0, d)))},
                                         "inv: the diagonal matrix is singular (a zero on its diagonal)");
        return fitted_exact(L::alloc_diag(T::reciprocal(checked), 0, -2, -1), node, {x});
      });
  return r;
}

// cholesky(D) -> alloc_diag(sqrt(diagonal(D))) for a diagonal D (on_error="raise"; a diagonal entry that is not
// positive is an AssertionError, as cholesky's error)
NodeRewriterPtr local_cholesky_of_diag() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_cholesky_of_diag", {"Cholesky"}, "cholesky(D) -> alloc_diag(sqrt(diagonal(D))) for D diagonal",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& ch = static_cast<const L::Cholesky&>(*node.op());
        if (ch.nan_on_error()) return RewriteResult::fail("on_error=\"nan\" fills the whole factor with NaN");
        const Var& x = node.input(0);
        if (la::structure_of(x) != Structure::Diagonal || !la::is_square(x))
          return RewriteResult::fail("input is not a known square diagonal matrix");
        const Var d = matrix_diagonal(x);
        const Var checked = T::assert_op(d, {T::all_(T::gt(d, constant_like(0, d)))},
                                         "cholesky: the diagonal matrix is not positive definite");
        return fitted_exact(L::alloc_diag(T::sqrt(checked), 0, -2, -1), node, {x});
      });
  return r;
}

}  // namespace theano::rewrite::detail
