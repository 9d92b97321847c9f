// NanGuardMode: the first node producing a NaN, an infinity or a big value is
// named with its inputs' summaries; clean inputs and disabled checks raise
// nothing; the options come from FunctionOptions or THEANO_FLAGS.
#include <cmath>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/compile/nan_guard.h"
#include "theano/config.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// The NanGuardError message `f` throws, or a marker saying what happened instead.
template <class F>
std::string nan_guard_error(F&& f) {
  try {
    f();
  } catch (const NanGuardError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a NanGuardError: ") + e.what() + ">";
  }
  return "<no error>";
}

// No fusion: each elementwise op stays its own node, so "the first node" is
// the one the test means.
FunctionOptions nan_guard(std::optional<NanGuardOptions> o = {}) {
  FunctionOptions opts;
  opts.mode = "NanGuardMode";
  opts.optimizer_excluding = {"fusion"};
  opts.nan_guard = o;
  return opts;
}

}  // namespace

TEST_SUITE("compile_tests") {
  TEST_CASE("NanGuardMode: log of 0 is caught at the log node, not at its consumers") {
    Var x = T::dvector("x");
    Var y = T::log(x);
    y->set_name("log_x");
    Function f = function({x}, {T::tanh(y) * 2.0}, nan_guard());
    CHECK(f.mode().name == "nanguardmode");
    const std::string msg = nan_guard_error([&] { f({vec({1, 0, 2})}); });
    CAPTURE(msg);
    CHECK(contains(msg, "NanGuardMode: Inf in output 0 (log_x) of node"));
    CHECK(contains(msg, "(Elemwise{log,"));
    CHECK(contains(msg, "first at [1]: -inf (1 of 3 elements)"));
    CHECK(contains(msg, "0 (x): float64 (3,) min=0 max=2 has_nan=false has_inf=false"));
  }

  TEST_CASE("NanGuardMode: 0/0 is a NaN, x*1e12 is a big value") {
    Var x = T::dvector("x"), z = T::dvector("z");
    Function div = function({x, z}, {T::true_div(x, z)}, nan_guard());
    std::string msg = nan_guard_error([&] { div({vec({1, 0}), vec({1, 0})}); });
    CAPTURE(msg);
    CHECK(contains(msg, "NanGuardMode: NaN in output 0"));
    CHECK(contains(msg, "true_div"));
    CHECK(contains(msg, "first at [1]: nan"));

    Function big = function({x}, {x * 1e12}, nan_guard());
    msg = nan_guard_error([&] { big({vec({0, 0.5})}); });
    CHECK(contains(msg, "NanGuardMode: big value (abs > 1e10) in output 0"));
    CHECK(contains(msg, "first at [1]: 5e+11"));
  }

  TEST_CASE("NanGuardMode: clean inputs raise nothing and give the usual results") {
    Var x = T::dvector("x");
    Function f = function({x}, {T::log(x) * 2.0}, nan_guard());
    const NDArray r = f({vec({1, std::exp(1.0)})})[0];
    CHECK(r.data_as<double>()[0] == doctest::Approx(0));
    CHECK(r.data_as<double>()[1] == doctest::Approx(2));
  }

  TEST_CASE("NanGuardMode: each check can be turned off, in FunctionOptions and THEANO_FLAGS") {
    Var x = T::dvector("x");
    Function off = function({x}, {T::log(x)}, nan_guard(NanGuardOptions{false, false, false}));
    CHECK_NOTHROW(off({vec({0, -1})}));
    // inf off but big on: an infinity is big too (as in Theano).
    Function big_only = function({x}, {T::log(x)}, nan_guard(NanGuardOptions{true, false, true}));
    CHECK(contains(nan_guard_error([&] { big_only({vec({0})}); }), "big value"));

    Config c = config();
    c.flags["nanguard_inf_is_error"] = "false";
    c.flags["NanGuardMode__big_is_error"] = "False";
    {
      ConfigGuard guard(c);
      Function f = function({x}, {T::log(x)}, nan_guard());
      CHECK_NOTHROW(f({vec({0})}));                                           // -inf: not an error
      CHECK(contains(nan_guard_error([&] { f({vec({-1})}); }), "NaN in output 0"));  // NaN still is
    }
    c.flags["nanguard_nan_is_error"] = "maybe";
    ConfigGuard guard(c);
    CHECK_THROWS_WITH_AS(function({x}, {T::log(x)}, {.mode = "NanGuardMode"}),
                         doctest::Contains("nanguard_nan_is_error='maybe' is not a boolean"), ValueError);
  }

  TEST_CASE("NanGuardMode: a NaN in a graph input is reported as the input") {
    Var x = T::dvector("x");
    Function f = function({x}, {x * 2.0}, nan_guard());
    const std::string msg = nan_guard_error([&] { f({vec({1, std::nan("")})}); });
    CHECK(contains(msg, "NaN in graph input x"));
  }
}
