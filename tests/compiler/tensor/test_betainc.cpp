// betainc (compiler/include/theano/tensor/math.h): gradients with respect to a, b and x (verify_grad on
// both sides of the continued fraction's switch at the mean), and the betainc_der_a / betainc_der_b
// rows (Boik and Robison-Cox's derivatives) against central differences of Boost.Math's ibeta /
// ibetac, a reference that shares no code with ours. Accuracy of the values:
// tests/codegen/test_betainc_accuracy.cpp.
#include <doctest/doctest.h>

#include <boost/math/special_functions/beta.hpp>

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

TEST_CASE("verify_grad: betainc with respect to a, b and x, below and above the mean") {
  const NDArray a = values({0.5, 2.0, 3.0, 15.0, 1.2, 40.0});
  const NDArray b = values({0.7, 3.0, 1.5, 12.0, 25.0, 35.0});
  const NDArray x = values({0.3, 0.1, 0.9, 0.6, 0.02, 0.55});
  testing::verify_grad([&](const std::vector<Var>& in) { return betainc(in[0], in[1], in[2]); }, {a, b, x});
}

TEST_CASE("betainc_der_a and betainc_der_b are dI/da and dI/db: Boost.Math's central differences agree to 1e-7") {
  const std::vector<double> as{0.5, 2.0, 3.0, 15.0, 1.2, 40.0, 300.0, 0.01};
  const std::vector<double> bs{0.7, 3.0, 1.5, 12.0, 25.0, 35.0, 200.0, 5.0};
  const std::vector<double> xs{0.3, 0.1, 0.9, 0.6, 0.02, 0.55, 0.6, 0.5};
  Var a = dvector("a"), b = dvector("b"), x = dvector("x");
  const std::vector<std::pair<Var, NDArray>> in{{a, values(as)}, {b, values(bs)}, {x, values(xs)}};
  const NDArray da = elemwise("betainc_der_a", {a, b, x}).eval(in), db = elemwise("betainc_der_b", {a, b, x}).eval(in);
  for (std::size_t k = 0; k < as.size(); ++k) {
    CAPTURE(as[k]);
    CAPTURE(bs[k]);
    CAPTURE(xs[k]);
    const bool use_c = boost::math::ibeta(as[k], bs[k], xs[k]) > 0.5;
    auto f = [&](double aa, double bb) {
      return use_c ? -boost::math::ibetac(aa, bb, xs[k]) : boost::math::ibeta(aa, bb, xs[k]);
    };
    const double ha = 1e-5 * as[k], hb = 1e-5 * bs[k];
    const double ra = (-f(as[k] + 2 * ha, bs[k]) + 8 * f(as[k] + ha, bs[k]) - 8 * f(as[k] - ha, bs[k]) +
                       f(as[k] - 2 * ha, bs[k])) / (12 * ha);
    const double rb = (-f(as[k], bs[k] + 2 * hb) + 8 * f(as[k], bs[k] + hb) - 8 * f(as[k], bs[k] - hb) +
                       f(as[k], bs[k] - 2 * hb)) / (12 * hb);
    CHECK(da.data_as<double>()[k] == doctest::Approx(ra).epsilon(1e-7));
    CHECK(db.data_as<double>()[k] == doctest::Approx(rb).epsilon(1e-7));
  }
}

TEST_CASE("betainc's derivatives in a and b have no gradient themselves: the error names the row") {
  Var a = dscalar("a"), b = dscalar("b"), x = dscalar("x");
  Var ga = grad(betainc(a, b, x), a);
  CHECK_THROWS_WITH_AS(grad(ga, a), doctest::Contains("betainc_der_a has no gradient"), MethodNotDefined);
}
