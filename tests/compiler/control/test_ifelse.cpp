// ifelse (theano/control/ifelse.h): values against the eager select in every
// linker and mode, laziness (an error in the branch not taken is never
// raised; nested branches), the memory planner and in-place ops around
// IfElse views, type errors, shapes, gradients, and the rewrites as
// before/after graphs.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/rewrite/rewrite_test_util.h"
#include "test_util.h"
#include "use_linker.h"
#include "theano/codegen/c_linker.h"
#include "theano/compile/lazy_schedule.h"
#include "theano/config.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::error_of;
using theano::test::vec;

namespace {

using theano::test::UseLinker;

/// Every way a function runs: the reference VM, the fused cpp linker, the
/// node-by-node one (opwise), and the checking modes on top of cpp.
struct Way {
  const char* linker;
  const char* mode;
};
const Way kWays[] = {{"py", "fast_run"},  {"cpp", "fast_run"},  {"cpp", "fast_compile"}, {"opwise", "fast_run"},
                     {"cpp", "unoptimized"}, {"cpp", "debugmode"}, {"cpp", "nanguardmode"}};

FunctionOptions mode(const char* m) {
  FunctionOptions o;
  o.mode = m;
  return o;
}

NDArray scalar_of(DType dt, double v) { return NDArray::full({}, v, DType::Float64).astype(dt); }

}  // namespace

TEST_SUITE("ifelse") {
  TEST_CASE("ifelse picks the branch its scalar condition names, in every linker and mode") {
    for (const Way& w : kWays) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var c = T::tensor(DType::Int64, {}, "c");
      Var x = T::dvector("x"), y = T::dvector("y");
      Var r = ifelse(c, T::exp(x) * 2.0, T::sin(y) + x, "r");
      Function f = function({In(c), In(x), In(y)}, {r}, mode(w.mode));
      const NDArray xv = vec({0.5, -1, 2}), yv = vec({3, 4, 5});
      Function ref = function({In(x), In(y)}, {T::exp(x) * 2.0, T::sin(y) + x}, mode("fast_run"));
      const std::vector<NDArray> both = ref({xv, yv});
      CHECK(allclose(f({theano::test::i64(1), xv, yv})[0], both[0]));
      CHECK(allclose(f({theano::test::i64(0), xv, yv})[0], both[1]));
      CHECK(allclose(f({theano::test::i64(-7), xv, yv})[0], both[0]));
    }
  }

  TEST_CASE("the condition may be bool, integer or real: nonzero and NaN are true") {
    for (const char* linker : {"py", "cpp"})
      for (DType dt : {DType::Bool, DType::Int8, DType::UInt32, DType::Int64, DType::Float32, DType::Float64}) {
        const std::string what = std::string(linker) + " " + std::string(dtype_name(dt));
        CAPTURE(what);
        UseLinker l(linker);
        Var c = T::tensor(dt, {}, "c");
        Var x = T::dscalar("x");
        Function f = function({In(c), In(x)}, {ifelse(c, x + 1.0, x - 1.0)});
        CHECK(f({scalar_of(dt, 1), NDArray::scalar(10.0)})[0].item<double>() == 11.0);
        CHECK(f({scalar_of(dt, 0), NDArray::scalar(10.0)})[0].item<double>() == 9.0);
        if (is_float(dt))
          CHECK(f({scalar_of(dt, std::numeric_limits<double>::quiet_NaN()), NDArray::scalar(10.0)})[0].item<double>() ==
                11.0);
      }
  }

  TEST_CASE("several outputs at once, of several dtypes and ranks") {
    for (const char* linker : {"py", "cpp", "opwise"}) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var c = T::bscalar("c");
      Var m = T::dmatrix("m");
      Var i = T::lvector("i");
      std::vector<Var> r = ifelse(c, {m * 2.0, i + 1, T::sum(m)}, {T::transpose(m), i * 3, T::max(m)}, "r");
      CHECK(r[0].name() == "r[0]");
      Function f = function({In(c), In(m), In(i)}, {Out(r[0]), Out(r[1]), Out(r[2])});
      const NDArray mv = theano::test::range({2, 2}), iv = NDArray::from_list<int64_t>({1, 2});
      auto t = f({scalar_of(DType::Int8, 1), mv, iv});
      CHECK(allclose(t[0], NDArray::from_list<double>({0, 2, 4, 6}, {2, 2})));
      CHECK(t[1].at<int64_t>({1}) == 3);
      CHECK(t[2].item<double>() == 6.0);
      auto e = f({scalar_of(DType::Int8, 0), mv, iv});
      CHECK(allclose(e[0], NDArray::from_list<double>({0, 2, 1, 3}, {2, 2})));
      CHECK(e[1].at<int64_t>({1}) == 6);
      CHECK(e[2].item<double>() == 3.0);
    }
  }

  TEST_CASE("lazy: the branch not taken never runs, so its errors are never raised") {
    for (const Way& w : kWays) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var c = T::lscalar("c");
      Var x = T::dvector("x");
      Var k = T::lscalar("k");
      // x[k] fails for k out of range; only the then branch reads it.
      Var bad = T::subtensor(x, {T::Index(k)}) * 2.0;
      Var r = ifelse(c, bad, T::sum(x));
      Function f = function({In(c), In(x), In(k)}, {r}, mode(w.mode));
      const NDArray xv = vec({1, 2, 3});
      CHECK(f({theano::test::i64(0), xv, theano::test::i64(10)})[0].item<double>() == 6.0);
      CHECK(f({theano::test::i64(1), xv, theano::test::i64(2)})[0].item<double>() == 6.0);
      CHECK_THROWS_AS(f({theano::test::i64(1), xv, theano::test::i64(10)}), IndexError);
    }
  }

  TEST_CASE("lazy: nested ifelse runs only the innermost branch taken") {
    for (const Way& w : kWays) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var a = T::lscalar("a"), b = T::lscalar("b");
      Var x = T::dvector("x");
      Var k = T::lscalar("k");
      Var bad = T::subtensor(x, {T::Index(k)});  // out of range unless a and b
      Var inner = ifelse(b, bad, T::sum(x) * 10.0, "inner");
      // The inner condition is computed inside the outer branch too.
      Var r = ifelse(a, inner, T::max(x), "r");
      Function f = function({In(a), In(b), In(x), In(k)}, {r}, mode(w.mode));
      const NDArray xv = vec({1, 2, 3});
      using theano::test::i64;
      CHECK(f({i64(0), i64(1), xv, i64(99)})[0].item<double>() == 3.0);
      CHECK(f({i64(1), i64(0), xv, i64(99)})[0].item<double>() == 60.0);
      CHECK(f({i64(1), i64(1), xv, i64(1)})[0].item<double>() == 2.0);
      CHECK_THROWS_AS(f({i64(1), i64(1), xv, i64(99)}), IndexError);
    }
  }

  TEST_CASE("lazy_schedule: guards from the clients, conditions computed before what they guard") {
    Var a = T::dscalar("a"), x = T::dvector("x");
    Var c = T::gt(T::sum(x), a);
    Var shared_work = T::exp(x);
    Var then_only = T::sum(T::sin(x) * shared_work);
    Var else_only = T::sum(T::cos(x));
    Var r = ifelse(c, then_only, else_only) + T::sum(shared_work);
    FunctionGraph fg({a, x}, {r});
    const LazySchedule s = lazy_schedule(fg);
    REQUIRE(s.lazy());
    std::size_t cond_at = s.order.size(), ifelse_at = s.order.size();
    for (std::size_t t = 0; t < s.order.size(); ++t) {
      if (s.order[t]->outputs()[0] == c) cond_at = t;
      if (as_ifelse(*s.order[t])) ifelse_at = t;
    }
    for (std::size_t t = 0; t < s.order.size(); ++t) {
      const Var out = s.order[t]->outputs()[0];
      CAPTURE(debugprint(out));
      if (out == shared_work || out == c) {
        CHECK(s.guards[t].empty());  // read outside the IfElse too
      } else if (out == then_only || out.owner() == then_only.owner()->input(0).owner()) {
        REQUIRE(s.guards[t].size() == 1);
        CHECK(s.guards[t][0].ifelse == ifelse_at);
        CHECK(s.guards[t][0].truth);
        CHECK(t > cond_at);
      } else if (out == else_only) {
        REQUIRE(s.guards[t].size() == 1);
        CHECK_FALSE(s.guards[t][0].truth);
        CHECK(t > cond_at);
      }
    }
    // A refused IfElse (lazy_ok false) runs eagerly.
    CHECK_FALSE(lazy_schedule(fg, [](const Apply&) { return false; }).lazy());
  }

  TEST_CASE("views of either branch: buffers stay alive, in-place ops never touch protected inputs") {
    for (const Way& w : kWays) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var c = T::lscalar("c");
      Var x = T::dvector("x"), y = T::dvector("y");
      // The else branch is an intermediate whose buffer the planner might
      // reuse for the later products while the IfElse output still views it.
      Var v = ifelse(c, x * 2.0, y * 3.0);
      Var r = v * (T::exp(x) * T::cos(y)) + (x * y) * (x + y);
      // An in-place candidate on a view of protected inputs.
      Var direct = ifelse(c, x, y) + 1.0;
      Function f = function({In(c), In(x), In(y)}, {r, direct, v}, mode(w.mode));
      const NDArray xv = vec({1, 2, 3}), yv = vec({-1, 0.5, 4});
      Function ref = function({In(x), In(y)},
                              {(x * 2.0) * (T::exp(x) * T::cos(y)) + (x * y) * (x + y),
                               (y * 3.0) * (T::exp(x) * T::cos(y)) + (x * y) * (x + y), x + 1.0, y + 1.0},
                              mode("fast_run"));
      const auto want = ref({xv, yv});
      for (int cv : {1, 0}) {
        CAPTURE(cv);
        const auto got = f({theano::test::i64(cv), xv, yv});
        CHECK(allclose(got[0], want[cv ? 0 : 1]));
        CHECK(allclose(got[1], want[cv ? 2 : 3]));
        CHECK(allclose(got[2], cv ? vec({2, 4, 6}) : vec({-3, 1.5, 12})));
      }
      CHECK(allclose(xv, vec({1, 2, 3})));  // the caller's arrays are untouched
      CHECK(allclose(yv, vec({-1, 0.5, 4})));
    }
  }

  TEST_CASE("an output that is a graph input's view through ifelse is not the caller's array") {
    UseLinker l("cpp");
    Var c = T::lscalar("c");
    Var x = T::dvector("x"), y = T::dvector("y");
    Function f = function({In(c), In(x), In(y)}, {ifelse(c, x, y)});
    NDArray xv = vec({1, 2});
    NDArray r = f({theano::test::i64(1), xv, vec({3, 4})})[0];
    CHECK(allclose(r, xv));
    r.at<double>({0}) = 100;
    CHECK(xv.at<double>({0}) == 1.0);
  }

  TEST_CASE("type errors name the output and both types") {
    Var c = T::lscalar("c");
    const std::string dt = error_of([&] { ifelse(c, T::dvector("a"), T::fvector("b")); });
    CHECK(dt.find("output 0") != std::string::npos);
    CHECK(dt.find("float64") != std::string::npos);
    CHECK(dt.find("float32") != std::string::npos);
    CHECK_THROWS_AS(ifelse(c, T::dvector("a"), T::dmatrix("b")), TypeError);
    const std::string nd = error_of([&] { ifelse(T::lvector("v"), T::dscalar("a"), T::dscalar("b")); });
    CHECK(nd.find("must be a scalar") != std::string::npos);
    CHECK_THROWS_AS(ifelse(c, std::vector<Var>{T::dscalar("a")}, std::vector<Var>{}), TypeError);
    // Different static shapes: the result keeps what both branches agree on.
    Var p = T::tensor(DType::Float64, {3, 4}), q = T::tensor(DType::Float64, {3, std::nullopt});
    const auto* t = T::tensor_type(ifelse(c, p, q));
    REQUIRE(t != nullptr);
    CHECK(t->shape()[0] == std::optional<int64_t>(3));
    CHECK(t->shape()[1] == std::nullopt);
  }

  TEST_CASE("infer_shape: the branch's shape, itself an ifelse when they differ") {
    Var c = T::lscalar("c");
    Var x = T::dmatrix("x"), y = T::dmatrix("y");
    Var r = ifelse(c, x, T::transpose(y));
    for (int cv : {0, 1})
      testing::check_infer_shape({c, x, y}, {r},
                                 {theano::test::i64(cv), theano::test::range({2, 3}), theano::test::range({5, 4})});
  }

  TEST_CASE("gradients flow to the branch taken only (verify_grad, both conditions)") {
    for (double sign : {1.0, -1.0}) {
      CAPTURE(sign);
      // x in both branches, y only in the else branch and in the condition.
      testing::verify_grad(
          [](const std::vector<Var>& in) {
            return ifelse(T::gt(T::sum(in[1]), 0.0), in[0] * in[0], T::sin(in[0]) * in[1]);
          },
          {vec({0.3, -1.2, 2.0}), vec({1.5 * sign, 0.5 * sign, 2 * sign})});
    }
    // The symbolic gradient is itself lazy: an IfElse on the same condition.
    Var c = T::lscalar("c");
    Var x = T::dvector("x");
    const Var g = grad(T::sum(ifelse(c, T::exp(x), x * 3.0)), x);
    CHECK(debugprint(g).find("IfElse") != std::string::npos);
  }
}
