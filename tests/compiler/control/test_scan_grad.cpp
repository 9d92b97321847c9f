// Backpropagation through scan (control/scan_grad.cpp): verify_grad
// (finite differences) through recurrent outputs with one and several taps,
// sequence taps, map outputs, go_backwards, non-sequences and closed-over
// variables; truncate_gradient against the gradient of the unrolled tail;
// the refusal for `until`.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compiler/control/control_test_util.h"
#include "test_util.h"
#include "theano/control/scan.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::error_of;
using theano::test::matrix;
using theano::test::vector_of;

namespace {



}  // namespace

TEST_SUITE("scan grad") {
  TEST_CASE("an Elman RNN: gradients for the inputs, both weights and the initial state") {
    testing::verify_grad(
        [](const std::vector<Var>& in) {
          ScanResult r = scan(
              [&](const std::vector<Var>& a) {
                return StepResult{{T::tanh(T::dot(a[0], a[2]) + T::dot(a[1], in[2]))}};  // in[2] closed over
              },
              ScanArgs().sequences(in[0]).outputs_info(in[3]).non_sequences(in[1]).name("rnn"));
          return r.outputs[0];
        },
        {matrix(6, 3, 1.0, 1), matrix(3, 4, 0.5, 2), matrix(4, 4, 0.5, 3), vector_of(4, 0.5, 4)});
  }

  TEST_CASE("several taps: a second-order recurrence, a sequence read at t-1, t and t+1") {
    testing::verify_grad(
        [](const std::vector<Var>& in) {
          ScanResult r = scan(
              [&](const std::vector<Var>& a) {
                // a: x[t-1], x[t], x[t+1], y[t-2], y[t-1], w
                Var y = T::sin(a[4]) * a[5] + a[3] * 0.5 + a[0] * a[1] - a[2];
                return StepResult{{y}};
              },
              ScanArgs()
                  .sequences(SeqInfo(in[0], {-1, 0, 1}))
                  .outputs_info(OutputInfo(in[1], {-2, -1}))
                  .non_sequences(in[2]));
          return r.outputs[0];
        },
        {matrix(7, 2, 1.0, 5), matrix(3, 2, 1.0, 6), vector_of(2, 1.0, 7)});
  }

  TEST_CASE("taps with gaps and a deep lag: y[t] = f(y[t-5], y[t-2]), whole and truncated") {
    auto build = [](const Var& x, const Var& y0, std::int64_t truncate) {
      ScanResult r = scan(
          [](const std::vector<Var>& a) {
            // a: x[t], y[t-5], y[t-2]
            return StepResult{{T::tanh(a[0] + a[1] * 0.5) + a[2] * a[2] * 0.25}};
          },
          ScanArgs().sequences(x).outputs_info(OutputInfo(y0, {-5, -2})).truncate_gradient(truncate));
      return r.outputs[0];
    };
    testing::verify_grad([&](const std::vector<Var>& in) { return build(in[0], in[1], -1); },
                         {matrix(7, 2, 0.5, 8), matrix(5, 2, 0.5, 9)});
    // Truncated to the last 3 of 7 steps: x[4..6] reach only visited steps, so
    // their rows are the whole gradient's; earlier rows and y0 get none.
    Var x = T::dmatrix("x"), y0 = T::dmatrix("y0");
    Var whole = grad(T::sum(build(x, y0, -1)), x);
    const std::vector<Var> cut = grad(T::sum(build(x, y0, 3)), {x, y0});
    Function f = function({In(x), In(y0)}, {whole, cut[0], cut[1]});
    const auto g = f({matrix(7, 2, 0.5, 8), matrix(5, 2, 0.5, 9)});
    for (std::int64_t i = 0; i < 7; ++i)
      for (std::int64_t j = 0; j < 2; ++j) {
        CAPTURE(i);
        CHECK(g[1].at<double>({i, j}) == doctest::Approx(i >= 4 ? g[0].at<double>({i, j}) : 0.0).epsilon(1e-12));
      }
    CHECK(allclose(g[2], NDArray::zeros({5, 2})));
  }

  TEST_CASE("a tap of -2^40: the gradient graph does not grow with the lag, and the short initial value is refused") {
    Var x = T::dvector("x"), y0 = T::dvector("y0");
    const std::int64_t far = -(std::int64_t{1} << 40);
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{a[0] + a[1] * 0.5}}; },
                        ScanArgs().sequences(x).outputs_info(OutputInfo(y0, {far, -1})).name("deep"));
    const std::vector<Var> g = grad(T::sum(r.outputs[0]), {x, y0});
    CHECK(ancestors(g).size() < 400);
    Function f = function({In(x), In(y0)}, {g[0], g[1]});
    const std::string e = error_of([&] { f({theano::test::vec({1, 2, 3}), theano::test::vec({1, 2})}); });
    CHECK(e.find("deep") != std::string::npos);
  }

  TEST_CASE("map outputs and go_backwards") {
    for (bool back : {false, true}) {
      CAPTURE(back);
      testing::verify_grad(
          [back](const std::vector<Var>& in) {
            ScanResult r = scan(
                [&](const std::vector<Var>& a) {
                  Var h = a[1] * T::cos(a[0]) + a[0];
                  return StepResult{{h, T::exp(a[0] * a[1])}};
                },
                ScanArgs().sequences(in[0]).outputs_info({in[1], OutputInfo::none()}).go_backwards(back));
            return T::sum(r.outputs[0]) + T::sum(r.outputs[1] * 0.3);
          },
          {matrix(5, 3, 1.0, 8), vector_of(3, 1.0, 9)});
    }
  }

  TEST_CASE("only the last value used (reduce): the gradient still reaches every step") {
    testing::verify_grad(
        [](const std::vector<Var>& in) {
          return scan_reduce([](const std::vector<Var>& a) { return std::vector<Var>{a[1] * a[0] + T::sin(a[1])}; },
                             {in[0]}, {in[1]})[0];
        },
        {vector_of(6, 1.0, 10), T::constant(NDArray::scalar(0.4)).as_constant()->data()});
  }

  TEST_CASE("truncate_gradient: the gradient of the last k steps only") {
    Var x = T::dvector("x");
    Var h0 = T::dscalar("h0");
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{a[1] * 0.5 + a[0] * a[0]}}; },
                        ScanArgs().sequences(x).outputs_info(h0).truncate_gradient(2));
    Var cost = T::subtensor(r.outputs[0], {T::Index(std::int64_t{-1})});
    Function f = function({In(x), In(h0)}, {grad(cost, x), grad(cost, h0)});
    const NDArray xv = theano::test::vec({1, 2, 3, 4});
    const auto g = f({xv, NDArray::scalar(1.0)});
    // h3 = 0.5 h2 + x3^2, h2 = 0.5 h1 + x2^2: within two steps d/dx3 = 2 x3, d/dx2 = 0.5 * 2 x2; nothing earlier.
    CHECK(allclose(g[0], theano::test::vec({0, 0, 0.5 * 2 * 3, 2 * 4})));
    CHECK(g[1].item<double>() == 0.0);
  }

  TEST_CASE("no gradient through until") {
    Var x = T::dvector("x");
    ScanResult r = scan(
        [](const std::vector<Var>& a) {
          return StepResult{{a[0] * 2.0}, {}, T::gt(a[0], 3.0)};
        },
        ScanArgs().sequences(x).outputs_info(OutputInfo::none()).name("stop"));
    const std::string e = error_of([&] { grad(T::sum(r.outputs[0]), x); });
    CHECK(e.find("Scan{stop}: no gradient through a scan with an until condition") != std::string::npos);
  }
}

TEST_SUITE("scan grad") {
  TEST_CASE("no step: the gradients are the initial value's own (ones for the state, zeros for the weights)") {
    Var x = T::dmatrix("x"), W = T::dmatrix("W"), h0 = T::dvector("h0");
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(T::dot(a[0], a[2]) + a[1])}}; },
                        ScanArgs().sequences(x).outputs_info(h0).non_sequences(W));
    Var cost = T::sum(r.outputs[0]) + T::sum(h0);
    for (const char* mode : {"fast_run", "unoptimized"}) {
      CAPTURE(std::string(mode));
      FunctionOptions o;
      o.mode = mode;
      Function f = function({In(x), In(W), In(h0)}, {grad(cost, h0), grad(cost, W)}, o);
      const auto g = f({NDArray::zeros({0, 2}), matrix(2, 3, 1.0, 1), theano::test::vec({1, 2, 3})});
      CHECK(allclose(g[0], theano::test::vec({1, 1, 1})));
      CHECK(allclose(g[1], NDArray::zeros({2, 3})));
    }
  }
}

TEST_SUITE("scan grad") {
  TEST_CASE("Rop through scan: J v against central differences") {
    Var x = T::dmatrix("x"), W = T::dmatrix("W"), h0 = T::dvector("h0");
    ScanResult r =
        scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(T::dot(a[0], a[2]) + a[1] * 0.5)}}; },
             ScanArgs().sequences(x).outputs_info(h0).non_sequences(W));
    Var vW = T::dmatrix("vW");
    Var jv = Rop(r.outputs[0], W, vW);
    Function f = function({In(x), In(W), In(h0), In(vW)}, {jv});
    Function fwd = function({In(x), In(W), In(h0)}, {r.outputs[0]});
    const NDArray xv = matrix(5, 3, 1.0, 21), Wv = matrix(3, 4, 0.5, 22), hv = vector_of(4, 0.3, 23),
                  dv = matrix(3, 4, 1.0, 24);
    const NDArray got = f({xv, Wv, hv, dv})[0];
    const double eps = 1e-6;
    NDArray plus = Wv.copy(), minus = Wv.copy();
    for (std::int64_t i = 0; i < Wv.size(); ++i) {
      plus.data_as<double>()[i] += eps * dv.data_as<double>()[i];
      minus.data_as<double>()[i] -= eps * dv.data_as<double>()[i];
    }
    const NDArray a = fwd({xv, plus, hv})[0], b = fwd({xv, minus, hv})[0];
    REQUIRE(got.shape() == a.shape());
    for (std::int64_t i = 0; i < got.size(); ++i)
      CHECK(got.data_as<double>()[i] ==
            doctest::Approx((a.data_as<double>()[i] - b.data_as<double>()[i]) / (2 * eps)).epsilon(1e-6));
  }
}
