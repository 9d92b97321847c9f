// The special functions of the scalar table (special_math.h): accuracy in ULPs
// against Boost.Math in long double over dense grids of each whole domain,
// tiny and huge arguments included, through generated code in float64 and in
// float32 (the float forms); generated code against perform for every row in
// both dtypes; the values at the domain's edges (docs/special-functions.md).
#include <doctest/doctest.h>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <theano/tensor/special.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <theano/fgraph/function_graph.h>

#include "lowering_test_util.h"
#include "special_ulp.h"

using namespace theano;
using namespace theano::tensor;
using namespace special_test;
using namespace theano::test;

namespace {

// Boost's default policy throws at the poles (erf_inv(1)); these return the limits.
using namespace boost::math::policies;
using Pol = policy<overflow_error<ignore_error>, domain_error<ignore_error>, pole_error<ignore_error>,
                   evaluation_error<ignore_error>, underflow_error<ignore_error>, denorm_error<ignore_error>>;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Accuracy {
  std::string name;
  std::function<Var(const std::vector<Var>&)> f;
  std::function<long double(long double, long double)> ref;
  std::vector<double> xs, ys;
  double max_ulp64, max_ulp32;  ///< the bounds: the measured maxima rounded up (docs/special-functions.md)
  double floor = 0;             ///< ulps' floor (betaln)
};

void check_accuracy(const Accuracy& a) {
  CAPTURE(a.name);
  const Worst w64 = worst_ulps(DType::Float64, a.f, a.ref, a.xs, a.ys, a.floor);
  const Worst w32 = worst_ulps(DType::Float32, a.f, a.ref, a.xs, a.ys, a.floor);
  MESSAGE(a.name << ": float64 at most " << w64.ulp << " ulp (at " << w64.x << ", " << w64.y << "), float32 at most "
                 << w32.ulp << " ulp (at " << w32.x << ", " << w32.y << "), over " << a.xs.size() << " points");
  CHECK(w64.ulp <= a.max_ulp64);
  CHECK(w32.ulp <= a.max_ulp32);
}

/// exp(x^2) erfc(x) in long double, x^2 split exactly (x is a double), for |x| <= 100;
/// beyond, A&S 7.1.23 to 40 terms, far past double's precision there.
long double erfcx_ref(long double x) {
  if (x > 100) {
    const long double u = 0.5L / x / x;
    long double s = 1;
    for (int k = 40; k >= 1; --k) s = 1 - (2 * k - 1) * u * s;
    return s / (x * std::sqrt(std::numbers::pi_v<long double>));
  }
  const double xd = static_cast<double>(x), c = 134217729.0 * xd, h = c - (c - xd), l = xd - h;
  const long double lo = 2.0L * h * l + static_cast<long double>(l) * l;
  return std::exp(static_cast<long double>(h) * h) * std::exp(lo) * boost::math::erfc(x, Pol());
}

/// logit in long double by two formulas that do not cancel where each is used.
long double logit_ref(long double x) {
  return (x < 0.25L || x > 0.75L) ? std::log(x) - std::log1p(-x) : 2 * std::atanh(2 * x - 1);
}

/// log(ndtr(x)) in long double: Boost's erfc down to -140 (log1p of the upper tail above 0),
/// below it the asymptotic series of the Mills ratio (A&S 26.2.12) to 30 terms.
long double log_ndtr_ref(long double x) {
  const long double r = 1 / std::sqrt(2.0L);
  if (x > 0) return std::log1p(-boost::math::erfc(x * r, Pol()) / 2);
  if (x > -140) return std::log(boost::math::erfc(-x * r, Pol()) / 2);
  long double u = 1 / (x * x), s = 1, t = 1;
  for (int k = 1; k < 30; ++k) {
    t *= -(2 * k - 1) * u;
    s += t;
  }
  return -x * x / 2 - std::log(-x) - std::log(2 * std::numbers::pi_v<long double>) / 2 + std::log(s);
}

/// log|B(a, b)| in long double: log of Boost's beta while it is a normal long double, else
/// Boost's lgammas (whose cancellation is then far below the result's magnitude).
long double betaln_ref(long double a, long double b) {
  const long double beta = boost::math::beta(a, b, Pol());
  if (beta > 1e-4900L) return std::log(beta);
  return boost::math::lgamma(a, Pol()) + boost::math::lgamma(b, Pol()) - boost::math::lgamma(a + b, Pol());
}

/// `v` without the non-positive integers, as doubles or as floats (the poles, whose limits the edge
/// test checks).
std::vector<double> without_poles(std::vector<double> v) {
  std::erase_if(v, [](double x) {
    const float f = static_cast<float>(x);
    return (x <= 0 && std::floor(x) == x) || (f <= 0 && std::floor(f) == f);
  });
  return v;
}

std::vector<double> unit_interval_grid() {
  const std::vector<double> small = logspace(1e-300, 0.5, 20000);
  return join({linspace(0, 1, 100000), small, mapped(small, [](double v) { return 1 - v; })});
}

}  // namespace

TEST_SUITE("special functions") {
  TEST_CASE("special functions A: erfinv, erfcinv, erfcx and logit agree with Boost.Math within their ulp bounds") {
    codegen::register_linkers();
    const std::vector<double> small = logspace(1e-300, 0.5, 20000);
    const std::vector<double> near_one = mapped(small, [](double v) { return 1 - v; });
    const std::vector<double> erfinv_grid =
        join({linspace(-1, 1, 100000), small, mapped(small, [](double v) { return -v; }), near_one,
              mapped(near_one, [](double v) { return -v; })});
    const std::vector<double> erfcinv_grid =
        join({linspace(0, 2, 100000), small, logspace(4.9e-324, 1e-300, 2000), mapped(small, [](double v) { return 2 - v; }),
              mapped(near_one, [](double v) { return 2 - v; })});
    const std::vector<double> erfcx_grid =
        join({linspace(-26.6, 26.6, 100000), logspace(1e-300, 1e300, 20000),
              mapped(logspace(1e-300, 26.6, 5000), [](double v) { return -v; }), linspace(20, 120, 20000)});
    const std::vector<Accuracy> cases = {
        {"erfinv", [](const std::vector<Var>& v) { return erfinv(v[0]); },
         [](long double x, long double) { return boost::math::erf_inv(x, Pol()); }, erfinv_grid, {}, 2, 1.5},
        {"erfcinv", [](const std::vector<Var>& v) { return erfcinv(v[0]); },
         [](long double x, long double) { return boost::math::erfc_inv(x, Pol()); }, erfcinv_grid, {}, 2, 1.5},
        {"erfcx", [](const std::vector<Var>& v) { return erfcx(v[0]); },
         [](long double x, long double) { return erfcx_ref(x); }, erfcx_grid, {}, 5.5, 4},
        {"logit", [](const std::vector<Var>& v) { return logit(v[0]); },
         [](long double x, long double) { return logit_ref(x); }, unit_interval_grid(), {}, 4, 3.5},
    };
    for (const Accuracy& a : cases) check_accuracy(a);
  }

  TEST_CASE("special functions A: xlogx, xlogy0 and xlog1py agree with x log(y) in long double, 0 where x is 0") {
    codegen::register_linkers();
    std::vector<double> xs, ys;
    const std::vector<double> axis = join({logspace(1e-300, 1e300, 300), linspace(0, 4, 300)});
    for (double x : axis)
      for (double y : axis) {
        xs.push_back(x);
        ys.push_back(y);
        xs.push_back(-x);
        ys.push_back(y - 1);  // log1p's whole domain, y > -1
      }
    const std::vector<Accuracy> cases = {
        {"xlogx", [](const std::vector<Var>& v) { return xlogx(v[0]); },
         [](long double x, long double) { return x == 0 ? 0.0L : x * std::log(x); }, axis, {}, 2, 3.5},
        {"xlogy0", [](const std::vector<Var>& v) { return xlogy0(v[0], v[1]); },
         [](long double x, long double y) { return x == 0 ? 0.0L : x * std::log(y); }, xs, ys, 2.5, 5},
        {"xlog1py", [](const std::vector<Var>& v) { return xlog1py(v[0], v[1]); },
         [](long double x, long double y) { return x == 0 ? 0.0L : x * std::log1p(y); }, xs, ys, 2.5, 2.5},
    };
    for (const Accuracy& a : cases) check_accuracy(a);
  }

  TEST_CASE("special functions A: gamma, tri_gamma, polygamma and betaln agree with Boost.Math within their ulp bounds") {
    codegen::register_linkers();
    const std::vector<double> gamma_grid = without_poles(join({linspace(-170, 171.6, 99999), logspace(1e-300, 171.6, 10000),
                                                               mapped(logspace(1e-300, 0.99, 5000), [](double v) { return -v; })}));
    const std::vector<double> trigamma_grid =
        without_poles(join({linspace(-50, 50, 99999), logspace(1e-300, 1e300, 10000)}));
    const std::vector<Accuracy> cases = {
        {"gamma", [](const std::vector<Var>& v) { return gamma(v[0]); },
         [](long double x, long double) { return boost::math::tgamma(x, Pol()); }, gamma_grid, {}, 12, 8.5},
        {"tri_gamma", [](const std::vector<Var>& v) { return tri_gamma(v[0]); },
         [](long double x, long double) { return boost::math::trigamma(x, Pol()); }, trigamma_grid, {}, 4.5, 6},
    };
    for (const Accuracy& a : cases) check_accuracy(a);
    // polygamma(n, x): x > 0 by Euler-Maclaurin (every term positive); x < 0 through the reflection,
    // whose two terms cancel near the function's zeros.
    // (n, bound for x > 0, bound for x < 0): the measured maxima rounded up.
    for (const auto& [n, bound_pos, bound_neg] : {std::tuple{2, 3.5, 9.0}, std::tuple{3, 4.0, 9.5}, std::tuple{4, 4.5, 11.5},
                                                  std::tuple{7, 4.5, 19.0}, std::tuple{15, 5.5, 38.0},
                                                  std::tuple{30, 7.5, 72.0}}) {
      CAPTURE(n);
      const std::vector<double> pos = join({linspace(0.01, 50, 9999), logspace(1e-30, 1e30, 2000)});
      const std::vector<double> neg = without_poles(linspace(-20, -0.001, 9999));
      for (const auto& [where, xs, bound] :
           {std::tuple{"x > 0", pos, bound_pos}, std::tuple{"x < 0", neg, bound_neg}}) {
        const std::string name = "polygamma(" + std::to_string(n) + ", x), " + where;
        check_accuracy({name, [](const std::vector<Var>& v) { return polygamma(v[0], v[1]); },
                        [](long double k, long double x) { return boost::math::polygamma(static_cast<int>(k), x, Pol()); },
                        std::vector<double>(xs.size(), n), xs, bound, bound});
      }
    }
    std::vector<double> as, bs;
    for (double a : logspace(1e-3, 1e5, 150))
      for (double b : logspace(1e-3, 1e5, 150)) {
        as.push_back(a);
        bs.push_back(b);
      }
    check_accuracy({"betaln (ulps of max(|betaln|, 1))", [](const std::vector<Var>& v) { return betaln(v[0], v[1]); },
                    betaln_ref, as, bs, 14, 1, 1.0});
  }

  TEST_CASE("special functions A: ndtr, log_ndtr and ndtri agree with Boost.Math within their ulp bounds") {
    codegen::register_linkers();
    boost::math::normal_distribution<long double, Pol> normal;
    const std::vector<double> small = logspace(1e-300, 0.5, 10000);
    const std::vector<Accuracy> cases = {
        {"ndtr", [](const std::vector<Var>& v) { return ndtr(v[0]); },
         [](long double x, long double) { return boost::math::erfc(-x / std::sqrt(2.0L), Pol()) / 2; },
         linspace(-38.4, 9, 99999), {}, 7.5, 6},
        {"log_ndtr", [](const std::vector<Var>& v) { return log_ndtr(v[0]); },
         [](long double x, long double) { return log_ndtr_ref(x); },
         join({linspace(-140, 38, 99999), mapped(logspace(140, 1e150, 5000), [](double v) { return -v; })}), {}, 8.5, 5},
        {"ndtri", [](const std::vector<Var>& v) { return ndtri(v[0]); },
         [&normal](long double p, long double) {
           return p <= 0 ? -std::numeric_limits<long double>::infinity()
                         : p >= 1 ? std::numeric_limits<long double>::infinity() : boost::math::quantile(normal, p);
         },
         join({linspace(0, 1, 99999), small, logspace(4.9e-324, 1e-300, 500), mapped(small, [](double v) { return 1 - v; })}),
         {}, 3, 2.5},
    };
    for (const Accuracy& a : cases) check_accuracy(a);
  }

  TEST_CASE("special functions A: the domain edges give the stated limits and NaN outside, in perform and generated code") {
    codegen::register_linkers();
    struct Edge {
      const char* name;
      std::function<Var(const Var&)> f;
      std::vector<double> in, want;
    };
    const std::vector<Edge> edges = {
        {"erfinv", [](const Var& x) { return erfinv(x); }, {1, -1, 0, 1.5, -1.0000001, kNaN, kInf},
         {kInf, -kInf, 0, kNaN, kNaN, kNaN, kNaN}},
        {"erfcinv", [](const Var& x) { return erfcinv(x); }, {0, 2, 1, -0.1, 2.5, kNaN}, {kInf, -kInf, 0, kNaN, kNaN, kNaN}},
        {"erfcx", [](const Var& x) { return erfcx(x); }, {0, kInf, -30, -kInf, kNaN}, {1, 0, kInf, kInf, kNaN}},
        {"logit", [](const Var& x) { return logit(x); }, {0, 1, 0.5, -0.5, 2, kNaN}, {-kInf, kInf, 0, kNaN, kNaN, kNaN}},
        {"xlogx", [](const Var& x) { return xlogx(x); }, {0, 1, -1, kInf, kNaN}, {0, 0, kNaN, kInf, kNaN}},
        {"xlogy0(0, y)", [](const Var& y) { return xlogy0(0.0, y); }, {0, -1, kNaN, kInf}, {0, 0, 0, 0}},
        {"xlog1py(0, y)", [](const Var& y) { return xlog1py(0.0, y); }, {-1, -2, kNaN, kInf}, {0, 0, 0, 0}},
        {"xlogy0(1, y)", [](const Var& y) { return xlogy0(1.0, y); }, {0, -1, 1}, {-kInf, kNaN, 0}},
        {"log1pexp", [](const Var& x) { return log1pexp(x); }, {0, -kInf, kInf, 800}, {std::log(2.0), 0, kInf, 800}},
        {"gamma", [](const Var& x) { return gamma(x); }, {0, -0.0, -1, -2, -kInf, kInf, 172, 5, kNaN},
         {kInf, -kInf, kNaN, kNaN, kNaN, kInf, kInf, 24, kNaN}},
        {"tri_gamma", [](const Var& x) { return tri_gamma(x); }, {0, -2, kInf, -kInf, 1, kNaN},
         {kInf, kInf, 0, kNaN, std::numbers::pi * std::numbers::pi / 6, kNaN}},
        {"polygamma(-1, x)", [](const Var& x) { return polygamma(-1, x); }, {1, 2}, {kNaN, kNaN}},
        {"polygamma(1.5, x)", [](const Var& x) { return polygamma(1.5, x); }, {1, 2}, {kNaN, kNaN}},
        {"polygamma(0, x)", [](const Var& x) { return polygamma(0, x); }, {1}, {-0.57721566490153286}},
        {"polygamma(2, x)", [](const Var& x) { return polygamma(2, x); }, {0, -3, kInf, 1}, {kNaN, kNaN, 0, -2.4041138063191886}},
        {"polygamma(3, x)", [](const Var& x) { return polygamma(3, x); }, {0, -3, kInf}, {kInf, kInf, 0}},
        {"polygamma(n, 2)", [](const Var& n) { return polygamma(n, 2.0); }, {171, 61}, {kNaN, 1.1006391412059924e+65}},
        {"betaln(x, 1)", [](const Var& x) { return betaln(x, 1.0); }, {1, 2, kNaN}, {0, -std::log(2.0), kNaN}},
        {"ndtr", [](const Var& x) { return ndtr(x); }, {-kInf, kInf, 0, -50, kNaN}, {0, 1, 0.5, 0, kNaN}},
        {"log_ndtr", [](const Var& x) { return log_ndtr(x); }, {-kInf, kInf, 0, kNaN}, {-kInf, 0, -std::log(2.0), kNaN}},
        {"ndtri", [](const Var& x) { return ndtri(x); }, {0, 1, 0.5, -0.1, 1.1, kNaN}, {-kInf, kInf, 0, kNaN, kNaN, kNaN}},
    };
    for (const Edge& e : edges) {
      CAPTURE(std::string(e.name));
      for (DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(dtype_name(dt));
        Var x = vector("x", dt);
        const auto n = static_cast<std::int64_t>(e.in.size());
        const NDArray in = NDArray::from_vector(e.in, {n}).astype(dt);
        const NDArray want = NDArray::from_vector(e.want, {n}).astype(dt);
        auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{e.f(x)});
        std::vector<NDArray> by_perform(1), by_code(1);
        const std::vector<NDArray> args{in};
        make_perform_linker()->make_thunk(fg)->run(args, by_perform);
        lowered_thunk(fg)->run(args, by_code);
        for (const NDArray& got : {by_perform[0], by_code[0]}) {
          CHECK(got.dtype() == dt);
          INFO("got " << got << " want " << want);
          CHECK(allclose(got, want, 1e-6, 0, true));
        }
      }
    }
  }

  TEST_CASE("special functions A: special_math.h is embedded only in the units that call its functions") {
    codegen::register_linkers();
    const std::string mark = "// support: special_math.h";
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var x = vector("x", dt);
      CHECK(codegen::CLinker::generate_source(FunctionGraph({x}, {exp(x) + 1})).find(mark) == std::string::npos);
      CHECK(codegen::CLinker::generate_source(FunctionGraph({x}, {ndtri(x)})).find(mark) != std::string::npos);
      // Fused: inside a Composite, also where a double-only row (polygamma) computes in a helper of a
      // float32 loop; once per unit however many nodes call it.
      Function fn = function({x}, {exp(erfinv(x)) * 2 + polygamma(2, x), log_ndtr(x) * x});
      const std::string src = codegen::CLinker::generate_source(fn.fgraph());
      const std::size_t at = src.find(mark);
      CHECK(at != std::string::npos);
      CHECK(src.find(mark, at + 1) == std::string::npos);
      const NDArray v = NDArray::from_vector(std::vector<double>{0.25, -0.5}, {2}).astype(dt);
      const NDArray got = fn({v})[0].astype(DType::Float64);
      const double want0 = std::exp(boost::math::erf_inv(0.25)) * 2 + boost::math::polygamma(2, 0.25);
      CHECK(got.data_as<double>()[0] == doctest::Approx(want0).epsilon(dt == DType::Float32 ? 1e-5 : 1e-13));
    }
  }

  TEST_CASE("special functions A: generated code agrees with perform for every row, float64 and float32") {
    std::mt19937_64 rng(37);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var u = vector("u", dt), q = vector("q", dt), r = vector("r", dt), s = vector("s", dt);
      const std::vector<Var> outs{erfinv(u), erfcinv(q), erfcx(r), logit(u * 0.5 + 0.5), xlogx(s), xlogy0(u, s),
                                  xlog1py(r, s), log1pexp(r), gamma(r), tri_gamma(r), polygamma(3, r), betaln(s, q),
                                  ndtr(r), log_ndtr(r), ndtri(q * 0.5)};
      check_lowering({u, q, r, s}, outs,
                     {random_array(rng, {257}, dt, -1, 1), random_array(rng, {257}, dt, 0, 2),
                      random_array(rng, {257}, dt, -10, 30), random_array(rng, {257}, dt, 0, 50)});
    }
  }
}
