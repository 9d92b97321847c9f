// Rewrites of the linear solvers (theano/tensor/linalg.h; docs/linalg.md,
// "Rewrites"), PyTensor's tensor/rewriting/linalg ideas written for this op
// set: a product with an inverse becomes a solve (more accurate, and one
// factorization instead of an inverse and a product), solves of transposed or
// structured matrices read them in place, and several solves of one matrix
// share one factorization (lu_factor + lu_solve, cholesky + cho_solve).
// Every rewrite keeps the ops' errors: a matrix the original would reject
// (singular, not positive definite) is rejected by the replacement too.
#include <string>
#include <tuple>

#include "algebra.h"
#include "linalg_match.h"
#include "linalg_rewrites.h"
#include "rewrites.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/math.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace L = theano::tensor::linalg;
using la::op_of;
using la::Structure;

namespace {

int rank(const Var& v) { return T::tensor_type(v)->ndim(); }

RewriteResult fitted(const Var& v, const Apply& node) {
  std::vector<Var> refs;
  for (const Var& in : node.inputs()) refs.push_back(in);
  return fitted_exact(v, node, refs);
}

}  // namespace

// dot(inv(A), b) -> solve(A, b); dot(b, inv(A)) -> solve(A.T, b.T).T (a vector b: solve(A.T, b));
// matmul(inv(A), B) and matmul(B, inv(A)) with batch dims likewise; inv(A).T reads as inv(A.T)
NodeRewriterPtr local_inv_to_solve() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_inv_to_solve", {"Dot", "BatchedDot", "CAReduce"},
      "dot(inv(A), b) -> solve(A, b); dot(b, inv(A)) -> solve(A.T, b.T).T (also matmul with batch dims)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const std::optional<la::Product> p = la::product_of(node.output(0));
        if (!p) return RewriteResult::fail("not a matrix product");
        if (!is_float(T::tensor_type(node.output(0))->dtype())) return RewriteResult::fail("not a float product");
        // An operand inv(A), or inv(A).T = inv(A.T).
        auto inverse_of = [](const Var& v) -> Var {
          if (op_of<L::MatrixInverse>(v)) return v.owner()->input(0);
          const Var x = la::transpose_input(v);
          if (op_of<L::MatrixInverse>(x)) return la::transposed(x.owner()->input(0));
          return {};
        };
        if (const Var a = inverse_of(p->left)) return fitted(L::solve(a, p->right), node);
        if (const Var a = inverse_of(p->right)) {
          if (rank(p->left) == 1) return fitted(L::solve(la::transposed(a), p->left), node);
          return fitted(la::transposed(L::solve(la::transposed(a), la::transposed(p->left))), node);
        }
        return RewriteResult::fail("no operand is an inverse");
      });
  return r;
}

// solve_triangular(A.T, b, lower, trans) -> solve_triangular(A, b, !lower, !trans);
// solve(A.T, b, sym | pos, lower) -> solve(A, b, sym | pos, !lower); cho_solve((C.T, lower), b) -> cho_solve((C, !lower), b)
NodeRewriterPtr local_solve_transpose() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_solve_transpose", {"SolveTriangular", "Solve", "CholeskySolve"},
      "solve_triangular(A.T, b, lower, trans) -> solve_triangular(A, b, !lower, !trans); solve(A.T, b, sym|pos, "
      "lower) -> solve(A, b, sym|pos, !lower); cho_solve((C.T, lower), b) -> cho_solve((C, !lower), b)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var a = la::transpose_input(node.input(0));
        if (!a) return RewriteResult::fail("A is not a transpose");
        const Var& b = node.input(1);
        OpPtr op;
        if (const auto* st = dynamic_cast<const L::SolveTriangular*>(node.op().get())) {
          op = OpPtr(new L::SolveTriangular(!st->lower(), !st->trans(), st->unit_diagonal(), st->b_ndim()));
        } else if (const auto* s = dynamic_cast<const L::Solve*>(node.op().get())) {
          // The matrix solved is the symmetric one built from the triangle read: A.T's lower triangle is
          // A's upper one, transposed.
          if (s->assume_a() == "gen") return RewriteResult::fail("a general solve reads all of A.T");
          op = OpPtr(new L::Solve(s->assume_a(), !s->lower(), s->b_ndim()));
        } else {
          const auto& cs = static_cast<const L::CholeskySolve&>(*node.op());
          op = OpPtr(new L::CholeskySolve(!cs.lower(), cs.b_ndim()));
        }
        return fitted(op->apply1({a, b}), node);
      });
  return r;
}

// solve(T, b) -> solve_triangular(T, b, lower) for a triangular T (cholesky(X), cholesky(X).T, tril, triu, a diagonal)
NodeRewriterPtr local_solve_triangular_structure() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_solve_triangular_structure", {"Solve"},
      "solve(T, b, gen) -> solve_triangular(T, b, lower) for T triangular (cholesky(X), its transpose, tril, triu, "
      "a diagonal)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& s = static_cast<const L::Solve&>(*node.op());
        if (s.assume_a() != "gen") return RewriteResult::fail("not a general solve");
        const Var& a = node.input(0);
        const Structure st = la::structure_of(a);
        if (st == Structure::General) return RewriteResult::fail("A is not known triangular");
        if (!la::is_square(a)) return RewriteResult::fail("A is not known square");
        const Var x = OpPtr(new L::SolveTriangular(la::is_lower(st), false, false, s.b_ndim()))->apply1({a, node.input(1)});
        return fitted(x, node);
      });
  return r;
}

namespace {

/// The Cholesky factor C and its `lower` when A = C C^T (C = cholesky(X, lower=true)) or A = C^T C
/// (C = cholesky(X, lower=false)), computed by a product; a null Var otherwise.
std::pair<Var, bool> cholesky_product_factor(const Var& a) {
  const std::optional<la::Product> p = la::product_of(a);
  if (!p || rank(p->left) < 2 || rank(p->right) < 2) return {};
  if (const auto* ch = op_of<L::Cholesky>(p->left); ch && ch->lower() && la::transpose_input(p->right) == p->left)
    return {p->left, true};
  if (const auto* ch = op_of<L::Cholesky>(p->right); ch && !ch->lower() && la::transpose_input(p->left) == p->right)
    return {p->right, false};
  return {};
}

}  // namespace

// solve(L L^T, b) -> cho_solve((L, True), b) for L = cholesky(X); solve(U^T U, b) -> cho_solve((U, False), b)
NodeRewriterPtr local_solve_cholesky_product() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_solve_cholesky_product", {"Solve"},
      "solve(L L^T, b) -> cho_solve((L, True), b), solve(U^T U, b) -> cho_solve((U, False), b) for L, U "
      "cholesky factors",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& s = static_cast<const L::Solve&>(*node.op());
        const auto [c, lower] = cholesky_product_factor(node.input(0));
        if (!c) return RewriteResult::fail("A is not a Cholesky factor times its transpose");
        if (op_of<L::Cholesky>(c)->nan_on_error())
          return RewriteResult::fail("a factor with on_error=\"nan\" may be NaN where the product is regular");
        return fitted(OpPtr(new L::CholeskySolve(lower, s.b_ndim()))->apply1({c, node.input(1)}), node);
      });
  return r;
}

// solve_triangular(L, solve_triangular(L, b, lower=True), lower=True, trans=1) -> cho_solve((L, True), b) for
// L = cholesky(X) (as solve_triangular(L.T, ...) arrives after local_solve_transpose), the inner solve used once
NodeRewriterPtr local_paired_triangular_solves_to_cho_solve() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_paired_triangular_solves_to_cho_solve", {"SolveTriangular"},
      "solve_triangular(L, solve_triangular(L, b), trans=1) -> cho_solve((L, lower), b) for L = cholesky(X, lower) "
      "(lower: L^-T L^-1 b; upper: U^-1 U^-T b)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& outer = static_cast<const L::SolveTriangular&>(*node.op());
        const Var& c = node.input(0);
        const auto* ch = op_of<L::Cholesky>(c);
        if (!ch || ch->nan_on_error() || outer.unit_diagonal() || outer.lower() != ch->lower())
          return RewriteResult::fail("A is not a Cholesky factor read in its triangle");
        const Var& y = node.input(1);
        const auto* inner = op_of<L::SolveTriangular>(y);
        if (!inner || y.owner()->input(0) != c || inner->lower() != outer.lower() || inner->unit_diagonal() ||
            inner->b_ndim() != outer.b_ndim())
          return RewriteResult::fail("b is not a triangular solve of the same factor");
        // lower: A = L L^T, x = L^-T (L^-1 b): inner trans 0, outer trans 1; upper: A = U^T U, x = U^-1 (U^-T b).
        if (inner->trans() != !ch->lower() || outer.trans() != ch->lower())
          return RewriteResult::fail("the two solves are not the factor's forward and backward substitutions");
        if (fg.clients(y).size() != 1) return RewriteResult::fail("the inner solve is used elsewhere (computed anyway)");
        return fitted(OpPtr(new L::CholeskySolve(ch->lower(), outer.b_ndim()))->apply1({c, y.owner()->input(1)}),
                      node);
      });
  return r;
}

namespace {

/// Whether `n` solves with the matrix A (through A.T when `transposed`) as `assume_a`, reading A's `lower`
/// triangle for pos (a solve of A.T reads the other triangle of A).
bool is_solve_like(const Apply& n, const std::string& assume_a, bool lower, bool transposed) {
  const auto* s = dynamic_cast<const L::Solve*>(n.op().get());
  if (!s || s->assume_a() != assume_a) return false;
  return assume_a == "gen" || (s->lower() != transposed) == lower;
}

/// Whether A's batch dims broadcast against b's (A factored once per b entry by a plain solve).
bool a_broadcast_in_batch(const Var& a, const Var& b, int b_ndim) {
  const int ab = rank(a) - 2, bb = rank(b) - b_ndim;
  if (bb > ab) return true;
  const auto& as = T::tensor_type(a)->shape();
  const auto& bs = T::tensor_type(b)->shape();
  for (int i = 0; i < ab && i < bb; ++i) {
    const std::size_t ai = static_cast<std::size_t>(ab - 1 - i), bi = static_cast<std::size_t>(bb - 1 - i);
    if (as[ai] == T::Dim(1) && bs[bi] != T::Dim(1)) return true;
  }
  return false;
}

/// x with A x = b (A^T x = b with `trans`) from the lu_factor {LU, piv} of a matrix A (no batch dims): with
/// A[perm] = L U, x = U^-1 L^-1 b[perm], and A^T x = b gives x = w[p] for w = L^-T U^-T b and p the inverse
/// order. The rows are gathered (take) where lu_solve multiplies by a permutation matrix (n^2 products and an
/// n x n matrix per solve).
Var lu_solve_rows(const Var& LU, const Var& piv, const Var& b, int b_ndim, bool trans) {
  const int axis = rank(b) - b_ndim;
  auto tri = [&](bool lower, bool t, bool unit, const Var& y) {
    return OpPtr(new L::SolveTriangular(lower, t, unit, b_ndim))->apply1({LU, y});
  };
  if (!trans) return tri(false, false, false, tri(true, false, true, T::take(b, L::pivot_to_permutation(piv), axis)));
  return T::take(tri(true, true, true, tri(false, true, false, b)), L::pivot_to_permutation(piv, true), axis);
}

}  // namespace

// solve(A, b1), solve(A, b2), solve(A.T, b3) -> lu_solve(lu_factor(A), b_i, trans) with one lu_factor (for a
// matrix A, its rows gathered rather than multiplied by a permutation matrix);
// solve(A, b, pos) likewise through one cholesky(A) and cho_solve; an existing lu_factor(A) / cholesky(A) reused;
// a det / slogdet of A counts as a use of the LU (local_det_of_lu then reads it)
NodeRewriterPtr local_reuse_decomposition() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_reuse_decomposition", {"Solve"},
      "solve(A, b_i) (and solve(A.T, b_j)) -> lu_solve(lu_factor(A), b_i) with one lu_factor(A); solve(A, b_i, "
      "pos) -> cho_solve((cholesky(A), lower), b_i) with one cholesky(A)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& s = static_cast<const L::Solve&>(*node.op());
        if (s.assume_a() == "sym") return RewriteResult::fail("assume_a=\"sym\" has no factorization op to share");
        const bool gen = s.assume_a() == "gen";
        const Var& b = node.input(1);
        if (s.b_ndim() == 1 && rank(b) != 1) return RewriteResult::fail("a batch of vector right-hand sides");
        Var a = node.input(0);
        bool trans = false;
        if (Var x = la::transpose_input(a)) {
          a = x;
          trans = true;
        }
        const bool lower = s.lower() != trans;  // pos: the triangle of `a` read
        int solves = 0;
        auto count = [&](const Var& v, bool t) {
          for (const Client& c : fg.clients(v))
            if (!c.is_output() && c.index == 0 && is_solve_like(*c.node, s.assume_a(), lower, t)) ++solves;
        };
        count(a, false);
        Var factor, piv;
        for (const Client& c : fg.clients(a)) {
          if (c.is_output()) continue;
          const Var out = c.node->output(0);
          if (la::transpose_input(out) == a) count(out, true);
          if (gen && (op_of<L::Det>(out) || op_of<L::SLogDet>(out))) ++solves;  // local_det_of_lu shares the LU
          if (!factor && gen && op_of<L::LUFactor>(out)) {
            factor = out;
            piv = c.node->output(1);
          }
          if (const auto* ch = op_of<L::Cholesky>(out); !factor && !gen && ch && ch->lower() == lower && !ch->nan_on_error())
            factor = out;
        }
        if (solves < 2 && !factor && !a_broadcast_in_batch(a, b, s.b_ndim()))
          return RewriteResult::fail("A is solved once and factored nowhere else");
        if (!factor) {
          if (gen) std::tie(factor, piv) = L::lu_factor(a);
          else factor = L::cholesky(a, lower);
        }
        const Var x = !gen             ? OpPtr(new L::CholeskySolve(lower, s.b_ndim()))->apply1({factor, b})
                      : rank(a) == 2 ? lu_solve_rows(factor, piv, b, s.b_ndim(), trans)
                                     : L::lu_solve({factor, piv}, b, trans ? 1 : 0);
        return fitted(x, node);
      });
  return r;
}

}  // namespace theano::rewrite::detail
