// Subtensor rewrites: the full slice that is x, make_vector indexing, and the
// serialization of the increments that gradients of indexing build. Each
// rewrite's graph before/after under fast_run (equal_computations against a
// graph built by hand) plus a numeric check against the unoptimized graph.
#include <doctest/doctest.h>

#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

int count_op(const FunctionGraph& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type_name ? 1 : 0;
  return n;
}

int left_after(const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view type_name) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
  return count_op(fg, type_name);
}

bool is_inc(const Var& v) {
  return v.owner() && (v.owner()->op()->type_name() == "IncSubtensor" ||
                       v.owner()->op()->type_name() == "AdvancedIncSubtensor1");
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_useless_subtensor: x[:], x[0:], x[:shape_i(x, 0)], x[0:n] of a known n -> x") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(T::subtensor(m, {T::all}))}, {T::exp(m)});
    check_rewrite({m}, {T::exp(T::subtensor(m, {T::slice(0, T::none, 1), T::all}))}, {T::exp(m)});
    check_rewrite({m}, {T::exp(T::subtensor(m, {T::slice(T::none, T::shape_i(m, 0))}))}, {T::exp(m)});
    Var s = T::tensor(DType::Float64, {4}, "s");
    check_rewrite({s}, {T::exp(T::subtensor(s, {T::slice(0, 4)}))}, {T::exp(s)});
    check_rewrite({s}, {T::exp(T::subtensor(s, {T::slice(T::none, 10)}))}, {T::exp(s)});
    // Empty arrays pass through.
    Function f = function({m}, {T::exp(T::subtensor(m, {T::all}))});
    CHECK(f({range({0, 2})})[0].shape() == std::vector<std::int64_t>{0, 2});
    // Not provably whole: kept.
    CHECK(left_after({m}, {T::exp(T::subtensor(m, {T::slice(1, T::none)}))}, "Subtensor") == 1);
    CHECK(left_after({m}, {T::exp(T::subtensor(m, {T::slice(T::none, T::none, -1)}))}, "Subtensor") == 1);
    CHECK(left_after({m}, {T::exp(T::subtensor(m, {T::slice(T::none, 3)}))}, "Subtensor") == 1);
    CHECK(left_after({m}, {T::exp(T::subtensor(m, {T::slice(T::none, T::shape_i(m, 1))}))}, "Subtensor") == 1);
    CHECK(left_after({s}, {T::exp(T::subtensor(s, {T::slice(0, 3)}))}, "Subtensor") == 1);
    CHECK(left_after({m}, {T::exp(T::subtensor(m, {T::Index(0)}))}, "Subtensor") == 1);
  }

  TEST_CASE("local_sum_of_mask: sum(x[mask]) -> sum(switch(mask, x, 0)), NaN and inf masked out stay out") {
    // Before: the gather of the true positions; after: one select and a sum, no Nonzero.
    const Var x = T::tensor(DType::Float64, {std::nullopt, std::nullopt, std::nullopt}, "x");
    const Var m = T::tensor(DType::Bool, {std::nullopt, std::nullopt, std::nullopt}, "m");
    const Var s = T::sum(x[m]);
    FunctionGraph before({x, m}, {s});
    CHECK(count_op(before, "Nonzero") == 1);
    CHECK(left_after({x, m}, {s}, "Nonzero") == 0);
    CHECK(left_after({x, m}, {s}, "AdvancedSubtensor1") == 0);
    FunctionGraph after({x, m}, {s});
    rewrite::optimize(after, rewrite::mode_query("fast_run").excluding({"fusion"}));
    CHECK(debugprint(after).find("Elemwise{switch") != std::string::npos);
    // Values: non-finite elements where the mask is false, and an all-false mask.
    NDArray xv = range({2, 3, 4}), mv = NDArray::zeros({2, 3, 4}, DType::Bool);
    for (std::int64_t e = 0; e < 24; ++e) {
      mv.data_as<bool>()[e] = e % 3 == 0;
      if (e % 3 == 1) xv.data_as<double>()[e] = e % 2 ? std::numeric_limits<double>::quiet_NaN()
                                                     : std::numeric_limits<double>::infinity();
    }
    double want = 0;
    for (std::int64_t e = 0; e < 24; e += 3) want += xv.data_as<double>()[e];
    Function f = function({x, m}, s);
    CHECK(f({xv, mv}).item<double>() == want);
    CHECK(f({xv, NDArray::zeros({2, 3, 4}, DType::Bool)}).item<double>() == 0.0);
    // A mask of the wrong shape is still an error (the check stays before the select).
    CHECK_THROWS(f({xv, NDArray::zeros({2, 3, 5}, DType::Bool)}));
    // A mask over the leading axes only: the gather stays.
    const Var m2 = T::tensor(DType::Bool, {std::nullopt, std::nullopt}, "m2");
    CHECK(left_after({x, m2}, {T::sum(x[m2])}, "Nonzero") == 1);
    // A 1-d x.
    const Var v = T::dvector("v"), b = T::tensor(DType::Bool, {std::nullopt}, "b");
    CHECK(left_after({v, b}, {T::sum(v[b])}, "Nonzero") == 0);
  }

  TEST_CASE("local_subtensor_make_vector: make_vector(a, b)[1] -> b") {
    Var a = T::dscalar("a"), b = T::dscalar("b");
    check_rewrite({a, b}, {T::subtensor(T::make_vector({a, b}, DType::Float64), {T::Index(1)}) * a},
                  {b * a});
    check_rewrite({a, b}, {T::subtensor(T::make_vector({a, b}, DType::Float64), {T::Index(-2)}) * b}, {a * b});
  }

  TEST_CASE("local_subtensor_of_arange: arange(a, b, s)[i] -> a + s*i, [lo:hi] -> a shorter arange, never built") {
    const Var i = T::lscalar("i"), lo = T::lscalar("lo"), hi = T::lscalar("hi"), b = T::lscalar("b");
    auto L = [](std::int64_t v) { return NDArray::scalar<std::int64_t>(v); };
    auto K = [](std::int64_t v) { return T::constant(NDArray::scalar<std::int64_t>(v)); };
    // The ranges whose length is exact in int64: a constant start and step, a >= 0 going up, a < 0 going down.
    const std::int64_t forms[][2] = {{0, 1}, {3, 4}, {-1, -3}, {-7, -1}};
    int compared = 0;
    for (const auto& form : forms) {
      CAPTURE(form[0]);
      CAPTURE(form[1]);
      const Var range = T::arange(K(form[0]), b, K(form[1]));
      const Var one = range[i], win = range[T::slice(lo, hi)];
      {
        FunctionGraph before({b, i}, {one});
        CHECK(count_op(before, "ARange") == 1);
      }
      // After: no range for the element (an Assert keeps the bounds check), a shorter range for the window.
      CHECK(left_after({b, i}, {one}, "ARange") == 0);
      CHECK(left_after({b, i}, {one}, "Assert") == 1);
      CHECK(left_after({b, lo, hi}, {win}, "Subtensor") == 0);
      CHECK(left_after({b, lo, hi}, {win}, "ARange") == 1);
      // Values against the unrewritten graph: every index in and out of range, every window with
      // negative and clamped bounds, empty ranges included.
      Function f1 = function({b, i}, {one});
      Function f1_ref = function({b, i}, {one}, {.mode = "unoptimized"});
      Function fw = function({b, lo, hi}, {win});
      Function fw_ref = function({b, lo, hi}, {win}, {.mode = "unoptimized"});
      for (const std::int64_t stop : {form[0] + 17 * form[1], form[0] - 5 * form[1], form[0]}) {
        const std::int64_t n = NDArray::arange(double(form[0]), double(stop), double(form[1]), DType::Int64).size();
        for (std::int64_t k = -n - 1; k <= n; ++k) {
          if (k < -n || k >= n) {
            CHECK_THROWS(f1({L(stop), L(k)}));
            CHECK_THROWS(f1_ref({L(stop), L(k)}));
            continue;
          }
          CHECK(f1({L(stop), L(k)})[0].item<std::int64_t>() == f1_ref({L(stop), L(k)})[0].item<std::int64_t>());
          ++compared;
        }
        for (std::int64_t l = -n - 2; l <= n + 2; ++l)
          for (std::int64_t h = -n - 2; h <= n + 2; ++h) {
            const std::vector<NDArray> args{L(stop), L(l), L(h)};
            const NDArray got = fw(args)[0], want = fw_ref(args)[0];
            REQUIRE(got.shape() == want.shape());
            for (std::int64_t e = 0; e < got.size(); ++e)
              CHECK(got.data_as<std::int64_t>()[e] == want.data_as<std::int64_t>()[e]);
            ++compared;
          }
      }
    }
    CHECK(compared > 1000);
    // Left alone: a symbolic start or step, a constant start on the side that could overflow, a
    // float range, a stepped slice.
    const Var a = T::lscalar("a"), st = T::lscalar("st");
    CHECK(left_after({a, b, i}, {T::arange(a, b, K(1))[i]}, "ARange") == 1);
    CHECK(left_after({b, st, i}, {T::arange(K(0), b, st)[i]}, "ARange") == 1);
    CHECK(left_after({b, i}, {T::arange(K(5), b, K(-1))[i]}, "ARange") == 1);
    auto D = [](double v) { return T::constant(NDArray::scalar<double>(v)); };
    const Var fstop = T::dscalar("fstop");
    CHECK(left_after({fstop, i}, {T::arange(D(0.5), fstop, D(0.25))[i]}, "ARange") == 1);
    CHECK(left_after({b}, {T::arange(b)[T::slice(T::none, T::none, 2)]}, "Subtensor") == 1);
    // All three bounds constant: the static length.
    const Var c10 = T::arange(K(2), K(40), K(4));
    CHECK(left_after({i}, {c10[i]}, "ARange") == 0);
    CHECK(function({i}, {c10[i]})({L(-1)})[0].item<std::int64_t>() == 38);

    // The graph text after: arange(b)[i] is an Assert over switch(i < 0, i + n, i), n = switch(0 < b, b, 0).
    {
      FunctionGraph fg({b, i}, {T::arange(b)[i]});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
      const std::string text = debugprint(fg);
      CAPTURE(text);
      CHECK(text.rfind("Assert{msg='Subtensor: index {} is out of bounds for axis 0 with size {} (an arange)'}", 0) == 0);
      CHECK(text.find(" |Elemwise{switch") != std::string::npos);
      CHECK(text.find("ARange") == std::string::npos);
    }
    // The bounds error names the index and the length.
    Function f = function({b, i}, {T::arange(b)[i]});
    const std::string e = test::error_of([&] { f({L(10), L(10)}); });
    CHECK(e.find("index 10 is out of bounds for axis 0 with size 10") != std::string::npos);
    // Extremes: ranges too long to build, indexed; an empty range whose b - a would overflow; a
    // window whose next step past the end would overflow.
    const std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
    CHECK(f({L(std::int64_t{1} << 62), L(-5)})[0].item<std::int64_t>() == (std::int64_t{1} << 62) - 5);
    CHECK(f({L(big), L(big - 1)})[0].item<std::int64_t>() == big - 1);
    Function up5 = function({b, i}, {T::arange(K(5), b)[i]});
    CHECK_THROWS(up5({L(small), L(0)}));
    Function down = function({b, i}, {T::arange(K(-1), b, K(-1))[i]});
    CHECK(down({L(small), L(-1)})[0].item<std::int64_t>() == small + 1);
    Function w = function({b, lo, hi}, {T::arange(K(0), b, K(std::int64_t{1} << 62))[T::slice(lo, hi)]});
    const NDArray got = w({L(big), L(0), L(3)})[0];
    REQUIRE(got.shape() == std::vector<std::int64_t>{2});
    CHECK(got.data_as<std::int64_t>()[0] == 0);
    CHECK(got.data_as<std::int64_t>()[1] == std::int64_t{1} << 62);
    // A narrower output dtype keeps its wrap-around (int32 elements of a wide range).
    const Var n32 = T::arange(K(0), b, K(std::int64_t{1} << 33), DType::Int32)[i];
    Function g = function({b, i}, {n32});
    Function g_ref = function({b, i}, {n32}, {.mode = "unoptimized"});
    CHECK(left_after({b, i}, {n32}, "ARange") == 0);
    CHECK(g({L(std::int64_t{1} << 40), L(5)})[0].dtype() == DType::Int32);
    CHECK(g({L(std::int64_t{1} << 40), L(5)})[0].item<std::int32_t>() ==
          g_ref({L(std::int64_t{1} << 40), L(5)})[0].item<std::int32_t>());
  }

  TEST_CASE("local_IncSubtensor_serialize: a + inc(zeros, b, i) + inc(zeros, c, j) -> inc(inc(a, b, i), c, j)") {
    Var a = T::tensor(DType::Float64, {5}, "a");
    Var b = T::tensor(DType::Float64, {2}, "b"), c = T::tensor(DType::Float64, {3}, "c");
    Var z = T::zeros_like(a);
    Var i1 = T::inc_subtensor(T::subtensor(z, {T::slice(1, 3)}), b);
    Var i2 = T::inc_subtensor(T::subtensor(z, {T::slice(0, 3)}), c);
    Var t = T::inc_subtensor(T::subtensor(a, {T::slice(1, 3)}), b);
    Var want = T::inc_subtensor(T::subtensor(t, {T::slice(0, 3)}), c);
    check_rewrite({a, b, c}, {(a + i1) + i2}, {want});
    // A kept term that is not zero: add(x, inc(p, b)) -> inc(add(x, p), b).
    Var p = T::tensor(DType::Float64, {5}, "p");
    check_rewrite({a, b, p}, {a + T::inc_subtensor(T::subtensor(p, {T::slice(1, 3)}), b)},
                  {T::inc_subtensor(T::subtensor(a + p, {T::slice(1, 3)}), b)});
    // An increment used elsewhere (or a set) is not moved.
    Var used = T::inc_subtensor(T::subtensor(z, {T::slice(1, 3)}), b);
    CHECK(left_after({a, b}, {a + used, T::exp(used)}, "IncSubtensor") == 1);
    {
      FunctionGraph fg({a, b}, {a + T::set_subtensor(T::subtensor(z, {T::slice(1, 3)}), b)});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
      CHECK(T::is_elemwise(fg.outputs()[0].owner(), "add"));
    }
  }

  TEST_CASE("local_IncSubtensor_serialize: gradients of several indexings add up in place of zeros") {
    Var a = T::tensor(DType::Float64, {6}, "a");
    Var il = T::lvector("il");
    Var cost = T::sum(T::sqr(T::subtensor(a, {T::slice(0, 2)}))) + T::sum(T::exp(T::subtensor(a, {T::slice(3, 5)}))) +
               T::sum(T::advanced_subtensor1(a, il) * 3.0);
    Var g = grad(cost, a);
    FunctionGraph fg({a, il}, {g});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
    // The increments form one chain: no add sums full-size increments any more.
    for (Apply* n : fg.apply_nodes()) {
      if (!T::is_elemwise(n, "add")) continue;
      for (const Var& in : n->inputs()) CHECK_FALSE(is_inc(in));
    }
    CHECK(is_inc(fg.outputs()[0]));
    FunctionOptions raw;
    raw.mode = "unoptimized";
    NDArray av = range({6}), iv = NDArray::from_vector<std::int64_t>({1, 5, 1}, {3});
    auto want = function({a, il}, {g}, raw)({av, iv});
    auto got = function({a, il}, {g})({av, iv});
    CHECK(close_enough(got[0], want[0]));
  }
}
