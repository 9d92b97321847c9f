// Rewrites of the structural matrix ops (compiler/src/rewrite/linalg_structure.cpp):
// each one's graph before / after under fast_run without the specialize
// stage's expansion of the ops (equal_computations against a graph built by
// hand, both printed on failure), a numeric check against the unoptimized
// graph, and the cases each must leave alone.
#include <doctest/doctest.h>

#include <memory>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/tensor/linalg_structure.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace LA = theano::tensor::linalg;

namespace {

// The ops' expansion at specialize would hide the rewritten ops; fusion and inplace rename them.
const std::vector<std::string> kExcluded{"fusion", "inplace", "local_linalg_structure_expand"};

void check_numeric(const std::vector<Var>& ins, const std::vector<Var>& outs);

std::unique_ptr<FunctionGraph> optimized(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  auto fg = std::make_unique<FunctionGraph>(ins, outs);
  rewrite::optimize(*fg, rewrite::mode_query("fast_run").excluding(kExcluded));
  return fg;
}

/// `outs` optimized equal `expected`, and compute (fast_run, everything on) what the unoptimized graph does.
void check(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected) {
  const auto fgp = optimized(ins, outs);
  const FunctionGraph& fg = *fgp;
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same)
    std::cerr << "Input:\n" << debugprint(outs) << "Output:\n" << debugprint(fg) << "Expected:\n"
              << debugprint(expected);
  CHECK(same);
  check_numeric(ins, outs);
}

/// fast_run computes what the unoptimized graph does.
void check_numeric(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  std::vector<NDArray> args;
  for (std::size_t i = 0; i < ins.size(); ++i) args.push_back(value_for(ins[i], static_cast<int>(i)));
  FunctionOptions raw, opt;
  raw.mode = "unoptimized";
  opt.mode = "fast_run";
  const auto want = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, raw)(args);
  const auto got = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, opt)(args);
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(close_enough(got[i], want[i]));
}

int count(const std::unique_ptr<FunctionGraph>& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg->apply_nodes()) n += node->op()->type_name() == type_name ? 1 : 0;
  return n;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_diag_of_dot: diagonal(dot(A, B)) -> sum(A * B.T, axis=1), trace(dot(A, B)) -> sum(A * B.T)") {
    const Var a = T::tensor(DType::Float64, {3, 4}, "A"), b = T::tensor(DType::Float64, {4, 3}, "B");
    const Var bt = T::dimshuffle(b, {1, 0});
    check({a, b}, {LA::diagonal(T::dot(a, b))}, {T::sum(a * bt, T::Axes(1))});
    check({a, b}, {LA::trace(T::dot(a, b))}, {T::sum(a * bt, T::Axes{0, 1})});
    // An offset: rows 0..1 of A against columns 1..2 of B; a transposed reading negates it.
    check({a, b}, {LA::diagonal(T::dot(a, b), 1)},
          {T::sum(T::subtensor(a, {T::slice(0, 2)}) * T::subtensor(bt, {T::slice(1, 3)}), T::Axes(1))});
    check({a, b}, {LA::diagonal(T::dot(a, b), 1, 1, 0)},
          {T::sum(T::subtensor(a, {T::slice(1, 3)}) * T::subtensor(bt, {T::slice(0, 2)}), T::Axes(1))});
    // Unknown and unequal sizes: numerically (A 3 x 3 by the test's values, B 3 x 3; and the product rectangular).
    const Var x = T::matrix("x", DType::Float64), y = T::matrix("y", DType::Float64);
    CHECK(count(optimized({x, y}, {LA::diagonal(T::dot(x, y), -1)}), "Dot") == 0);
    const Var r = T::tensor(DType::Float64, {2, 4}, "r");
    FunctionOptions raw, opt;
    raw.mode = "unoptimized";
    for (int o : {-2, -1, 0, 1, 3, 5}) {
      CAPTURE(o);
      const Var d = LA::diagonal(T::dot(r, b), o);
      const NDArray vr = value_for(r, 1), vb = value_for(b, 2);
      CHECK(close_enough(function({r, b}, {d}, opt)({vr, vb})[0], function({r, b}, {d}, raw)({vr, vb})[0]));
    }
    // The product used elsewhere is computed anyway: its diagonal stays a view of it.
    const Var p = T::dot(a, b);
    CHECK(count(optimized({a, b}, {LA::diagonal(p), T::exp(p)}), "ExtractDiag") == 1);
  }

  TEST_CASE("local_linalg_structure_expand: a static input's op keeps its type (specify_shape), none is left") {
    // diagonal / tril / triu of a 5 x 5 matrix have static shapes that the
    // graph forms (Reshape, Subtensor, a switch) do not carry: the expansion
    // says them with specify_shape, so no op is left to run by perform.
    const Var s = T::tensor(DType::Float64, {5, 5}, "s"), m = T::matrix("m", DType::Float64);
    for (const Var& x : {s, m}) {
      CAPTURE(x.type()->str());
      const std::vector<Var> outs{T::exp(LA::diagonal(x)), LA::diagonal(x, 1), LA::tril(x), LA::triu(x, 1)};
      auto fg = std::make_unique<FunctionGraph>(std::vector<Var>{x}, outs);
      rewrite::optimize(*fg, rewrite::mode_query("fast_run"));
      for (const char* kind : {"ExtractDiag", "AllocDiag", "Tril", "Triu"}) {
        CAPTURE(kind);
        CHECK(count(fg, kind) == 0);
      }
      for (std::size_t k = 0; k < outs.size(); ++k) CHECK(*fg->outputs()[k].type() == *outs[k].type());
      check_numeric({x}, outs);
    }
    // The expanded diagonal of the static matrix, before fusion: specify_shape(<graph form>, (5,)).
    auto fg = std::make_unique<FunctionGraph>(std::vector<Var>{s}, std::vector<Var>{LA::diagonal(s)});
    rewrite::optimize(*fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    const Apply* top = fg->outputs()[0].owner();
    REQUIRE(top != nullptr);
    CHECK(top->op()->type_name() == "SpecifyShape");
  }

  TEST_CASE("local_diag_alloc_diag: diagonal(alloc_diag(v)) -> v") {
    const Var v = T::matrix("v", DType::Float64);
    check({v}, {T::exp(LA::diagonal(LA::alloc_diag(v, 2, 0, 2), 2, 0, 2))}, {T::exp(v)});
    check({v}, {T::exp(LA::diagonal(LA::alloc_diag(v, -1, -1, 1), -1, -1, 1))}, {T::exp(v)});
    // Another offset or other axes: kept.
    CHECK(count(optimized({v}, {LA::diagonal(LA::alloc_diag(v, 1, 0, 2), 0, 0, 2)}), "AllocDiag") == 1);
    CHECK(count(optimized({v}, {LA::diagonal(LA::alloc_diag(v, 0, 0, 2), 0, 2, 0)}), "AllocDiag") == 1);
  }

  TEST_CASE("local_diag_transpose: the diagonal of a transpose, the transpose of an alloc_diag") {
    const Var m = T::matrix("m", DType::Float64), w = T::vector("w", DType::Float64);
    check({m}, {LA::diagonal(T::transpose(m), 1)}, {LA::diagonal(m, 1, 1, 0)});
    check({w}, {T::transpose(LA::alloc_diag(w, -1))}, {LA::alloc_diag(w, -1, 1, 0)});
    // A batch: the other axes come back in the transposed order.
    const Var t = T::tensor3("t", DType::Float64);
    check({t}, {LA::diagonal(T::dimshuffle(t, {2, 1, 0}), 0, 0, 2)}, {LA::diagonal(t, 0, 2, 0)});
    const Var t4 = T::tensor4("t4", DType::Float64);
    check({t4}, {LA::diagonal(T::dimshuffle(t4, {3, 0, 2, 1}), 2, 2, 0)}, {LA::diagonal(t4, 2, 2, 3)});
    check({t4}, {LA::diagonal(T::dimshuffle(t4, {1, 3, 2, 0}), 2, 2, 1)},
          {T::dimshuffle(LA::diagonal(t4, 2, 2, 3), {1, 0, 2})});
  }

  TEST_CASE("local_tril_triu_merge: tril of tril, triu of triu, the empty band") {
    const Var m = T::matrix("m", DType::Float64);
    check({m}, {LA::tril(LA::tril(m, 2), -1)}, {LA::tril(m, -1)});
    check({m}, {LA::triu(LA::triu(m, 2), -1)}, {LA::triu(m, 2)});
    check({m}, {LA::tril(LA::triu(m, 1), 0)}, {T::second(m, T::constant(NDArray::zeros({1, 1})))});
    check({m}, {LA::triu(LA::tril(m, -1), 0)}, {T::second(m, T::constant(NDArray::zeros({1, 1})))});
    // A band keeps both.
    const auto fg = optimized({m}, {LA::tril(LA::triu(m, -1), 1)});
    CHECK(count(fg, "Tril") == 1);
    CHECK(count(fg, "Triu") == 1);
  }
}
