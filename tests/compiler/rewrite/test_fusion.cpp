// Elemwise fusion (stage elemwise_fusion, tag fusion): which trees become one
// Elemwise{Composite}, which producers stay apart, and that the fused function
// computes what the unoptimized one does.
#include <doctest/doctest.h>

#include <cmath>

#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

int count_elemwise(const FunctionGraph& fg) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += dynamic_cast<const T::Elemwise*>(node->op().get()) ? 1 : 0;
  return n;
}

int count_composites(const FunctionGraph& fg) {
  int n = 0;
  for (Apply* node : fg.apply_nodes())
    if (const auto* e = dynamic_cast<const T::Elemwise*>(node->op().get()))
      n += dynamic_cast<const T::Composite*>(e->scalar_op().get()) ? 1 : 0;
  return n;
}

/// Compiles `outs` in `mode` and unoptimized; checks equal values on `args`;
/// returns the optimized function.
Function check_same(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args,
                    const std::string& mode = "fast_run") {
  Function raw = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, {.mode = "unoptimized"});
  Function opt = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, {.mode = mode});
  const auto want = raw(args), got = opt(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].dtype() == want[i].dtype());
    CHECK(allclose(got[i], want[i], 1e-12, 1e-14));
  }
  return opt;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("fusion: W1's chain becomes one Elemwise{Composite}") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    Var out = T::exp(x) * y + T::tanh(z) - x * x / (1.0 + y);
    FunctionGraph before({x, y, z}, {out});
    CHECK(count_elemwise(before) >= 7);
    Function f = check_same({x, y, z}, {out}, {vec({0.1, -0.5}), vec({0.3, 0.9}), vec({-1, 2})});
    CHECK(count_elemwise(f.fgraph()) == 1);
    CHECK(count_composites(f.fgraph()) == 1);
    // Three distinct tensor inputs, each once; the constant 1 is inside.
    const Apply* node = f.fgraph().outputs()[0].owner();
    REQUIRE(node);
    CHECK(node->nin() == 3);
    CHECK(f.rewrite_stats().applied("elemwise_fusion") >= 1);
  }

  TEST_CASE("fusion: a result used twice, or returned, is computed once with its clients (multi-output)") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Var s = T::exp(x + y);  // two clients below, and an output
    Var out1 = T::tanh(s) * 2.0;
    Var out2 = T::sin(s);
    Function f = check_same({x, y}, {out1, out2, s}, {vec({0.1, 0.2}), vec({0.3, -0.4})});
    // One loop: exp(x+y) is computed once and written out beside both clients.
    REQUIRE(count_elemwise(f.fgraph()) == 1);
    const Apply* node = f.fgraph().outputs()[0].owner();
    REQUIRE(node);
    CHECK(node->nout() == 3);
    CHECK(node->nin() == 2);
    for (const Var& o : f.fgraph().outputs()) CHECK(o.owner() == node);
    CHECK(node->op()->name() ==
          "Elemwise{Composite{sin(*1 -> exp(add(i0, i1))), mul(Constant{2.0}, tanh(*1)), *1},no_inplace}");
  }

  TEST_CASE("fusion: W5's (x+y)*2, (x+y)*3 computes x+y once, in one loop") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Function f = check_same({x, y}, {(x + y) * 2.0, (x + y) * 3.0}, {vec({0.5, -1, 2}), vec({0.25, 4, -3})});
    CHECK(debugprint(f) == lines({"Elemwise{Composite{mul(Constant{2.0}, *1 -> add(i0, i1)), mul(Constant{3.0}, *1)},no_inplace}.0 [id A] ''   0",
                                  " |x [id B]",
                                  " |y [id C]",
                                  "Elemwise{Composite{mul(Constant{2.0}, *1 -> add(i0, i1)), mul(Constant{3.0}, *1)},no_inplace}.1 [id A] ''   0"}));
    // Without the fusion stage: add, then two muls.
    Function g = function({x, y}, {(x + y) * 2.0, (x + y) * 3.0}, {.optimizer_excluding = {"fusion"}});
    CHECK(count_elemwise(g.fgraph()) == 3);
  }

  TEST_CASE("fusion: a client reading the shared result and a sibling's joins them (tanh, its square, its gradient)") {
    // W13's pattern: t = tanh(x); s = t^2 goes to a sum; the gradient
    // t * (1 - s) reads both. One loop writes s and the gradient; t stays
    // inside it.
    Var x = T::dvector("x");
    Var t = T::tanh(x);
    Var s = T::sqr(t);
    Var g = t * (1.0 - s);
    Function f = check_same({x}, {T::sum(s), g}, {vec({0.3, -1.2, 2.5, -0.01})});
#define THEANO_TEST_FUSED "Elemwise{Composite{*1 -> sqr(*2 -> tanh(i0)), mul(*2, sub(Constant{1.0}, *1))},no_inplace}"
    CHECK(debugprint(f) == lines({"Sum{axes=(0,)} [id A] ''   1", " |" THEANO_TEST_FUSED ".0 [id B] ''   0",
                                  "   |x [id C]", THEANO_TEST_FUSED ".1 [id B] ''   0"}));
#undef THEANO_TEST_FUSED
    // A gradient that also reads sum(s) cannot join: the sum needs s first.
    Var h = t * (1.0 - s) * T::sum(s);
    Function two = check_same({x}, {T::sum(s), h}, {vec({0.3, -1.2, 2.5})});
    const Apply* sum_node = two.fgraph().outputs()[0].owner();
    const Apply* h_node = two.fgraph().outputs()[1].owner();
    REQUIRE(sum_node);
    REQUIRE(h_node);
    const Apply* s_node = sum_node->input(0).owner();
    REQUIRE(s_node);
    CHECK(s_node != h_node);
    CHECK(s_node->nout() == 2);  // s, and t for h
  }

  TEST_CASE("fusion: a client that depends on the shared result another way is not fused with it (no cycle)") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Var s = x + y;
    Var a = s * 2.0;
    Var b = s - T::exp(T::sum(a));  // b needs sum(a), which needs a, which needs s
    Function f = check_same({x, y}, {a, b}, {vec({0.5, -1, 2}), vec({0.25, 4, -3})});
    // s and a in one node (s is still needed by b), b in another.
    const Apply* na = f.fgraph().outputs()[0].owner();
    const Apply* nb = f.fgraph().outputs()[1].owner();
    REQUIRE(na);
    REQUIRE(nb);
    CHECK(na != nb);
    CHECK(na->nout() == 2);
    CHECK(nb->nout() == 1);
    CHECK(count_elemwise(f.fgraph()) == 3);  // and exp of the 0-d sum
  }

  TEST_CASE("fusion: W2's gradient step keeps a valid graph after several multi-output fusions") {
    // Fusing siblings joins their dependencies: a later fusion must see them.
    Var X = T::dmatrix("X"), t = T::dvector("t"), w = T::dvector("w");
    Var p = T::nnet::sigmoid(T::dot(X, w));
    Var cost = T::mean(-t * T::log(p) - (1.0 - t) * T::log(1.0 - p)) + 0.01 * T::sum(w * w);
    Var gw = grad(cost, w);
    NDArray Xv = vec({0.1, -0.2, 0.3, 0.4, -0.5, 0.6}).reshape({3, 2});
    Function f = check_same({X, t, w}, {cost, gw, w - 0.1 * gw}, {Xv, vec({1, 0, 1}), vec({0.2, -0.3})});
    int multi = 0;
    for (Apply* n : f.fgraph().apply_nodes()) multi += n->nout() > 1 ? 1 : 0;
    CHECK(multi >= 1);
  }

  TEST_CASE("fusion: clients of another broadcast pattern stay apart, the shared result is an output then") {
    Var x = T::dvector("x"), y = T::dvector("y"), m = T::dmatrix("m");
    Var s = x + y;
    Var row = s * m;   // a matrix: s is broadcast, so it is not recomputed per row
    Var v = s * 3.0;   // a vector like s: fused with it
    Function f = check_same({x, y, m}, {row, v}, {vec({1, 2}), vec({3, 4}), vec({1, 2, 3, 4}).reshape({2, 2})});
    const Apply* nv = f.fgraph().outputs()[1].owner();
    REQUIRE(nv);
    CHECK(nv->nout() == 2);  // s*3 and s
    const Apply* nrow = f.fgraph().outputs()[0].owner();
    REQUIRE(nrow);
    CHECK(nrow != nv);
  }

  TEST_CASE("fusion: inputs of different broadcast patterns fuse into one loop (bias add)") {
    Var X = T::dmatrix("X"), W = T::dmatrix("W"), b = T::dvector("b");
    Var h = T::tanh(T::dot(X, W) + b) * 2.0 + 1.0;
    NDArray Xv = vec({0.1, -0.2, 0.3, 0.4}).reshape({2, 2});
    NDArray Wv = vec({0.5, -0.5, 0.25, 1}).reshape({2, 2});
    Function f = check_same({X, W, b}, {h}, {Xv, Wv, vec({0.1, -0.1})});
    CHECK(count_elemwise(f.fgraph()) == 1);
    const Apply* node = f.fgraph().outputs()[0].owner();
    REQUIRE(node);
    CHECK(node->op()->name().find("tanh(add(") != std::string::npos);
  }

  TEST_CASE("fusion: an elementwise result read only by a reduction is computed in the reduction's loop") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y");
    Var s = T::sum(x * T::exp(y) + 1.0, {1});
    NDArray xv = vec({0.5, -1, 2, 0.25, 4, -3}).reshape({2, 3}), yv = vec({0.1, 0.2, 0.3, -0.1, -0.2, -0.3}).reshape({2, 3});
    Function f = check_same({x, y}, {s}, {xv, yv});
    CHECK(debugprint(f) == lines({"Sum{axes=(1,), fused=Composite{add(mul(i0, exp(i1)), Constant{1.0})}} [id A] ''   0",
                                  " |x [id B]",
                                  " |y [id C]"}));
    // max too, over all axes.
    Function g = check_same({x, y}, {T::max(T::abs(x - y))}, {xv, yv});
    REQUIRE(g.fgraph().outputs()[0].owner());
    CHECK(g.fgraph().outputs()[0].owner()->op()->name() == "Max{axes=(0, 1), fused=Composite{abs(sub(i0, i1))}}");
  }

  TEST_CASE("fusion: not into a reduction when the result is needed elsewhere or an input is broadcast") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y"), r = T::drow("r");
    NDArray xv = vec({0.5, -1, 2, 0.25, 4, -3}).reshape({2, 3}), yv = vec({0.1, 0.2, 0.3, -0.1, -0.2, -0.3}).reshape({2, 3});
    Var p = x * y;
    Function f = check_same({x, y}, {T::sum(p, {0}), p}, {xv, yv});
    for (Apply* n : f.fgraph().apply_nodes())
      if (const auto* red = dynamic_cast<const T::CAReduce*>(n->op().get())) CHECK_FALSE(red->pre());
    Function g = check_same({x, r}, {T::sum(x * r, {1})}, {xv, vec({1, 2, 3}).reshape({1, 3})});
    for (Apply* n : g.fgraph().apply_nodes())
      if (const auto* red = dynamic_cast<const T::CAReduce*>(n->op().get())) CHECK_FALSE(red->pre());
  }

  TEST_CASE("fusion: a producer the consumer broadcasts is not absorbed") {
    Var m = T::dmatrix("m"), v = T::dvector("v");
    Var e = T::exp(v * 2.0);  // vector, broadcast against the matrix rows
    Var out = T::tanh(m + e);
    Function f = check_same({m, v}, {out}, {vec({1, 2, 3, 4, 5, 6}).reshape({2, 3}), vec({0.1, 0.2, 0.3})});
    CHECK(count_elemwise(f.fgraph()) == 2);  // exp(v*2) fused; tanh(m + e) fused; e stays between
  }

  TEST_CASE("fusion: at most 32 inputs per fused node") {
    std::vector<Var> ins;
    Var acc;
    for (int i = 0; i < 40; ++i) {
      ins.push_back(T::dvector("v" + std::to_string(i)));
      acc = i == 0 ? T::exp(ins.back()) : acc + T::exp(ins.back());
    }
    std::vector<NDArray> args;
    for (int i = 0; i < 40; ++i) args.push_back(vec({0.01 * i, -0.02 * i}));
    Function f = check_same(ins, {acc}, args);
    CHECK(count_elemwise(f.fgraph()) >= 2);
    for (Apply* n : f.fgraph().apply_nodes()) CHECK(n->nin() <= 32);
  }

  TEST_CASE("fusion: a chain of 10^4 tanh becomes several fused nodes of at most 256 scalar nodes each") {
    // One loop body of 10^4 inlined tanh took clang minutes (superlinear in
    // the body); bounded bodies compile in time linear in the chain.
    Var x = T::dvector("x");
    Var y = x;
    for (int k = 0; k < 10000; ++k) y = T::tanh(y);
    Config cfg = config();
    cfg.flags["linker"] = "py";  // the graph and perform's values, no C++ compile
    ConfigGuard guard(cfg);
    Function f = function({x}, {y});
    std::size_t total = 0;
    int fused = 0;
    for (Apply* n : f.fgraph().apply_nodes()) {
      const auto* e = dynamic_cast<const T::Elemwise*>(n->op().get());
      REQUIRE(e);
      const auto* c = dynamic_cast<const T::Composite*>(e->scalar_op().get());
      REQUIRE(c);
      CHECK(c->inner_size() <= 256);
      total += c->inner_size();
      ++fused;
    }
    CHECK(total == 10000);
    CHECK(fused == 40);  // 10^4 / 256, rounded up
    // The same values, bit for bit, as the unfused graph's.
    Function raw = function({x}, {y}, {.mode = "unoptimized"});
    const NDArray a = vec({0.1, -0.5, 3.0, 1e-3, -20.0});
    const NDArray want = raw({a})[0], got = f({a})[0];
    for (std::int64_t k = 0; k < a.size(); ++k) CHECK(got.data_as<double>()[k] == want.data_as<double>()[k]);
  }

  TEST_CASE("fusion: modes and tags") {
    Var x = T::dvector("x");
    Var out = T::exp(T::sin(x) * 3.0) + 1.0;
    auto nodes = [&](const FunctionOptions& o) { return count_elemwise(function({x}, {out}, o).fgraph()); };
    CHECK(nodes({.mode = "fast_run"}) == 1);
    CHECK(nodes({.mode = "o2"}) == 1);
    CHECK(nodes({.mode = "fast_compile"}) == 4);
    CHECK(nodes({.mode = "fast_run", .optimizer_excluding = {"fusion"}}) == 4);
    CHECK(rewrite::print_summary("fast_run").find("elemwise_fusion [fast_run, fusion]") != std::string::npos);
  }

  TEST_CASE("fusion: integer and mixed dtypes keep perform's results") {
    Var i = T::lvector("i"), x = T::dvector("x");
    Var out = (i * 3 + 1) % 5 + T::floor(x * 2.0);
    NDArray iv = NDArray::from_list<std::int64_t>({-7, 0, 4, 11});
    check_same({i, x}, {out}, {iv, vec({0.2, -1.3, 2.5, 9.9})});
  }

  TEST_CASE("fusion through a transpose and a reshape: the DimShuffle / Reshape moves to the input, one loop remains") {
    Var m = T::dmatrix("m"), n = T::dmatrix("n"), v = T::dvector("v");
    // exp(m).T * n + 1: Composite{add(mul(exp(i0), i1), 1)} over DimShuffle{1,0}(m) and n.
    Function f = check_same({m, n}, {T::exp(m).T() * n + 1.0},
                            {vec({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}).reshape({2, 3}), range({3, 2})});
    CHECK(count_elemwise(f.fgraph()) == 1);
    const Apply* node = f.fgraph().outputs()[0].owner();
    REQUIRE(node);
    REQUIRE(node->nin() == 2);
    REQUIRE(node->input(0).owner());
    CHECK(node->input(0).owner()->op()->type_name() == "DimShuffle");
    CHECK(node->input(0).owner()->input(0) == f.fgraph().inputs()[0]);
    // A Reshape of a unary result: exp moves under it and fuses with the product.
    Function g = check_same({m, v}, {T::reshape(T::exp(m), std::vector<std::int64_t>{-1}) * v + 1.0},
                            {vec({0.1, 0.2, 0.3, 0.4}).reshape({2, 2}), vec({1, 2, 3, 4})});
    CHECK(count_elemwise(g.fgraph()) == 1);
    CHECK(count_composites(g.fgraph()) == 1);
    // The transposed result also returned: lifting would compute exp twice, so it stays and is fused apart.
    Var e = T::exp(m);
    FunctionGraph fg({m, n}, {e.T() * n, e});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"inplace"}));
    int exps = 0;
    for (Apply* a : fg.apply_nodes()) exps += T::is_elemwise(a, "exp") ? 1 : 0;
    CHECK(exps == 1);
  }
}
