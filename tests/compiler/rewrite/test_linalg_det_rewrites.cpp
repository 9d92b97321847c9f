// Rewrites of determinants, inverses and factors of known structure
// (compiler/src/rewrite/linalg_det.cpp): each one's graph before / after
// (equal_computations against a graph built by hand), the values against the
// unoptimized graph, the cases each must leave alone, and the stabilizations
// at inputs where the unoptimized graph overflows (a 200 x 200 matrix with
// 100 on the diagonal: det = 1e400).
#include <doctest/doctest.h>

#include <cmath>

#include "linalg_rewrite_test_util.h"

using namespace theano;
using namespace theano::test;
using namespace theano::test::la_rw;

namespace {

Var diag_of(const Var& x) { return LA::diagonal(x, 0, -2, -1); }
Var prod_last(const Var& d) { return T::prod(d, T::Axes(T::tensor_type(d)->ndim() - 1)); }
Var sum_last(const Var& d) { return T::sum(d, T::Axes(T::tensor_type(d)->ndim() - 1)); }
/// A constant of `like`'s dtype with shape (1, ..., 1) of its rank, as the rewrites make them.
Var const_like(double value, const Var& like) {
  const int n = T::tensor_type(like)->ndim();
  return T::constant(NDArray::full(std::vector<std::int64_t>(static_cast<std::size_t>(n), 1), value,
                                   T::tensor_type(like)->dtype()));
}
Var nan_switch(const Var& sign, const Var& value, const Var& nan) {
  return T::switch_(T::lt(sign, const_like(0, sign)), nan, value);
}

/// A (batch of) diagonal matrices with `value` on the diagonal plus a small perturbation off it.
NDArray near_diagonal(std::int64_t n, double value) {
  NDArray a = uniform({n, n});
  double* p = a.data_as<double>();
  for (std::int64_t i = 0; i < n * n; ++i) p[i] *= 0.01;
  for (std::int64_t i = 0; i < n; ++i) p[i * n + i] += value;
  return a;
}

double scalar_of(const NDArray& a) { return a.astype(DType::Float64).data_as<double>()[0]; }

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_det_of_structure: det of triangular, diagonal and factor products as products of diagonals") {
    const Var S = T::tensor(DType::Float64, {4, 4}, "S"), v = T::tensor(DType::Float64, {4}, "v");
    const NDArray s = spd({4, 4}), w = uniform({4});
    const Var Lc = LA::cholesky(S);
    check({S}, {LA::det(Lc)}, {prod_last(diag_of(Lc))}, {s});
    check({S}, {LA::det(LA::tril(S))}, {prod_last(diag_of(LA::tril(S)))}, {s});
    // The transposed factor's diagonal is read in place (local_diag_transpose).
    check({S}, {LA::det(LA::cholesky(S, false).T())}, {prod_last(LA::diagonal(LA::cholesky(S, false), 0, 1, 0))}, {s});
    check({v}, {LA::det(LA::alloc_diag(v))}, {prod_last(v)}, {w});
    check({S}, {LA::det(T::dot(Lc, Lc.T()))}, {prod_last(T::sqr(diag_of(Lc)))}, {s});
    const Var dS = LA::det(S);
    check({S}, {LA::det(LA::inv(S))},
          {T::reciprocal(T::assert_op(dS, {T::all_(T::neq(dS, const_like(0, dS)))}, "det(inv(X)): X is singular"))}, {s});
    {  // a singular X: still an error
      FunctionOptions opt;
      opt.mode = "fast_run";
      CHECK_THROWS_AS(function({S}, {LA::det(LA::inv(S))}, opt)({NDArray::zeros({4, 4})}), ValueError);
    }
    // Batched: the diagonals' products over the last axis.
    const Var Sb = T::tensor(DType::Float64, {3, 4, 4}, "Sb");
    check({Sb}, {LA::det(LA::cholesky(Sb))}, {prod_last(diag_of(LA::cholesky(Sb)))}, {spd({3, 4, 4})});
    // A triangular part of unknown shape: checked square at run time.
    const Var X = T::matrix("X", DType::Float64);
    const auto fg = optimized({X}, {LA::det(LA::triu(X))});
    CHECK(count_ops(fg, "Det") == 0);
    CHECK(count_ops(fg, "Assert") == 1);
    check_values({X}, {LA::det(LA::triu(X))}, {general({5, 5})});
    FunctionOptions opt;
    opt.mode = "fast_run";
    CHECK_THROWS_AS(function({X}, {LA::det(LA::triu(X))}, opt)({general({5, 5}).index(0, 0).reshape({1, 5})}),
                    ValueError);
    // Left alone: no structure.
    CHECK(count_ops(optimized({S}, {LA::det(S)}), "Det") == 1);
  }

  TEST_CASE("local_det_of_factored: det of a symmetric matrix factored by cholesky elsewhere, det beside slogdet") {
    const Var X = T::tensor(DType::Float64, {4, 4}, "X");
    const NDArray x = general({4, 4});
    const Var A = T::dot(X, X.T());
    const Var Lc = LA::cholesky(A);
    check({X}, {LA::det(A), Lc}, {prod_last(T::sqr(diag_of(Lc))), Lc}, {x});
    // log(det(A)) then is 2 * sum(log(diag(L))).
    const Var ld = sum_last(T::log(diag_of(Lc)));
    check({X}, {T::log(LA::det(A)), Lc}, {T::mul(scalar(2), ld), Lc}, {x});
    // det and log(det) of one matrix: one slogdet.
    const auto [sign, logabs] = LA::slogdet(X);
    check_nan({X}, {LA::det(X), T::log(LA::det(X))},
              [&](const Var& nan) { return std::vector<Var>{T::mul(sign, T::exp(logabs)), nan_switch(sign, logabs, nan)}; },
              {x});
    // Left alone: cholesky reads one triangle of a matrix not known symmetric.
    CHECK(count_ops(optimized({X}, {LA::det(X), LA::cholesky(X)}), "Det") == 1);
  }

  TEST_CASE("local_det_of_lu: a solve and a log-determinant of one matrix share one LU") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A"), b = T::tensor(DType::Float64, {4, 2}, "b");
    NDArray a = general({4, 4});
    const auto [LU, piv] = LA::lu_factor(A);
    const Var d = diag_of(LU);
    const Var sign = T::prod(T::switch_(T::neq(piv, T::arange(T::shape_i(piv, 0), DType::Int64)), const_like(-1, d),
                                        const_like(1, d)),
                             T::Axes(0));
    const std::vector<Var> outs{LA::solve(A, b), LA::slogdet(A).first, LA::slogdet(A).second, LA::det(A)};
    const std::vector<Var> want{lu_rows_solve(LU, piv, b), T::mul(prod_last(T::sign(d)), sign),
                                sum_last(T::log(T::abs(d))), T::mul(prod_last(d), sign)};
    const auto fg = optimized({A, b}, outs);
    CHECK(count_ops(fg, "LUFactor") == 1);
    CHECK(count_ops(fg, "SLogDet") + count_ops(fg, "Det") + count_ops(fg, "Solve") == 0);
    check({A, b}, outs, want, {a, uniform({4, 2})}, "stabilize", true);
    // A negative determinant (rows swapped): the same sign, log|det| and det.
    NDArray neg = a.copy();
    for (std::int64_t j = 0; j < 4; ++j) std::swap(neg.data_as<double>()[j], neg.data_as<double>()[8 + j]);
    check_values({A, b}, outs, {neg, uniform({4, 2})});
    // log(det(A)) beside a solve: through the LU too, finite where det overflows.
    const Var M = T::matrix("M", DType::Float64), B = T::matrix("B", DType::Float64);
    FunctionOptions opt;
    opt.mode = "fast_run";
    const auto got = function({M, B}, {T::log(LA::det(M)), LA::solve(M, B)}, opt)({near_diagonal(200, 100), uniform({200, 3})});
    CHECK(std::abs(scalar_of(got[0]) - 200 * std::log(100.0)) < 1e-2);
    CHECK(count_ops(optimized({M, B}, {T::log(LA::det(M)), LA::solve(M, B)}), "LUFactor") == 1);
  }

  TEST_CASE("local_log_det: log(det(A)) and log(abs(det(A))) through slogdet") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A");
    const auto [sign, logabs] = LA::slogdet(A);
    const NDArray a = general({4, 4});
    check_nan({A}, {T::log(LA::det(A))}, [&](const Var& nan) { return std::vector<Var>{nan_switch(sign, logabs, nan)}; },
              {a});
    check({A}, {T::log(T::abs(LA::det(A)))}, {logabs}, {a});
    // A negative determinant: NaN, as log(det).
    NDArray neg = a.copy();
    for (std::int64_t j = 0; j < 4; ++j) std::swap(neg.data_as<double>()[j], neg.data_as<double>()[4 + j]);
    check_values({A}, {T::log(LA::det(A))}, {neg});
    // Batched.
    const Var Ab = T::tensor(DType::Float64, {2, 3, 3}, "Ab");
    const auto [sb, lb] = LA::slogdet(Ab);
    check_nan({Ab}, {T::log(LA::det(Ab))}, [&](const Var& nan) { return std::vector<Var>{nan_switch(sb, lb, nan)}; },
              {general({2, 3, 3})});
  }

  TEST_CASE("local_log_prod: log of a product of a diagonal as a sum of logs") {
    const Var S = T::tensor(DType::Float64, {4, 4}, "S"), v = T::tensor(DType::Float64, {4}, "v");
    const NDArray s = spd({4, 4}), w = uniform({4});
    const Var Lc = LA::cholesky(S);
    check({S}, {T::log(LA::det(Lc))}, {sum_last(T::log(diag_of(Lc)))}, {s});
    check({S}, {T::log(LA::det(T::dot(Lc, Lc.T())))}, {T::mul(scalar(2), sum_last(T::log(diag_of(Lc))))}, {s});
    // Sign unknown: NaN for a negative product, as log.
    check_nan({v}, {T::log(LA::det(LA::alloc_diag(v)))},
              [&](const Var& nan) {
                return std::vector<Var>{nan_switch(prod_last(T::sign(v)), sum_last(T::log(T::abs(v))), nan)};
              },
              {w});
    check({v}, {T::log(T::abs(LA::det(LA::alloc_diag(v))))}, {sum_last(T::log(T::abs(v)))}, {w});
    check({v}, {T::log(T::prod(T::exp(v)))}, {T::sum(T::log(T::exp(v)))}, {w});
  }

  TEST_CASE("linalg log-determinant stabilizations: no overflow where det overflows (n = 200, diagonal 100)") {
    const std::int64_t n = 200;
    const double want = static_cast<double>(n) * std::log(100.0);  // log det = 921.03...; det = 1e400 overflows
    FunctionOptions raw, opt;
    raw.mode = "unoptimized";
    opt.mode = "fast_run";
    {  // a dense matrix: slogdet
      const Var A = T::matrix("A", DType::Float64);
      const NDArray a = near_diagonal(n, 100);
      CHECK(std::isinf(scalar_of(function({A}, {T::log(LA::det(A))}, raw)({a})[0])));
      const double got = scalar_of(function({A}, {T::log(LA::det(A))}, opt)({a})[0]);
      CHECK(std::isfinite(got));
      CHECK(std::abs(got - want) < 1e-2);
    }
    {  // det underflows to 0 (diagonal 0.01): log(det) and sign(det) through slogdet
      const Var A = T::matrix("A", DType::Float64);
      NDArray a = near_diagonal(n, 100);  // 100 I + 0.01 U(-1, 1), scaled by 1e-4: 0.01 I + 1e-6 U
      for (std::int64_t i = 0; i < n * n; ++i) a.data_as<double>()[i] *= 1e-4;
      const std::vector<Var> outs{T::log(LA::det(A)), T::sign(LA::det(A))};
      const auto raw_v = function({A}, {outs[0], outs[1]}, raw)({a});
      CHECK(std::isinf(scalar_of(raw_v[0])));
      CHECK(scalar_of(raw_v[1]) == 0);
      const auto got = function({A}, {outs[0], outs[1]}, opt)({a});
      CHECK(std::abs(scalar_of(got[0]) + want) < 1e-1);
      CHECK(scalar_of(got[1]) == 1);
      CHECK(count_ops(optimized({A}, outs), "Det") == 0);
    }
    {  // a diagonal: sum of logs
      const Var v = T::vector("v", DType::Float64);
      const NDArray d = NDArray::full({n}, 100.0, DType::Float64);
      const Var out = T::log(LA::det(LA::alloc_diag(v)));
      CHECK(std::isinf(scalar_of(function({v}, {out}, raw)({d})[0])));
      CHECK(scalar_of(function({v}, {out}, opt)({d})[0]) == doctest::Approx(want).epsilon(1e-12));
    }
    {  // a Cholesky factor's product, and cholesky(A) of an A known symmetric
      const Var A = T::matrix("A", DType::Float64);
      const NDArray a = near_diagonal(n, 100);
      const Var Lc = LA::cholesky(T::dot(A, A.T()));
      const Var out = T::log(LA::det(T::dot(Lc, Lc.T())));
      CHECK(std::isinf(scalar_of(function({A}, {out}, raw)({a})[0])));
      CHECK(scalar_of(function({A}, {out}, opt)({a})[0]) ==
            doctest::Approx(scalar_of(function({A}, {T::log(LA::det(A)) * 2.0}, opt)({a})[0])).epsilon(1e-10));
      const Var K = T::dot(A, A.T());
      const auto outs = function({A}, {T::log(LA::det(K)), LA::cholesky(K)}, opt)({a});
      CHECK(std::abs(scalar_of(outs[0]) - 2 * want) < 2e-2);
    }
    {  // float32: det overflows at 1e38 already (n = 40, diagonal 10)
      const Var v = T::vector("v", DType::Float32);
      const NDArray d = NDArray::full({40}, 10.0, DType::Float32);
      const double got = scalar_of(function({v}, {T::log(LA::det(LA::alloc_diag(v)))}, opt)({d})[0]);
      CHECK(got == doctest::Approx(40 * std::log(10.0)).epsilon(1e-5));
    }
  }

  TEST_CASE("local_inv_of_inv, local_inv_of_diag, local_cholesky_of_diag") {
    const Var A = T::tensor(DType::Float64, {4, 4}, "A"), v = T::tensor(DType::Float64, {4}, "v");
    const NDArray a = general({4, 4});
    NDArray w = uniform({4});
    for (std::int64_t i = 0; i < 4; ++i) w.data_as<double>()[i] = 0.5 + std::abs(w.data_as<double>()[i]);
    const auto optimized_ops = [](const std::vector<Var>& ins, const Var& out) { return optimized(ins, {out}); };
    {
      const auto fg = optimized_ops({A}, LA::inv(LA::inv(A)));
      CHECK(fg->outputs()[0] == fg->inputs()[0]);
      check_values({A}, {LA::inv(LA::inv(A)) * 1.0}, {a});
    }
    {
      const auto fg = optimized_ops({v}, LA::inv(LA::alloc_diag(v)));
      CHECK(count_ops(fg, "MatrixInverse") == 0);
      CHECK(count_ops(fg, "AllocDiag") == 1);
      CHECK(count_ops(fg, "Assert") == 1);
      check_values({v}, {LA::inv(LA::alloc_diag(v))}, {w});
      // Singular: an error, as inv's.
      FunctionOptions opt;
      opt.mode = "fast_run";
      NDArray z = w.copy();
      z.data_as<double>()[2] = 0;
      CHECK_THROWS_AS(function({v}, {LA::inv(LA::alloc_diag(v))}, opt)({z}), ValueError);
    }
    {
      const auto fg = optimized_ops({v}, LA::cholesky(LA::alloc_diag(v)));
      CHECK(count_ops(fg, "Cholesky") == 0);
      check_values({v}, {LA::cholesky(LA::alloc_diag(v)), LA::cholesky(LA::alloc_diag(v), false)}, {w});
      FunctionOptions opt;
      opt.mode = "fast_run";
      NDArray z = w.copy();
      z.data_as<double>()[1] = -1;
      CHECK_THROWS_AS(function({v}, {LA::cholesky(LA::alloc_diag(v))}, opt)({z}), ValueError);
      // on_error="nan" keeps the op (its whole factor is NaN).
      CHECK(count_ops(optimized_ops({v}, LA::cholesky(LA::alloc_diag(v), true, "nan")), "Cholesky") == 1);
    }
    // c * eye(n) is diagonal too.
    const Var c = T::tensor(DType::Float64, {}, "c");
    const Var D = T::mul(c, T::eye(4));
    CHECK(count_ops(optimized({c}, {LA::inv(D)}), "MatrixInverse") == 0);
    check_values({c}, {LA::inv(D), LA::det(D)}, {NDArray::scalar<double>(2.5)});
  }
}
