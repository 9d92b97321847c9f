// The LAPACK-backed linear algebra ops (theano/tensor/linalg.h): values
// against hand-checked cases and identities computed by plain loops here
// (L L^T = A, A x = b, A inv(A) = I, det of a product, A v = v w, U S V^T = A,
// Q R = A), batched forms against their entries one by one, strided inputs,
// float32, and the errors (non-square, mismatched shapes, rank < 2, singular,
// not positive definite, NaN) naming the op.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "linalg_test_util.h"
#include "test_util.h"
#include "theano/tensor/linalg.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using namespace theano::latest;
using namespace theano::test;
namespace LA = theano::tensor::linalg;

namespace {
NDArray m2(std::initializer_list<double> v, std::int64_t r, std::int64_t c) { return NDArray::from_list<double>(v, {r, c}); }
NDArray eye3() { return NDArray::from_vector(identity(3), {3, 3}); }
}  // namespace

TEST_SUITE("linalg") {
  TEST_CASE("cholesky: a hand-checked 2 x 2 and 3 x 3, lower and upper, other triangle ignored") {
    const Var a = matrix("a");
    // [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]].
    const NDArray v = m2({4, 2, 2, 3}, 2, 2);
    CHECK(max_abs_diff(rows(LA::cholesky(a).eval({{a, v}})), {2, 0, 1, std::sqrt(2.0)}) < 1e-15);
    CHECK(max_abs_diff(rows(LA::cholesky(a, false).eval({{a, v}})), {2, 1, 0, std::sqrt(2.0)}) < 1e-15);
    // Only the lower triangle is read (lower=true): garbage above changes nothing.
    const NDArray w = m2({4, 99, 2, 3}, 2, 2);
    CHECK(max_abs_diff(rows(LA::cholesky(a).eval({{a, w}})), {2, 0, 1, std::sqrt(2.0)}) < 1e-15);
    // [[1, 2, 3], [2, 5, 8], [3, 8, 14]] = L L^T, L = [[1,0,0],[2,1,0],[3,2,1]].
    const NDArray t = m2({1, 2, 3, 2, 5, 8, 3, 8, 14}, 3, 3);
    CHECK(max_abs_diff(rows(LA::cholesky(a).eval({{a, t}})), {1, 0, 0, 2, 1, 0, 3, 2, 1}) < 1e-14);
  }

  TEST_CASE("cholesky: L L^T = A at several sizes, batched, strided and float32") {
    std::mt19937_64 rng(1);
    for (std::int64_t n : {1, 4, 17}) {
      CAPTURE(n);
      const NDArray A = spd(rng, {2, 3, n, n});
      const Var x = tensor::tensor(DType::Float64, StaticShape(4), "x");
      const NDArray L = LA::cholesky(x).eval({{x, A}});
      REQUIRE(L.shape() == A.shape());
      for (std::int64_t b = 0; b < 6; ++b) {
        const std::vector<double> l = rows(entry(L, b));
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = i + 1; j < n; ++j) CHECK(l[static_cast<std::size_t>(i * n + j)] == 0.0);
        CHECK(max_abs_diff(mm(l, transposed(l, n, n), n, n, n), rows(entry(A, b))) < 1e-12);
      }
      // A strided (non-contiguous, reversed last axis) input gives the same values.
      CHECK(max_abs_diff(rows(LA::cholesky(x).eval({{x, strided_copy(A)}})), rows(L)) == 0.0);
      // float32
      const Var xf = tensor::tensor(DType::Float32, StaticShape(4), "xf");
      const NDArray Lf = LA::cholesky(xf).eval({{xf, A.astype(DType::Float32)}});
      CHECK(Lf.dtype() == DType::Float32);
      CHECK(max_abs_diff(rows(Lf), rows(L)) < 1e-4);
    }
  }

  TEST_CASE("cholesky: several blocks (33-300, a short last block), lower and upper, a late leading minor") {
    // Past one block (32 wide at these sizes) the kernel factors block column
    // by block column (potrf, trsm, syrk): L L^T = A, the upper factor is the
    // lower's transpose, the unread triangle stays unread, and a minor that is
    // not positive is named by its place in the whole matrix.
    std::mt19937_64 rng(7);
    const Var a = matrix("a");
    for (std::int64_t n : {33, 150, 300}) {
      CAPTURE(n);
      NDArray A = spd(rng, {n, n});
      const std::vector<double> want = rows(A);
      double scale = 0;
      for (double v : want) scale = std::max(scale, std::abs(v));
      std::vector<double> garbled = want;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) garbled[static_cast<std::size_t>(i * n + j)] = 1e3;
      const std::vector<double> l = rows(LA::cholesky(a).eval({{a, NDArray::from_vector(garbled, {n, n})}}));
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) CHECK(l[static_cast<std::size_t>(i * n + j)] == 0.0);
      CHECK(max_abs_diff(mm(l, transposed(l, n, n), n, n, n), want) < 1e-13 * scale);
      const std::vector<double> u =
          rows(LA::cholesky(a, false).eval({{a, NDArray::from_vector(transposed(garbled, n, n), {n, n})}}));
      CHECK(max_abs_diff(u, transposed(l, n, n)) < 1e-13 * scale);
      const NDArray Lf = LA::cholesky(a.astype(DType::Float32)).eval({{a, A}});
      CHECK(max_abs_diff(rows(Lf), l) < 1e-4 * scale);
    }
    const std::int64_t n = 150;
    std::vector<double> bad = rows(spd(rng, {n, n}));
    bad[static_cast<std::size_t>(99 * n + 99)] = -1e3;  // leading minors 1-99 stay positive
    CHECK_THROWS_WITH_AS(LA::cholesky(a).eval({{a, NDArray::from_vector(bad, {n, n})}}),
                         doctest::Contains("not positive definite: leading minor 100"), ValueError);
    CHECK_THROWS_WITH_AS(LA::cholesky(a, false).eval({{a, NDArray::from_vector(bad, {n, n})}}),
                         doctest::Contains("not positive definite: leading minor 100"), ValueError);
    for (double v : rows(LA::cholesky(a, true, "nan").eval({{a, NDArray::from_vector(bad, {n, n})}})))
      CHECK(std::isnan(v));
  }

  TEST_CASE("cholesky: not positive definite raises naming the leading minor, or gives NaNs") {
    const Var a = matrix("a");
    const NDArray bad = m2({1, 2, 0, 2, 1, 0, 0, 0, 1}, 3, 3);  // leading minor 2 is -3
    CHECK_THROWS_WITH_AS(LA::cholesky(a).eval({{a, bad}}),
                         doctest::Contains("Cholesky{True,False}: the matrix (input 0) is not "
                                           "positive definite: leading minor 2"),
                         ValueError);
    const NDArray n = LA::cholesky(a, true, "nan").eval({{a, bad}});
    for (double v : rows(n)) CHECK(std::isnan(v));
    // A batch: the error names the batch entry.
    const Var t = tensor::tensor(DType::Float64, StaticShape(3), "t");
    NDArray both = NDArray::zeros({2, 3, 3});
    both.index(0, 0).assign(m2({1, 0, 0, 0, 1, 0, 0, 0, 1}, 3, 3));
    both.index(0, 1).assign(bad);
    CHECK_THROWS_WITH_AS(LA::cholesky(t).eval({{t, both}}), doctest::Contains("(batch entry 1)"), ValueError);
    const NDArray nb = LA::cholesky(t, true, "nan").eval({{t, both}});
    CHECK(max_abs_diff(rows(nb.index(0, 0)), identity(3)) == 0.0);
    CHECK(std::isnan(rows(nb.index(0, 1))[0]));
    CHECK_THROWS_WITH_AS(LA::cholesky(a, true, "ignore"), doctest::Contains("on_error"), ValueError);
  }

  TEST_CASE("solve_triangular: hand-checked forward and back substitution, trans, unit_diagonal, vector b") {
    const Var a = matrix("a"), b = matrix("b"), v = vector("v");
    // L = [[2, 0], [1, 4]]: L x = [2, 9] -> x = [1, 2].
    const NDArray L = m2({2, 7, 1, 4}, 2, 2);  // 7: above the diagonal, not read with lower
    CHECK(max_abs_diff(rows(LA::solve_triangular(a, v, true).eval({{a, L}, {v, vec({2, 9})}}).reshape({1, 2})),
                       {1, 2}) < 1e-15);
    // L^T x = [4, 8] -> [[2, 1], [0, 4]] x: x1 = 2, 2 x0 + 2 = 4 -> x0 = 1.
    CHECK(max_abs_diff(rows(LA::solve_triangular(a, v, true, 1).eval({{a, L}, {v, vec({4, 8})}}).reshape({1, 2})),
                       {1, 2}) < 1e-15);
    // unit diagonal: [[1, 0], [1, 1]] x = [1, 3] -> [1, 2].
    CHECK(max_abs_diff(rows(LA::solve_triangular(a, v, true, 0, true).eval({{a, L}, {v, vec({1, 3})}}).reshape({1, 2})),
                       {1, 2}) < 1e-15);
    // upper: U = [[2, 7], [1, 4]] read as [[2, 7], [0, 4]]: U x = [16, 8] -> x = [1, 2].
    CHECK(max_abs_diff(rows(LA::solve_triangular(a, b, false).eval({{a, L}, {b, m2({16, 8}, 2, 1)}})), {1, 2}) < 1e-15);
    // A zero on the diagonal.
    CHECK_THROWS_WITH_AS(LA::solve_triangular(a, v, true).eval({{a, m2({1, 0, 1, 0}, 2, 2)}, {v, vec({1, 1})}}),
                         doctest::Contains("the matrix (input 0) is singular: diagonal element 1 is zero"), ValueError);
  }

  TEST_CASE("solve, cho_solve, solve_triangular: A x = b for random systems, batch dims broadcast") {
    std::mt19937_64 rng(2);
    const std::int64_t n = 6;
    const Var A = tensor::tensor(DType::Float64, {std::nullopt, n, n}, "A");
    const Var B = matrix("B");  // unbatched right-hand side, broadcast over A's batch
    const NDArray Av = spd(rng, {3, n, n}), Bv = uniform(rng, {n, 2});
    const NDArray Lv = LA::cholesky(A).eval({{A, Av}});
    const std::vector<Var> outs{LA::solve(A, B), LA::solve(A, B, "sym", true), LA::solve(A, B, "pos", false),
                                LA::cho_solve({LA::cholesky(A), true}, B), LA::cho_solve({LA::cholesky(A, false), false}, B)};
    const std::vector<double> b = rows(Bv);
    for (const Var& o : outs) {
      const NDArray X = o.eval({{A, Av}, {B, Bv}});
      REQUIRE(X.shape() == std::vector<std::int64_t>{3, n, 2});
      for (std::int64_t e = 0; e < 3; ++e) CHECK(max_abs_diff(mm(rows(entry(Av, e)), rows(entry(X, e)), n, n, 2), b) < 1e-12);
    }
    // L y = b, then L^T x = y: A x = b.
    const Var y = LA::solve_triangular(LA::cholesky(A), B, true);
    const NDArray X = LA::solve_triangular(LA::cholesky(A), y, true, 1).eval({{A, Av}, {B, Bv}});
    for (std::int64_t e = 0; e < 3; ++e) CHECK(max_abs_diff(mm(rows(entry(Av, e)), rows(entry(X, e)), n, n, 2), b) < 1e-12);
    // A contiguous factor is read where it lies, a transposed one copied: the same bits.
    const Var l = matrix("l"), lt = matrix("lt");
    const NDArray L0 = entry(Lv, 0);
    const NDArray L0t = NDArray::from_vector(transposed(rows(L0), n, n), {n, n});
    for (bool lower : {true, false}) {
      CAPTURE(lower);
      const NDArray F = lower ? L0 : L0t, Ft = lower ? L0t : L0;  // Ft^T = F
      const NDArray direct = LA::solve_triangular(l, B, lower).eval({{l, F}, {B, Bv}});
      CHECK(max_abs_diff(rows(LA::solve_triangular(lt.T(), B, lower).eval({{lt, Ft}, {B, Bv}})), rows(direct)) == 0.0);
      const NDArray cho = LA::cho_solve({l, lower}, B).eval({{l, F}, {B, Bv}});
      CHECK(max_abs_diff(rows(LA::cho_solve({lt.T(), lower}, B).eval({{lt, Ft}, {B, Bv}})), rows(cho)) == 0.0);
      CHECK(max_abs_diff(mm(rows(entry(Av, 0)), rows(cho), n, n, 2), b) < 1e-12);
    }
    // sym reads only its triangle: garbage in the other one changes nothing.
    NDArray G = Av.copy();
    G.index(0, 0).index(0, 0).index(0, n - 1).fill(1e6);  // A[0][0][n-1], above the diagonal
    CHECK(max_abs_diff(rows(LA::solve(A, B, "sym", true).eval({{A, G}, {B, Bv}})),
                       rows(LA::solve(A, B, "sym", true).eval({{A, Av}, {B, Bv}}))) < 1e-12);
    // Integer inputs are upcast to float64.
    const Var ia = imatrix("ia"), iv = ivector("iv");
    const NDArray xi = LA::solve(ia, iv).eval({{ia, m2({2, 0, 0, 4}, 2, 2).astype(DType::Int32)},
                                                {iv, vec({2, 8}).astype(DType::Int32)}});
    CHECK(xi.dtype() == DType::Float64);
    CHECK(max_abs_diff(rows(xi.reshape({1, 2})), {1, 2}) < 1e-15);
  }

  TEST_CASE("inv, det, slogdet: hand-checked values, det of a product, singular matrices") {
    const Var a = matrix("a");
    const NDArray v = m2({4, 7, 2, 6}, 2, 2);  // det 10, inverse [[0.6, -0.7], [-0.2, 0.4]]
    CHECK(max_abs_diff(rows(LA::inv(a).eval({{a, v}})), {0.6, -0.7, -0.2, 0.4}) < 1e-15);
    CHECK(LA::det(a).eval({{a, v}}).item<double>() == doctest::Approx(10.0).epsilon(1e-14));
    const NDArray p = m2({0, 1, 0, 0, 0, 1, 1, 0, 0}, 3, 3);  // a cyclic permutation: det 1
    CHECK(LA::det(a).eval({{a, p}}).item<double>() == doctest::Approx(1.0));
    const NDArray s = m2({0, 1, 1, 0}, 2, 2);  // a swap: det -1
    auto [sign, logabs] = LA::slogdet(a);
    CHECK(sign.eval({{a, s}}).item<double>() == -1.0);
    CHECK(logabs.eval({{a, s}}).item<double>() == doctest::Approx(0.0));
    CHECK(logabs.eval({{a, v}}).item<double>() == doctest::Approx(std::log(10.0)).epsilon(1e-14));
    // Singular: det 0, slogdet (0, -inf), inv a ValueError.
    const NDArray z = m2({1, 2, 2, 4}, 2, 2);
    CHECK(LA::det(a).eval({{a, z}}).item<double>() == 0.0);
    CHECK(sign.eval({{a, z}}).item<double>() == 0.0);
    CHECK(logabs.eval({{a, z}}).item<double>() == -std::numeric_limits<double>::infinity());
    CHECK_THROWS_WITH_AS(LA::inv(a).eval({{a, z}}), doctest::Contains("MatrixInverse: the matrix (input 0) is singular"),
                         ValueError);
    const Var rhs = vector("rhs");
    CHECK_THROWS_WITH_AS(LA::solve(a, rhs).eval({{a, z}, {rhs, vec({1, 1})}}),
                         doctest::Contains("singular"), ValueError);
    // det(A B) = det(A) det(B), A inv(A) = I, batched (5 entries), sizes 0 to 7.
    std::mt19937_64 rng(3);
    const Var t = tensor::tensor(DType::Float64, StaticShape(3), "t"), u = tensor::tensor(DType::Float64, StaticShape(3), "u");
    for (std::int64_t n : {0, 1, 3, 7}) {
      CAPTURE(n);
      const NDArray A = general(rng, {5, n, n}), B = general(rng, {5, n, n});
      const NDArray dA = LA::det(t).eval({{t, A}}), dB = LA::det(t).eval({{t, B}});
      const NDArray dAB = LA::det(LA::matmul(t, u)).eval({{t, A}, {u, B}});
      const NDArray Ai = LA::inv(t).eval({{t, A}});
      for (std::int64_t e = 0; e < 5; ++e) {
        const double want = dA.data_as<double>()[e] * dB.data_as<double>()[e];
        CHECK(dAB.data_as<double>()[e] == doctest::Approx(want).epsilon(1e-12));
        if (n == 0) CHECK(dA.data_as<double>()[e] == 1.0);
        if (n > 0) CHECK(max_abs_diff(mm(rows(entry(A, e)), rows(entry(Ai, e)), n, n, n), identity(n)) < 1e-12);
      }
      // slogdet agrees with det.
      const std::vector<Var> sl = [&] { auto [s1, l1] = LA::slogdet(t); return std::vector<Var>{s1, l1}; }();
      const NDArray sg = sl[0].eval({{t, A}}), la = sl[1].eval({{t, A}});
      for (std::int64_t e = 0; e < 5; ++e)
        CHECK(sg.data_as<double>()[e] * std::exp(la.data_as<double>()[e]) ==
              doctest::Approx(dA.data_as<double>()[e]).epsilon(1e-12));
    }
  }

  TEST_CASE("eigh and eigvalsh: A V = V diag(w), w ascending, V orthonormal, UPLO") {
    const Var a = matrix("a");
    // [[2, 1], [1, 2]]: eigenvalues 1 and 3.
    const NDArray v = m2({2, 1, 1, 2}, 2, 2);
    CHECK(max_abs_diff(rows(LA::eigvalsh(a).eval({{a, v}}).reshape({1, 2})), {1, 3}) < 1e-15);
    // UPLO="U" reads the upper triangle: [[2, 1], [5, 2]] is [[2, 1], [1, 2]] there.
    CHECK(max_abs_diff(rows(LA::eigvalsh(a, "U").eval({{a, m2({2, 1, 5, 2}, 2, 2)}}).reshape({1, 2})), {1, 3}) < 1e-15);
    std::mt19937_64 rng(4);
    const Var t = tensor::tensor(DType::Float64, StaticShape(3), "t");
    for (std::int64_t n : {1, 5, 12}) {
      CAPTURE(n);
      const NDArray A = uniform(rng, {2, n, n});
      NDArray S = NDArray::empty({2, n, n});
      for (std::int64_t e = 0; e < 2; ++e) {
        const std::vector<double> x = rows(entry(A, e)), xt = transposed(x, n, n);
        for (std::int64_t i = 0; i < n * n; ++i) S.data_as<double>()[e * n * n + i] = x[static_cast<std::size_t>(i)] + xt[static_cast<std::size_t>(i)];
      }
      auto [w, V] = LA::eigh(t);
      const NDArray wv = w.eval({{t, S}}), Vv = V.eval({{t, S}});
      for (std::int64_t e = 0; e < 2; ++e) {
        const std::vector<double> ve = rows(entry(Vv, e));
        std::vector<double> vw = ve;
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j) vw[static_cast<std::size_t>(i * n + j)] *= wv.data_as<double>()[e * n + j];
        CHECK(max_abs_diff(mm(rows(entry(S, e)), ve, n, n, n), vw) < 1e-12);
        CHECK(max_abs_diff(mm(transposed(ve, n, n), ve, n, n, n), identity(n)) < 1e-12);
        for (std::int64_t j = 1; j < n; ++j) CHECK(wv.data_as<double>()[e * n + j - 1] <= wv.data_as<double>()[e * n + j]);
      }
    }
  }

  TEST_CASE("svd: U diag(S) Vt = A for tall, wide and square, full and reduced, S descending") {
    std::mt19937_64 rng(5);
    const Var a = matrix("a");
    // diag(3, 2) padded: singular values 3, 2.
    CHECK(max_abs_diff(rows(LA::svdvals(a).eval({{a, m2({0, 2, 3, 0, 0, 0}, 3, 2)}}).reshape({1, 2})), {3, 2}) < 1e-15);
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {6, 3}, {3, 6}, {1, 5}}) {
      CAPTURE(m);
      CAPTURE(n);
      const std::int64_t k = std::min(m, n);
      const NDArray A = uniform(rng, {m, n});
      for (bool full : {false, true}) {
        const std::vector<Var> usv = LA::svd(a, full);
        const NDArray U = usv[0].eval({{a, A}}), S = usv[1].eval({{a, A}}), Vt = usv[2].eval({{a, A}});
        const std::int64_t uc = full ? m : k, vr = full ? n : k;
        REQUIRE(U.shape() == std::vector<std::int64_t>{m, uc});
        REQUIRE(Vt.shape() == std::vector<std::int64_t>{vr, n});
        std::vector<double> us(static_cast<std::size_t>(m * vr), 0.0);
        const std::vector<double> u = rows(U);
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < k; ++j)
            us[static_cast<std::size_t>(i * vr + j)] = u[static_cast<std::size_t>(i * uc + j)] * S.data_as<double>()[j];
        CHECK(max_abs_diff(mm(us, rows(Vt), m, vr, n), rows(A)) < 1e-12);
        CHECK(max_abs_diff(mm(transposed(u, m, uc), u, uc, m, uc), identity(uc)) < 1e-12);
        for (std::int64_t j = 1; j < k; ++j) CHECK(S.data_as<double>()[j - 1] >= S.data_as<double>()[j]);
        CHECK(max_abs_diff(rows(LA::svdvals(a).eval({{a, A}}).reshape({1, k})), rows(S.reshape({1, k}))) < 1e-12);
      }
    }
  }

  TEST_CASE("qr: Q R = A, Q orthonormal, R upper triangular, in the three modes") {
    std::mt19937_64 rng(6);
    const Var a = matrix("a");
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {6, 3}, {3, 6}}) {
      CAPTURE(m);
      CAPTURE(n);
      const std::int64_t k = std::min(m, n);
      const NDArray A = uniform(rng, {m, n});
      for (const char* mode : {"reduced", "complete"}) {
        CAPTURE(mode);
        const std::vector<Var> qr = LA::qr(a, mode);
        const NDArray Q = qr[0].eval({{a, A}}), R = qr[1].eval({{a, A}});
        const std::int64_t qc = std::string(mode) == "complete" ? m : k;
        REQUIRE(Q.shape() == std::vector<std::int64_t>{m, qc});
        REQUIRE(R.shape() == std::vector<std::int64_t>{qc, n});
        CHECK(max_abs_diff(mm(rows(Q), rows(R), m, qc, n), rows(A)) < 1e-12);
        CHECK(max_abs_diff(mm(transposed(rows(Q), m, qc), rows(Q), qc, m, qc), identity(qc)) < 1e-12);
        const std::vector<double> r = rows(R);
        for (std::int64_t i = 0; i < qc; ++i)
          for (std::int64_t j = 0; j < std::min(i, n); ++j) CHECK(r[static_cast<std::size_t>(i * n + j)] == 0.0);
        if (std::string(mode) == "reduced")
          CHECK(max_abs_diff(rows(LA::qr(a, "r")[0].eval({{a, A}})), r) == 0.0);
      }
    }
  }

  TEST_CASE("lu_factor, lu, lu_solve: a hand-checked 2 x 2, P L U = A, L[p] U = A, A x = b and A^T x = b, batched") {
    const Var a = matrix("a");
    // [[1, 2], [3, 4]]: rows swapped, LU = [[3, 4], [1/3, 2/3]], piv = [1, 1].
    const auto [LU, piv] = LA::lu_factor(a);
    const NDArray v = m2({1, 2, 3, 4}, 2, 2);
    CHECK(max_abs_diff(rows(LU.eval({{a, v}})), {3, 4, 1.0 / 3, 2.0 / 3}) < 1e-15);
    const NDArray pv = piv.eval({{a, v}});
    REQUIRE(pv.dtype() == DType::Int32);
    CHECK(pv.data_as<std::int32_t>()[0] == 1);
    CHECK(pv.data_as<std::int32_t>()[1] == 1);
    std::mt19937_64 rng(7);
    const Var t = tensor::tensor(DType::Float64, StaticShape(3), "t"), b = matrix("b");
    for (std::int64_t n : {1, 4, 9}) {
      CAPTURE(n);
      const NDArray A = uniform(rng, {3, n, n}), B = uniform(rng, {n, 2});
      const std::vector<Var> plu = LA::lu(t), pl = LA::lu(t, true), ilu = LA::lu(t, false, true);
      const auto [F, Fp] = LA::lu_factor(t);
      const Var x = LA::lu_solve({F, Fp}, b), xt = LA::lu_solve({F, Fp}, b, 1);
      const NDArray P = plu[0].eval({{t, A}}), L = plu[1].eval({{t, A}}), U = plu[2].eval({{t, A}});
      const NDArray PL = pl[0].eval({{t, A}}), p = ilu[0].eval({{t, A}});
      const NDArray X = x.eval({{t, A}, {b, B}}), XT = xt.eval({{t, A}, {b, B}});
      REQUIRE(p.dtype() == DType::Int64);
      for (std::int64_t e = 0; e < 3; ++e) {
        const std::vector<double> l = rows(entry(L, e)), u = rows(entry(U, e)), ae = rows(entry(A, e));
        CHECK(max_abs_diff(mm(mm(rows(entry(P, e)), l, n, n, n), u, n, n, n), ae) < 1e-12);
        CHECK(max_abs_diff(mm(rows(entry(PL, e)), u, n, n, n), ae) < 1e-12);
        std::vector<double> lp(l.size());  // L[p]
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j)
            lp[static_cast<std::size_t>(i * n + j)] = l[static_cast<std::size_t>(p.data_as<std::int64_t>()[e * n + i] * n + j)];
        CHECK(max_abs_diff(mm(lp, u, n, n, n), ae) < 1e-12);
        for (std::int64_t i = 0; i < n; ++i) {
          CHECK(l[static_cast<std::size_t>(i * n + i)] == 1.0);
          for (std::int64_t j = i + 1; j < n; ++j) CHECK(l[static_cast<std::size_t>(i * n + j)] == 0.0);
          for (std::int64_t j = 0; j < i; ++j) CHECK(u[static_cast<std::size_t>(i * n + j)] == 0.0);
        }
        CHECK(max_abs_diff(mm(ae, rows(entry(X, e)), n, n, 2), rows(B)) < 1e-10);
        CHECK(max_abs_diff(mm(transposed(ae, n, n), rows(entry(XT, e)), n, n, 2), rows(B)) < 1e-10);
      }
    }
    // Pivots that are not LAPACK's.
    const Var q = ivector("q");
    CHECK_THROWS_WITH_AS(LA::pivot_to_permutation(q).eval({{q, NDArray::from_list<std::int32_t>({1, 0})}}),
                         doctest::Contains("PivotToPermutation{False}: the pivots (input 0) are not LAPACK's: pivot 1 is 0"),
                         ValueError);
    CHECK_THROWS_WITH_AS(LA::pivot_to_permutation(vector("f")), doctest::Contains("must be int32 pivots"), TypeError);
  }

  TEST_CASE("pinv and lstsq: the Moore-Penrose conditions, rank-deficient and wide inputs, least squares") {
    std::mt19937_64 rng(8);
    const Var a = matrix("a"), b = matrix("b");
    // diag(2, 0): pinv is diag(0.5, 0).
    CHECK(max_abs_diff(rows(LA::pinv(a).eval({{a, m2({2, 0, 0, 0}, 2, 2)}})), {0.5, 0, 0, 0}) < 1e-15);
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {6, 3}, {3, 6}}) {
      CAPTURE(m);
      CAPTURE(n);
      NDArray A = uniform(rng, {m, n});
      if (m == 4) {  // rank 3: the last row a copy of the first
        for (std::int64_t j = 0; j < n; ++j) A.data_as<double>()[3 * n + j] = A.data_as<double>()[j];
      }
      const std::vector<double> x = rows(A), z = rows(LA::pinv(a).eval({{a, A}}));
      // A Z A = A, Z A Z = Z, (A Z)^T = A Z, (Z A)^T = Z A.
      const std::vector<double> az = mm(x, z, m, n, m), za = mm(z, x, n, m, n);
      CHECK(max_abs_diff(mm(az, x, m, m, n), x) < 1e-12);
      CHECK(max_abs_diff(mm(za, z, n, n, m), z) < 1e-12);
      CHECK(max_abs_diff(az, transposed(az, m, m)) < 1e-12);
      CHECK(max_abs_diff(za, transposed(za, n, n)) < 1e-12);
      // lstsq on a tall full-rank system: the normal equations A^T (A x - b) = 0.
      if (m == 6) {
        const NDArray B = uniform(rng, {m, 2});
        const std::vector<double> xs = rows(LA::lstsq(a, b).eval({{a, A}, {b, B}}));
        std::vector<double> r = mm(x, xs, m, n, 2);
        for (std::size_t i = 0; i < r.size(); ++i) r[i] -= rows(B)[i];
        CHECK(max_abs_diff(mm(transposed(x, m, n), r, n, m, 2), std::vector<double>(static_cast<std::size_t>(n * 2), 0.0)) < 1e-12);
      }
    }
  }

  TEST_CASE("linalg: the finiteness check of a loaded matrix, every class of value, both dtypes and layouts") {
    // 37 x 37: columns longer than any vector, with a remainder. inv reads the
    // C-contiguous matrix's columns strided, cholesky its transpose
    // contiguously. The extremes of the finite values pass; an infinity or a
    // NaN of either sign, in a column's vectorized body or its last element,
    // is named at its own row and column.
    constexpr std::int64_t n = 37;
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = matrix("a", dt);
      const bool f64 = dt == DType::Float64;
      auto spd = [&] {
        std::vector<double> v(static_cast<std::size_t>(n * n), 0.0);
        for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i * n + i)] = 2.0;
        return NDArray::from_vector(v, {n, n}).astype(dt);
      };
      NDArray extremes = spd();
      const double big = f64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
      const double tiny = f64 ? std::numeric_limits<double>::denorm_min() : std::numeric_limits<float>::denorm_min();
      const double normal = f64 ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min();
      extremes.index(0, 0).index(0, 0).fill(big);  // on the diagonal: no pivot becomes zero
      extremes.index(0, 1).index(0, 1).fill(-big);
      extremes.index(0, 2).index(0, 2).fill(tiny);
      extremes.index(0, 3).index(0, 3).fill(-normal);
      CHECK_NOTHROW(LA::inv(a).eval({{a, extremes}}));
      for (double bad : {double(INFINITY), -double(INFINITY), std::numeric_limits<double>::quiet_NaN(),
                         -std::numeric_limits<double>::quiet_NaN()}) {
        for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{30, 5}, {36, 36}, {0, 17}}) {
          CAPTURE(bad);
          CAPTURE(r);
          CAPTURE(c);
          NDArray m = spd();
          m.index(0, r).index(0, c).fill(bad);
          const std::string at = "contains a NaN or an infinity, at row " + std::to_string(r) + ", column " +
                                 std::to_string(c);
          CHECK_THROWS_WITH_AS(LA::inv(a).eval({{a, m}}), doctest::Contains(at.c_str()), ValueError);
          CHECK_THROWS_WITH_AS(LA::cholesky(a).eval({{a, m}}), doctest::Contains(at.c_str()), ValueError);
        }
      }
    }
  }

  TEST_CASE("linalg errors: rank, dtype, non-square, mismatched shapes, batch mismatch, NaN") {
    const Var a = matrix("a"), v = vector("v");
    CHECK_THROWS_WITH_AS(LA::cholesky(v), doctest::Contains("Cholesky{True,False}: input 0 (v) must have rank >= 2"),
                         TypeError);
    CHECK_THROWS_WITH_AS(LA::det(vector("z", DType::Complex128)), doctest::Contains("must be float32 or float64"), TypeError);
    CHECK_THROWS_WITH_AS(LA::det(a).eval({{a, NDArray::zeros({2, 3})}}),
                         doctest::Contains("Det: input 0 must be a square matrix, got one of shape (2, 3)"), ShapeError);
    CHECK_THROWS_WITH_AS(LA::cholesky(tensor::tensor(DType::Float64, {2, 3}, "s")),
                         doctest::Contains("Cholesky{True,False}: input 0 (s) must be square matrices"), ShapeError);
    CHECK_THROWS_WITH_AS(LA::solve(tensor::tensor(DType::Float64, {3, 3}, "s"), tensor::tensor(DType::Float64, {2}, "r")),
                         doctest::Contains("has 2 rows but the matrix (input 0) has 3"), ShapeError);
    CHECK_THROWS_WITH_AS(LA::solve(a, v).eval({{a, eye3()}, {v, vec({1, 2})}}),
                         doctest::Contains("the right-hand side (input 1) has 2 rows but the matrix (input 0) has 3"),
                         ShapeError);
    const Var t = tensor::tensor(DType::Float64, StaticShape(3), "t"), b = matrix("b");
    const Var u = tensor::tensor(DType::Float64, StaticShape(3), "u");
    CHECK_THROWS_WITH_AS(LA::solve(t, u).eval({{t, NDArray::zeros({2, 3, 3})}, {u, NDArray::zeros({3, 3, 1})}}),
                         doctest::Contains("the batch dimensions do not broadcast"), ShapeError);
    NDArray nan = eye3();
    nan.index(0, 1).index(0, 2).fill(std::numeric_limits<double>::quiet_NaN());
    CHECK_THROWS_WITH_AS(LA::inv(a).eval({{a, nan}}),
                         doctest::Contains("MatrixInverse: the matrix (input 0) contains a NaN or an infinity, at row 1, column 2"),
                         ValueError);
    // cholesky and solve_triangular read the matrix's transpose as it lies: the position is still the matrix's own.
    CHECK_THROWS_WITH_AS(LA::cholesky(a).eval({{a, nan}}),
                         doctest::Contains("Cholesky{True,False}: the matrix (input 0) contains a NaN or an infinity, at row 1, column 2"),
                         ValueError);
    CHECK_THROWS_WITH_AS(LA::solve_triangular(a, b, false).eval({{a, nan}, {b, NDArray::ones({3, 1})}}),
                         doctest::Contains("the matrix (input 0) contains a NaN or an infinity, at row 1, column 2"),
                         ValueError);
    // cho_solve reads its factor in place when it is contiguous; a NaN is still found where it lies.
    CHECK_THROWS_WITH_AS(LA::cho_solve({a, true}, b).eval({{a, nan}, {b, NDArray::ones({3, 1})}}),
                         doctest::Contains("the matrix (input 0) contains a NaN or an infinity, at row 1, column 2"),
                         ValueError);
    CHECK_THROWS_WITH_AS(LA::solve(a, b).eval({{a, eye3()}, {b, NDArray::full({3, 1}, INFINITY)}}),
                         doctest::Contains("the right-hand side (input 1) contains a NaN or an infinity"), ValueError);
    CHECK_THROWS_WITH_AS(LA::solve(a, b, "lu"), doctest::Contains("assume_a"), ValueError);
    CHECK_THROWS_WITH_AS(LA::qr(a, "raw"), doctest::Contains("mode"), ValueError);
    CHECK_THROWS_WITH_AS(LA::eigh(a, "X"), doctest::Contains("UPLO"), ValueError);
    CHECK_THROWS_WITH_AS(LA::solve_triangular(a, b, true, 2), doctest::Contains("trans"), ValueError);
  }
}
