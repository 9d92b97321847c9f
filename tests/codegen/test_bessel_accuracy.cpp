// jv / iv / ive, j0, j1, i0, i1 and kv / kve (runtime/include/theano/runtime/kernels/special_math2.h)
// against Boost.Math's cyl_bessel_j / cyl_bessel_i / cyl_bessel_k (a test-only reference sharing no code with
// ours) over orders 0 ... 50 and x from 1e-300 to 1e15, through perform and generated C++ in
// float64 and float32 (the float32 loop computes in float). The error measure and the measured
// maxima are docs/special-functions-b.md's; a wrong branch, coefficient or normalization exceeds
// the bounds by orders of magnitude.
#include <doctest/doctest.h>

#include <boost/math/special_functions/bessel.hpp>
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
#include <stdexcept>
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

/// |got - ref| in units of eps * scale, divided by 1 + |ln scale|: scale is |ref|, or for J past
/// its turning point (x > v) the envelope max(|ref|, sqrt(2 / (pi x))) (near a zero of J no
/// method has a relative bound); the log factor is the error of the exponential factor
/// (x / 2)^v e^-x / Gamma(v + 1), which grows with its size. Results below the smallest normal
/// number count when off by more than it.
double scaled_error(double got, double ref, double scale, double eps, double tiny) {
  if (scale < tiny) return std::fabs(got - ref) <= tiny ? 0 : 1e300;
  return std::fabs(got - ref) / (eps * scale) / (1 + std::fabs(std::log(scale)));
}

/// Runs jv, ive, iv, j0, j1, i0, i1 on the pairs (v, x) through perform or generated code; returns
/// the outputs and the inputs as rounded to `d`, in float64.
std::vector<NDArray> run(bool generated, DType d, const std::vector<double>& vs, const std::vector<double>& xs) {
  Var v = tensor::tensor(d, {std::nullopt}, "v"), x = tensor::tensor(d, {std::nullopt}, "x");
  auto fg = std::make_shared<FunctionGraph>(
      std::vector<Var>{v, x}, std::vector<Var>{jv(v, x), ive(v, x), iv(v, x), j0(x), j1(x), i0(x), i1(x)});
  auto thunk = generated ? codegen::CLinker().make_thunk(fg) : make_perform_linker()->make_thunk(fg);
  std::vector<NDArray> in{vec(vs, d), vec(xs, d)}, out(7);
  thunk->run(in, out);
  std::vector<NDArray> r;
  for (const NDArray& o : out) r.push_back(o.astype(DType::Float64));
  r.push_back(in[0].astype(DType::Float64));
  r.push_back(in[1].astype(DType::Float64));
  return r;
}

}  // namespace

TEST_SUITE("special functions") {
  TEST_CASE("jv, iv, ive, j0, j1, i0, i1 agree with Boost.Math over orders 0 to 50 within the measured bound") {
    std::vector<double> vs, xs;
    for (double v : {0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.7, 5.0, 10.0, 20.0, 50.0})
      for (double x : {1e-300, 1e-30, 1e-10, 1e-3, 0.1, 0.5, 1.0, 2.0, 2.404825557695773, 3.0, 5.0, 7.3, 10.0, 15.0,
                       20.0, 30.0, 34.0, 36.0, 50.0, 80.0, 100.0, 150.0, 500.0, 700.0, 1e3, 1e4, 3e4, 1e6, 1e10, 1e15}) {
        vs.push_back(v);
        xs.push_back(x);
      }
    struct Case {
      bool generated;
      DType dtype;
      double bound_j, bound_i;  // measured maxima x ~1.5
    };
    for (const Case c : {Case{false, DType::Float64, 200, 130}, Case{true, DType::Float64, 200, 130},
                         Case{false, DType::Float32, 1, 1}, Case{true, DType::Float32, 10, 45}}) {
      CAPTURE(c.generated);
      CAPTURE(dtype_name(c.dtype));
      const bool f32 = c.dtype == DType::Float32;
      const double eps = f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
      const double tiny = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      const double big = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
      const std::vector<NDArray> r = run(c.generated, c.dtype, vs, xs);
      auto at = [&](int o, std::int64_t k) { return r[static_cast<std::size_t>(o)].data_as<double>()[k]; };
      double wj = 0, wi = 0, wiv = 0;
      for (std::int64_t k = 0; k < r[0].size(); ++k) {
        const double v = at(7, k), x = at(8, k);
        if (f32 && x > 1e30) continue;  // x is float's inf: the edge test
        CAPTURE(v);
        CAPTURE(x);
        const double bj = boost::math::cyl_bessel_j(v, x);
        const double env = std::min(1.0, std::sqrt(2 / (3.141592653589793 * x)));
        wj = std::max(wj, scaled_error(at(0, k), bj, x > v ? std::max(std::fabs(bj), env) : std::fabs(bj), eps, tiny));
        if (x < 700) {  // Boost's I_v overflows past ~709
          const double bi = boost::math::cyl_bessel_i(v, x);
          wi = std::max(wi, scaled_error(at(1, k), bi * std::exp(-x), bi * std::exp(-x), eps, tiny));
          if (bi < big) wiv = std::max(wiv, scaled_error(at(2, k), bi, bi, eps, tiny));
        }
        // The fixed orders are the general functions at v = 0 and 1, bit for bit.
        if (v == 0) CHECK(at(3, k) == at(0, k));
        if (v == 0) CHECK(at(5, k) == at(2, k));
        if (v == 1) CHECK(at(4, k) == at(0, k));
        if (v == 1) CHECK(at(6, k) == at(2, k));
      }
      MESSAGE(std::string(c.generated ? "generated " : "perform ") << dtype_name(c.dtype) << ": jv max " << wj << ", ive max "
                                                        << wi << ", iv max " << wiv << " (ulps/(1+|ln scale|)) over "
                                                        << r[0].size() << " points");
      CHECK(wj <= c.bound_j);
      CHECK(wi <= c.bound_i);
      CHECK(wiv <= c.bound_i);
    }
  }

  TEST_CASE("kv and kve agree with Boost.Math over orders 0 to 100 within the measured bound") {
    std::vector<double> vs, xs;
    for (double v : {0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.7, 5.0, 10.0, 20.0, 50.0, 100.0})
      for (double x : {1e-300, 1e-30, 1e-10, 1e-3, 0.1, 0.5, 1.0, 2.0, 2.5, 3.0, 5.0, 7.3, 10.0, 15.0, 20.0, 30.0, 50.0,
                       100.0, 500.0, 700.0, 1e3, 1e4, 1e6, 1e10, 1e15}) {
        vs.push_back(v);
        xs.push_back(x);
      }
    for (const auto& [generated, d, bound] : {std::tuple{false, DType::Float64, 6.0}, std::tuple{true, DType::Float64, 6.0},
                                              std::tuple{false, DType::Float32, 1.0}, std::tuple{true, DType::Float32, 4.0}}) {
      CAPTURE(generated);
      CAPTURE(dtype_name(d));
      const bool f32 = d == DType::Float32;
      Var v = tensor::tensor(d, {std::nullopt}, "v"), x = tensor::tensor(d, {std::nullopt}, "x");
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{v, x}, std::vector<Var>{kv(v, x), kve(v, x)});
      auto thunk = generated ? codegen::CLinker().make_thunk(fg) : make_perform_linker()->make_thunk(fg);
      std::vector<NDArray> in{vec(vs, d), vec(xs, d)}, out(2);
      thunk->run(in, out);
      const NDArray k = out[0].astype(DType::Float64), ke = out[1].astype(DType::Float64);
      const NDArray vr = in[0].astype(DType::Float64), xr = in[1].astype(DType::Float64);
      const double eps = f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
      const double tiny = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      const double big = f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
      double wk = 0, wke = 0;
      for (std::int64_t i = 0; i < k.size(); ++i) {
        const double vi = vr.data_as<double>()[i], xi = xr.data_as<double>()[i];
        if (f32 && (xi > 1e30 || xi == 0)) continue;  // float's inf and 0 (1e-300 rounded): the edges
        CAPTURE(vi);
        CAPTURE(xi);
        double ref = std::numeric_limits<double>::infinity();
        try {
          ref = boost::math::cyl_bessel_k(vi, xi);
        } catch (const std::overflow_error&) {
        }
        if (ref > big) {
          CHECK(k.data_as<double>()[i] == std::numeric_limits<double>::infinity());
        } else {
          wk = std::max(wk, scaled_error(k.data_as<double>()[i], ref, ref, eps, tiny));
        }
        if (xi < 700 && ref * std::exp(xi) <= big)
          wke = std::max(wke, scaled_error(ke.data_as<double>()[i], ref * std::exp(xi), ref * std::exp(xi), eps, tiny));
      }
      MESSAGE(std::string(generated ? "generated " : "perform ") << dtype_name(d) << ": kv max " << wk << ", kve max " << wke
                                                      << " (ulps/(1+|ln ref|)) over " << k.size() << " points");
      CHECK(wk <= bound);
      CHECK(wke <= bound);
    }
  }

  TEST_CASE("jv, iv, ive: integer orders reflect, non-integer orders give NaN where the real value is undefined") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (DType d : {DType::Float64, DType::Float32})
      for (bool generated : {false, true}) {
        CAPTURE(dtype_name(d));
        CAPTURE(generated);
        const std::vector<double> vs{3, -3, 2, -2, 0.5, -0.5, nan, 2, 2, 2, 0, 1.5};
        const std::vector<double> xs{-2.5, 2.5, -2.5, 2.5, -1, 1, 1, nan, inf, -inf, 0, 0};
        const std::vector<NDArray> r = run(generated, d, vs, xs);
        auto at = [&](int o, std::size_t k) { return r[static_cast<std::size_t>(o)].data_as<double>()[k]; };
        const double j3 = boost::math::cyl_bessel_j(3.0, 2.5), j2 = boost::math::cyl_bessel_j(2.0, 2.5);
        const double i3 = boost::math::cyl_bessel_i(3.0, 2.5), i2 = boost::math::cyl_bessel_i(2.0, 2.5);
        const double tol = d == DType::Float32 ? 1e-6 : 1e-14;
        CHECK(at(0, 0) == doctest::Approx(-j3).epsilon(tol));  // J_3(-x) = -J_3(x)
        CHECK(at(0, 1) == doctest::Approx(-j3).epsilon(tol));  // J_-3 = -J_3
        CHECK(at(0, 2) == doctest::Approx(j2).epsilon(tol));
        CHECK(at(0, 3) == doctest::Approx(j2).epsilon(tol));
        CHECK(at(2, 0) == doctest::Approx(-i3).epsilon(tol));  // I_3(-x) = -I_3(x)
        CHECK(at(2, 1) == doctest::Approx(i3).epsilon(tol));   // I_-3 = I_3
        CHECK(at(1, 0) == doctest::Approx(-i3 * std::exp(-2.5)).epsilon(tol));
        CHECK(at(2, 3) == doctest::Approx(i2).epsilon(tol));
        for (std::size_t k : {4u, 5u, 6u, 7u})
          for (int o : {0, 1, 2}) {
            CAPTURE(k);
            CAPTURE(o);
            CHECK(std::isnan(at(o, k)));
          }
        CHECK(at(0, 8) == 0.0);  // J_v(+-inf) = 0
        CHECK(at(0, 9) == 0.0);
        CHECK(at(2, 8) == inf);  // I_2(+-inf) = inf (even order)
        CHECK(at(2, 9) == inf);
        CHECK(at(1, 8) == 0.0);  // ive: the limit of I_v e^-|x|
        CHECK(at(0, 10) == 1.0);  // J_0(0) = I_0(0) = 1, order 1.5 at 0: 0
        CHECK(at(2, 10) == 1.0);
        CHECK(at(0, 11) == 0.0);
        CHECK(at(2, 11) == 0.0);
      }
  }
}
