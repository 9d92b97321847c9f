// theano::grad and friends on small graphs of elementwise ops: numeric values,
// consider_constant, disconnected inputs, known_grads, integer wrt, multi-output
// nodes, zero_grad / disconnected_grad, and verify_grad / check_infer_shape
// themselves (including a deliberately wrong gradient and shape).
#include <cmath>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/gradient.h"
#include "theano/runtime/error.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"
#include "theano/testing.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {


/// y = 2 * x elementwise, with a gradient that is off by a factor (`factor` = 2
/// is right) and an infer_shape that can lie.
class ScaleOp final : public Op {
 public:
  ScaleOp(double grad_factor, bool wrong_shape) : grad_factor_(grad_factor), wrong_shape_(wrong_shape) {}
  std::string_view type_name() const override { return "ScaleOp"; }
  Props props() const override { return {{"grad_factor", grad_factor_}, {"wrong_shape", wrong_shape_}}; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    Var out = inputs.at(0).type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {out});
  }
  bool has_perform() const override { return true; }
  void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
    NDArray r = in[0].copy();
    double* p = r.data_as<double>();
    for (std::int64_t i = 0; i < r.size(); ++i) p[i] *= 2;
    out[0] = r;
  }
  std::vector<std::vector<Var>> infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const override {
    if (!wrong_shape_) return {shapes[0]};
    std::vector<Var> s = shapes[0];
    s[0] = s[0] + std::int64_t{1};
    return {s};
  }
  std::vector<Var> grad(const Apply&, const std::vector<Var>& g) const override { return {g[0] * grad_factor_}; }

 private:
  double grad_factor_;
  bool wrong_shape_;
};

/// Two outputs (2x, 3x); its grad insists on receiving both output gradients.
class TwoOutOp final : public Op {
 public:
  std::string_view type_name() const override { return "TwoOutOp"; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    Var a = inputs.at(0).type()->make_variable(), b = inputs.at(0).type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {a, b});
  }
  bool has_perform() const override { return true; }
  void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
    out[0] = NDArray::full(in[0].shape(), 0);
    out[1] = NDArray::full(in[0].shape(), 0);
    for (std::int64_t i = 0; i < in[0].size(); ++i) {
      out[0].data_as<double>()[i] = 2 * in[0].contiguous().data_as<double>()[i];
      out[1].data_as<double>()[i] = 3 * in[0].contiguous().data_as<double>()[i];
    }
  }
  std::vector<Var> grad(const Apply&, const std::vector<Var>& g) const override {
    REQUIRE(g[0]);
    REQUIRE(g[1]);
    return {g[0] * 2.0 + g[1] * 3.0};
  }
};

Var scale(const Var& x, double factor = 2.0, bool wrong_shape = false) {
  return OpPtr(new ScaleOp(factor, wrong_shape))->apply1({x});
}

}  // namespace

TEST_SUITE("tensor_tests") {
  TEST_CASE("grad: simple expressions, checked numerically") {
    Var x = T::dscalar("x");
    Var g = grad(x * x, x);
    CHECK(g.eval({{x, NDArray::scalar(3.0)}}).item<double>() == doctest::Approx(6.0));
    Var e = T::exp(x) * x;
    CHECK(grad(e, x).eval({{x, NDArray::scalar(0.5)}}).item<double>() ==
          doctest::Approx(std::exp(0.5) * 1.5));
    // Several wrt; contributions of several paths add up.
    Var y = T::dscalar("y");
    const auto gs = grad(x * y + x, {x, y});
    CHECK(gs[0].eval({{x, NDArray::scalar(2.0)}, {y, NDArray::scalar(5.0)}}).item<double>() == doctest::Approx(6.0));
    CHECK(gs[1].eval({{x, NDArray::scalar(2.0)}, {y, NDArray::scalar(5.0)}}).item<double>() == doctest::Approx(2.0));
    // d cost / d cost = 1.
    CHECK(grad(x, x).eval({{x, NDArray::scalar(2.0)}}).item<double>() == 1.0);
    // Vectors through a reduction.
    Var v = T::dvector("v");
    Var gv = grad(T::sum(v * v), v);
    CHECK(tensor::tensor_type(gv)->dtype() == DType::Float64);
    CHECK(allclose(gv.eval({{v, vec({1, 2, 3})}}), vec({2, 4, 6})));
  }

  TEST_CASE("grad: verify_grad on expressions of elementwise ops") {
    testing::verify_grad([](const std::vector<Var>& in) { return T::exp(in[0]) * in[1] + T::sin(in[0]); },
                         {vec({0.1, -0.4, 1.2}), vec({2.0, 0.5, -1.0})});
    testing::verify_grad([](const std::vector<Var>& in) { return in[0] / (in[1] * in[1] + 1.0); },
                         {NDArray::full({2, 3}, 0.7), NDArray::full({1, 3}, 1.3)});
    testing::verify_grad([](const std::vector<Var>& in) { return T::sum(T::tanh(in[0])); },
                         {NDArray::arange(0, 1, 0.25)});
  }

  TEST_CASE("grad: cost must be a scalar") {
    Var v = T::dvector("v");
    const std::string e = error_of([&] { grad(v * 2.0, v); });
    CHECK(e.find("cost must be a scalar") != std::string::npos);
    CHECK_THROWS_AS(grad(v * 2.0, v), TypeError);
    CHECK_THROWS_AS(grad(Var(), v), ValueError);
  }

  TEST_CASE("grad: disconnected inputs raise, warn or ignore") {
    Var x = T::dscalar("x"), y = T::dscalar("y");
    Var cost = x * 2.0;
    const std::string e = error_of([&] { grad(cost, y); });
    CHECK(e.find("not part of the computational graph of the cost") != std::string::npos);
    CHECK(e.find("y") != std::string::npos);
    CHECK_THROWS_AS(grad(cost, y), DisconnectedInputError);
    GradOptions warn;
    warn.disconnected_inputs = DisconnectedInputs::Warn;
    Var gw = grad(cost, y, warn);
    CHECK(gw.eval({{y, NDArray::scalar(1.0)}}).item<double>() == 0.0);
    GradOptions ignore;
    ignore.disconnected_inputs = DisconnectedInputs::Ignore;
    CHECK(grad(cost, y, ignore).eval({{y, NDArray::scalar(1.0)}}).item<double>() == 0.0);
    ignore.null_for_disconnected = true;
    CHECK_FALSE(grad(cost, y, ignore));
    // Through disconnected_grad: disconnected; through zero_grad: zero.
    CHECK_THROWS_AS(grad(disconnected_grad(x) * 3.0, x), DisconnectedInputError);
    Var gz = grad(zero_grad(x) * 3.0 + x, x);
    CHECK(gz.eval({{x, NDArray::scalar(4.0)}}).item<double>() == 1.0);
    CHECK(zero_grad(x).eval({{x, NDArray::scalar(4.0)}}).item<double>() == 4.0);
  }

  TEST_CASE("grad: consider_constant") {
    Var x = T::dscalar("x");
    Var h = x * 2.0;
    Var cost = x * h;  // 2x^2: d/dx = 4x, but 2x with h held constant
    GradOptions o;
    o.consider_constant = {h};
    CHECK(grad(cost, x, o).eval({{x, NDArray::scalar(3.0)}}).item<double>() == doctest::Approx(6.0));
    CHECK(grad(cost, x).eval({{x, NDArray::scalar(3.0)}}).item<double>() == doctest::Approx(12.0));
    // The constant variable itself still gets its gradient.
    CHECK(grad(cost, h, o).eval({{x, NDArray::scalar(3.0)}}).item<double>() == doctest::Approx(3.0));
  }

  TEST_CASE("grad: known_grads") {
    Var x = T::dvector("x");
    Var y = x * 3.0;
    Var gy = T::dvector("gy");
    GradOptions o;
    o.known_grads = {{y, gy}};
    Var gx = grad(Var(), x, o);
    CHECK(allclose(gx.eval({{gy, vec({1, 2})}}), vec({3, 6})));  // x is not needed
    // Together with a cost: the known gradient replaces what the cost gives y.
    Var cost = T::sum(y * y);
    Var gx2 = grad(cost, x, o);
    CHECK(allclose(gx2.eval({{gy, vec({1, 2})}}), vec({3, 6})));
    // ndim mismatch.
    GradOptions bad;
    bad.known_grads = {{y, T::dscalar("s")}};
    CHECK_THROWS_AS(grad(Var(), x, bad), TypeError);
  }

  TEST_CASE("grad: integer wrt gets float zeros") {
    Var i = T::iscalar("i");
    Var x = T::dscalar("x");
    Var cost = T::cast(i, DType::Float64) * x;
    Var gi = grad(cost, i);
    CHECK(tensor::tensor_type(gi)->dtype() == DType::Float64);
    CHECK(gi.eval({{i, NDArray::scalar<std::int32_t>(3)}}).item<double>() == 0.0);
    CHECK(grad(cost, x).eval({{i, NDArray::scalar<std::int32_t>(3)}, {x, NDArray::scalar(1.0)}}).item<double>() ==
          3.0);
  }

  TEST_CASE("grad: missing output gradients of a multi-output node are zeros") {
    Var x = T::dvector("x");
    const auto outs = OpPtr(new TwoOutOp)->make_node({x})->outputs();
    Var g = grad(T::sum(outs[1]), x);  // only output 1 reaches the cost
    CHECK(allclose(g.eval({{x, vec({1, 2})}}), vec({3, 3})));
    Var g2 = grad(T::sum(outs[0] + outs[1]), x);
    CHECK(allclose(g2.eval({{x, vec({1, 2})}}), vec({5, 5})));
  }

  TEST_CASE("verify_grad catches a wrong gradient") {
    // The right gradient passes.
    testing::verify_grad([](const std::vector<Var>& in) { return scale(in[0], 2.0); }, {vec({1, 2, 3})});
    // A wrong one throws GradientError naming the input and both gradients.
    const std::string e =
        error_of([] { testing::verify_grad([](const std::vector<Var>& in) { return scale(in[0], 3.0); },
                                           {vec({1, 2, 3})}); });
    CHECK(e.find("verify_grad: the gradient of input 0") != std::string::npos);
    CHECK(e.find("max abs error") != std::string::npos);
    CHECK(e.find("symbolic gradient") != std::string::npos);
    CHECK(e.find("numeric gradient") != std::string::npos);
    CHECK_THROWS_AS(testing::verify_grad([](const std::vector<Var>& in) { return scale(in[0], 3.0); },
                                         {vec({1, 2, 3})}),
                    GradientError);
    // Integer points are refused.
    CHECK_THROWS_AS(testing::verify_grad([](const std::vector<Var>& in) { return in[0]; },
                                         {NDArray::from_list<std::int32_t>({1})}),
                    TypeError);
  }

  TEST_CASE("check_infer_shape") {
    Var x = T::dmatrix("x"), y = T::drow("y");
    NDArray a = NDArray::ones({2, 3}), b = NDArray::ones({1, 3});
    testing::check_infer_shape({x, y}, {x + y}, {a, b});
    testing::check_infer_shape({x}, {scale(x)}, {a});
    const std::string e = error_of([&] { testing::check_infer_shape({x}, {scale(x, 2.0, true)}, {a}); });
    CHECK(e.find("ScaleOp") != std::string::npos);
    CHECK(e.find("(3, 3)") != std::string::npos);
    CHECK(e.find("(2, 3)") != std::string::npos);
    CHECK_THROWS_AS(testing::check_infer_shape({x}, {scale(x, 2.0, true)}, {a}), ShapeError);
    CHECK_THROWS_AS(testing::check_infer_shape({x}, {x}, {a}), ValueError);
  }
}
