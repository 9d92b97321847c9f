// The sigmoid family (rewrite/sigmoid.cpp, with local_sigmoid_from_exp and
// local_log_sigmoid): each rewrite's graph before / after, the numeric check
// against the unoptimized graph (check_rewrite), and values at z = +-100 and
// +-800 where the naive form rounds to 0 or 1, overflows, or is inf * 0.
#include <doctest/doctest.h>

#include <cmath>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

NDArray run_opt(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args,
                const std::string& mode = "fast_run") {
  FunctionOptions o;
  o.mode = mode;
  return function({ins.begin(), ins.end()}, {out}, o)(args)[0];
}

double at(const NDArray& a, std::int64_t i) { return a.astype(DType::Float64).contiguous().data_as<double>()[i]; }

// The stable sigmoid, for expected values.
double sigm(double z) { return z >= 0 ? 1 / (1 + std::exp(-z)) : std::exp(z) / (1 + std::exp(z)); }

const std::vector<double> kExtremes = {-800, -100, 0, 100, 800};

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_1msigmoid: 1 - sigmoid(x) -> sigmoid(-x), exact where sigmoid(x) rounds to 1") {
    Var x = T::dvector("x");
    check_rewrite({x}, {c(1) - T::sigmoid(x)}, {T::sigmoid(T::neg(x))});
    check_rewrite({x}, {c(1) - T::sigmoid(T::neg(x))}, {T::sigmoid(x)});
    check_rewrite({x}, {c(2) - T::sigmoid(x)}, {c(2) - T::sigmoid(x)});
    const NDArray r = run_opt({x}, c(1) - T::sigmoid(x), {NDArray::from_vector<double>(kExtremes, {5})});
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      CAPTURE(kExtremes[i]);
      CHECK(at(r, static_cast<std::int64_t>(i)) == doctest::Approx(sigm(-kExtremes[i])).epsilon(1e-14));
    }
    CHECK(at(r, 3) > 0);  // 1 - sigmoid(100) computed as a difference is 0
  }

  TEST_CASE("local_sigmoid_from_exp / local_exp_over_1_plus_exp: 1 / (1 + exp(x)) and c / (1 + exp(x))") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x}, {c(1) / (c(1) + T::exp(T::neg(x)))}, {T::sigmoid(x)});
    check_rewrite({x}, {c(1) / (c(1) + T::exp(x))}, {T::sigmoid(T::neg(x))});
    check_rewrite({x, y}, {y / (c(1) + T::exp(x))}, {T::mul(y, T::sigmoid(T::neg(x)))});
    check_rewrite({x, y}, {y / T::sqr(c(1) + T::exp(x))}, {T::mul({y, T::sigmoid(T::neg(x)), T::sigmoid(T::neg(x))})});
    check_rewrite({x, y}, {y / (T::exp(x) + c(2))}, {y / (T::exp(x) + c(2))});
    // exp(x) / (1 + exp(x)) is inf / inf = NaN at x = 800; sigmoid(x) is 1.
    const NDArray r = run_opt({x}, T::exp(x) / (c(1) + T::exp(x)), {NDArray::from_vector<double>(kExtremes, {5})});
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      CAPTURE(kExtremes[i]);
      CHECK(at(r, static_cast<std::int64_t>(i)) == doctest::Approx(sigm(kExtremes[i])).epsilon(1e-14));
    }
    // The gradient's y / (1 + exp(x))^2 at x = -800 (y = 1): exact, not a rounded 1 / 1.
    const NDArray q = run_opt({x, y}, y * T::exp(x) / T::sqr(c(1) + T::exp(x)),
                              {NDArray::from_vector<double>(kExtremes, {5}), vec({1, 1, 1, 1, 1})});
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      CAPTURE(kExtremes[i]);
      CHECK(at(q, static_cast<std::int64_t>(i)) ==
            doctest::Approx(sigm(kExtremes[i]) * sigm(-kExtremes[i])).epsilon(1e-14));
    }
    // No rewrite in fast_compile.
    check_rewrite({x, y}, {y / (c(1) + T::exp(x))}, {y / (c(1) + T::exp(x))}, "fast_compile");
  }

  TEST_CASE("local_sigm_times_exp: exp(x) * sigmoid(-x) -> sigmoid(x), not inf * 0 at x = 800") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x}, {T::exp(x) * T::sigmoid(T::neg(x))}, {T::sigmoid(x)});
    check_rewrite({x}, {T::sigmoid(x) * T::exp(T::neg(x))}, {T::sigmoid(T::neg(x))});
    check_rewrite({x, y}, {T::mul({T::exp(x), y, T::sigmoid(T::neg(x))})}, {T::mul(y, T::sigmoid(x))});
    check_rewrite({x}, {T::exp(x) * T::sigmoid(x)}, {T::exp(x) * T::sigmoid(x)});
    const NDArray r = run_opt({x}, T::exp(x) * T::sigmoid(-x), {NDArray::from_vector<double>(kExtremes, {5})});
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      CAPTURE(kExtremes[i]);
      CHECK(at(r, static_cast<std::int64_t>(i)) == doctest::Approx(sigm(kExtremes[i])).epsilon(1e-14));
    }
  }

  TEST_CASE("local_sigm_quotient_distribute: s * (a / s - b) -> a - s * b, finite where s = 0") {
    Var x = T::dvector("x"), a = T::dvector("a"), b = T::dvector("b");
    Var s = T::sigmoid(x);
    check_rewrite({x, a, b}, {s * (a / s - b)}, {T::add(a, T::neg(s * b))});
    Var t = T::sigmoid(T::neg(x));
    check_rewrite({x, a, b}, {T::mul(s, t) * (a / t + b / s)}, {T::add(s * a, t * b)});
    check_rewrite({x, a, b}, {s * (a / (s * b))}, {a / b});
    // Without a division by the factor, nothing changes.
    check_rewrite({x, a, b}, {s * (a / b - b)}, {s * (a / b - b)});
    // At x = -800, s = 0: the naive form is 0 * (a / 0) = NaN.
    const NDArray r = run_opt({x, a, b}, s * (a / s - b), {vec({-800, -100, 0, 100, 800}), vec({1, 1, 2, 3, 4}),
                                                           vec({5, 6, 7, 8, 9})});
    const std::vector<double> av = {1, 1, 2, 3, 4}, bv = {5, 6, 7, 8, 9};
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      CAPTURE(kExtremes[i]);
      CHECK(at(r, static_cast<std::int64_t>(i)) == doctest::Approx(av[i] - sigm(kExtremes[i]) * bv[i]).epsilon(1e-14));
    }
  }

  TEST_CASE("log-sigmoid family at the extremes: log(1 / (1 + exp(-x))), log(1 - 1 / (1 + exp(-x)))") {
    Var x = T::dvector("x");
    Var p = c(1) / (c(1) + T::exp(T::neg(x)));
    check_rewrite({x}, {T::log(p)}, {T::neg(T::softplus(T::neg(x)))});
    check_rewrite({x}, {T::log(c(1) - p)}, {T::neg(T::softplus(x))});
    const NDArray lp = run_opt({x}, T::log(p), {NDArray::from_vector<double>(kExtremes, {5})});
    const NDArray lq = run_opt({x}, T::log(c(1) - p), {NDArray::from_vector<double>(kExtremes, {5})});
    for (std::size_t i = 0; i < kExtremes.size(); ++i) {
      const double z = kExtremes[i];
      CAPTURE(z);
      // log(sigmoid(z)) = -softplus(-z); log(1 - sigmoid(z)) = -softplus(z)
      const double sp_neg = z < 0 ? -z + std::log1p(std::exp(z)) : std::log1p(std::exp(-z));
      const double sp_pos = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
      CHECK(at(lp, static_cast<std::int64_t>(i)) == doctest::Approx(-sp_neg).epsilon(1e-14));
      CHECK(at(lq, static_cast<std::int64_t>(i)) == doctest::Approx(-sp_pos).epsilon(1e-14));
    }
  }

  TEST_CASE("the cross-entropy of a hand-written sigmoid and its gradient are finite at |z| = 100 and 800") {
    // The tutorial's forms: p = 1 / (1 + exp(-z)), xent = -y log(p) - (1 - y) log(1 - p). d xent / dz = p - y.
    Var z = T::dvector("z"), y = T::dvector("y");
    Var p = 1 / (1 + T::exp(-z));
    Var xent = -y * T::log(p) - (1 - y) * T::log(1 - p);
    Var gz = grad(T::sum(xent), z);
    const std::vector<double> zs = {-800, -800, -100, -100, 0, 100, 100, 800, 800};
    const std::vector<double> ys = {0, 1, 0, 1, 1, 0, 1, 0, 1};
    const NDArray zv = NDArray::from_vector<double>(zs, {9}), yv = NDArray::from_vector<double>(ys, {9});
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const auto naive = function({z, y}, {xent, gz}, raw)({zv, yv});
    const auto got = function({z, y}, {xent, gz})({zv, yv});
    bool naive_finite = true;
    for (std::size_t i = 0; i < zs.size(); ++i) {
      const auto k = static_cast<std::int64_t>(i);
      CAPTURE(zs[i]);
      CAPTURE(ys[i]);
      naive_finite = naive_finite && std::isfinite(at(naive[1], k));
      const double want_x = ys[i] == 1 ? (zs[i] < 0 ? -zs[i] + std::log1p(std::exp(zs[i])) : std::log1p(std::exp(-zs[i])))
                                       : (zs[i] > 0 ? zs[i] + std::log1p(std::exp(-zs[i])) : std::log1p(std::exp(zs[i])));
      CHECK(at(got[0], k) == doctest::Approx(want_x).epsilon(1e-13));
      CHECK(at(got[1], k) == doctest::Approx(sigm(zs[i]) - ys[i]).epsilon(1e-13));
    }
    CHECK_FALSE(naive_finite);  // the unoptimized gradient is NaN or inf somewhere: the test can fail
    // No division by a sigmoid, and no exp, is left in the optimized gradient.
    FunctionGraph fg({z, y}, {gz});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    CHECK(count_nodes(fg, "true_div") == 0);
    CHECK(count_nodes(fg, "exp") == 0);
    CHECK(count_nodes(fg, "sigmoid") >= 1);
  }
}
