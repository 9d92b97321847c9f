// gammainc / gammaincc (runtime/include/theano/runtime/kernels/special_math2.h) against
// Boost.Math's gamma_p / gamma_q (a test-only reference that shares no code with ours) over the
// whole domain, through perform and through generated C++ in float64 and float32 (the float32
// loop computes in float: the kernel's float form). The bounds are the measured maxima of
// docs/special-functions-b.md with some headroom; a wrong branch or coefficient exceeds them by
// orders of magnitude.
#include <doctest/doctest.h>

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
#include <stdexcept>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

struct Grid {
  std::vector<double> a, x;
};

/// (a, x) pairs over the domain: a from 1e-10 to 1e8, x around a (ratios 1e-10 ... 100, a +- 1,
/// the series / continued fraction switch at a + 1, Temme's region within 3% of a) and extremes.
Grid grid() {
  Grid g;
  const double as[] = {1e-10, 1e-5, 1e-3, 0.1, 0.5, 0.999, 1, 2.5, 9.99, 10, 10.5, 30, 100, 101, 1e3, 1e4, 9.9e4, 1e5, 3e5, 1e6, 1e8};
  const double rs[] = {1e-10, 1e-3, 0.01, 0.3, 0.5, 0.9, 0.97, 0.975, 0.99, 0.999, 1, 1.001, 1.01, 1.02, 1.029, 1.031, 1.1, 2, 10, 100};
  for (double a : as) {
    auto add = [&](double x) {
      if (x < 0) return;
      g.a.push_back(a);
      g.x.push_back(x);
    };
    for (double r : rs) add(a * r);
    for (double d : {-1.0, -0.5, 0.5, 1.0, 1.5}) add(a + d);
    for (double s : {1e-3, 0.1, 1.0, 3.0}) add(a + s * std::sqrt(a));  // the transition, a few sigma wide
    for (double s : {1e-3, 0.1, 1.0, 3.0}) add(a - s * std::sqrt(a));
    for (double x : {1e-300, 1e-30, 0.5, 3.0, 700.0, 1e5, 1e300}) add(x);
  }
  return g;
}

NDArray vec(const std::vector<double>& v, DType d) {
  NDArray a = NDArray::empty({static_cast<std::int64_t>(v.size())}, DType::Float64);
  std::copy(v.begin(), v.end(), a.data_as<double>());
  return a.astype(d);
}

/// Relative error in units of the dtype's epsilon, divided by 1 + |ln ref|: the exponential
/// factor x^a e^-x / Gamma(a) turns an absolute error of its logarithm into a relative error
/// of the result, so the error grows with |ln ref| (Boost's bound has the same shape). Results
/// below the smallest normal number count when they are off by more than that number.
double scaled_error(double got, double ref, double eps, double tiny) {
  if (std::isnan(ref)) return std::isnan(got) ? 0 : 1e300;
  if (ref < tiny) return std::fabs(got - ref) <= tiny ? 0 : 1e300;
  return std::fabs(got - ref) / (ref * eps) / (1 + std::fabs(std::log(ref)));
}

struct Worst {
  double err = 0, a = 0, x = 0, got = 0, ref = 0;
  void see(double e, double a_, double x_, double g, double r) {
    if (e > err) *this = {e, a_, x_, g, r};
  }
};

std::vector<NDArray> run(bool generated, DType d, const Grid& g) {
  Var a = tensor::tensor(d, {std::nullopt}, "a"), x = tensor::tensor(d, {std::nullopt}, "x");
  auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a, x}, std::vector<Var>{gammainc(a, x), gammaincc(a, x)});
  auto thunk = generated ? codegen::CLinker().make_thunk(fg) : make_perform_linker()->make_thunk(fg);
  std::vector<NDArray> in{vec(g.a, d), vec(g.x, d)}, out(2);
  thunk->run(in, out);
  return {out[0].astype(DType::Float64), out[1].astype(DType::Float64), in[0].astype(DType::Float64),
          in[1].astype(DType::Float64)};
}

}  // namespace

TEST_SUITE("special functions") {
  TEST_CASE("gammainc and gammaincc agree with Boost.Math over the whole domain within the measured bound") {
    const Grid g = grid();
    struct Case {
      bool generated;
      DType dtype;
      double bound;  // max of scaled_error (ulps / (1 + |ln ref|)), measured x ~1.5
    };
    for (const Case c : {Case{false, DType::Float64, 130}, Case{true, DType::Float64, 130}, Case{false, DType::Float32, 1},
                         Case{true, DType::Float32, 45}}) {
      CAPTURE(c.generated);
      CAPTURE(dtype_name(c.dtype));
      const bool f32 = c.dtype == DType::Float32;
      const double eps = f32 ? std::numeric_limits<float>::epsilon() / 2 : std::numeric_limits<double>::epsilon() / 2;
      const double tiny = f32 ? std::numeric_limits<float>::min() : std::numeric_limits<double>::min();
      const std::vector<NDArray> r = run(c.generated, c.dtype, g);
      Worst wp, wq;
      int skipped = 0;
      for (std::int64_t k = 0; k < r[0].size(); ++k) {
        const double a = r[2].data_as<double>()[k], x = r[3].data_as<double>()[k];  // the inputs as rounded to the dtype
        if (a == 0) continue;  // a float32 1e-10 stays, but Boost rejects a = 0 (our edge: see the edge test)
        if (f32 && a > 1e30) continue;
        double p, q;
        try {
          p = boost::math::gamma_p(a, x);
          q = boost::math::gamma_q(a, x);
        } catch (const std::exception&) {  // Boost's own limits (its tgamma overflows at a = 1e8, x = 1e300)
          ++skipped;
          continue;
        }
        wp.see(scaled_error(r[0].data_as<double>()[k], p, eps, tiny), a, x, r[0].data_as<double>()[k], p);
        wq.see(scaled_error(r[1].data_as<double>()[k], q, eps, tiny), a, x, r[1].data_as<double>()[k], q);
      }
      MESSAGE(std::string(c.generated ? "generated " : "perform ") << dtype_name(c.dtype) << ": gammainc max " << wp.err
                                                        << " (a=" << wp.a << ", x=" << wp.x << "), gammaincc max " << wq.err
                                                        << " (a=" << wq.a << ", x=" << wq.x << ") ulps/(1+|ln ref|) over "
                                                        << r[0].size() << " points (" << skipped << " beyond Boost's range)");
      CHECK(skipped <= 16);
      CHECK(wp.err <= c.bound);
      CHECK(wq.err <= c.bound);
    }
  }

  TEST_CASE("gammainc and gammaincc: generated code gives perform's edge values, NaN outside the domain") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    //                          a:  <0  x<0  NaN  a=0,x>0  a=0,x=0  x=0  x=inf  a=inf  both inf
    const std::vector<double> as{-1.0, 2.0, nan, 0.0, 0.0, 3.0, 3.0, inf, inf};
    const std::vector<double> xs{1.0, -1.0, 1.0, 2.0, 0.0, 0.0, inf, 5.0, inf};
    const std::vector<double> p{nan, nan, nan, 1.0, nan, 0.0, 1.0, 0.0, nan};
    const std::vector<double> q{nan, nan, nan, 0.0, nan, 1.0, 0.0, 1.0, nan};
    const Grid g{as, xs};
    for (DType d : {DType::Float64, DType::Float32})
      for (bool generated : {false, true}) {
        CAPTURE(dtype_name(d));
        CAPTURE(generated);
        const std::vector<NDArray> r = run(generated, d, g);
        for (std::size_t k = 0; k < as.size(); ++k) {
          CAPTURE(k);
          const double gp = r[0].data_as<double>()[k], gq = r[1].data_as<double>()[k];
          CHECK((std::isnan(p[k]) ? std::isnan(gp) : gp == p[k]));
          CHECK((std::isnan(q[k]) ? std::isnan(gq) : gq == q[k]));
        }
      }
  }
}
