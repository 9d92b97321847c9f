// The scan rewrites (rewrite/scan.cpp): each checked on the optimized graph
// (the Scan nodes left, their inputs and outputs by group, the inner graph
// as text) and numerically (fast_run against the unoptimized graph).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/control/scan.h"
#include "theano/rewrite/optdb.h"
#include "theano/extending.hpp"

using namespace theano;
namespace T = theano::tensor;

namespace {

struct Optimized {
  std::shared_ptr<FunctionGraph> fg;
  std::vector<const Apply*> scans;
  std::string text;  // outer graph, then each scan's inner graph
};

Optimized optimize(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  Optimized o;
  o.fg = std::make_shared<FunctionGraph>(ins, outs);
  rewrite::optimize(*o.fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
  o.text = debugprint(*o.fg);
  for (Apply* n : o.fg->toposort())
    if (const Scan* s = as_scan(*n)) {
      o.scans.push_back(n);
      o.text += "inner of " + s->name() + ":\n" + debugprint(s->inner_outputs());
    }
  return o;
}

/// fast_run computes what the unoptimized graph computes.
void check_values(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args) {
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  FunctionOptions raw;
  raw.mode = "unoptimized";
  const auto want = function(in, out, raw)(args);
  const auto got = function(in, out)(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t k = 0; k < got.size(); ++k) CHECK(allclose(got[k], want[k], 1e-10, 1e-12));
}

NDArray ramp(std::vector<std::int64_t> shape, double scale) {
  NDArray a = theano::test::range(shape);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = std::sin(a.data_as<double>()[i] * 0.7) * scale;
  return a;
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_SUITE("scan rewrites") {
  TEST_CASE("scan_prune: an output nobody reads leaves, with the non-sequence only it read") {
    Var x = T::dmatrix("x"), W = T::dmatrix("W"), V = T::dmatrix("V");
    ScanResult r = scan(
        [](const std::vector<Var>& a) {
          return StepResult{{T::dot(a[0], a[1]), T::dot(a[0], a[2])}};
        },
        ScanArgs().sequences(x).outputs_info({OutputInfo::none(), OutputInfo::none()}).non_sequences({W, V}));
    Var used = T::sum(r.outputs[0]);
    const Optimized o = optimize({x, W, V}, {used});
    CAPTURE(o.text);
    REQUIRE(o.scans.size() <= 1);
    // The map output over V is gone (the W product itself may be pushed out of the loop).
    CHECK(o.text.find("V") == std::string::npos);
    check_values({x, W, V}, {used}, {ramp({4, 3}, 1), ramp({3, 2}, 1), ramp({3, 5}, 1)});
  }

  TEST_CASE("scan_pushout: loop-invariant work and sequence-only work leave the loop") {
    Var x = T::dmatrix("x"), W = T::dmatrix("W"), h0 = T::dvector("h0");
    ScanResult r = scan(
        [](const std::vector<Var>& a) {  // x_t, h, W
          // exp(W): invariant; x_t * 2: sequence-only; the rest recurrent.
          return StepResult{{T::tanh(T::dot(a[1], T::exp(a[2])) + a[0] * 2.0)}};
        },
        ScanArgs().sequences(x).outputs_info(h0).non_sequences(W));
    const Optimized o = optimize({x, W, h0}, {r.outputs[0]});
    CAPTURE(o.text);
    REQUIRE(o.scans.size() == 1);
    const std::string inner = o.text.substr(o.text.find("inner of"));
    CHECK(inner.find("exp") == std::string::npos);        // exp(W) computed once, outside
    CHECK(inner.find("mul") == std::string::npos);        // x * 2 on the whole sequence, outside
    CHECK(o.text.substr(0, o.text.find("inner of")).find("exp") != std::string::npos);
    check_values({x, W, h0}, {r.outputs[0]}, {ramp({5, 3}, 1), ramp({3, 3}, 0.5), ramp({3}, 0.3)});
  }

  TEST_CASE("scan_pushout: dot(x_t, W) of a 3-d sequence becomes one dot of the whole sequence") {
    Var x = T::dtensor3("x"), W = T::dmatrix("W"), h0 = T::dmatrix("h0"), U = T::dmatrix("U");
    ScanResult r =
        scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(T::dot(a[0], a[2]) + T::dot(a[1], a[3]))}}; },
             ScanArgs().sequences(x).outputs_info(h0).non_sequences({W, U}));
    const Optimized o = optimize({x, W, h0, U}, {r.outputs[0]});
    CAPTURE(o.text);
    REQUIRE(o.scans.size() == 1);
    const std::string outer = o.text.substr(0, o.text.find("inner of"));
    const std::string inner = o.text.substr(o.text.find("inner of"));
    CHECK(count(inner, "Dot") == 1);  // h . U only
    CHECK(outer.find("Reshape{2}") != std::string::npos);
    CHECK(as_scan(*o.scans[0])->info().n_nonseq == 1);  // W left the loop with its product
    check_values({x, W, h0, U}, {r.outputs[0]},
                 {ramp({4, 2, 3}, 1), ramp({3, 5}, 0.5), ramp({2, 5}, 0.3), ramp({5, 5}, 0.3)});
  }

  TEST_CASE("scan_save_mem: a reduce keeps its last value only") {
    Var x = T::dvector("x");
    Var z = T::constant(NDArray::scalar(0.0));
    Var total = scan_reduce([](const std::vector<Var>& a) { return std::vector<Var>{a[1] + T::sin(a[0])}; }, {x}, {z})[0];
    const Optimized o = optimize({x}, {total});
    CAPTURE(o.text);
    REQUIRE(o.scans.size() == 1);
    CHECK(as_scan(*o.scans[0])->info().last_only(0));
    CHECK(o.text.find("Subtensor{int64}") == std::string::npos);  // no x[-1] of a stacked result
    check_values({x}, {total}, {ramp({7}, 1)});
    check_values({x}, {total}, {NDArray::zeros({0})});  // no step: the initial value
  }

  TEST_CASE("scan_pushout_add: BPTT's weight and bias gradients become dots and sums after the loop") {
    Var x = T::dtensor3("x"), W = T::dmatrix("W"), U = T::dmatrix("U"), b = T::dvector("b"), h0 = T::dmatrix("h0");
    ScanResult r = scan(
        [](const std::vector<Var>& a) {  // x_t, h, W, U, b
          return StepResult{{T::tanh(T::dot(a[0], a[2]) + T::dot(a[1], a[3]) + a[4])}};
        },
        ScanArgs().sequences(x).outputs_info(h0).non_sequences({W, U, b}));
    Var cost = T::sum(T::sqr(r.outputs[0]));
    const std::vector<Var> g = grad(cost, {W, U, b});
    const Optimized o = optimize({x, W, U, b, h0}, g);
    CAPTURE(o.text);
    REQUIRE(o.scans.size() == 2);
    const Scan& back = *as_scan(*o.scans[1]);
    // Only the pending gradient of h is carried; dz leaves the loop as a map output.
    CHECK(back.info().n_rec() == 1);
    CHECK(back.info().n_map == 1);
    const std::string inner = o.text.substr(o.text.rfind("inner of"));
    CHECK(count(inner, "Dot") == 1);  // dz . U^T only: the weight products are outside
    check_values({x, W, U, b, h0}, g,
                 {ramp({5, 2, 3}, 1), ramp({3, 4}, 0.5), ramp({4, 4}, 0.4), ramp({4}, 0.1), ramp({2, 4}, 0.2)});
  }

  TEST_CASE("scan_merge: two loops over the same steps become one, reading the shared sequence once") {
    Var x = T::dvector("x");
    Var z = T::constant(NDArray::scalar(0.0));
    ScanResult a = scan([](const std::vector<Var>& s) { return StepResult{{s[1] + s[0]}}; },
                        ScanArgs().sequences(x).outputs_info(z).name("sum"));
    ScanResult m = scan([](const std::vector<Var>& s) { return StepResult{{T::maximum(s[1], s[0])}}; },
                        ScanArgs().sequences(x).outputs_info(z).name("max"));
    const Optimized o = optimize({x}, {a.outputs[0], m.outputs[0]});
    CAPTURE(o.text);
    REQUIRE(o.scans.size() == 1);
    CHECK(as_scan(*o.scans[0])->info().n_seq() == 1);
    CHECK(as_scan(*o.scans[0])->info().n_rec() == 2);
    CHECK(o.text.find("Scan{sum+max}") != std::string::npos);
    check_values({x}, {a.outputs[0], m.outputs[0]}, {ramp({6}, 1)});
    // A loop reading the other's result stays apart.
    ScanResult dep = scan([](const std::vector<Var>& s) { return StepResult{{s[1] + s[0]}}; },
                          ScanArgs().sequences(a.outputs[0]).outputs_info(z).name("dep"));
    CHECK(optimize({x}, {a.outputs[0], dep.outputs[0]}).scans.size() == 2);
  }
}
