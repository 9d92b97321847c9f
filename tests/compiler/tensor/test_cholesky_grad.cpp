// CholeskyGrad (theano/tensor/linalg.h), the one node Cholesky's gradient is:
// its values against Murray's formula computed here by plain loops
// (products and triangular substitutions, nothing of LAPACK), lower and
// upper, batched with broadcasting, float32; only the triangles it documents
// are read; its own gradient (second derivatives through a cholesky) by
// verify_grad; infer_shape; and the graph cholesky's gradient now builds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "linalg_test_util.h"
#include "test_util.h"
#include "theano/gradient.h"
#include "theano/graph/toposort.h"
#include "theano/tensor/linalg.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using namespace theano::latest;
namespace LA = theano::tensor::linalg;
using testing::verify_grad;

namespace {

using Mat = std::vector<double>;

double& at(Mat& m, std::int64_t n, std::int64_t i, std::int64_t j) { return m[static_cast<std::size_t>(i * n + j)]; }

/// Murray's Φ: the lower triangle, its diagonal halved.
Mat phi(Mat m, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) at(m, n, i, j) = j > i ? 0.0 : j == i ? at(m, n, i, j) / 2 : at(m, n, i, j);
  return m;
}

/// X with U X = B for an upper-triangular U (back substitution, column by column).
Mat upper_solve(Mat U, Mat B, std::int64_t n) {
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t i = n - 1; i >= 0; --i) {
      double s = at(B, n, i, c);
      for (std::int64_t k = i + 1; k < n; ++k) s -= at(U, n, i, k) * at(B, n, k, c);
      at(B, n, i, c) = s / at(U, n, i, i);
    }
  return B;
}

/// Φ(L^-T (P + P^T) L^-1), P = Φ(L^T tril(G)), for the lower factor L.
Mat murray(const Mat& L0, const Mat& G0, std::int64_t n) {
  Mat L = L0, G = G0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j) at(L, n, i, j) = at(G, n, i, j) = 0;
  const Mat Lt = transposed(L, n, n);
  const Mat P = phi(mm(Lt, G, n, n, n), n);
  Mat M = P;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) at(M, n, i, j) += P[static_cast<std::size_t>(j * n + i)];
  // Y = L^-T M, then S = Y L^-1, i.e. S^T = L^-T Y^T.
  const Mat Y = upper_solve(Lt, M, n);
  const Mat S = transposed(upper_solve(Lt, transposed(Y, n, n), n), n, n);
  return phi(S, n);
}

Mat lower_factor(std::mt19937_64& rng, std::int64_t n) {
  const NDArray A = spd(rng, {n, n});
  const Var a = matrix("a");
  return rows(LA::cholesky(a).eval({{a, A}}));
}

NDArray as_array(const Mat& m, std::int64_t n) { return NDArray::from_vector(m, {n, n}); }

}  // namespace

TEST_SUITE("linalg grad") {
  TEST_CASE("CholeskyGrad: Murray's formula by plain loops, lower and upper, sizes 1-9, garbage in the unread triangles") {
    std::mt19937_64 rng(31);
    for (std::int64_t n : {1, 2, 5, 9}) {
      CAPTURE(n);
      const Var f = matrix("f"), g = matrix("g");
      Mat L;
      {
        const NDArray A = spd(rng, {n, n});
        const Var a = matrix("a");
        L = rows(LA::cholesky(a).eval({{a, A}}));
      }
      const Mat G = rows(uniform(rng, {n, n}));
      const Mat want = murray(L, G, n);
      // The upper triangle of the lower factor (here garbage) is not read.
      Mat Lg = L;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) at(Lg, n, i, j) = 7.0 + static_cast<double>(i + j);
      const Var lo = OpPtr(new LA::CholeskyGrad(true))->apply1({f, g});
      CHECK(max_abs_diff(rows(lo.eval({{f, as_array(Lg, n)}, {g, as_array(G, n)}})), want) < 1e-10);
      // The upper op on U = L^T and its gradient G^T gives the transpose.
      const Var up = OpPtr(new LA::CholeskyGrad(false))->apply1({f, g});
      const Mat got = rows(up.eval({{f, as_array(transposed(L, n, n), n)}, {g, as_array(transposed(G, n, n), n)}}));
      CHECK(max_abs_diff(got, transposed(want, n, n)) < 1e-10);
    }
  }

  TEST_CASE("CholeskyGrad: batched with a broadcast batch dim, strided inputs, float32") {
    std::mt19937_64 rng(32);
    const std::int64_t n = 4;
    const Mat L0 = lower_factor(rng, n), L1 = lower_factor(rng, n);
    const Mat G = rows(uniform(rng, {n, n}));
    Mat both = L0;
    both.insert(both.end(), L1.begin(), L1.end());
    const Var f = tensor::tensor(DType::Float64, StaticShape(3), "f"), g = matrix("g");
    const Var out = OpPtr(new LA::CholeskyGrad(true))->apply1({f, g});
    const NDArray got = out.eval({{f, NDArray::from_vector(both, {2, n, n})}, {g, as_array(G, n)}});
    REQUIRE(got.shape() == std::vector<std::int64_t>{2, n, n});
    CHECK(max_abs_diff(rows(entry(got, 0)), murray(L0, G, n)) < 1e-10);
    CHECK(max_abs_diff(rows(entry(got, 1)), murray(L1, G, n)) < 1e-10);
    // A transposed (non-contiguous) gradient input: the same as its contiguous copy.
    const Var gt = matrix("gt"), l = matrix("l");
    const Var outt = OpPtr(new LA::CholeskyGrad(true))->apply1({l, gt.T()});
    CHECK(max_abs_diff(rows(outt.eval({{l, as_array(L0, n)}, {gt, as_array(G, n)}})), murray(L0, transposed(G, n, n), n)) <
          1e-10);
    // float32: the same within float32 rounding.
    const Var f32 = tensor::tensor(DType::Float32, StaticShape(2), "f32"), g32 = tensor::tensor(DType::Float32, StaticShape(2), "g32");
    const Var o32 = OpPtr(new LA::CholeskyGrad(true))->apply1({f32, g32});
    const NDArray r32 = o32.eval({{f32, as_array(L0, n).astype(DType::Float32)}, {g32, as_array(G, n).astype(DType::Float32)}});
    CHECK(r32.dtype() == DType::Float32);
    CHECK(max_abs_diff(rows(r32), murray(L0, G, n)) < 1e-4);
  }

  TEST_CASE("CholeskyGrad: an ill-conditioned factor agrees with the plain loops, a zero diagonal is not finite") {
    // The kernel inverts U once (trtri) and multiplies; a factor with a zero
    // on its diagonal, which has no inverse, takes the triangular solves.
    std::mt19937_64 rng(34);
    const std::int64_t n = 60;
    std::uniform_real_distribution<double> place(0, 10);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& v : x) v = place(rng);
    Mat K(static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const double d = x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(j)];
        at(K, n, i, j) = std::exp(-0.5 * d * d) + (i == j ? 1e-6 : 0.0);  // an RBF kernel's matrix, jitter 1e-6
      }
    const Var a = matrix("a"), f = matrix("f"), g = matrix("g");
    Mat L = rows(LA::cholesky(a).eval({{a, as_array(K, n)}}));
    const Mat G = rows(uniform(rng, {n, n}));
    const Var lo = OpPtr(new LA::CholeskyGrad(true))->apply1({f, g});
    const Mat want = murray(L, G, n);
    double scale = 0;
    for (double v : want) scale = std::max(scale, std::abs(v));
    CHECK(max_abs_diff(rows(lo.eval({{f, as_array(L, n)}, {g, as_array(G, n)}})), want) < 1e-9 * scale);
    at(L, n, 7, 7) = 0;
    bool finite = true;
    for (double v : rows(lo.eval({{f, as_array(L, n)}, {g, as_array(G, n)}}))) finite = finite && std::isfinite(v);
    CHECK_FALSE(finite);
  }

  TEST_CASE("CholeskyGrad: many blocks (sizes 33-300, a short last block), lower, upper, batched, a late zero pivot") {
    // The kernel runs the blocked reverse (blocks 32 wide at these sizes):
    // every block's panel solve and gemms against the plain loops.
    std::mt19937_64 rng(35);
    for (std::int64_t n : {33, 70, 150, 300}) {
      CAPTURE(n);
      const Mat L = lower_factor(rng, n);
      const Mat G = rows(uniform(rng, {n, n}));
      const Mat want = murray(L, G, n);
      double scale = 0;
      for (double v : want) scale = std::max(scale, std::abs(v));
      const Var f = matrix("f"), g = matrix("g");
      const Var lo = OpPtr(new LA::CholeskyGrad(true))->apply1({f, g});
      CHECK(max_abs_diff(rows(lo.eval({{f, as_array(L, n)}, {g, as_array(G, n)}})), want) < 1e-12 * scale);
      const Var up = OpPtr(new LA::CholeskyGrad(false))->apply1({f, g});
      const Mat got = rows(up.eval({{f, as_array(transposed(L, n, n), n)}, {g, as_array(transposed(G, n, n), n)}}));
      CHECK(max_abs_diff(got, transposed(want, n, n)) < 1e-12 * scale);
    }
    // Two batch entries of 100 x 100, the gradient transposed (strided).
    const std::int64_t n = 100;
    const Mat L0 = lower_factor(rng, n), L1 = lower_factor(rng, n);
    const Mat G = rows(uniform(rng, {n, n}));
    Mat both = L0;
    both.insert(both.end(), L1.begin(), L1.end());
    const Var f = tensor::tensor(DType::Float64, StaticShape(3), "f"), gt = matrix("gt");
    const NDArray got = OpPtr(new LA::CholeskyGrad(true))
                            ->apply1({f, gt.T()})
                            .eval({{f, NDArray::from_vector(both, {2, n, n})}, {gt, as_array(G, n)}});
    const Mat Gt = transposed(G, n, n);
    CHECK(max_abs_diff(rows(entry(got, 0)), murray(L0, Gt, n)) < 1e-10);
    CHECK(max_abs_diff(rows(entry(got, 1)), murray(L1, Gt, n)) < 1e-10);
    // float32 over several blocks: within float32 rounding of the double result.
    const Var f32 = tensor::tensor(DType::Float32, StaticShape(2), "f32"), g32 = tensor::tensor(DType::Float32, StaticShape(2), "g32");
    const NDArray r32 = OpPtr(new LA::CholeskyGrad(true))
                            ->apply1({f32, g32})
                            .eval({{f32, as_array(L0, n).astype(DType::Float32)}, {g32, as_array(G, n).astype(DType::Float32)}});
    const Mat want0 = murray(L0, G, n);
    double scale = 0;
    for (double v : want0) scale = std::max(scale, std::abs(v));
    CHECK(max_abs_diff(rows(r32), want0) < 1e-4 * scale);
    // A zero pivot in the last block but one: the result is not finite.
    Mat Lz = L0;
    at(Lz, n, 70, 70) = 0;
    bool finite = true;
    const Var l = matrix("l"), g = matrix("g");
    for (double v : rows(OpPtr(new LA::CholeskyGrad(true))->apply1({l, g}).eval({{l, as_array(Lz, n)}, {g, as_array(G, n)}})))
      finite = finite && std::isfinite(v);
    CHECK_FALSE(finite);
  }

  TEST_CASE("CholeskyGrad: verify_grad of both inputs (second derivatives through cholesky), lower, upper, batched") {
    std::mt19937_64 rng(33);
    for (bool lower : {true, false})
      for (std::int64_t n : {1, 3}) {
        CAPTURE(lower);
        CAPTURE(n);
        Mat L = lower_factor(rng, n);
        if (!lower) L = transposed(L, n, n);
        verify_grad([&](const std::vector<Var>& in) { return OpPtr(new LA::CholeskyGrad(lower))->apply1({in[0], in[1]}); },
                    {as_array(L, n), uniform(rng, {n, n})});
      }
    const std::int64_t n = 3;
    Mat both = lower_factor(rng, n);
    const Mat L1 = lower_factor(rng, n);
    both.insert(both.end(), L1.begin(), L1.end());
    verify_grad([](const std::vector<Var>& in) { return OpPtr(new LA::CholeskyGrad(true))->apply1({in[0], in[1]}); },
                {NDArray::from_vector(both, {2, n, n}), uniform(rng, {n, n})});
    // The Hessian-vector product of a cost through cholesky: central differences of its gradient.
    const NDArray A = spd(rng, {n, n});
    verify_grad([](const std::vector<Var>& in) { return grad(sum(sqr(LA::cholesky(in[0]))), in[0]); }, {A});
  }

  TEST_CASE("CholeskyGrad: infer_shape, the shape errors, and cholesky's gradient is one node") {
    std::mt19937_64 rng(34);
    const Var f = tensor::tensor(DType::Float64, StaticShape(3), "f"), g = matrix("g");
    testing::check_infer_shape({f, g}, {OpPtr(new LA::CholeskyGrad(true))->apply1({f, g})},
                               {spd(rng, {2, 4, 4}), uniform(rng, {4, 4})});
    const Var h = matrix("h");
    CHECK_THROWS_WITH_AS(OpPtr(new LA::CholeskyGrad(true))->apply1({h, g}).eval({{h, uniform(rng, {3, 3})}, {g, uniform(rng, {4, 4})}}),
                         doctest::Contains("CholeskyGrad"), ShapeError);
    CHECK_THROWS_WITH_AS(OpPtr(new LA::CholeskyGrad(true))->apply1({h, g}).eval({{h, uniform(rng, {3, 2})}, {g, uniform(rng, {3, 2})}}),
                         doctest::Contains("square"), ShapeError);
    const Var a = matrix("a");
    const Var ga = grad(sum(LA::cholesky(a)), a);
    int count = 0;
    for (const Apply* node : io_toposort({a}, {ga}))
      if (dynamic_cast<const LA::CholeskyGrad*>(node->op().get())) ++count;
    CHECK(count == 1);
  }
}
