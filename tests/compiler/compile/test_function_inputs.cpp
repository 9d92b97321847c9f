// Theano's function() input and output features that users expect beyond the
// basics: In(x, value, update) state inputs, the error order when an input is
// both missing and unused (or a state has no value), Out(borrow) of a borrowed
// input returning a view, grad of an integer with respect to itself, the dtype
// of literal integers in givens, updates and fill, and literal update values
// converted to the shared variable's type when their values fit.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

TEST_SUITE("compile_tests") {
  TEST_CASE("In(x, value, update): a state input the function carries from call to call") {
    Var acc = T::dvector("acc"), x = T::dvector("x");
    // acc is the running sum of x; the output reads the state before the update.
    Function f = function({In(x), In(acc, vec({0, 0}), acc + x)}, {acc * 2.0});
    CHECK(allclose(f({vec({1, 2})})[0], vec({0, 0})));
    CHECK(allclose(f({vec({1, 2})})[0], vec({2, 4})));
    CHECK(allclose(f({vec({10, 10})})[0], vec({4, 8})));
    CHECK(allclose(f.input_value(1), vec({12, 14})));
    // Passing the argument sets the state for that call; the update then replaces it.
    CHECK(allclose(f({vec({1, 1}), vec({100, 100})})[0], vec({200, 200})));
    CHECK(allclose(f({vec({0, 0})})[0], vec({202, 202})));
    // A copy carries its own state.
    Function g = f.copy();
    g({vec({5, 5})});
    CHECK(allclose(f.input_value(1), vec({101, 101})));
    CHECK(allclose(g.input_value(1), vec({106, 106})));
    // The stored state never aliases a returned output or the caller's array.
    Var s = T::dvector("s");
    Function ident = function({In(s, vec({1}), s)}, {s});
    NDArray mine = vec({7});
    NDArray out = ident({mine})[0];
    mine.data_as<double>()[0] = -1;
    out.data_as<double>()[0] = -2;
    CHECK(ident.input_value(0).data_as<double>()[0] == 7);
  }

  TEST_CASE("In(x, update) without a value: a wrong update type or a missing input is reported first") {
    Var acc = T::dvector("acc"), y = T::dvector("y"), i = T::ivector("i");
    In reads_missing(acc);
    reads_missing.update = acc + y;  // y is not an input
    CHECK_THROWS_AS(function({reads_missing}, {acc}), MissingInputError);
    In bad_type(i);
    bad_type.update = i * 1.5;  // float64, not int32
    const std::string e = error_of([&] { function({bad_type}, {i}); });
    CHECK(e.find("the update of input 0 (i, TensorType(int32, vector)) has type") != std::string::npos);
    CHECK(e.find("no value") == std::string::npos);
  }

  TEST_CASE("a literal update value takes the shared variable's type when its values fit, as in givens") {
    // A float64 shared vector updated with an int32 constant; a float32 one with float64 values float32 holds.
    Var w = shared(vec({1.5, 2.5}), "w");
    Var s = shared(NDArray::from_list<float>({1, 2}), "s");
    FunctionOptions o;
    o.updates = {{w, T::constant(NDArray::from_list<std::int32_t>({3, -4}))},
                 {s, T::constant(NDArray::from_list<double>({0.5, -2}))}};
    function({}, {}, o)({});
    CHECK(get_value(w).dtype() == DType::Float64);
    CHECK(array_equal(get_value(w), vec({3, -4})));
    CHECK(get_value(s).dtype() == DType::Float32);
    CHECK(array_equal(get_value(s), vec({0.5, -2})));
    // A state input (In::update) takes a literal the same way.
    Var acc = T::dvector("acc");
    Function reset = function({In(acc, vec({7}), T::constant(NDArray::from_list<std::int8_t>({1})))}, {acc * 1.0});
    CHECK(array_equal(reset({})[0], vec({7})));
    CHECK(array_equal(reset({})[0], vec({1})));
    // Values that do not fit stay an error naming the variable and both types: 0.1 is not a float32, 1.5 not an int32.
    FunctionOptions lossy;
    lossy.updates = {{s, T::constant(NDArray::from_list<double>({0.1, 1}))}};
    std::string e = error_of([&] { function({}, {}, lossy); });
    CHECK(e.find("an update must have the same type as the original shared variable (shared_var=s") !=
          std::string::npos);
    Var n = shared(NDArray::from_list<std::int32_t>({1}), "n");
    lossy.updates = {{n, T::constant(NDArray::from_list<double>({1.5}))}};
    e = error_of([&] { function({}, {}, lossy); });
    CHECK(e.find("update_val.type=TensorType(float64") != std::string::npos);
    // A literal of the wrong rank is no literal of the type.
    lossy.updates = {{w, T::constant(NDArray::from_list<double>({1, 2}).reshape({1, 2}))}};
    CHECK_THROWS_AS(function({}, {}, lossy), TypeError);
    // givens follow the same rule: a float64 literal 0.25 replaces a float32 scalar.
    Var fs = T::fscalar("fs"), fv = T::fvector("fv");
    FunctionOptions g;
    g.givens = {{fs, T::constant(NDArray::scalar<double>(0.25))}};
    NDArray r = function({fv}, {fv + fs}, g)({NDArray::from_list<float>({1})})[0];
    CHECK(r.dtype() == DType::Float32);
    CHECK(array_equal(r, vec({1.25})));
  }

  TEST_CASE("In(x, value, update): errors name the input") {
    Var acc = T::dvector("acc"), i = T::ivector("i");
    In no_value(acc);
    no_value.update = acc + 1.0;
    CHECK(error_of([&] { function({no_value}, {acc}); }).find("has an update but no value") != std::string::npos);
    const std::string bad = error_of([&] { function({In(i, NDArray::from_list<std::int32_t>({1}), i * 1.5)}, {i}); });
    CHECK(bad.find("the update of input 0") != std::string::npos);
    CHECK(bad.find("cast the update") != std::string::npos);
  }

  TEST_CASE("function(): an unused input is reported before a missing one, as Theano does") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    CHECK_THROWS_AS(function({x, z}, {x + y}), UnusedInputError);
    FunctionOptions warn;
    warn.on_unused_input = OnUnusedInput::Ignore;
    CHECK_THROWS_AS(function({x, z}, {x + y}, warn), MissingInputError);
  }

  TEST_CASE("Out(y, borrow=true) of a borrowed input or a view of one returns a view of the argument") {
    Var x = T::dvector("x");
    In xb(x);
    xb.borrow = true;
    Function f = function({xb}, {Out(x, true), Out(T::dimshuffle(x, {0})[0], true), Out(x, false)});
    NDArray a = vec({1, 2, 3});
    std::vector<NDArray> r = f({a});
    CHECK(r[0].shares_buffer(a));
    CHECK(r[1].shares_buffer(a));
    CHECK(!r[2].shares_buffer(a));
    // Without In::borrow, as in Theano, the borrowed outputs are copies (the caller did not lend its array).
    r = function({In(x)}, {Out(x, true), Out(T::dimshuffle(x, {0})[0], true)})({a});
    CHECK(!r[0].shares_buffer(a));
    CHECK(!r[1].shares_buffer(a));
  }

  TEST_CASE("grad(i, i) of an integer variable is ones, not zeros") {
    Var i = T::iscalar("i");
    Var g = grad(i, i);
    NDArray v = function({i}, {g})({NDArray::scalar<std::int32_t>(5)})[0];
    CHECK(v.astype(DType::Float64).data_as<double>()[0] == 1.0);
    Var iv = T::ivector("iv");
    Var gv = grad(T::sum(iv), iv);
    NDArray w = function({iv}, {gv})({NDArray::from_list<std::int32_t>({3, 4})})[0];
    CHECK(w.astype(DType::Float64).data_as<double>()[1] == 0.0);  // through sum, Theano's integer grads are zero
  }

  TEST_CASE("literal integers keep an integer dtype in givens, updates and fill") {
    Var i = T::ivector("i"), n = T::iscalar("n");
    // fill takes the value's dtype: an integer literal is the smallest integer type holding it (int8 here), as
    // in Theano, never float64.
    Var f = T::fill(i, 3);
    CHECK(T::tensor_type(f)->dtype() == DType::Int8);
    CHECK(T::tensor_type(T::fill(i, 300))->dtype() == DType::Int16);
    auto counter = shared(NDArray::scalar<std::int32_t>(0), "counter");
    FunctionOptions o;
    o.updates = {{counter, counter + 1}};
    Function inc = function({}, {counter}, o);
    inc({});
    inc({});
    CHECK(get_value(counter).data_as<std::int32_t>()[0] == 2);
    FunctionOptions g;
    g.givens = {{n, T::TensorLike(7).var()}};
    Function h = function({i}, {i + n}, g);
    NDArray r = h({NDArray::from_list<std::int32_t>({1, 2})})[0];
    CHECK(r.dtype() == DType::Int32);
    CHECK(r.data_as<std::int32_t>()[1] == 9);
    // A literal that does not fit the replaced variable's type is still an error naming both.
    FunctionOptions bad;
    bad.givens = {{n, T::TensorLike(1.5).var()}};
    CHECK(error_of([&] { function({i}, {i + n}, bad); }).find("cannot replace n") != std::string::npos);
  }
}
