// The stabilizations of the algebra family: log(sigmoid), log(1 - sigmoid),
// expm1, log-sum-exp and crossentropy of a softmax through log_softmax. Each:
// the graph before / after, the numeric check against the unoptimized graph,
// and values where the naive form overflows or underflows.
#include <doctest/doctest.h>

#include <iostream>
#include <cmath>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

namespace {

// The optimized graph (fast_run without fusion / inplace) equals `expected`.
void check_graph(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected) {
  FunctionGraph fg(ins, outs);
  rewrite::RewriteStats stats = rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
  CHECK(stats.capped.empty());
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same) std::cerr << "Input:\n" << debugprint(outs) << "Output:\n" << debugprint(fg) << "Expected:\n" << debugprint(expected);
  CHECK(same);
}

NDArray run(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args) {
  return function({ins.begin(), ins.end()}, {out})(args)[0];
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_log_sigmoid: log(sigmoid(x)) -> -softplus(-x), log(1 - sigmoid(x)) -> -softplus(x)") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::log(T::sigmoid(x))}, {T::neg(T::softplus(T::neg(x)))});
    check_rewrite({x}, {T::log(c(1) - T::sigmoid(x))}, {T::neg(T::softplus(x))});
    check_rewrite({x}, {T::log(c(2) - T::sigmoid(x))}, {T::log(c(2) - T::sigmoid(x))});
    check_rewrite({x}, {T::log(T::sigmoid(x))}, {T::log(T::sigmoid(x))}, "fast_compile");
    NDArray a = run({x}, T::log(T::sigmoid(x)), {vec({-800, 0})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(-800));
    NDArray b = run({x}, T::log(c(1) - T::sigmoid(x)), {vec({800, 0})});
    CHECK(b.data_as<double>()[0] == doctest::Approx(-800));
  }

  TEST_CASE("local_expm1: exp(x) - 1 -> expm1(x)") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x}, {T::exp(x) - c(1)}, {T::expm1(x)});
    check_rewrite({x, y}, {T::exp(x) - c(1) + y}, {T::add(T::expm1(x), y)});
    check_rewrite({x}, {T::exp(x) - c(2)}, {T::add(T::exp(x), c(-2))});
    NDArray a = run({x}, T::exp(x) - c(1), {vec({1e-10})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(1e-10).epsilon(1e-12));
  }

  TEST_CASE("local_log_sum_exp: max-shifted, keepdims kept, stable") {
    Var m = T::dmatrix("m");
    auto stable = [&](int axis) {
      Var mx = T::max(m, axis);
      mx = T::switch_(T::isinf(mx), T::constant(NDArray::full({1}, 0.0, DType::Float64)), mx);
      std::vector<int> order = axis == 1 ? std::vector<int>{0, T::kNewAxis} : std::vector<int>{T::kNewAxis, 0};
      return T::add(T::log(T::sum(T::exp(m - T::dimshuffle(mx, order)), axis)), mx);
    };
    check_rewrite({m}, {T::log(T::sum(T::exp(m), 1))}, {stable(1)});
    check_rewrite({m}, {T::log(T::sum(T::exp(m), 0))}, {stable(0)});
    check_rewrite({m}, {T::log(T::sum(T::exp(m), 1, true))}, {stable(1).dimshuffle({0, T::kNewAxis})});
    NDArray big = vec({1000, 1000, -INFINITY, -INFINITY}).reshape({2, 2});
    NDArray r = run({m}, T::log(T::sum(T::exp(m), 1)), {big});
    CHECK(r.data_as<double>()[0] == doctest::Approx(1000 + std::log(2.0)));
    CHECK(std::isinf(r.data_as<double>()[1]));
    CHECK(r.data_as<double>()[1] < 0);
  }

  TEST_CASE("local_crossentropy_to_log_softmax: integer labels through log_softmax") {
    Var x = T::dmatrix("x"), t = T::ivector("t");
    Var k = T::shape_i(x, 1);
    Var onehot = T::eq(t.dimshuffle({0, T::kNewAxis}), T::arange(k).dimshuffle({T::kNewAxis, 0}));
    Var y = T::neg(T::sum(T::switch_(onehot, N::log_softmax(x, 1), T::constant(NDArray::full({1, 1}, 0.0, DType::Float64))), 1));
    Var expected = T::assert_op(y, {T::all_(T::and_(T::ge(t, T::constant(NDArray::full({1}, 0.0, DType::Int32))), T::lt(t, k)))},
                                "local_crossentropy_to_log_softmax: a label is outside [0, k)");
    Var ce = N::crossentropy_categorical_1hot(N::softmax(x), t);
    check_graph({x, t}, {ce}, {expected});

    NDArray xv = vec({1, 2, 3, 0, -1000, 0}).reshape({2, 3});
    NDArray tv = NDArray::from_list<std::int32_t>({2, 1});
    FunctionOptions raw;
    raw.mode = "unoptimized";
    NDArray got = function({x, t}, {ce})({xv, tv})[0];
    NDArray want = function({x, t}, {ce}, raw)({xv, tv})[0];
    CHECK(got.data_as<double>()[0] == doctest::Approx(want.data_as<double>()[0]));
    CHECK(std::isinf(want.data_as<double>()[1]));  // naive: -log(0)
    CHECK(got.data_as<double>()[1] == doctest::Approx(1000 + std::log(2.0)));
    // Labels are still checked.
    CHECK(error_of([&] { function({x, t}, {ce})({xv, NDArray::from_list<std::int32_t>({3, 0})}); })
              .find("outside") != std::string::npos);
    // Gradients (built before optimization) keep their values.
    Var g = grad(T::sum(ce), x);
    NDArray xs = vec({1, 2, 3, 0, -1, 0}).reshape({2, 3});
    CHECK(close_enough(function({x, t}, {g})({xs, tv})[0], function({x, t}, {g}, raw)({xs, tv})[0]));
  }
}
