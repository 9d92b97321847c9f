// log-sum-exp in both optimizer modes and with any number of terms, and
// log(exp(a) - exp(b)) where b = -inf: graph before / after (rewrite_test_util's
// check_rewrite, which also compares against the unoptimized graph) and values
// at x = 1000, where exp overflows, and at infinities.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

NDArray run_mode(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args, const std::string& mode) {
  FunctionOptions o;
  o.mode = mode;
  return function({ins.begin(), ins.end()}, {out}, o)(args)[0];
}

double at(const NDArray& a, std::int64_t i) { return a.contiguous().data_as<double>()[i]; }

Var minus_inf_like(const Var& v) { return T::constant(NDArray::full({1}, -kInf, T::tensor_type(v)->dtype())); }

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("log(sum(exp(x))) and log(exp(x) + exp(y)) are stabilized in fast_compile too") {
    Var m = T::dmatrix("m"), x = T::dvector("x"), y = T::dvector("y");
    Var mx = T::max(m, 1);
    mx = T::switch_(T::isinf(mx), T::constant(NDArray::full({1}, 0.0, DType::Float64)), mx);
    Var lse = T::add(T::log(T::sum(T::exp(m - T::dimshuffle(mx, {0, T::kNewAxis})), 1)), mx);
    Var mxy = T::maximum(x, y);
    Var lae = T::switch_(T::isinf(mxy), mxy, mxy + T::softplus(T::neg(T::abs(x - y))));
    for (const std::string mode : {"fast_compile", "fast_run"}) {
      CAPTURE(mode);
      check_rewrite({m}, {T::log(T::sum(T::exp(m), 1))}, {lse}, mode);
      check_rewrite({x, y}, {T::log(T::exp(x) + T::exp(y))}, {lae}, mode);
      const NDArray r = run_mode({m}, T::log(T::sum(T::exp(m), 1)), {vec({1000, 1000, 1, 2}).reshape({2, 2})}, mode);
      CHECK(at(r, 0) == doctest::Approx(1000 + std::log(2.0)));
      CHECK(at(r, 1) == doctest::Approx(2 + std::log1p(std::exp(-1.0))));
      const NDArray s = run_mode({x, y}, T::log(T::exp(x) + T::exp(y)), {vec({1000, -kInf}), vec({999, -kInf})}, mode);
      CHECK(at(s, 0) == doctest::Approx(1000 + std::log1p(std::exp(-1.0))));
      CHECK(at(s, 1) == -kInf);
    }
    // o2 (fast_compile + fusion) includes them as well.
    const NDArray o2 = run_mode({x, y}, T::log(T::exp(x) + T::exp(y)), {vec({1000}), vec({1000})}, "o2");
    CHECK(at(o2, 0) == doctest::Approx(1000 + std::log(2.0)));
  }

  TEST_CASE("local_logaddexp: n terms, flat (fast_run) or nested (fast_compile), shifted by their maximum") {
    Var a = T::dvector("a"), b = T::dvector("b"), c3 = T::dvector("c");
    Var m = T::maximum(T::maximum(a, b), c3);
    Var stable = T::switch_(T::isinf(m), m, m + T::log(T::add({T::exp(a - m), T::exp(b - m), T::exp(c3 - m)})));
    Var naive = T::log(T::exp(a) + T::exp(b) + T::exp(c3));
    for (const std::string mode : {"fast_compile", "fast_run"}) {
      CAPTURE(mode);
      check_rewrite({a, b, c3}, {naive}, {stable}, mode);
      const NDArray r = run_mode({a, b, c3}, naive,
                                 {vec({1000, -1000, -kInf, kInf, 0}), vec({1000, -1000, -kInf, 5, -kInf}),
                                  vec({1000, -1000, -kInf, -kInf, -kInf})},
                                 mode);
      CHECK(at(r, 0) == doctest::Approx(1000 + std::log(3.0)));
      CHECK(at(r, 1) == doctest::Approx(-1000 + std::log(3.0)));
      CHECK(at(r, 2) == -kInf);
      CHECK(at(r, 3) == kInf);
      CHECK(at(r, 4) == doctest::Approx(0.0));
    }
    // Four terms in one add; a term that is not an exp leaves the log alone.
    Var d = T::dvector("d");
    const NDArray r4 = run_mode({a, b, c3, d}, T::log(T::add({T::exp(a), T::exp(b), T::exp(c3), T::exp(d)})),
                                {vec({1000}), vec({1000}), vec({1000}), vec({1000})}, "fast_run");
    CHECK(at(r4, 0) == doctest::Approx(1000 + std::log(4.0)));
    check_rewrite({a, b, c3}, {T::log(T::add({T::exp(a), T::exp(b), c3}))}, {T::log(T::add({T::exp(a), T::exp(b), c3}))});
  }

  TEST_CASE("local_log1mexp: log(exp(a) - exp(b)) is a where b = -inf, -inf where both are") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x, y}, {T::log(T::exp(x) - T::exp(y))},
                  {T::switch_(T::eq(y, minus_inf_like(y)), x, T::add(x, T::log1mexp(y - x)))});
    const NDArray r = run_mode({x, y}, T::log(T::exp(x) - T::exp(y)),
                               {vec({-kInf, 3, 0, 1000, kInf, -1}), vec({-kInf, -kInf, -kInf, 999, -kInf, -2})},
                               "fast_run");
    CHECK(at(r, 0) == -kInf);
    CHECK(at(r, 1) == 3);
    CHECK(at(r, 2) == 0);
    CHECK(at(r, 3) == doctest::Approx(1000 + std::log(1 - std::exp(-1.0))));
    CHECK(at(r, 4) == kInf);
    CHECK(at(r, 5) == doctest::Approx(std::log(std::exp(-1.0) - std::exp(-2.0))).epsilon(1e-14));
  }
}
