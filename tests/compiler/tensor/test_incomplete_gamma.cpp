// gammainc / gammaincc and their inverses (compiler/include/theano/tensor/math.h): gradients with respect to a and
// x (verify_grad, both sides of the series / continued-fraction switch at x = a + 1), and the
// gammainc_der row (dP/da) against central differences of Boost.Math's gamma_p / gamma_q, a
// reference that shares no code with ours. Accuracy of the values: tests/codegen/
// test_incomplete_gamma_accuracy.cpp.
#include <doctest/doctest.h>

#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <vector>

#include "test_util.h"
#include "theano/gradient.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray values(const std::vector<double>& v) {
  NDArray a = NDArray::empty({static_cast<std::int64_t>(v.size())});
  for (std::size_t k = 0; k < v.size(); ++k) a.data_as<double>()[k] = v[k];
  return a;
}

}  // namespace

TEST_CASE("verify_grad: gammainc and gammaincc with respect to a and x, below and above x = a + 1") {
  // Pairs on both sides of the switch, small and large a (the large ones near x = a).
  const NDArray a = values({0.3, 0.8, 1.5, 2.0, 3.5, 7.0, 40.0, 40.0});
  const NDArray x = values({0.2, 2.5, 0.7, 4.0, 3.0, 12.0, 37.0, 44.0});
  for (const char* name : {"gammainc", "gammaincc"}) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0], in[1]}); }, {a, x});
  }
}

TEST_CASE("gammainc_der is dP/da: Boost.Math's central differences agree to 1e-7") {
  const std::vector<double> as{1e-3, 0.3, 0.8, 1.5, 3.5, 7.0, 40.0, 40.0, 250.0, 2.0};
  const std::vector<double> xs{0.5, 0.2, 2.5, 0.7, 3.0, 12.0, 37.0, 44.0, 260.0, 30.0};
  Var a = dvector("a"), x = dvector("x");
  const NDArray d = elemwise("gammainc_der", {a, x}).eval({{a, values(as)}, {x, values(xs)}});
  for (std::size_t k = 0; k < as.size(); ++k) {
    CAPTURE(as[k]);
    CAPTURE(xs[k]);
    // Differences of whichever of P and Q is smaller (the other is near 1 and has no digits to spare).
    const double h = 1e-5 * as[k];
    const bool use_q = boost::math::gamma_p(as[k], xs[k]) > 0.5;
    auto f = [&](double aa) { return use_q ? -boost::math::gamma_q(aa, xs[k]) : boost::math::gamma_p(aa, xs[k]); };
    // Fourth-order central difference.
    const double ref = (-f(as[k] + 2 * h) + 8 * f(as[k] + h) - 8 * f(as[k] - h) + f(as[k] - 2 * h)) / (12 * h);
    CHECK(d.data_as<double>()[k] == doctest::Approx(ref).epsilon(1e-7));
  }
}

TEST_CASE("gammainc's second derivative in a is not defined: the error names gammainc_der") {
  Var a = dscalar("a"), x = dscalar("x");
  Var ga = grad(gammainc(a, x), a);
  CHECK_THROWS_WITH_AS(grad(ga, a), doctest::Contains("gammainc_der has no gradient"), MethodNotDefined);
}

TEST_CASE("gammainc and gammaincc of integers compute in float64, float32 stays float32") {
  CHECK(tensor_type(gammainc(ivector("a"), ivector("x")))->dtype() == DType::Float64);
  CHECK(tensor_type(gammaincc(fvector("a"), fvector("x")))->dtype() == DType::Float32);
  Var a = dscalar("a"), x = dscalar("x");
  CHECK(gammainc(a, x).eval({{a, NDArray::scalar(2.0)}, {x, NDArray::scalar(1.0)}}).item<double>() ==
        doctest::Approx(1 - 2 * std::exp(-1.0)).epsilon(1e-15));
}

TEST_CASE("verify_grad: gammaincinv and gammainccinv with respect to a and y") {
  const NDArray a = values({0.3, 0.8, 1.5, 2.0, 3.5, 7.0, 40.0});
  const NDArray y = values({0.2, 0.9, 0.5, 0.05, 0.7, 0.3, 0.6});
  for (const char* name : {"gammaincinv", "gammainccinv"}) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0], in[1]}); }, {a, y},
                         {.eps = 1e-7, .abs_tol = 1e-4, .rel_tol = 1e-4});
  }
}

TEST_CASE("gammaincinv and gammainccinv invert gammainc and gammaincc") {
  Var a = dvector("a"), y = dvector("y");
  // (a = 1e-3 with y = 0.3 would put x near 1e-523, below the smallest double: the result is 0 there.)
  const NDArray av = values({0.05, 0.5, 2.0, 30.0, 1e4}), yv = values({0.3, 1e-20, 0.999, 0.5, 0.01});
  CHECK(allclose(gammainc(a, gammaincinv(a, y)).eval({{a, av}, {y, yv}}), yv, 1e-12, 0));
  CHECK(allclose(gammaincc(a, gammainccinv(a, y)).eval({{a, av}, {y, yv}}), yv, 1e-12, 0));
}
