// Calling functions as a Theano user types them (issue 34): one output
// without braces, numbers and nested lists as arguments, positional and named
// arguments mixed, In names, Function::copy(swap, delete_updates), shared()
// of plain numbers and shared(value, borrow). The numbers are the Theano
// tutorial's (basic arithmetic, "more examples": logistic, default values,
// shared variables, copying functions; "understanding memory aliasing").
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/compile/shared.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

NDArray mat(std::initializer_list<double> v, std::int64_t rows, std::int64_t cols) {
  return NDArray::from_list<double>(v, {rows, cols});
}

DType dtype_of(const Var& v) { return T::tensor_type(v)->dtype(); }

}  // namespace

TEST_SUITE("compile_tests") {
  TEST_CASE("user calls: adding two scalars (tutorial)") {
    Var x = T::dscalar("x");
    Var y = T::dscalar("y");
    Var z = x + y;
    Function f = function({x, y}, z);
    NDArray r = f(2, 3);
    CHECK(r.ndim() == 0);
    CHECK(r.dtype() == DType::Float64);
    CHECK(r.item<double>() == 5.0);
    CHECK(allclose(f(16.3, 12.1), NDArray::scalar(28.4)));
    CHECK(f(16.3, 12.1).item<double>() == doctest::Approx(28.4));
    // The vector forms still work and give the same outputs.
    CHECK(f({NDArray::scalar(2.0), NDArray::scalar(3.0)})[0].item<double>() == 5.0);
    CHECK(function({x, y}, {z})(2, 3).value().item<double>() == 5.0);
  }

  TEST_CASE("user calls: adding two matrices and the logistic function (tutorial)") {
    Var x = T::dmatrix("x");
    Var y = T::dmatrix("y");
    Function f = function({x, y}, x + y);
    CHECK(array_equal(f({{1, 2}, {3, 4}}, {{10, 20}, {30, 40}}), mat({11, 22, 33, 44}, 2, 2)));

    Var s = 1.0 / (1.0 + T::exp(-x));
    Function logistic = function({x}, s);
    CHECK(allclose(logistic({{0, 1}, {-1, -2}}), mat({0.5, 0.73105858, 0.26894142, 0.11920292}, 2, 2)));
    // An NDArray and a literal in one call.
    CHECK(array_equal(f(mat({1, 2, 3, 4}, 2, 2), {{1.5, 0}, {0, 0}}), mat({2.5, 2, 3, 4}, 2, 2)));
  }

  TEST_CASE("user calls: several outputs, and a single Out") {
    Var a = T::dmatrix("a");
    Var b = T::dmatrix("b");
    Var diff = a - b;
    Var abs_diff = T::abs(diff);
    Var diff_squared = diff * diff;
    Function f = function({a, b}, {diff, abs_diff, diff_squared});
    const Outputs r = f({{1, 1}, {1, 1}}, {{0, 1}, {2, 3}});
    REQUIRE(r.size() == 3);
    CHECK(array_equal(r[0], mat({1, 0, -1, -2}, 2, 2)));
    CHECK(array_equal(r[1], mat({1, 0, 1, 2}, 2, 2)));
    CHECK(array_equal(r[2], mat({1, 0, 1, 4}, 2, 2)));
    // Three outputs: no single array to convert to.
    CHECK(contains(error_of([&] { r.value(); }), "the function has 3 outputs"));
    CHECK_THROWS_AS(static_cast<void>(static_cast<NDArray>(r)), ValueError);

    In ab(a);
    ab.borrow = true;
    Function g = function({ab}, Out(a, /*borrow=*/true));
    NDArray m = mat({1, 2, 3, 4}, 2, 2);
    CHECK(g(m).value().shares_buffer(m));
  }

  TEST_CASE("user calls: default values and named arguments (tutorial)") {
    {
      Var x = T::dscalar("x"), y = T::dscalar("y");
      Var z = x + y;
      Function f = function({x, In(y, 1)}, z);
      CHECK(f(33).item<double>() == 34.0);
      CHECK(f(33, 2).item<double>() == 35.0);
    }
    Var x = T::dscalar("x"), y = T::dscalar("y"), w = T::dscalar("w");
    Var z = (x + y) * w;
    Function f = function({x, In(y, 1), In(w, 2, "w_by_name")}, z);
    CHECK(f(33).item<double>() == 68.0);
    CHECK(f(33, 2).item<double>() == 70.0);
    CHECK(f(33, 0, 1).item<double>() == 33.0);
    CHECK(f(33, named("w_by_name", 1)).item<double>() == 34.0);
    CHECK(f(33, named("w_by_name", 1), named("y", 0)).item<double>() == 33.0);
    CHECK(f(named("x", 33), named("y", 0)).item<double>() == 66.0);

    // Errors name the input.
    CHECK(contains(error_of([&] { f(33, named("w", 1)); }), "unknown input name \"w\"; the inputs are: x, y, w_by_name"));
    CHECK(contains(error_of([&] { f(33, 2, named("y", 0)); }),
                   "got two values for input \"y\" (position 1): positionally and by name"));
    CHECK(contains(error_of([&] { f(33, named("y", 0), named("y", 1)); }),
                   "got two values for input \"y\" (position 1): by name twice"));
    CHECK(contains(error_of([&] { f(named("y", 0)); }), "missing required input \"x\" (position 0)"));
    CHECK_THROWS_AS(f(named("y", 0)), TypeError);
    CHECK(contains(error_of([&] { f(named("x", 33), 2); }), "a positional argument follows the named argument \"x\""));
    CHECK(contains(error_of([&] { f(1, 2, 3, 4); }), "expected 1 to 3 arguments, got 4"));
    CHECK_THROWS_AS(f(33, named("w", 1)), TypeError);

    // In's name argument alone (Theano's In(x, name="x_name")).
    Function g = function({In(x, "x_name"), y}, x - y);
    CHECK(g(named("x_name", 5), named("y", 2)).item<double>() == 3.0);
    CHECK(g(5, named("y", 2)).item<double>() == 3.0);
    CHECK(contains(error_of([&] { g(named("x", 5), named("y", 2)); }), "the inputs are: x_name, y"));
  }

  TEST_CASE("user calls: numbers and lists convert by value against the input's type") {
    Var iv = T::ivector("iv");
    Function fi = function({iv}, iv * 2);
    NDArray r = fi({1, 2, 3});
    CHECK(r.dtype() == DType::Int32);
    CHECK(array_equal(r, NDArray::from_list<std::int32_t>({2, 4, 6})));
    CHECK(array_equal(fi({2.0, 3.0}), NDArray::from_list<std::int32_t>({4, 6})));  // exact: taken
    const std::string lossy = error_of([&] { fi({1.5, 2}); });
    CHECK(contains(lossy, "Bad input argument with name \"iv\""));
    CHECK(contains(lossy, "cannot store"));
    CHECK_THROWS_AS(fi({1.5, 2}), TypeError);
    CHECK(contains(error_of([&] { fi({}); }), "expected 1 argument, got 0"));  // f({}): no arguments (vector form)
    CHECK(fi(named("iv", {})).size() == 1);  // an empty list by name: shape (0,)
    CHECK(fi(named("iv", {})).value().shape() == std::vector<std::int64_t>{0});
    // Ragged lists and wrong ranks name the input.
    Var m = T::dmatrix("m");
    Function fm = function({m}, m + 1.0);
    const std::string ragged = error_of([&] { fm({{1, 2}, {3}}); });
    CHECK(contains(ragged, "Bad input argument with name \"m\""));
    CHECK(contains(ragged, "ragged"));
    CHECK_THROWS_AS(fm({{1, 2}, {3}}), ValueError);
    CHECK(contains(error_of([&] { fm({1.0, 2.0}); }), "Bad input argument with name \"m\""));
    CHECK_THROWS_AS(fm(1.0), TypeError);
    CHECK(array_equal(fm({{1, 2}}), mat({2, 3}, 1, 2)));

    // float32: 0.1 does not survive, 0.5 does; a double goes to floatX when
    // allow_downcast is unset (Theano's Python float rule), or with allow_downcast.
    Var fx = T::fscalar("fx");
    Function ff = function({fx}, fx * 2.0f);
    CHECK(ff(0.5).item<float>() == 1.0f);
    CHECK(ff(0.1f).item<float>() == 0.2f);
    CHECK(contains(error_of([&] { ff(0.1); }), "cannot store"));
    {
      Config c = config();
      c.floatX = DType::Float32;
      ConfigGuard guard(c);
      CHECK(ff(0.1).item<float>() == 0.2f);
      CHECK_THROWS_AS(ff({0.1}), TypeError);  // a list: no special case (Theano's rule is for one float)
    }
    FunctionOptions down;
    down.allow_input_downcast = true;
    CHECK(function({fx}, fx * 2.0f, down)(0.1).item<float>() == 0.2f);
    In no_down(fx);
    no_down.allow_downcast = false;
    {
      Config c = config();
      c.floatX = DType::Float32;
      ConfigGuard guard(c);
      CHECK_THROWS_AS(function({no_down}, fx * 2.0f)(0.1), TypeError);  // explicitly refused
    }

    // An NDArray keeps the dtype rule: a float64 array is refused for float32 even when exact.
    CHECK_THROWS_AS(ff(NDArray::scalar(0.5)), TypeError);
    CHECK(ff(NDArray::scalar(0.5f)).item<float>() == 1.0f);

    // Integers, bools, big values.
    Var i64 = T::lscalar("n");
    Function fn = function({i64}, i64 + 1);
    CHECK(fn(std::int64_t{1} << 62).item<std::int64_t>() == (std::int64_t{1} << 62) + 1);
    CHECK(fn(true).item<std::int64_t>() == 2);
    CHECK(fn(4.0).item<std::int64_t>() == 5);
    CHECK_THROWS_AS(fn(4.5), TypeError);
    CHECK_THROWS_AS(fn(std::numeric_limits<std::uint64_t>::max()), TypeError);
    Var d = T::dscalar("d");
    Function fd = function({d}, d * 1.0);
    CHECK(fd(std::int64_t{1} << 53).item<double>() == 9007199254740992.0);
    CHECK_THROWS_AS(fd((std::int64_t{1} << 53) + 1), TypeError);  // no float64 holds it
    Var bv = T::tensor(DType::Bool, {T::Dim()}, "bv");
    Function fb = function({bv}, bv);
    CHECK(array_equal(fb({true, false}), NDArray::from_list<bool>({true, false})));
    CHECK(array_equal(fb({1, 0}), NDArray::from_list<bool>({true, false})));
    CHECK_THROWS_AS(fb({2, 0}), TypeError);
    Var u8 = T::tensor(DType::UInt8, {}, "u8");
    Function fu = function({u8}, u8);
    CHECK(fu(255).item<int>() == 255);
    CHECK_THROWS_AS(fu(256), TypeError);
    CHECK_THROWS_AS(fu(-1), TypeError);

    // strict: only a literal of the exact dtype.
    In strict_d(d);
    strict_d.strict = true;
    Function fs = function({strict_d}, d * 2.0);
    CHECK(fs(1.5).item<double>() == 3.0);
    CHECK(contains(error_of([&] { fs(2); }), "strict"));
  }

  TEST_CASE("user calls: In defaults given as literals are checked against the variable") {
    Var n = T::iscalar("n");
    CHECK(In(n, 3).value->dtype() == DType::Int32);
    CHECK(contains(error_of([&] { In(n, 1.5); }), "In(n): the default value does not fit"));
    CHECK_THROWS_AS(In(n, {1, 2}), TypeError);  // wrong rank
    Var v = T::dvector("v");
    Function f = function({In(v, {1.0, 2.0}, "vals")}, T::sum(v));
    CHECK(f().item<double>() == 3.0);
    CHECK(f(named("vals", {4, 5, 6})).item<double>() == 15.0);
  }

  TEST_CASE("user calls: shared variables, the accumulator (tutorial)") {
    Var state = shared(0);
    CHECK(dtype_of(state) == DType::Int64);
    CHECK(state.type()->str() == T::TensorType::make(DType::Int64, {})->str());
    Var inc = T::iscalar("inc");
    Function accumulator = function({inc}, state, {.updates = {{state, state + inc}}});
    CHECK(accumulator(1).item<std::int64_t>() == 0);
    CHECK(get_value(state).item<std::int64_t>() == 1);
    CHECK(accumulator(300).item<std::int64_t>() == 1);
    CHECK(get_value(state).item<std::int64_t>() == 301);
    set_value(state, -1);  // the tutorial's state.set_value(-1)
    CHECK(accumulator(3).item<std::int64_t>() == -1);
    CHECK(get_value(state).item<std::int64_t>() == 2);
    Function decrementor = function({inc}, state, {.updates = {{state, state - inc}}});
    CHECK(decrementor(2).item<std::int64_t>() == 2);
    CHECK(get_value(state).item<std::int64_t>() == 0);

    Var fn_of_state = state * 2 + inc;
    Var foo = T::scalar("foo", dtype_of(state));
    Function skip_shared = function({inc, foo}, fn_of_state, {.givens = {{state, foo}}});
    CHECK(skip_shared(1, 3).item<std::int64_t>() == 7);
    CHECK(get_value(state).item<std::int64_t>() == 0);
  }

  TEST_CASE("user calls: Function::copy with swap and delete_updates (tutorial)") {
    Var state = shared(0);
    Var inc = T::iscalar("inc");
    Function accumulator = function({inc}, state, {.updates = {{state, state + inc}}});
    CHECK(accumulator(10).item<std::int64_t>() == 0);
    CHECK(get_value(state).item<std::int64_t>() == 10);

    Var new_state = shared(0);
    Function new_accumulator = accumulator.copy({.swap = {{state, new_state}}});
    CHECK(new_accumulator(100).item<std::int64_t>() == 0);
    CHECK(get_value(new_state).item<std::int64_t>() == 100);
    CHECK(get_value(state).item<std::int64_t>() == 10);
    CHECK(new_accumulator.shared_value(new_state).item<std::int64_t>() == 100);
    CHECK_THROWS_AS(new_accumulator.shared_value(state), ValueError);
    // The copy's updates name the variable it updates: new_state, not state.
    REQUIRE(new_accumulator.updates().size() == 1);
    CHECK(new_accumulator.updates()[0].first == new_state);
    CHECK(accumulator.updates()[0].first == state);

    Function null_accumulator = accumulator.copy({.delete_updates = true});
    CHECK(null_accumulator(9000).item<std::int64_t>() == 10);
    CHECK(get_value(state).item<std::int64_t>() == 10);
    CHECK(null_accumulator.updates().empty());
    // The original keeps its updates.
    CHECK(accumulator(1).item<std::int64_t>() == 10);
    CHECK(get_value(state).item<std::int64_t>() == 11);

    // A swapped copy of a swapped copy, sharing memory, without updates.
    Var third = shared(5);
    Function reader = new_accumulator.copy({.share_memory = true, .swap = {{new_state, third}}, .delete_updates = true});
    CHECK(reader(1).item<std::int64_t>() == 5);
    CHECK(get_value(third).item<std::int64_t>() == 5);

    // Errors.
    CHECK(contains(error_of([&] { accumulator.copy({.swap = {{shared(0), new_state}}}); }),
                   "is not used by this function"));
    const std::string type_error = error_of([&] { accumulator.copy({.swap = {{state, shared(1.5)}}}); });
    CHECK(contains(type_error, "a swap needs the same type"));
    CHECK(contains(type_error, "float64"));
    CHECK_THROWS_AS(accumulator.copy({.swap = {{inc, new_state}}}), TypeError);
    CHECK_THROWS_AS(accumulator.copy({.swap = {{state, new_state}, {state, third}}}), ValueError);
  }

  TEST_CASE("user calls: delete_updates drops In::update states too") {
    Var x = T::dscalar("x"), s = T::dscalar("s");
    Function acc = function({x, In(s, 0.0, s + x)}, s);
    CHECK(acc(1).item<double>() == 0.0);
    CHECK(acc(2).item<double>() == 1.0);
    Function frozen = acc.copy({.delete_updates = true});
    CHECK(frozen(5).item<double>() == 3.0);
    CHECK(frozen(5).item<double>() == 3.0);
    CHECK(acc(0).item<double>() == 3.0);
  }

  TEST_CASE("user calls: shared() of plain numbers") {
    Var i = shared(0);
    Var d = shared(1.5);
    Var b = shared(true);
    Var f = shared(1.5f, "f");
    Var u = shared(std::numeric_limits<std::uint64_t>::max());
    CHECK(dtype_of(i) == DType::Int64);
    CHECK(dtype_of(d) == DType::Float64);
    CHECK(dtype_of(b) == DType::Bool);
    CHECK(dtype_of(f) == DType::Float32);
    CHECK(dtype_of(u) == DType::UInt64);
    CHECK(f.name() == "f");
    for (const Var& v : {i, d, b, f, u}) CHECK(T::tensor_type(v)->ndim() == 0);
    CHECK(get_value(d).item<double>() == 1.5);
    CHECK(get_value(b).item<bool>());
    CHECK(get_value(u).item<std::uint64_t>() == std::numeric_limits<std::uint64_t>::max());
    Function f2 = function({}, d * 2.0);
    CHECK(f2().item<double>() == 3.0);

    // set_value takes plain numbers and nested lists too, converted as call arguments are.
    set_value(d, 2.5);
    CHECK(f2().item<double>() == 5.0);
    Var m = shared(NDArray::zeros({2, 2}), "m");
    set_value(m, {{1, 2}, {3, 4}});
    CHECK(array_equal(get_value(m), NDArray::from_list<double>({1, 2, 3, 4}, {2, 2})));
    as_shared(i)->set_value(7);
    CHECK(get_value(i).item<std::int64_t>() == 7);
    CHECK_THROWS_WITH_AS(set_value(i, 1.5), doctest::Contains("shared variable"), TypeError);
    CHECK_THROWS_AS(set_value(m, {1, 2, 3}), Error);  // a vector for a matrix
  }

  TEST_CASE("user calls: shared(value, borrow) (tutorial: understanding memory aliasing)") {
    NDArray np_array = NDArray::ones({2}, DType::Float32);
    Var s_default = shared(np_array);
    Var s_false = shared(np_array, {.borrow = false});
    Var s_true = shared(np_array, {.name = "s_true", .borrow = true});
    np_array.fill(2.0);  // np_array += 1
    const NDArray ones = NDArray::ones({2}, DType::Float32);
    CHECK(array_equal(get_value(s_default), ones));
    CHECK(array_equal(get_value(s_false), ones));
    CHECK(array_equal(get_value(s_true), NDArray::full({2}, 2.0, DType::Float32)));
    CHECK(get_value(s_true, /*borrow=*/true).shares_buffer(np_array));
    CHECK_FALSE(get_value(s_default, /*borrow=*/true).shares_buffer(np_array));
    CHECK(s_true.name() == "s_true");
  }
}
