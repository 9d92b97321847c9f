// Gradients and infer_shape of the LAPACK-backed ops (theano/tensor/linalg.h):
// verify_grad (central finite differences) for each op at several sizes,
// well- and worse-conditioned inputs, with batch dims (broadcast ones too),
// and check_infer_shape against the shapes perform gives.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "linalg_test_util.h"
#include "test_util.h"
#include "theano/tensor/linalg.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using namespace theano::latest;
namespace LA = theano::tensor::linalg;
using testing::verify_grad;

TEST_SUITE("linalg grad") {
  TEST_CASE("verify_grad: cholesky, lower and upper, sizes 1-6, two conditionings, batched") {
    std::mt19937_64 rng(11);
    for (std::int64_t n : {1, 3, 6})
      for (double shift : {1.0, 0.05})
        for (bool lower : {true, false}) {
          CAPTURE(n);
          CAPTURE(shift);
          CAPTURE(lower);
          verify_grad([&](const std::vector<Var>& in) { return LA::cholesky(in[0], lower); }, {spd(rng, {n, n}, shift)});
        }
    verify_grad([](const std::vector<Var>& in) { return LA::cholesky(in[0]); }, {spd(rng, {2, 3, 4, 4})});
  }

  TEST_CASE("verify_grad: solve_triangular, lower / upper, trans, unit_diagonal, vector b, broadcast batch") {
    std::mt19937_64 rng(12);
    for (std::int64_t n : {1, 4})
      for (bool lower : {true, false})
        for (int trans : {0, 1})
          for (bool unit : {false, true}) {
            CAPTURE(n);
            CAPTURE(lower);
            CAPTURE(trans);
            CAPTURE(unit);
            auto f = [&](const std::vector<Var>& in) { return LA::solve_triangular(in[0], in[1], lower, trans, unit); };
            verify_grad(f, {general(rng, {n, n}), uniform(rng, {n, 2})});
            verify_grad(f, {general(rng, {n, n}), uniform(rng, {n})});
          }
    // A batched, b broadcast over the batch; and the other way round.
    auto f = [](const std::vector<Var>& in) { return LA::solve_triangular(in[0], in[1], true); };
    verify_grad(f, {general(rng, {3, 4, 4}), uniform(rng, {4, 2})});
    verify_grad(f, {general(rng, {4, 4}), uniform(rng, {2, 4, 3})});
    verify_grad(f, {general(rng, {1, 4, 4}), uniform(rng, {3, 4, 2})});
  }

  TEST_CASE("verify_grad: cho_solve, lower and upper, batched") {
    std::mt19937_64 rng(13);
    const Var a = tensor::tensor(DType::Float64, StaticShape(3), "a");
    for (bool lower : {true, false}) {
      CAPTURE(lower);
      const NDArray C = LA::cholesky(a, lower).eval({{a, spd(rng, {2, 4, 4})}});
      verify_grad([&](const std::vector<Var>& in) { return LA::cho_solve({in[0], lower}, in[1]); },
                  {C, uniform(rng, {2, 4, 3})});
      verify_grad([&](const std::vector<Var>& in) { return LA::cho_solve({in[0], lower}, in[1]); },
                  {C.index(0, 0).copy(), uniform(rng, {4})});
    }
  }

  TEST_CASE("verify_grad: solve gen / sym / pos, vector and matrix b, two conditionings, batched") {
    std::mt19937_64 rng(14);
    for (const char* assume : {"gen", "sym", "pos"})
      for (bool lower : {true, false})
        for (double shift : {1.0, 0.1}) {
          CAPTURE(assume);
          CAPTURE(lower);
          CAPTURE(shift);
          auto f = [&](const std::vector<Var>& in) { return LA::solve(in[0], in[1], assume, lower); };
          const NDArray A = std::string(assume) == "gen" ? general(rng, {5, 5}, 4 * shift) : spd(rng, {5, 5}, shift);
          verify_grad(f, {A, uniform(rng, {5, 2})});
          verify_grad(f, {A, uniform(rng, {5})});
        }
    auto f = [](const std::vector<Var>& in) { return LA::solve(in[0], in[1]); };
    verify_grad(f, {general(rng, {2, 3, 3}), uniform(rng, {3, 4})});
  }

  TEST_CASE("verify_grad: inv, det, slogdet, sizes 1-5, batched") {
    std::mt19937_64 rng(15);
    for (std::int64_t n : {1, 2, 5}) {
      CAPTURE(n);
      const NDArray A = general(rng, {n, n});
      verify_grad([](const std::vector<Var>& in) { return LA::inv(in[0]); }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::det(in[0]); }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::slogdet(in[0]).second; }, {A});
      // The first row negated: the determinant changes sign, log|det| is still differentiable.
      NDArray B = A.copy();
      for (std::int64_t j = 0; j < n; ++j) B.data_as<double>()[j] = -B.data_as<double>()[j];
      verify_grad([](const std::vector<Var>& in) { return LA::slogdet(in[0]).second; }, {B});
    }
    verify_grad([](const std::vector<Var>& in) { return LA::inv(in[0]); }, {general(rng, {2, 3, 3})});
    verify_grad([](const std::vector<Var>& in) { return LA::det(in[0]); }, {general(rng, {4, 3, 3})});
  }

  TEST_CASE("verify_grad: eigh (values and vectors), eigvalsh, UPLO, batched") {
    std::mt19937_64 rng(16);
    for (std::int64_t n : {1, 3, 5})
      for (const char* uplo : {"L", "U"}) {
        CAPTURE(n);
        CAPTURE(uplo);
        const NDArray A = uniform(rng, {n, n});  // only one triangle read: any matrix is a symmetric input
        verify_grad([&](const std::vector<Var>& in) { return LA::eigvalsh(in[0], uplo); }, {A});
        verify_grad([&](const std::vector<Var>& in) { return LA::eigh(in[0], uplo).first; }, {A});
        verify_grad([&](const std::vector<Var>& in) { return LA::eigh(in[0], uplo).second; }, {A});
      }
    verify_grad([](const std::vector<Var>& in) { return LA::eigh(in[0]).second; }, {uniform(rng, {2, 4, 4})});
  }

  TEST_CASE("verify_grad: svd values, and U, S, Vt without full_matrices, tall / wide / square") {
    std::mt19937_64 rng(17);
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 3}, {5, 3}, {3, 5}, {1, 4}}) {
      CAPTURE(m);
      CAPTURE(n);
      const NDArray A = uniform(rng, {m, n});
      verify_grad([](const std::vector<Var>& in) { return LA::svdvals(in[0]); }, {A});
      // U and Vt up to the sign of each singular pair: squares are sign-free.
      verify_grad([](const std::vector<Var>& in) { return sqr(LA::svd(in[0], false)[0]); }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::svd(in[0], false)[1]; }, {A});
      verify_grad([](const std::vector<Var>& in) { return sqr(LA::svd(in[0], false)[2]); }, {A});
      // A sign-free product of both: U S Vt again, through all three outputs.
      verify_grad([](const std::vector<Var>& in) {
        const std::vector<Var> usv = LA::svd(in[0], false);
        return LA::matmul(mul(usv[0], dimshuffle(usv[1], {kNewAxis, 0})), usv[2]);
      }, {A});
    }
    verify_grad([](const std::vector<Var>& in) { return LA::svdvals(in[0]); }, {uniform(rng, {2, 4, 3})});
    const Var x = matrix("x");
    CHECK_THROWS_WITH_AS(grad(sum(LA::svd(x, true)[0]), {x}), doctest::Contains("full_matrices"), ValueError);
  }

  TEST_CASE("verify_grad: qr reduced and r with m >= n, batched, and the m < n check") {
    std::mt19937_64 rng(18);
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 3}, {5, 3}, {4, 1}}) {
      CAPTURE(m);
      CAPTURE(n);
      const NDArray A = general(rng, {m, n}, 1.0);
      verify_grad([](const std::vector<Var>& in) { return LA::qr(in[0])[0]; }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::qr(in[0])[1]; }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::qr(in[0], "r")[0]; }, {A});
    }
    verify_grad([](const std::vector<Var>& in) { return LA::qr(in[0])[1]; }, {general(rng, {2, 4, 3}, 1.0)});
    const Var x = matrix("x");
    const Var g = grad(sum(LA::qr(x)[1]), {x})[0];
    CHECK_THROWS_WITH_AS(g.eval({{x, uniform(rng, {2, 4})}}), doctest::Contains("m >= n"), Error);
  }

  TEST_CASE("verify_grad: lu_factor, lu (three forms), lu_solve (both trans), batched") {
    std::mt19937_64 rng(20);
    for (std::int64_t n : {1, 3, 5}) {
      CAPTURE(n);
      const NDArray A = general(rng, {n, n}, 1.0);
      verify_grad([](const std::vector<Var>& in) { return LA::lu_factor(in[0]).first; }, {A});
      for (int k : {0, 1, 2})
        verify_grad([&](const std::vector<Var>& in) { return LA::lu(in[0])[static_cast<std::size_t>(k)]; }, {A});
      verify_grad([](const std::vector<Var>& in) { return LA::lu(in[0], true)[0]; }, {A});
      for (int trans : {0, 1})
        verify_grad([&](const std::vector<Var>& in) {
          const auto [LU, piv] = LA::lu_factor(in[0]);
          return LA::lu_solve({LU, piv}, in[1], trans);
        }, {A, uniform(rng, {n, 2})});
    }
    verify_grad([](const std::vector<Var>& in) { return LA::lu_factor(in[0]).first; }, {general(rng, {2, 4, 4}, 1.0)});
  }

  TEST_CASE("verify_grad: pinv (square, tall, wide, batched) and lstsq") {
    std::mt19937_64 rng(22);
    for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 3}, {5, 3}, {3, 5}}) {
      CAPTURE(m);
      CAPTURE(n);
      verify_grad([](const std::vector<Var>& in) { return LA::pinv(in[0]); }, {uniform(rng, {m, n})});
    }
    verify_grad([](const std::vector<Var>& in) { return LA::pinv(in[0]); }, {uniform(rng, {2, 4, 3})});
    verify_grad([](const std::vector<Var>& in) { return LA::lstsq(in[0], in[1]); }, {uniform(rng, {5, 3}), uniform(rng, {5})});
  }

  TEST_CASE("Rop (the double-Lop form) of inv, cholesky and solve: closed forms and central differences") {
    std::mt19937_64 rng(23);
    const std::int64_t n = 4;
    const Var a = matrix("a"), v = matrix("v"), b = vector("b");
    const NDArray A = spd(rng, {n, n}), V0 = uniform(rng, {n, n}), B = uniform(rng, {n});
    NDArray V = V0.copy();  // symmetric, as a perturbation of a symmetric positive-definite matrix
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        V.data_as<double>()[i * n + j] = V0.data_as<double>()[i * n + j] + V0.data_as<double>()[j * n + i];
    // d inv(A)[V] = -inv(A) V inv(A).
    const std::vector<double> ai = rows(LA::inv(a).eval({{a, A}}));
    std::vector<double> want = mm(mm(ai, rows(V), n, n, n), ai, n, n, n);
    for (double& x : want) x = -x;
    CHECK(max_abs_diff(rows(Rop(LA::inv(a), a, v).eval({{a, A}, {v, V}})), want) < 1e-10);
    // cholesky and solve: central differences along V.
    const double h = 1e-6;
    NDArray Ap = A.copy(), Am = A.copy();
    for (std::int64_t i = 0; i < n * n; ++i) {
      Ap.data_as<double>()[i] += h * V.data_as<double>()[i];
      Am.data_as<double>()[i] -= h * V.data_as<double>()[i];
    }
    for (const Var& f : {LA::cholesky(a), LA::solve(a, b, "pos")}) {
      const NDArray got = Rop(f, a, v).eval({{a, A}, {v, V}, {b, B}});
      const std::vector<double> fp = rows(f.eval({{a, Ap}, {b, B}}).reshape({1, -1})),
                                fm = rows(f.eval({{a, Am}, {b, B}}).reshape({1, -1}));
      std::vector<double> fd(fp.size());
      for (std::size_t i = 0; i < fd.size(); ++i) fd[i] = (fp[i] - fm[i]) / (2 * h);
      CHECK(max_abs_diff(rows(got.reshape({1, -1})), fd) < 1e-6);
    }
  }

  TEST_CASE("W11 (docs/workloads.md): the Gaussian-process log-likelihood and its gradient match JAX's checksums") {
    // U(s; lo, hi): SplitMix64 over a counter (docs/workloads.md, "Conventions").
    auto U = [](std::uint64_t s, std::vector<std::int64_t> shape, double lo, double hi) {
      NDArray a = NDArray::empty(std::move(shape), DType::Float64);
      for (std::int64_t i = 0; i < a.size(); ++i) {
        std::uint64_t z = s + static_cast<std::uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z = z ^ (z >> 31);
        a.data_as<double>()[i] = lo + (hi - lo) * (static_cast<double>(z >> 11) * 0x1p-53);
      }
      return a;
    };
    const std::int64_t n = 500;
    const Var X = matrix("X"), y = vector("y");
    const Var sq = sum(sqr(X), 1);
    const Var D = sub(add(dimshuffle(sq, {0, kNewAxis}), dimshuffle(sq, {kNewAxis, 0})), mul(2.0, dot(X, X.T())));
    const Var I = eye(shape_i(X, 0));
    const Var K = add(exp(mul(-0.5, D)), mul(0.1, I));
    const Var L = LA::cholesky(K);
    const Var a = LA::solve_triangular(L, y, true);
    const Var logdiag = sum(log(sum(mul(L, I), 1)));
    const Var logp = sub(sub(mul(-0.5, sum(sqr(a))), logdiag), 0.5 * static_cast<double>(n) * std::log(2 * M_PI));
    const Var g = grad(logp, X);
    const NDArray Xv = U(1101, {n, 8}, -1, 1), yv = U(1102, {n}, -1, 1);
    CHECK(logp.eval({{X, Xv}, {y, yv}}).item<double>() == doctest::Approx(-542.7450953457718).epsilon(1e-10));
    CHECK(sum(abs(g)).eval({{X, Xv}, {y, yv}}).item<double>() == doctest::Approx(3143.9932943893955).epsilon(1e-10));
  }

  TEST_CASE("infer_shape of every op, batched") {
    std::mt19937_64 rng(19);
    const Var a = tensor::tensor(DType::Float64, StaticShape(3), "a"), b = matrix("b"), v = vector("v");
    const Var r = tensor::tensor(DType::Float64, StaticShape(3), "r");
    const NDArray A = spd(rng, {2, 4, 4}), B = uniform(rng, {4, 3}), V = uniform(rng, {4}), R = uniform(rng, {2, 5, 3});
    testing::check_infer_shape({a, b, v}, {LA::cholesky(a), LA::solve_triangular(a, b, true), LA::solve(a, v),
                                           LA::cho_solve({a, true}, b), LA::inv(a), LA::det(a), LA::slogdet(a).first,
                                           LA::slogdet(a).second, LA::eigh(a).first, LA::eigh(a).second, LA::eigvalsh(a),
                                           LA::lu_factor(a).first, LA::lu_factor(a).second,
                                           LA::pivot_to_permutation(LA::lu_factor(a).second)},
                               {A, B, V});
    std::vector<Var> outs;
    for (bool full : {false, true})
      for (const Var& o : LA::svd(r, full)) outs.push_back(o);
    outs.push_back(LA::svdvals(r));
    outs.push_back(LA::pinv(r));
    for (const char* mode : {"reduced", "complete", "r"})
      for (const Var& o : LA::qr(r, mode)) outs.push_back(o);
    testing::check_infer_shape({r}, outs, {R});
    testing::check_infer_shape({r}, outs, {uniform(rng, {2, 3, 5})});
  }
}
