// DebugMode and NanGuardMode over generated code: the cpp linker runs node by
// node under them, every lowered node is checked against its perform (so a
// graph of many op families must run clean: no false alarms from the real
// lowerings), and the broken test ops are caught through the perform fallback.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/debug_mode.h>
#include <theano/compile/function.h>
#include <theano/compile/nan_guard.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/join.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/math.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/type.h>

#include "compiler/compile/debug_mode_test_ops.h"
#include "test_util.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_SUITE("function with the JIT") {
  TEST_CASE("DebugMode with the cpp linker: lowered nodes of many families agree with perform") {
    codegen::register_linkers();
    Var x = T::dmatrix("x"), v = T::dvector("v");
    Var h = T::tanh(T::dot(x, T::transpose(x)) + v);
    Var out = T::nnet::softmax(h) * T::max(h, {1}, true) + T::reshape(T::exp(-T::sqr(x)), {3, 2}).sum();
    Function f = function({x, v}, {out, T::sum(T::log1p(T::abs(v)))}, {.mode = "DebugMode"});
    CHECK(f.mode().linker == "cpp");
    Function g = function({x, v}, {out, T::sum(T::log1p(T::abs(v)))});
    const NDArray xv = range({3, 2}), vv = vec({0.5, -1, 2});
    std::vector<NDArray> a, b;
    REQUIRE_NOTHROW(a = f({xv, vv}));
    b = g({xv, vv});
    for (std::size_t o = 0; o < a.size(); ++o) {
      const NDArray p = a[o].astype(DType::Float64), q = b[o].astype(DType::Float64);
      REQUIRE(p.shape() == q.shape());
      for (std::int64_t i = 0; i < p.size(); ++i)
        CHECK(p.data_as<double>()[i] == doctest::Approx(q.data_as<double>()[i]));
    }
  }

  TEST_CASE("DebugMode with the cpp linker: in-place, view, indexing and join graphs run clean") {
    codegen::register_linkers();
    Var x = T::dmatrix("x"), i = T::lvector("i");
    Var y = x * 2.0;
    Var z = T::inc_subtensor(y[{1}], T::exp(x[{0}]));  // becomes in place (destroy_map) under fast_run
    Var j = T::concatenate({z, x}, 0);
    Var k = T::take(j, i) + T::dot(x, T::transpose(x))[{0}].sum();
    Var m = T::where(T::maximum(T::flatten(j), 3.0) > 4.0, T::flatten(j), -1.0);
    Function f = function({x, i}, {k, m, T::argmax(j, 1)}, {.mode = "DebugMode"});
    Function g = function({x, i}, {k, m, T::argmax(j, 1)});
    const std::vector<NDArray> args{range({2, 3}), NDArray::from_list<std::int64_t>({3, 0, 1})};
    std::vector<NDArray> a, b;
    REQUIRE_NOTHROW(a = f(args));
    b = g(args);
    for (std::size_t o = 0; o < a.size(); ++o) {
      const NDArray p = a[o].astype(DType::Float64), q = b[o].astype(DType::Float64);
      REQUIRE(p.shape() == q.shape());
      for (std::int64_t e = 0; e < p.size(); ++e)
        CHECK(p.data_as<double>()[e] == doctest::Approx(q.data_as<double>()[e]));
    }
  }

  TEST_CASE("DebugMode with the cpp linker: float32 and integer graphs run clean") {
    codegen::register_linkers();
    Var a = T::fvector("a"), n = T::lvector("n");
    Function f = function({a, n}, {T::exp(a) / 3.0f, n * 7 + 1, T::sum(n)}, {.mode = "DebugMode"});
    CHECK_NOTHROW(f({NDArray::from_list<float>({0.1f, 1.5f, -2.0f}), NDArray::from_list<std::int64_t>({1, 2, 3})}));
  }

  TEST_CASE("DebugMode with the cpp linker: a broken op behind a lowered view is caught") {
    codegen::register_linkers();
    Var x = T::dmatrix("x");
    Function g = function({x}, {broken(BrokenOp::IgnoresStrides, T::transpose(x))}, {.mode = "DebugMode"});
    DebugModeError::Kind kind{};
    const std::string msg = debug_mode_error([&] { g({range({2, 3})}); }, &kind);
    CAPTURE(msg);
    CHECK(kind == DebugModeError::Kind::BadThunkOutput);
    CHECK(contains(msg, "op: BrokenOp{0}"));
    CHECK(contains(msg, "compiled=2 perform=6"));
    CHECK_NOTHROW(g({range({1, 3})}));  // one row: the view is contiguous, the bug does not show
  }

  TEST_CASE("DebugMode with the cpp linker: input writes, aliasing and shapes are checked") {
    codegen::register_linkers();
    Var x = T::dvector("x");
    DebugModeError::Kind kind{};
    Function w = function({x}, {broken(BrokenOp::ChangesInput, x * 3.0)}, {.mode = "DebugMode"});
    CHECK(contains(debug_mode_error([&] { w({vec({1, 2})}); }, &kind), "changed input 0"));
    CHECK(kind == DebugModeError::Kind::BadDestroyMap);
    Function a = function({x}, {broken(BrokenOp::AliasesInput, x + 1.0)}, {.mode = "DebugMode"});
    CHECK(contains(debug_mode_error([&] { a({vec({1, 2})}); }, &kind), "shares memory with input 0"));
    CHECK(kind == DebugModeError::Kind::BadViewMap);
    Function s = function({x}, {broken(BrokenOp::LyingShape, x)}, {.mode = "DebugMode"});
    CHECK(contains(debug_mode_error([&] { s({vec({1, 2})}); }, &kind), "has shape (3,) but the compiled code produced (2,)"));
    CHECK(kind == DebugModeError::Kind::BadInferShape);
  }

  TEST_CASE("NanGuardMode with the cpp linker: the first bad node is named") {
    codegen::register_linkers();
    Var x = T::dvector("x");
    Var y = T::log(x);
    y->set_name("log_x");
    Function f = function({x}, {T::tanh(y) * 2.0}, {.mode = "NanGuardMode", .optimizer_excluding = {"fusion"}});
    CHECK(f.mode().linker == "cpp");
    std::string msg;
    try {
      f({vec({1, 0, 2})});
    } catch (const NanGuardError& e) {
      msg = e.what();
    }
    CAPTURE(msg);
    CHECK(contains(msg, "Inf in output 0 (log_x)"));
    CHECK(contains(msg, "first at [1]: -inf"));
    CHECK_NOTHROW(f({vec({1, 3, 2})}));
  }
}
