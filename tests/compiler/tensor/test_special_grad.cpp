// verify_grad for the special functions of the scalar table (special_math.h,
// docs/special-functions.md) at points across each domain, near its edges
// included, and their gradients' closed forms where finite differences cannot
// reach (far tails).
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "test_util.h"
#include "theano/gradient.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/special.h"
#include "theano/tensor/type.h"
#include "theano/testing.h"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray values(const std::vector<double>& v) { return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())}); }

}  // namespace

TEST_CASE("verify_grad: erfinv, erfcinv, erfcx, logit and xlogx across their domains, near the edges included") {
  testing::verify_grad([](const std::vector<Var>& in) { return erfinv(in[0]); },
                       {values({-0.999, -0.5, 0.001, 0.6, 0.95, 0.9999})});
  testing::verify_grad([](const std::vector<Var>& in) { return erfcinv(in[0]); },
                       {values({1e-4, 0.2, 1.0, 1.7, 1.999})});
  testing::verify_grad([](const std::vector<Var>& in) { return erfcx(in[0]); },
                       {values({-3.0, -0.5, 0.1, 2.0, 10.0, 30.0, 1e3})});
  testing::verify_grad([](const std::vector<Var>& in) { return logit(in[0]); },
                       {values({0.001, 0.3, 0.5, 0.9, 0.999})});
  testing::verify_grad([](const std::vector<Var>& in) { return xlogx(in[0]); }, {values({1e-3, 0.5, 3.0, 100.0})});
  testing::verify_grad([](const std::vector<Var>& in) { return log1pexp(in[0]); }, {values({-30.0, -1.0, 0.0, 2.0, 30.0})});
}

TEST_CASE("verify_grad: xlogy0 and xlog1py in both arguments") {
  testing::verify_grad([](const std::vector<Var>& in) { return xlogy0(in[0], in[1]); },
                       {values({-2.0, 0.5, 3.0, 1e-3}), values({1e-3, 1.0, 5.0, 1e3})});
  testing::verify_grad([](const std::vector<Var>& in) { return xlog1py(in[0], in[1]); },
                       {values({-2.0, 0.5, 3.0, 1e-3}), values({-0.9, 0.0, 5.0, 1e3})});
}

TEST_CASE("verify_grad: gamma, psi, tri_gamma, polygamma and betaln, negative arguments included") {
  testing::verify_grad([](const std::vector<Var>& in) { return gamma(in[0]); },
                       {values({-2.5, -0.5, 0.1, 1.5, 5.0, 8.0})});
  // Alone: gamma(30) = 8.8e30 would drown the other elements' finite differences.
  testing::verify_grad([](const std::vector<Var>& in) { return gamma(in[0]); }, {values({30.0})});
  testing::verify_grad([](const std::vector<Var>& in) { return elemwise("psi", {in[0]}); },
                       {values({-1.5, -0.3, 0.2, 1.0, 10.0, 1e3})});
  testing::verify_grad([](const std::vector<Var>& in) { return tri_gamma(in[0]); },
                       {values({-1.5, -0.3, 0.2, 1.0, 10.0, 1e3})});
  testing::verify_grad([](const std::vector<Var>& in) { return polygamma(3, in[0]); },
                       {values({-2.5, -0.4, 0.3, 2.0, 20.0})});
  testing::verify_grad([](const std::vector<Var>& in) { return betaln(in[0], in[1]); },
                       {values({0.1, 2.0, 30.0, 1e3, 5.0}), values({0.5, 20.0, 1.0, 5e3, 5.0})});
  // The order gets no gradient: grad with respect to n is refused, not zero.
  Var n = dvector("n"), x = dvector("x");
  CHECK_THROWS(theano::grad(polygamma(n, x).sum(), n));
}

TEST_CASE("verify_grad: ndtr, log_ndtr and ndtri, far tails included") {
  testing::verify_grad([](const std::vector<Var>& in) { return ndtr(in[0]); }, {values({-5.0, -1.0, 0.0, 2.0, 6.0})});
  testing::verify_grad([](const std::vector<Var>& in) { return log_ndtr(in[0]); },
                       {values({-40.0, -5.0, -1.0, 0.0, 3.0, 10.0})});
  testing::verify_grad([](const std::vector<Var>& in) { return ndtri(in[0]); },
                       {values({1e-5, 0.01, 0.5, 0.9, 0.99999})}, {.eps = 1e-9});
}

TEST_CASE("special function gradients keep their closed forms in the far tails") {
  Var x = dvector("x");
  const double sqrt_pi = std::sqrt(std::numbers::pi);
  // erfinv at 1 - 1e-12: sqrt(pi)/2 exp(erfinv(y)^2), about 9.7e10.
  const NDArray g = theano::grad(erfinv(x).sum(), x).eval({{x, values({1 - 1e-12})}});
  const double y = erfinv(x).eval({{x, values({1 - 1e-12})}}).data_as<double>()[0];
  CHECK(g.data_as<double>()[0] == doctest::Approx(sqrt_pi / 2 * std::exp(y * y)).epsilon(1e-12));
  CHECK(g.data_as<double>()[0] > 9e10);
  // erfcx at 1e8: 2x erfcx(x) - 2/sqrt(pi) ~ -1 / (sqrt(pi) x^2), which the closed form keeps
  // only through erfcx's accuracy (a cancellation of two terms of size 1.1).
  const NDArray h = theano::grad(erfcx(x).sum(), x).eval({{x, values({1e3})}});
  CHECK(h.data_as<double>()[0] == doctest::Approx(-1 / (sqrt_pi * 1e6)).epsilon(1e-6));
  // log_ndtr at -1e3 and -1e8: the Mills ratio -x - 1/x + 2/x^3, where pdf / ndtr would be 0 / 0.
  for (double v : {-1e3, -1e8}) {
    CAPTURE(v);
    const NDArray l = theano::grad(log_ndtr(x).sum(), x).eval({{x, values({v})}});
    CHECK(l.data_as<double>()[0] == doctest::Approx(-v - 1 / v + 2 / (v * v * v)).epsilon(1e-12));
  }
  // ndtri at 1e-300: sqrt(2 pi) exp(ndtri(p)^2 / 2) = 1 / pdf(ndtri(p)), finite (about 3.7e301).
  const NDArray m = theano::grad(ndtri(x).sum(), x).eval({{x, values({1e-300})}});
  const double z = ndtri(x).eval({{x, values({1e-300})}}).data_as<double>()[0];
  CHECK(std::isfinite(m.data_as<double>()[0]));
  CHECK(m.data_as<double>()[0] == doctest::Approx(std::sqrt(2 * std::numbers::pi) * std::exp(z * z / 2)).epsilon(1e-12));
}
