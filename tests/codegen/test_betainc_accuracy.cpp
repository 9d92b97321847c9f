// betainc and gammaincinv / gammainccinv (runtime/include/theano/runtime/kernels/special_math2.h)
// against Boost.Math's ibeta and gamma_p_inv / gamma_q_inv (a test-only reference sharing no code
// with ours) over their domains, through perform and generated C++ in float64 and float32 (the
// float32 loop computes in float). The error measures and measured maxima are
// docs/special-functions-b.md's; a wrong branch or formula exceeds the bounds by orders of magnitude.
#include <doctest/doctest.h>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/math.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray vec(const std::vector<double>& v, DType d) {
  NDArray a = NDArray::empty({static_cast<std::int64_t>(v.size())}, DType::Float64);
  std::copy(v.begin(), v.end(), a.data_as<double>());
  return a.astype(d);
}

/// Runs `outs` of the inputs `ins` (vectors of dtype d) on `values`; the outputs and the inputs as
/// rounded to d, in float64.
std::vector<NDArray> run(bool generated, std::vector<Var> ins, std::vector<Var> outs,
                         const std::vector<std::vector<double>>& values, DType d) {
  auto fg = std::make_shared<FunctionGraph>(ins, outs);
  auto thunk = generated ? codegen::CLinker().make_thunk(fg) : make_perform_linker()->make_thunk(fg);
  std::vector<NDArray> in, out(outs.size()), r;
  for (const auto& v : values) in.push_back(vec(v, d));
  thunk->run(in, out);
  for (const NDArray& o : out) r.push_back(o.astype(DType::Float64));
  for (const NDArray& i : in) r.push_back(i.astype(DType::Float64));
  return r;
}

}  // namespace

TEST_SUITE("special functions") {
  TEST_CASE("betainc agrees with Boost.Math over a, b from 1e-3 to 1e4 and x in (0, 1) within the measured bound") {
    std::vector<double> as, bs, xs;
    for (double a : {1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 300.0, 1e4})
      for (double b : {1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 300.0, 1e4})
        for (double x : {1e-30, 1e-5, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-5}) {
          as.push_back(a);
          bs.push_back(b);
          xs.push_back(x);
        }
    // Bound: max |got - ref| / (eps ref) / (1 + |ln ref|), measured x ~1.5 (the worst points have a tiny
    // b with x near 1, where 1 - I_{1-x}(b, a) cancels).
    for (const auto& [generated, d, bound] : {std::tuple{false, DType::Float64, 1100.0}, std::tuple{true, DType::Float64, 1100.0},
                                              std::tuple{false, DType::Float32, 1.0}, std::tuple{true, DType::Float32, 400.0}}) {
      CAPTURE(generated);
      CAPTURE(dtype_name(d));
      const bool f32 = d == DType::Float32;
      Var a = tensor::tensor(d, {std::nullopt}, "a"), b = tensor::tensor(d, {std::nullopt}, "b"),
          x = tensor::tensor(d, {std::nullopt}, "x");
      const std::vector<NDArray> r = run(generated, {a, b, x}, {betainc(a, b, x)}, {as, bs, xs}, d);
      const double eps = f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
      const double tiny = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      double w = 0, wa = 0, wb = 0, wx = 0;
      for (std::int64_t k = 0; k < r[0].size(); ++k) {
        const double ak = r[1].data_as<double>()[k], bk = r[2].data_as<double>()[k], xk = r[3].data_as<double>()[k];
        CAPTURE(ak);
        CAPTURE(bk);
        CAPTURE(xk);
        const double ref = boost::math::ibeta(ak, bk, xk), got = r[0].data_as<double>()[k];
        const double e = ref < tiny ? (std::fabs(got - ref) <= tiny ? 0 : 1e300)
                                    : std::fabs(got - ref) / (eps * ref) / (1 + std::fabs(std::log(ref)));
        if (e > w) {
          w = e;
          wa = ak;
          wb = bk;
          wx = xk;
        }
      }
      MESSAGE(std::string(generated ? "generated " : "perform ") << dtype_name(d) << ": betainc max " << w << " (a=" << wa
                                                                 << ", b=" << wb << ", x=" << wx << ", ulps/(1+|ln ref|)) over "
                                                                 << r[0].size() << " points");
      CHECK(w <= bound);
    }
  }

  TEST_CASE("betainc: NaN outside a, b > 0 and 0 <= x <= 1, exact 0 and 1 at the ends") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Var a = dvector("a"), b = dvector("b"), x = dvector("x");
    for (bool generated : {false, true}) {
      CAPTURE(generated);
      const std::vector<NDArray> r = run(generated, {a, b, x}, {betainc(a, b, x)},
                                         {{-1, 0, 1, 1, 1, nan, 2, 2}, {1, 1, -1, 1, 1, 1, 3, 3},
                                          {0.5, 0.5, 0.5, -0.1, 1.1, 0.5, 0.0, 1.0}},
                                         DType::Float64);
      for (int k = 0; k < 6; ++k) CHECK(std::isnan(r[0].data_as<double>()[k]));
      CHECK(r[0].data_as<double>()[6] == 0.0);
      CHECK(r[0].data_as<double>()[7] == 1.0);
    }
  }

  TEST_CASE("gammaincinv and gammainccinv agree with Boost.Math within the measured bound") {
    std::vector<double> as, ys;
    for (double a : {1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 50.0, 300.0, 1e4, 1e6})
      for (double y : {1e-300, 1e-30, 1e-5, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-5}) {
        as.push_back(a);
        ys.push_back(y);
      }
    // Bound: max relative error in ulps, measured x ~1.5: the inverse amplifies the error of its equation
    // by its condition number (1 / a for the small-x form x ~ (y Gamma(a + 1))^(1/a)). float32 computes
    // in double (the rows have no float form) and rounds.
    for (const auto& [generated, d, bound] : {std::tuple{false, DType::Float64, 1200.0}, std::tuple{true, DType::Float64, 1200.0},
                                              std::tuple{false, DType::Float32, 1.0}, std::tuple{true, DType::Float32, 1.0}}) {
      CAPTURE(generated);
      CAPTURE(dtype_name(d));
      const bool f32 = d == DType::Float32;
      Var a = tensor::tensor(d, {std::nullopt}, "a"), y = tensor::tensor(d, {std::nullopt}, "y");
      const std::vector<NDArray> r = run(generated, {a, y}, {gammaincinv(a, y), gammainccinv(a, y)}, {as, ys}, d);
      const double eps = f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
      const double tiny = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      double w = 0;
      for (std::int64_t k = 0; k < r[0].size(); ++k) {
        const double ak = r[2].data_as<double>()[k], yk = r[3].data_as<double>()[k];
        if (yk == 0) continue;  // float32's 1e-300: the edge (0 / inf), tested in perform's double form
        CAPTURE(ak);
        CAPTURE(yk);
        for (int o : {0, 1}) {
          const double ref = o == 0 ? boost::math::gamma_p_inv(ak, yk) : boost::math::gamma_q_inv(ak, yk);
          const double got = r[static_cast<std::size_t>(o)].data_as<double>()[k];
          const double e = ref < tiny ? (got <= tiny ? 0 : 1e300) : std::fabs(got - ref) / (eps * ref);
          w = std::max(w, e);
        }
      }
      MESSAGE(std::string(generated ? "generated " : "perform ") << dtype_name(d) << ": gammaincinv / gammainccinv max " << w
                                                      << " ulps over " << r[0].size() << " points");
      CHECK(w <= bound);
    }
  }
}
