// Rewrites of the linear solvers (compiler/src/rewrite/linalg_solve.cpp): each
// one's graph before / after (equal_computations against a graph built by
// hand, printed on failure), the optimized function's values against the
// unoptimized one's, and the cases each must leave alone.
#include <doctest/doctest.h>

#include "linalg_rewrite_test_util.h"

using namespace theano;
using namespace theano::test;
using namespace theano::test::la_rw;

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_inv_to_solve: dot(inv(A), b) -> solve(A, b), dot(b, inv(A)) -> solve(A.T, b.T).T") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A"), B = T::tensor(DType::Float64, {4, 3}, "B");
    const Var C = T::tensor(DType::Float64, {3, 4}, "C"), v = T::tensor(DType::Float64, {4}, "v");
    const NDArray a = general({4, 4}), b = uniform({4, 3}), c = uniform({3, 4}), w = uniform({4});
    check({A, B}, {T::dot(LA::inv(A), B)}, {LA::solve(A, B)}, {a, b});
    check({A, v}, {T::dot(LA::inv(A), v)}, {LA::solve(A, v)}, {a, w});
    check({A, C}, {T::dot(C, LA::inv(A))}, {LA::matrix_transpose(LA::solve(A.T(), C.T()))}, {a, c});
    check({A, v}, {T::dot(v, LA::inv(A))}, {LA::solve(A.T(), v)}, {a, w});
    // inv(A).T is inv(A.T).
    check({A, B}, {T::dot(LA::inv(A).T(), B)}, {LA::solve(A.T(), B)}, {a, b});
    // Left alone: no inverse operand.
    CHECK(count_ops(optimized({A, B}, {T::dot(A, B)}), "Solve") == 0);
  }

  TEST_CASE("local_inv_to_solve: batched matmul forms") {
    const Var A = T::tensor(DType::Float64, {2, 3, 3}, "A"), B = T::tensor(DType::Float64, {2, 3, 4}, "B");
    const Var C = T::tensor(DType::Float64, {2, 4, 3}, "C"), M = T::tensor(DType::Float64, {3, 3}, "M");
    const NDArray a = general({2, 3, 3}), b = uniform({2, 3, 4}), c = uniform({2, 4, 3}), m = general({3, 3});
    check({A, B}, {LA::matmul(LA::inv(A), B)}, {LA::solve(A, B)}, {a, b});
    check({A, C}, {LA::matmul(C, LA::inv(A))},
          {LA::matrix_transpose(LA::solve(LA::matrix_transpose(A), LA::matrix_transpose(C)))}, {a, c});
    // One matrix against a batch of right-hand sides (batch dims broadcast): then factored once
    // (local_reuse_decomposition); and a transposed inverse.
    const auto [LU, piv] = LA::lu_factor(M);
    check({M, B}, {LA::matmul(LA::inv(M), B)}, {lu_rows_solve(LU, piv, B)}, {m, b}, "stabilize", true);
    check({A, B}, {LA::matmul(LA::matrix_transpose(LA::inv(A)), B)}, {LA::solve(LA::matrix_transpose(A), B)}, {a, b});
  }

  TEST_CASE("local_solve_transpose: triangular solves and sym / pos solves read A.T in place") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A"), b = T::tensor(DType::Float64, {4, 2}, "b");
    const NDArray a = general({4, 4}), s = spd({4, 4}), vb = uniform({4, 2});
    check({A, b}, {LA::solve_triangular(A.T(), b, true)},
          {OpPtr(new LA::SolveTriangular(false, true, false, 2))->apply1({A, b})}, {a, vb});
    check({A, b}, {LA::solve_triangular(A.T(), b, false, 1, true)},
          {OpPtr(new LA::SolveTriangular(true, false, true, 2))->apply1({A, b})}, {a, vb});
    check({A, b}, {LA::solve(A.T(), b, "pos", true)}, {LA::solve(A, b, "pos", false)}, {s, vb});
    check({A, b}, {LA::solve(A.T(), b, "sym", false)}, {LA::solve(A, b, "sym", true)}, {a, vb});
    check({A, b}, {LA::cho_solve({A.T(), true}, b)}, {LA::cho_solve({A, false}, b)}, {general({4, 4}), vb});
    // A general solve reads all of A.T: left alone.
    CHECK(count_ops(optimized({A, b}, {LA::solve(A.T(), b)}), "DimShuffle") == 1);
  }

  TEST_CASE("local_solve_triangular_structure: solve of a Cholesky factor, its transpose, tril") {
    const Var S = T::tensor(DType::Float64, {4, 4}, "S"), b = T::tensor(DType::Float64, {4, 2}, "b");
    const NDArray s = spd({4, 4}), vb = uniform({4, 2});
    const Var Lc = LA::cholesky(S);
    check({S, b}, {LA::solve(Lc, b)}, {LA::solve_triangular(Lc, b, true)}, {s, vb});
    // cholesky(S).T is upper: read as L with trans.
    check({S, b}, {LA::solve(Lc.T(), b)}, {LA::solve_triangular(Lc, b, true, 1)}, {s, vb});
    const Var U = LA::cholesky(S, false);
    check({S, b}, {LA::solve(U, b)}, {LA::solve_triangular(U, b, false)}, {s, vb});
    check({S, b}, {LA::solve(LA::triu(S), b)}, {LA::solve_triangular(LA::triu(S), b, false)}, {s, vb});
    // A tril of unknown shape may be rectangular: left alone.
    const Var X = T::matrix("X", DType::Float64);
    CHECK(count_ops(optimized({X, b}, {LA::solve(LA::tril(X), b)}), "Solve") == 1);
  }

  TEST_CASE("local_solve_cholesky_product: solve(L L^T, b) -> cho_solve((L, True), b)") {
    const Var S = T::tensor(DType::Float64, {4, 4}, "S"), b = T::tensor(DType::Float64, {4, 2}, "b");
    const NDArray s = spd({4, 4}), vb = uniform({4, 2});
    const Var Lc = LA::cholesky(S), U = LA::cholesky(S, false);
    check({S, b}, {LA::solve(T::dot(Lc, Lc.T()), b)}, {LA::cho_solve({Lc, true}, b)}, {s, vb});
    check({S, b}, {LA::solve(T::dot(U.T(), U), b)}, {LA::cho_solve({U, false}, b)}, {s, vb});
    // L^T L is not the factor's product: left alone.
    CHECK(count_ops(optimized({S, b}, {LA::solve(T::dot(Lc.T(), Lc), b)}), "CholeskySolve") == 0);
  }

  TEST_CASE("local_paired_triangular_solves_to_cho_solve: L^-T (L^-1 b) -> cho_solve((L, True), b)") {
    const Var S = T::tensor(DType::Float64, {4, 4}, "S"), b = T::tensor(DType::Float64, {4, 2}, "b");
    const NDArray s = spd({4, 4}), vb = uniform({4, 2});
    const Var Lc = LA::cholesky(S);
    const Var alpha = LA::solve_triangular(Lc.T(), LA::solve_triangular(Lc, b, true), false);
    check({S, b}, {alpha}, {LA::cho_solve({Lc, true}, b)}, {s, vb}, "fast_run");
    const Var U = LA::cholesky(S, false);
    check({S, b}, {LA::solve_triangular(U, LA::solve_triangular(U.T(), b, true), false)}, {LA::cho_solve({U, false}, b)},
          {s, vb}, "fast_run");
    // The inner solve used elsewhere (v . v in a GP's quadratic term) is computed anyway: left alone.
    const Var v = LA::solve_triangular(Lc, b, true);
    CHECK(count_ops(optimized({S, b}, {LA::solve_triangular(Lc.T(), v, false), v}, "fast_run"), "CholeskySolve") == 0);
  }

  TEST_CASE("local_reuse_decomposition: solves of one matrix share one lu_factor / cholesky") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A"), b1 = T::tensor(DType::Float64, {4, 2}, "b1");
    const Var b2 = T::tensor(DType::Float64, {4}, "b2"), b3 = T::tensor(DType::Float64, {4, 3}, "b3");
    const NDArray a = general({4, 4}), s = spd({4, 4}), v1 = uniform({4, 2}), v2 = uniform({4}), v3 = uniform({4, 3});
    {
      const auto [LU, piv] = LA::lu_factor(A);
      check({A, b1, b2, b3}, {LA::solve(A, b1), LA::solve(A, b2), LA::solve(A.T(), b3)},
            {lu_rows_solve(LU, piv, b1), lu_rows_solve(LU, piv, b2), lu_rows_solve(LU, piv, b3, true)}, {a, v1, v2, v3},
            "stabilize", true);
      const auto fg = optimized({A, b1, b2, b3}, {LA::solve(A, b1), LA::solve(A, b2), LA::solve(A.T(), b3)});
      CHECK(count_ops(fg, "LUFactor") == 1);
      CHECK(count_ops(fg, "Solve") == 0);
    }
    {  // pos: one cholesky; the triangle read follows the transpose
      const Var Lc = LA::cholesky(A, false);
      check({A, b1, b2}, {LA::solve(A, b1, "pos"), LA::solve(A.T(), b2, "pos", true)},
            {LA::cho_solve({Lc, false}, b1), LA::cho_solve({Lc, false}, b2)}, {s, v1, v2});
    }
    {  // an lu_factor / cholesky computed anyway is reused by a single solve
      const auto [LU, piv] = LA::lu_factor(A);
      check({A, b1}, {LA::solve(A, b1), LU}, {lu_rows_solve(LU, piv, b1), LU}, {a, v1}, "stabilize", true);
      const Var Lc = LA::cholesky(A);
      check({A, b1}, {LA::solve(A, b1, "pos", true), Lc}, {LA::cho_solve({Lc, true}, b1), Lc}, {s, v1});
    }
    {  // one matrix solved against a batch: factored once
      const Var Bb = T::tensor(DType::Float64, {5, 4, 2}, "Bb");
      const auto [LU, piv] = LA::lu_factor(A);
      check({A, Bb}, {LA::solve(A, Bb)}, {lu_rows_solve(LU, piv, Bb)}, {a, uniform({5, 4, 2})}, "stabilize", true);
    }
    {  // a batch of matrices: lu_solve's graph
      const Var Ab = T::tensor(DType::Float64, {3, 4, 4}, "Ab"), Bb = T::tensor(DType::Float64, {3, 4, 2}, "Bb");
      const Var Cb = T::tensor(DType::Float64, {3, 4, 2}, "Cb");
      const auto [LU, piv] = LA::lu_factor(Ab);
      check({Ab, Bb, Cb}, {LA::solve(Ab, Bb), LA::solve(Ab, Cb)}, {LA::lu_solve({LU, piv}, Bb), LA::lu_solve({LU, piv}, Cb)},
            {general({3, 4, 4}), uniform({3, 4, 2}), uniform({3, 4, 2})}, "stabilize", true);
    }
    // Left alone: one solve; solves of different matrices; a pos solve reading the other triangle.
    CHECK(count_ops(optimized({A, b1}, {LA::solve(A, b1)}), "Solve") == 1);
    const Var A2 = T::tensor(DType::Float64, {4, 4}, "A2");
    CHECK(count_ops(optimized({A, A2, b1}, {LA::solve(A, b1), LA::solve(A2, b1)}), "Solve") == 2);
    CHECK(count_ops(optimized({A, b1}, {LA::solve(A, b1, "pos", true), LA::cholesky(A, false)}), "CholeskySolve") == 0);
    CHECK(count_ops(optimized({A, b1}, {LA::solve(A, b1, "sym"), LA::solve(A, b1 * 2.0, "sym")}), "Solve") == 2);
  }

  TEST_CASE("linalg solve rewrites: a GP's inv(K) y and quadratic form through one Cholesky") {
    // y^T K^-1 y and K^-1 y written with inv: one factorization, values unchanged.
    const Var K = T::tensor(DType::Float64, {6, 6}, "K"), y = T::tensor(DType::Float64, {6}, "y");
    const Var Ki = LA::inv(K);
    const Var alpha = T::dot(Ki, y), quad = T::dot(y, T::dot(Ki, y));
    const auto fg = optimized({K, y}, {alpha, quad});
    CHECK(count_ops(fg, "MatrixInverse") == 0);
    check_values({K, y}, {alpha, quad}, {spd({6, 6}), uniform({6})}, 1e-8);
  }
}
