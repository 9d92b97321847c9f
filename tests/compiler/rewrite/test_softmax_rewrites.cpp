// The softmax family written by hand and recognized (softmax_rewrites.cpp,
// nnet.cpp), softmax over axis=None, tensor::logsumexp, and the new
// stabilizations: log1p(-sigmoid), logaddexp, log1mexp. Each: graph before /
// after, the numeric check against the unoptimized graph, and values where the
// naive form overflows (x = +-1000).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

namespace {

NDArray run1(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args,
             const std::string& mode = "fast_run") {
  FunctionOptions o;
  o.mode = mode;
  return function({ins.begin(), ins.end()}, {out}, o)(args)[0];
}

bool all_finite(const NDArray& a) {
  NDArray d = a.astype(DType::Float64).contiguous();
  for (std::int64_t i = 0; i < d.size(); ++i)
    if (!std::isfinite(d.data_as<double>()[i])) return false;
  return true;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_softmax_simplifier: exp(x) / sum(exp(x)) and the max-shifted form become Softmax") {
    Var m = T::dmatrix("m");
    Var e = T::exp(m);
    check_rewrite({m}, {e / T::sum(e, 1, true)}, {N::softmax(m, 1)});
    check_rewrite({m}, {e / T::sum(e, 0, true)}, {N::softmax(m, 0)});
    Var s = T::exp(m - T::max(m, 1, true));
    check_rewrite({m}, {s / T::sum(s, 1, true)}, {N::softmax(m, 1)});
    // Shifted by the maximum along the other axis: still a softmax, of the shifted input.
    Var wrong = T::exp(m - T::max(m, 0, true));
    check_rewrite({m}, {wrong / T::sum(wrong, 1, true)}, {N::softmax(m - T::max(m, 0, true), 1)});
    // exp(1000) overflows in the hand-written form; Softmax does not.
    NDArray a = run1({m}, e / T::sum(e, 1, true), {vec({1000, 1000, -1000, 0}).reshape({2, 2})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(0.5));
    CHECK(a.data_as<double>()[3] == doctest::Approx(1.0));
  }

  TEST_CASE("local_log_softmax_from_lse: x - logsumexp(x) becomes LogSoftmax") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {m - T::log(T::sum(T::exp(m), 1, true))}, {N::log_softmax(m, 1)});
    check_rewrite({m}, {m - T::log(T::sum(T::exp(m), 0, true))}, {N::log_softmax(m, 0)});
    check_rewrite({m}, {m - T::logsumexp(m, 1, true)}, {N::log_softmax(m, 1)});
    NDArray a = run1({m}, m - T::log(T::sum(T::exp(m), 1, true)), {vec({1000, 1000, -1000, 0}).reshape({2, 2})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(-std::log(2.0)));
    CHECK(a.data_as<double>()[2] == doctest::Approx(-1000));
  }

  TEST_CASE("local_log_softmax_from_lse: not when the logsumexp is used elsewhere (it would be computed twice)") {
    Var m = T::dmatrix("m");
    for (const Var& lse : {T::log(T::sum(T::exp(m), 1, true)), T::logsumexp(m, 1, true)}) {
      FunctionGraph fg({m}, {m - lse, lse});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
      CAPTURE(debugprint(fg));
      int log_softmaxes = 0;
      for (Apply* n : fg.apply_nodes()) log_softmaxes += n->op()->type_name() == "LogSoftmax";
      CHECK(log_softmaxes == 0);
      // The output x - lse reads the one lse.
      const Var out0 = fg.outputs()[0];
      REQUIRE(out0.owner());
      CHECK(out0.owner()->input(1) == fg.outputs()[1]);
    }
    // The inner log(sum(exp(m))) (no keepdims) as the other output: also left alone.
    Var inner = T::log(T::sum(T::exp(m), 1));
    FunctionGraph fg({m}, {m - inner.dimshuffle({0, T::kNewAxis}), inner});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int log_softmaxes = 0;
    for (Apply* n : fg.apply_nodes()) log_softmaxes += n->op()->type_name() == "LogSoftmax";
    CHECK(log_softmaxes == 0);
    // Values: the optimized function computes what the unoptimized one does.
    const Var lse = T::log(T::sum(T::exp(m), 1, true));
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const NDArray mv = vec({1, 2, -3, 0.5, 4, 0}).reshape({2, 3});
    const auto want = function({m}, {m - lse, lse}, raw)({mv});
    const auto got = function({m}, {m - lse, lse})({mv});
    for (std::size_t k = 0; k < 2; ++k) CHECK(close_enough(got[k], want[k]));
  }

  TEST_CASE("local_exp_log_softmax: exp(log_softmax(x)) -> softmax(x), not when the log_softmax is used elsewhere") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(N::log_softmax(m, 1))}, {N::softmax(m, 1)});
    Var ls = N::log_softmax(m, 1);
    FunctionGraph fg({m}, {T::exp(ls), ls});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int softmaxes = 0;
    for (Apply* n : fg.apply_nodes()) softmaxes += n->op()->type_name() == "Softmax";
    CHECK(softmaxes == 0);  // one normalization (log_softmax) serves both outputs
  }

  TEST_CASE("local_log_softmax: log of an indexed, sliced or transposed softmax") {
    Var m = T::dmatrix("m");
    Var i = T::lvector("i");
    check_rewrite({m}, {T::log(N::softmax(m, 1)[0])}, {N::log_softmax(m, 1)[0]});
    check_rewrite({m, i}, {T::log(T::advanced_subtensor1(N::softmax(m, 1), i))},
                  {T::advanced_subtensor1(N::log_softmax(m, 1), i)});
    check_rewrite({m}, {T::log(N::softmax(m, 1).dimshuffle({1, 0}))}, {N::log_softmax(m, 1).dimshuffle({1, 0})});
    NDArray a = run1({m}, T::log(N::softmax(m, 1)[0]), {vec({0, -2000}).reshape({1, 2})});
    CHECK(a.data_as<double>()[1] == doctest::Approx(-2000));
  }

  TEST_CASE("local_sigmoid_from_exp: 1 / (1 + exp(-x)) -> sigmoid(x), 1 / (1 + exp(x)) -> sigmoid(-x)") {
    Var x = T::dvector("x");
    check_rewrite({x}, {c(1) / (c(1) + T::exp(T::neg(x)))}, {T::sigmoid(x)});
    check_rewrite({x}, {c(1) / (T::exp(T::neg(x)) + c(1))}, {T::sigmoid(x)});
    check_rewrite({x}, {c(1) / (c(1) + T::exp(x))}, {T::sigmoid(T::neg(x))});
    // c / (1 + exp(x)) -> c * sigmoid(-x): local_exp_over_1_plus_exp (test_sigmoid_rewrites.cpp).
    check_rewrite({x}, {c(2) / (c(1) + T::exp(x))}, {T::mul(c(2), T::sigmoid(T::neg(x)))});
    check_rewrite({x}, {c(2) / (c(2) + T::exp(x))}, {T::true_div(c(2), T::add(T::exp(x), c(2)))});
    NDArray a = run1({x}, c(1) / (c(1) + T::exp(T::neg(x))), {vec({-1000, 1000})});
    CHECK(a.data_as<double>()[0] == 0.0);
    CHECK(a.data_as<double>()[1] == 1.0);
  }

  TEST_CASE("softmax and log_softmax over axis=None normalize over every element") {
    Var m = T::dmatrix("m");
    NDArray v = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
    NDArray s = run1({m}, N::softmax(m, std::nullopt), {v});
    CHECK(s.shape() == std::vector<std::int64_t>{2, 3});
    double total = 0;
    for (int k = 0; k < 6; ++k) total += s.data_as<double>()[k];
    CHECK(total == doctest::Approx(1.0));
    double z = 0;
    for (int k = 1; k <= 6; ++k) z += std::exp(k);
    CHECK(s.data_as<double>()[5] == doctest::Approx(std::exp(6) / z));
    NDArray l = run1({m}, N::log_softmax(m, std::nullopt), {v});
    CHECK(l.data_as<double>()[0] == doctest::Approx(1 - std::log(z)));
    Var x = T::dvector("x");
    NDArray sv = run1({x}, N::softmax(x, std::nullopt), {vec({0, 0})});
    CHECK(sv.data_as<double>()[1] == doctest::Approx(0.5));
  }

  TEST_CASE("logsumexp: stable in fast_compile too, and its gradient is finite where an entry is -inf") {
    Var m = T::dmatrix("m");
    NDArray v = vec({1000, 1000, -kInf, 0, -kInf, -kInf}).reshape({3, 2});
    for (const char* mode : {"fast_compile", "fast_run"}) {
      CAPTURE(mode);
      NDArray r = run1({m}, T::logsumexp(m, 1), {v}, mode);
      CHECK(r.data_as<double>()[0] == doctest::Approx(1000 + std::log(2.0)));
      CHECK(r.data_as<double>()[1] == doctest::Approx(0.0));
      CHECK(r.data_as<double>()[2] == -kInf);
      NDArray k = run1({m}, T::logsumexp(m, 0, true), {v}, mode);
      CHECK(k.shape() == std::vector<std::int64_t>{1, 2});
      CHECK(k.data_as<double>()[0] == doctest::Approx(1000));
      Var g = grad(T::sum(T::logsumexp(m, 1)), m);
      NDArray gv = run1({m}, g, {vec({1000, 1000, -kInf, 0}).reshape({2, 2})}, mode);
      CHECK(all_finite(gv));
      CHECK(gv.data_as<double>()[0] == doctest::Approx(0.5));
      CHECK(gv.data_as<double>()[2] == 0.0);
      CHECK(gv.data_as<double>()[3] == doctest::Approx(1.0));
    }
    CHECK(error_of([&] { T::logsumexp(T::ivector("labels")); }).find("'labels'") != std::string::npos);
  }

  TEST_CASE("local_log_sigmoid: log1p(-sigmoid(x)) -> -softplus(x)") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::log1p(T::neg(T::sigmoid(x)))}, {T::neg(T::softplus(x))});
    NDArray a = run1({x}, T::log1p(T::neg(T::sigmoid(x))), {vec({1000, -1000})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(-1000));
    CHECK(a.data_as<double>()[1] == doctest::Approx(0.0));
  }

  TEST_CASE("local_logaddexp: log(exp(x) + exp(y)) finite at +-1000 and exact at infinities") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Var mx = T::maximum(x, y);
    check_rewrite({x, y}, {T::log(T::exp(x) + T::exp(y))},
                  {T::switch_(T::isinf(mx), mx, mx + T::softplus(T::neg(T::abs(x - y))))});
    NDArray a = run1({x, y}, T::log(T::exp(x) + T::exp(y)),
                     {vec({1000, -1000, -kInf, kInf, 3}), vec({1000, -1000, -kInf, -kInf, -kInf})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(1000 + std::log(2.0)));
    CHECK(a.data_as<double>()[1] == doctest::Approx(-1000 + std::log(2.0)));
    CHECK(a.data_as<double>()[2] == -kInf);
    CHECK(a.data_as<double>()[3] == kInf);
    CHECK(a.data_as<double>()[4] == doctest::Approx(3.0));
  }

  TEST_CASE("log1mexp: the op against libm, its gradient, and the rewrites that produce it") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x}, {T::log(c(1) - T::exp(x))}, {T::log1mexp(x)});
    check_rewrite({x}, {T::log1p(T::neg(T::exp(x)))}, {T::log1mexp(x)});
    check_rewrite({x}, {T::log(T::neg(T::expm1(x)))}, {T::log1mexp(x)});
    check_rewrite({x, y}, {T::log(T::exp(x) - T::exp(y))},
                  {T::switch_(T::eq(y, T::constant(NDArray::full({1}, -kInf, DType::Float64))), x,
                              T::add(x, T::log1mexp(y - x)))});
    // The compiled op against the reference formula, both branches and the edges.
    const std::vector<double> xs = {-1e-20, -1e-10, -0.5, -0.6931471805599453, -1, -30, -800, 0};
    NDArray r = run1({x}, T::log1mexp(x), {NDArray::from_vector<double>(xs, {8})});
    for (std::size_t k = 0; k + 1 < xs.size(); ++k) {
      CAPTURE(xs[k]);
      const double want = xs[k] > -0.6931471805599453 ? std::log(-std::expm1(xs[k])) : std::log1p(-std::exp(xs[k]));
      CHECK(r.data_as<double>()[k] == doctest::Approx(want).epsilon(1e-14));
    }
    CHECK(r.data_as<double>()[7] == -kInf);
    // log(exp(x) - exp(y)) at x = 1000, y = 999: the naive form is inf - inf.
    NDArray d = run1({x, y}, T::log(T::exp(x) - T::exp(y)), {vec({1000}), vec({999})});
    CHECK(d.data_as<double>()[0] == doctest::Approx(1000 + std::log(1 - std::exp(-1.0))));
    // Gradient: d/dx log(1 - exp(x)) = -1 / expm1(-x).
    NDArray g = run1({x}, grad(T::sum(T::log1mexp(x)), x), {vec({-0.25, -5})});
    CHECK(g.data_as<double>()[0] == doctest::Approx(-1 / std::expm1(0.25)));
    CHECK(g.data_as<double>()[1] == doctest::Approx(-1 / std::expm1(5.0)));
  }

  TEST_CASE("local_log_softmax_grad: the gradient of log(softmax(x)) without dividing by the softmax") {
    Var X = T::dmatrix("X"), g = T::dmatrix("g");
    Var sm = N::softmax(X, 1);
    Var gx = grad(T::sum(T::log(sm) * g), X);
    check_rewrite({X, g}, {gx}, {g - sm * T::sum(g, 1).dimshuffle({0, T::kNewAxis})});
    NDArray r = run1({X, g}, gx, {vec({0, 1000, 3, 4}).reshape({2, 2}), vec({1, 0, 0.5, 0.5}).reshape({2, 2})});
    CHECK(all_finite(r));
    CHECK(r.data_as<double>()[0] == doctest::Approx(1.0));
    CHECK(r.data_as<double>()[1] == doctest::Approx(-1.0));
  }
}
