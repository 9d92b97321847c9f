// The Theano tutorial's "A Real Example: Logistic Regression" written as the
// tutorial writes it (p_1 = 1 / (1 + exp(-dot(x, w) - b)), log(1 - p_1)) on
// data generated like its own (Gaussian 400 x 784 features, random 0/1
// labels, so the scores reach |z| ~ 100 and p_1 rounds to 1), trained with the
// compiled gradient and, beside it, with plain double loops using the stable
// formulas (sigmoid through exp(-|z|), d xent / dz = p - y). Both must agree
// after every check point; the model must stay finite and fit its training set.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;

namespace {

constexpr std::int64_t kN = 400, kFeats = 784;

double stable_sigmoid(double z) {
  const double e = std::exp(-std::abs(z));
  return z >= 0 ? 1 / (1 + e) : e / (1 + e);
}

/// The tutorial's gradient descent in double loops: cost = mean(xent) + 0.01 * sum(w^2), lr 0.1.
struct Reference {
  const std::vector<double>& x;
  const std::vector<double>& y;
  std::vector<double> w;
  double b = 0;

  void step() {
    std::vector<double> gw(w.size(), 0.0);
    double gb = 0;
    for (std::int64_t i = 0; i < kN; ++i) {
      double z = b;
      for (std::int64_t j = 0; j < kFeats; ++j) z += x[static_cast<std::size_t>(i * kFeats + j)] * w[static_cast<std::size_t>(j)];
      const double dz = (stable_sigmoid(z) - y[static_cast<std::size_t>(i)]) / kN;
      for (std::int64_t j = 0; j < kFeats; ++j) gw[static_cast<std::size_t>(j)] += dz * x[static_cast<std::size_t>(i * kFeats + j)];
      gb += dz;
    }
    for (std::size_t j = 0; j < w.size(); ++j) w[j] -= 0.1 * (gw[j] + 0.02 * w[j]);
    b -= 0.1 * gb;
  }

  double max_abs_z() const {
    double m = 0;
    for (std::int64_t i = 0; i < kN; ++i) {
      double z = b;
      for (std::int64_t j = 0; j < kFeats; ++j) z += x[static_cast<std::size_t>(i * kFeats + j)] * w[static_cast<std::size_t>(j)];
      m = std::max(m, std::abs(z));
    }
    return m;
  }
};

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("the tutorial's logistic regression as written trains to the stable reference, finite, 400/400 right") {
    std::mt19937_64 rng(33);
    std::normal_distribution<double> randn;
    std::uniform_int_distribution<int> randint(0, 1);
    std::vector<double> xs(static_cast<std::size_t>(kN * kFeats)), ys(static_cast<std::size_t>(kN)), w0(kFeats);
    for (double& v : xs) v = randn(rng);
    for (double& v : ys) v = randint(rng);
    for (double& v : w0) v = randn(rng);
    const NDArray Dx = NDArray::from_vector<double>(xs, {kN, kFeats}), Dy = NDArray::from_vector<double>(ys, {kN});

    Var x = T::dmatrix("x"), y = T::dvector("y");
    Var w = shared(NDArray::from_vector<double>(w0, {kFeats}), "w");
    Var b = shared(NDArray::scalar(0.0), "b");
    Var p_1 = 1 / (1 + T::exp(-T::dot(x, w) - b));
    Var prediction = p_1 > 0.5;
    Var xent = -y * T::log(p_1) - (1 - y) * T::log(1 - p_1);
    Var cost = T::mean(xent) + 0.01 * T::sum(T::pow(w, 2));
    const std::vector<Var> g = grad(cost, std::vector<Var>{w, b});
    Function train = function({x, y}, {prediction, xent}, {.updates = {{w, w - 0.1 * g[0]}, {b, b - 0.1 * g[1]}}});
    Function predict = function({x}, {prediction});

    Reference ref{xs, ys, w0};
    CHECK(ref.max_abs_z() > 37);  // p_1 = 1 / (1 + exp(-z)) rounds to 1 for some samples
    std::vector<NDArray> last;
    for (int step = 1; step <= 1000; ++step) {
      last = train({Dx, Dy});
      ref.step();
      if (step % 250 != 0 && step != 1) continue;
      CAPTURE(step);
      const NDArray wv = get_value(w).astype(DType::Float64).contiguous();
      const double bv = get_value(b).item<double>();
      REQUIRE(std::isfinite(bv));
      CHECK(bv == doctest::Approx(ref.b).epsilon(1e-9).scale(1e-9));
      double worst = 0;
      for (std::int64_t j = 0; j < kFeats; ++j) {
        const double got = wv.data_as<double>()[j], want = ref.w[static_cast<std::size_t>(j)];
        REQUIRE(std::isfinite(got));
        worst = std::max(worst, std::abs(got - want) / (1e-9 + std::abs(want)));
      }
      CHECK(worst < 1e-9);
    }
    const NDArray err = last[1].astype(DType::Float64).contiguous();
    for (std::int64_t i = 0; i < kN; ++i) REQUIRE(std::isfinite(err.data_as<double>()[i]));
    const NDArray pred = predict({Dx})[0].astype(DType::Float64).contiguous();
    std::int64_t right = 0;
    for (std::int64_t i = 0; i < kN; ++i) right += pred.data_as<double>()[i] == ys[static_cast<std::size_t>(i)];
    CHECK(right == kN);
  }
}
