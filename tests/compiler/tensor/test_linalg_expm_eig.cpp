// expm, expm_frechet, eig / eigvals, matrix_power with n < 0, norm's singular
// value ords and lstsq_full beyond their fixtures (test_linalg_fixtures.cpp):
// verify_grad (expm at several sizes, norms, batched; matrix_power's inverse
// powers; norm 2 / -2 / 'nuc'), the Fréchet derivative against central
// differences, identities computed by plain loops (exp(A) exp(-A) = I,
// exp of a diagonal), infer_shape, the static types, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <vector>

#include "linalg_test_util.h"
#include "test_util.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_eig.h"
#include "theano/tensor/linalg_expm.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using namespace theano::latest;
namespace LA = theano::tensor::linalg;
using testing::verify_grad;

namespace {

NDArray scaled(NDArray a, double s) {
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] *= s;
  return a;
}

}  // namespace

TEST_SUITE("linalg expm eig") {
  TEST_CASE("expm: exp(A) exp(-A) = I and exp(diag(d)) = diag(exp(d)) by plain loops, every degree, batched") {
    std::mt19937_64 rng(31);
    const Var a = tensor::tensor(DType::Float64, StaticShape(3), "a");
    const Var e = LA::expm(a), einv = LA::expm(neg(a));
    for (double s : {0.001, 0.1, 0.5, 1.0, 3.0, 6.0}) {  // larger norms: the fixtures (the product cancels)
      CAPTURE(s);
      const NDArray A = scaled(uniform(rng, {2, 4, 4}), s);
      const NDArray E = e.eval({{a, A}}), Ei = einv.eval({{a, A}});
      for (std::int64_t b = 0; b < 2; ++b)
        CHECK(max_abs_diff(mm(rows(entry(E, b)), rows(entry(Ei, b)), 4, 4, 4), identity(4)) < 1e-10 * (1 + s * s));
    }
    NDArray D = NDArray::zeros({1, 3, 3}, DType::Float64);
    const double d[3] = {-30.0, 0.5, 12.0};
    for (int i = 0; i < 3; ++i) D.data_as<double>()[i * 4] = d[i];
    const std::vector<double> got = rows(entry(e.eval({{a, D}}), 0));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double want = i == j ? std::exp(d[i]) : 0.0;
        CHECK(std::abs(got[static_cast<std::size_t>(i * 3 + j)] - want) <= 1e-13 * std::max(1.0, std::abs(want)));
      }
  }

  TEST_CASE("expm: static shape, float32 stays float32, 0 x 0, integers upcast, errors") {
    const Var x = tensor::tensor(DType::Float32, StaticShape{Dim(2), Dim(), Dim(3)}, "x");
    const Var e = LA::expm(x);
    CHECK(tensor_type(e)->dtype() == DType::Float32);
    CHECK(tensor_type(e)->shape() == StaticShape{Dim(2), Dim(3), Dim(3)});
    const Var m = matrix("m");
    CHECK(LA::expm(m).eval({{m, NDArray::zeros({0, 0}, DType::Float64)}}).shape() == std::vector<std::int64_t>{0, 0});
    const Var i = tensor::tensor(DType::Int32, StaticShape(2), "i");
    CHECK(tensor_type(LA::expm(i))->dtype() == DType::Float64);
    CHECK_THROWS_WITH_AS(LA::expm(tensor::tensor(DType::Float64, StaticShape{Dim(2), Dim(3)}, "r")),
                         doctest::Contains("must be square"), ShapeError);
    CHECK_THROWS_WITH_AS(LA::expm(m).eval({{m, NDArray::zeros({2, 3}, DType::Float64)}}),
                         doctest::Contains("Expm: input 0 must be a square matrix"), ShapeError);
    // A 1-norm past the double range (inf) ends the scaling at its cap: a result, no endless loop;
    // exp(1e300) overflows to inf as the scalar's does.
    CHECK(!std::isfinite(LA::expm(m).eval({{m, NDArray::full({2, 2}, 1e308)}}).data_as<double>()[0]));
    CHECK(std::isinf(LA::expm(m).eval({{m, NDArray::full({1, 1}, 1e300)}}).data_as<double>()[0]));
    NDArray bad = NDArray::zeros({2, 2}, DType::Float64);
    bad.data_as<double>()[3] = NAN;
    CHECK_THROWS_WITH_AS(LA::expm(m).eval({{m, bad}}), doctest::Contains("Expm: the matrix (input 0) contains a NaN"),
                         ValueError);
  }

  TEST_CASE("verify_grad: expm at sizes 1-5, small and large norms, batched, and expm_frechet against differences") {
    std::mt19937_64 rng(32);
    for (std::int64_t n : {1, 2, 5})
      for (double s : {0.05, 1.0, 8.0}) {
        CAPTURE(n);
        CAPTURE(s);
        verify_grad([](const std::vector<Var>& in) { return LA::expm(in[0]); }, {scaled(uniform(rng, {n, n}), s)},
                    {.rel_tol = 1e-4 * (1 + s)});
      }
    verify_grad([](const std::vector<Var>& in) { return LA::expm(in[0]); }, {uniform(rng, {2, 3, 3})});
    // The second derivative exists too (the gradient is an Expm): d/dA of sum(expm_frechet(A^T, G)).
    verify_grad([](const std::vector<Var>& in) { return LA::expm_frechet(in[0], in[1]); },
                {uniform(rng, {3, 3}), uniform(rng, {3, 3})});
    // L(A, E) = d/dt expm(A + t E) at 0, by central differences of perform's expm.
    const Var a = matrix("a");
    const Var ex = LA::expm(a);
    const NDArray A = uniform(rng, {4, 4}), E = uniform(rng, {4, 4});
    const Var av = matrix("av"), ev = matrix("ev");
    const std::vector<double> L = rows(LA::expm_frechet(av, ev).eval({{av, A}, {ev, E}}));
    const double h = 1e-5;
    NDArray Ap = A.copy(), Am = A.copy();
    for (std::int64_t i = 0; i < 16; ++i) {
      Ap.data_as<double>()[i] += h * E.data_as<double>()[i];
      Am.data_as<double>()[i] -= h * E.data_as<double>()[i];
    }
    const std::vector<double> p = rows(ex.eval({{a, Ap}})), q = rows(ex.eval({{a, Am}}));
    std::vector<double> fd(16);
    for (std::size_t i = 0; i < 16; ++i) fd[i] = (p[i] - q[i]) / (2 * h);
    CHECK(max_abs_diff(L, fd) < 1e-7);
    // Rop (the double-Lop form, theano/gradient.h) of expm is the same Fréchet derivative.
    CHECK(max_abs_diff(rows(Rop(ex, a, ev).eval({{a, A}, {ev, E}})), L) < 1e-10);
  }

  TEST_CASE("eig / eigvals: complex dtypes, static shapes, 0 x 0, batched, no gradient, errors") {
    const Var x = tensor::tensor(DType::Float32, StaticShape{Dim(), Dim(4), Dim()}, "x");
    auto [w, v] = LA::eig(x);
    CHECK(tensor_type(w)->dtype() == DType::Complex64);
    CHECK(tensor_type(w)->shape() == StaticShape{Dim(), Dim(4)});
    CHECK(tensor_type(v)->shape() == StaticShape{Dim(), Dim(4), Dim(4)});
    const Var a = tensor::tensor(DType::Float64, StaticShape(3), "a");
    std::mt19937_64 rng(33);
    const NDArray A = uniform(rng, {3, 4, 4});
    const NDArray W = LA::eigvals(a).eval({{a, A}});
    CHECK(W.dtype() == DType::Complex128);
    CHECK(W.shape() == std::vector<std::int64_t>{3, 4});
    // The batch entries are the matrices' own: the sum of the eigenvalues is the trace.
    const NDArray Wc = W.copy();
    const auto* pw = Wc.data_as<std::complex<double>>();
    for (std::int64_t b = 0; b < 3; ++b) {
      std::complex<double> s = 0;
      double tr = 0;
      for (std::int64_t i = 0; i < 4; ++i) {
        s += pw[b * 4 + i];
        tr += A.data_as<double>()[b * 16 + i * 5];
      }
      CHECK(std::abs(s - tr) < 1e-12);
    }
    const Var m = matrix("m");
    CHECK(LA::eigvals(m).eval({{m, NDArray::zeros({0, 0}, DType::Float64)}}).shape() == std::vector<std::int64_t>{0});
    testing::check_infer_shape({a}, {LA::eig(a).first, LA::eig(a).second, LA::eigvals(a)}, {A});
    // No gradient (as PyTensor's): asking the op for one is a ValueError naming it.
    const auto [wm, vm] = LA::eig(m);
    const Apply& node = *wm.owner();
    CHECK_THROWS_WITH_AS(node.op()->grad(node, {wm, Var()}), doctest::Contains("no gradient (as PyTensor's Eig)"), ValueError);
    CHECK(node.op()->grad(node, {Var(), Var()}).size() == 1);
    CHECK_THROWS_WITH_AS(LA::eig(tensor::tensor(DType::Float64, StaticShape{Dim(2), Dim(3)}, "r")),
                         doctest::Contains("must be square"), ShapeError);
  }

  TEST_CASE("matrix_power with n < 0: inv(M)^-n, batched, integer M in float64, its gradient, and singular M") {
    std::mt19937_64 rng(34);
    const Var a = tensor::tensor(DType::Float64, StaticShape(3), "a");
    const NDArray A = general(rng, {2, 3, 3});
    const NDArray P = LA::matrix_power(a, -3).eval({{a, A}});
    for (std::int64_t b = 0; b < 2; ++b) {
      const std::vector<double> M = rows(entry(A, b)), M3 = mm(mm(M, M, 3, 3, 3), M, 3, 3, 3);
      CHECK(max_abs_diff(mm(rows(entry(P, b)), M3, 3, 3, 3), identity(3)) < 1e-12);
    }
    const Var i = tensor::tensor(DType::Int64, StaticShape(2), "i");
    CHECK(tensor_type(LA::matrix_power(i, -1))->dtype() == DType::Float64);
    for (int n : {-1, -2, -5})
      verify_grad([n](const std::vector<Var>& in) { return LA::matrix_power(in[0], n); }, {general(rng, {2, 3, 3})});
    const Var m = matrix("m");
    CHECK_THROWS_WITH_AS(LA::matrix_power(m, -1).eval({{m, NDArray::zeros({2, 2}, DType::Float64)}}),
                         doctest::Contains("singular"), ValueError);
  }

  TEST_CASE("norm ords 2, -2, 'nuc': singular values by loops, axes and keepdims, batched, gradients") {
    std::mt19937_64 rng(35);
    const Var x = tensor::tensor(DType::Float64, StaticShape(3), "x");
    const NDArray X = uniform(rng, {2, 4, 3});
    // Per batch entry, svd's singular values squared are the eigenvalues of X^T X:
    // their sum is the squared Frobenius norm, their product the determinant.
    const NDArray n2 = LA::norm(x, 2, {1, 2}).eval({{x, X}}), nn2 = LA::norm(x, -2, {1, 2}).eval({{x, X}});
    const NDArray nuc = LA::norm(x, "nuc", {-2, -1}).eval({{x, X}});
    CHECK(n2.shape() == std::vector<std::int64_t>{2});
    for (std::int64_t b = 0; b < 2; ++b) {
      const std::vector<double> M = rows(entry(X, b)), G = mm(transposed(M, 4, 3), M, 3, 4, 3);
      const double smax = n2.data_as<double>()[b], smin = nn2.data_as<double>()[b], s = nuc.data_as<double>()[b];
      const double fro2 = G[0] + G[4] + G[8];
      // three singular values: smax, smin, and the middle one from the trace.
      const double mid = std::sqrt(fro2 - smax * smax - smin * smin);
      CHECK(std::abs(s - (smax + smin + mid)) < 1e-12);
      const double det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) +
                         G[2] * (G[3] * G[7] - G[4] * G[6]);
      CHECK(std::abs(smax * smax * mid * mid * smin * smin - det) < 1e-10);
      CHECK(smax >= mid);
      CHECK(mid >= smin);
    }
    const Var kd = LA::norm(x, 2, {0, 2}, true);
    CHECK(tensor_type(kd)->ndim() == 3);
    CHECK(kd.eval({{x, X}}).shape() == std::vector<std::int64_t>{1, 4, 1});
    for (const LA::NormOrd ord : {LA::NormOrd(2), LA::NormOrd(-2), LA::NormOrd("nuc")}) {
      CAPTURE(ord.str());
      verify_grad([ord](const std::vector<Var>& in) { return LA::norm(in[0], ord); }, {uniform(rng, {4, 3})});
      verify_grad([ord](const std::vector<Var>& in) { return LA::norm(in[0], ord, {2, 0}, true); },
                  {uniform(rng, {3, 2, 4})});
    }
    CHECK_THROWS_WITH_AS(LA::norm(matrix("m"), 3), doctest::Contains("'nuc', 1, -1, 2, -2, inf or -inf"), ValueError);
  }

  TEST_CASE("lstsq_full: residuals = |a x - b|^2 per column when rank == n < m, else empty, and rank, shapes") {
    std::mt19937_64 rng(36);
    const Var a = matrix("a"), b = matrix("b"), v = vector("v");
    const NDArray A = uniform(rng, {6, 3}), B = uniform(rng, {6, 2});
    const std::vector<Var> o = LA::lstsq_full(a, b);
    const NDArray X = o[0].eval({{a, A}, {b, B}}), R = o[1].eval({{a, A}, {b, B}});
    const std::vector<double> r = mm(rows(A), rows(X), 6, 3, 2), bb = rows(B);
    REQUIRE(R.shape() == std::vector<std::int64_t>{2});
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int i = 0; i < 6; ++i) s += (r[static_cast<std::size_t>(i * 2 + j)] - bb[static_cast<std::size_t>(i * 2 + j)]) *
                                       (r[static_cast<std::size_t>(i * 2 + j)] - bb[static_cast<std::size_t>(i * 2 + j)]);
      CHECK(std::abs(R.data_as<double>()[j] - s) < 1e-12);
    }
    CHECK(o[2].eval({{a, A}, {b, B}}).item<std::int64_t>() == 3);
    CHECK(tensor_type(o[2])->dtype() == DType::Int64);
    // A vector b: residuals of shape (1,); a square or wide a: none.
    const std::vector<Var> ov = LA::lstsq_full(a, v);
    CHECK(ov[1].eval({{a, A}, {v, uniform(rng, {6})}}).shape() == std::vector<std::int64_t>{1});
    CHECK(ov[1].eval({{a, uniform(rng, {3, 3})}, {v, uniform(rng, {3})}}).shape() == std::vector<std::int64_t>{0});
    CHECK(ov[2].eval({{a, uniform(rng, {3, 5})}, {v, uniform(rng, {3})}}).item<std::int64_t>() == 3);
    // Gradients of x and of the residuals (svd's, distinct singular values).
    verify_grad([](const std::vector<Var>& in) { return LA::lstsq_full(in[0], in[1])[0]; },
                {uniform(rng, {6, 3}), uniform(rng, {6, 2})});
    verify_grad([](const std::vector<Var>& in) { return LA::lstsq_full(in[0], in[1])[1]; },
                {uniform(rng, {5, 2}), uniform(rng, {5})});
    CHECK_THROWS_WITH_AS(LA::lstsq_full(tensor::tensor(DType::Float64, StaticShape(3), "t"), v),
                         doctest::Contains("lstsq_full"), ValueError);
  }
}
