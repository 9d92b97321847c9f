// DebugMode: each kind of bug it exists to catch (an op whose two
// implementations disagree, one that writes into an input or aliases it
// without saying so, a lying infer_shape, a rewrite that changes values) is
// reported naming the node, the op and the rewrite; correct graphs run clean.
// Here the linker is "py" (compiler only); tests/codegen/test_debug_mode_jit.cpp
// runs the same checks against generated code.
#include <doctest/doctest.h>

#include <algorithm>
#include <mutex>

#include "compiler/compile/debug_mode_test_ops.h"
#include "test_util.h"
#include "theano/compile/debug_mode.h"
#include "theano/compile/function.h"
#include "theano/config.h"
#include "theano/rewrite/optdb.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<double> values(const NDArray& a) {
  const NDArray c = a.astype(DType::Float64);
  return std::vector<double>(c.data_as<double>(), c.data_as<double>() + c.size());
}

/// A wrong rewrite, selected only by the tag "debugmode_test_broken":
/// exp(x) -> x + 1.
void register_broken_rewrite() {
  static std::once_flag once;
  std::call_once(once, [] {
    rewrite::optdb().equilibrium("canonicalize").register_rewrite(
        rewrite::make_node_rewriter("local_test_broken_exp", {"Elemwise:exp"}, "exp(x) -> x + 1 (wrong on purpose)",
                                    [](FunctionGraph&, Apply& node) -> rewrite::RewriteResult {
                                      return T::add(node.input(0), 1.0);
                                    }),
        {"debugmode_test_broken"});
  });
}

}  // namespace

TEST_SUITE("compile_tests") {
  TEST_CASE("DebugMode: a correct graph runs clean and gives the fast_run results") {
    Var x = T::dmatrix("x"), y = T::dvector("y");
    Var out = T::sum(T::exp(x) * 2.0 + y, 1) + broken(BrokenOp::Correct, T::transpose(x)).sum();
    Function f = function({x, y}, {out, T::log1p(T::sqr(y))}, {.mode = "DebugMode"});
    CHECK(f.mode().name == "debugmode");
    Function g = function({x, y}, {out, T::log1p(T::sqr(y))});
    const NDArray xv = range({2, 3}), yv = vec({1, 2, 3});
    const std::vector<NDArray> a = f({xv, yv}), b = g({xv, yv});
    CHECK(values(a[0]) == values(b[0]));
    CHECK(values(a[1]) == values(b[1]));
  }

  TEST_CASE("DebugMode: THEANO_FLAGS mode=DebugMode selects it, and it is a listed mode") {
    Config c = config();
    c.flags["mode"] = "DebugMode";
    ConfigGuard guard(c);
    Var x = T::dvector("x");
    Function f = function({x}, {broken(BrokenOp::IgnoresStrides, x)});
    CHECK(f.mode().name == "debugmode");
    const std::vector<std::string> modes = valid_modes();
    CHECK(std::find(modes.begin(), modes.end(), "debugmode") != modes.end());
    CHECK(std::find(modes.begin(), modes.end(), "nanguardmode") != modes.end());
  }

  TEST_CASE("DebugMode: an op whose perform ignores strides disagrees with the reference (BadThunkOutput)") {
    Var x = T::dmatrix("x");
    Function f = function({x}, {broken(BrokenOp::IgnoresStrides, T::transpose(x))}, {.mode = "DebugMode"});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { f({range({2, 3})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadThunkOutput);
    CHECK(contains(msg, "BadThunkOutput"));
    CHECK(contains(msg, "disagree on output 0"));
    CHECK(contains(msg, "op: BrokenOp{0}"));
    CHECK(contains(msg, "from the user's graph"));
    // transpose of [[0,1,2],[3,4,5]] is [[0,3],[1,4],[2,5]]: element [0, 1]
    // is 2*3 = 6 by the reference, 2*1 = 2 by the buggy run.
    CHECK(contains(msg, "at [0, 1]: compiled=2 perform=6"));
    CHECK(contains(msg, "float64 (3, 2)"));
    // Without DebugMode the bug goes unnoticed.
    Function fast = function({x}, {broken(BrokenOp::IgnoresStrides, T::transpose(x))}, {.mode = "fast_run"});
    CHECK(fast({range({2, 3})})[0].defined());
  }

  TEST_CASE("DebugMode: an op that writes into an input without a destroy_map (BadDestroyMap)") {
    Var x = T::dvector("x");
    Function f = function({x}, {broken(BrokenOp::ChangesInput, x * 3.0)}, {.mode = "DebugMode"});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { f({vec({1, 2})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadDestroyMap);
    CHECK(contains(msg, "changed input 0"));
    CHECK(contains(msg, "destroy_map"));
    CHECK(contains(msg, "op: BrokenOp{1}"));
    CHECK(contains(msg, "at [0]: after=4 before=3"));
  }

  TEST_CASE("DebugMode: an output aliasing an input without a view_map (BadViewMap)") {
    Var x = T::dvector("x");
    Function f = function({x}, {broken(BrokenOp::AliasesInput, x + 1.0)}, {.mode = "DebugMode"});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { f({vec({1, 2})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadViewMap);
    CHECK(contains(msg, "output 0"));
    CHECK(contains(msg, "shares memory with input 0"));
    CHECK(contains(msg, "op: BrokenOp{2}"));
  }

  TEST_CASE("DebugMode: infer_shape that disagrees with the real shape (BadInferShape)") {
    Var x = T::dmatrix("x");
    Function f = function({x}, {broken(BrokenOp::LyingShape, x)}, {.mode = "DebugMode"});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { f({range({2, 3})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadInferShape);
    CHECK(contains(msg, "infer_shape says output 0"));
    CHECK(contains(msg, "has shape (3, 3) but the compiled code produced (2, 3)"));
    CHECK(contains(msg, "op: BrokenOp{3}"));
  }

  TEST_CASE("DebugMode: a rewrite that changes values is named (BadOptimization)") {
    register_broken_rewrite();
    Var x = T::dvector("x");
    Var out = T::exp(x) * 2.0;
    // Without the broken rewrite: clean.
    Function ok = function({x}, {out}, {.mode = "DebugMode"});
    CHECK_NOTHROW(ok({vec({0, 1})}));
    Function f = function({x}, {out}, {.mode = "DebugMode", .optimizer_including = {"debugmode_test_broken"}});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { f({vec({0, 1})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadOptimization);
    CHECK(contains(msg, "rewrite local_test_broken_exp replaced"));
    CHECK(contains(msg, "exp"));
    CHECK(contains(msg, "at [1]: after=2 before=2.71828183"));
  }

  TEST_CASE("DebugMode: in-place updates of shared variables and mutable inputs are allowed") {
    Var w = shared(vec({1, 2, 3}), "w");
    Var x = T::dvector("x");
    Function f = function({x}, {x * T::sum(w + 1.0)}, {.updates = {{w, w + 1.0}}, .mode = "DebugMode"});
    CHECK(values(f({vec({1, 2, 3})})[0]) == std::vector<double>{9, 18, 27});
    CHECK(values(f({vec({1, 2, 3})})[0]) == std::vector<double>{12, 24, 36});
    CHECK(values(get_value(w)) == std::vector<double>{3, 4, 5});
  }
}
