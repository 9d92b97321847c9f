// function(): several inputs/outputs, In defaults/strict/allow_downcast, Out
// borrow, givens, argument checks and every input-validation error.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/compile/shared.h"
#include "theano/fgraph/function_graph.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;


TEST_SUITE("compile_tests") {
  TEST_CASE("function: several inputs and outputs") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Function f = function({x, y}, {x + y, x * y, x});
    const auto r = f({vec({1, 2}), vec({3, 4})});
    REQUIRE(r.size() == 3);
    CHECK(array_equal(r[0], vec({4, 6})));
    CHECK(array_equal(r[1], vec({3, 8})));
    CHECK(array_equal(r[2], vec({1, 2})));
    CHECK(f.inputs().size() == 2);
    CHECK(f.outputs().size() == 3);
    CHECK(f.fgraph().inputs().size() == 2);
    // Called again with other values: no state kept between calls.
    const auto r2 = f({vec({0, 0}), vec({1, 1})});
    CHECK(array_equal(r2[0], vec({1, 1})));
  }

  TEST_CASE("function: outputs are fresh unless borrowed") {
    Var x = T::dvector("x");
    NDArray a = vec({1, 2});
    Function f = function({x}, {x});
    NDArray out = f({a})[0];
    CHECK(array_equal(out, a));
    CHECK_FALSE(out.shares_buffer(a));
    // Borrowing the output returns the argument itself only when the input is borrowed too (as in Theano).
    In xb(x);
    xb.borrow = true;
    CHECK(function({xb}, {Out(x, true)})({a})[0].shares_buffer(a));
    CHECK_FALSE(function({x}, {Out(x, true)})({a})[0].shares_buffer(a));
    // The same variable twice: two distinct arrays.
    Function h = function({x}, {x + 1.0, x + 1.0});
    const auto r = h({a});
    CHECK(array_equal(r[0], vec({2, 3})));
  }

  TEST_CASE("function: a call keeps the arguments its types accept and converts the others") {
    // 20 inputs (more than a call keeps on its stack), every third one given
    // as int8 (converted), beside a shared variable updated from their sum,
    // and an argument that is the shared variable's own array.
    std::vector<In> inputs;
    std::vector<NDArray> args;
    Var sum;
    for (int i = 0; i < 20; ++i) {
      Var x = T::dvector("x" + std::to_string(i));
      inputs.emplace_back(x);
      sum = i ? sum + x : x;
      args.push_back(i % 3 ? vec({double(i), 1.0})
                           : NDArray::from_list<std::int8_t>({static_cast<std::int8_t>(i), std::int8_t{1}}));
    }
    Var w = shared(vec({0, 0}), "w");
    Var u = T::dvector("u");
    inputs.emplace_back(u);
    FunctionOptions o;
    o.updates[w] = w + sum;
    Function f = function(inputs, {Out(sum), Out(w * u)}, o);
    for (int call = 1; call <= 2; ++call) {
      std::vector<NDArray> all = args;
      all.push_back(get_value(w, /*borrow=*/true));  // read as it was before the update
      const auto r = f(all);
      CHECK(array_equal(r[0], vec({190, 20})));
      const double before = (call - 1) * 190.0, before1 = (call - 1) * 20.0;
      CHECK(array_equal(r[1], vec({before * before, before1 * before1})));
      CHECK(array_equal(get_value(w), vec({call * 190.0, call * 20.0})));
      for (int i = 0; i < 20; ++i) CHECK_FALSE(r[0].shares_buffer(args[static_cast<std::size_t>(i)]));
    }
  }

  TEST_CASE("function: outputs that are the same array, or views of one, each come out right") {
    Var x = T::dmatrix("x");
    Var y = x * 2.0;
    Function f = function({x}, {y, y.T(), y, y[1]});
    NDArray a = NDArray::from_list<double>({1, 2, 3, 4}, {2, 2});
    const auto r = f({a});
    NDArray want = NDArray::from_list<double>({2, 4, 6, 8}, {2, 2});
    CHECK(array_equal(r[0], want));
    CHECK(array_equal(r[1], NDArray::from_list<double>({2, 6, 4, 8}, {2, 2})));
    CHECK(array_equal(r[2], want));
    CHECK(array_equal(r[3], vec({6, 8})));
    CHECK_FALSE(r[0].shares_buffer(r[2]));  // two outputs not borrowed never alias
  }

  TEST_CASE("function: argument count and defaults") {
    Var x = T::dscalar("x"), y = T::dscalar("y");
    Function f = function({x, y}, {x + y});
    CHECK(error_of([&] { f({NDArray::scalar(1.0), NDArray::scalar(2.0), NDArray::scalar(3.0)}); })
              .find("expected 2 arguments, got 3") != std::string::npos);
    CHECK(error_of([&] { f({NDArray::scalar(1.0)}); }).find("expected 2 arguments, got 1") != std::string::npos);
    In yd(y, NDArray::scalar(10.0));
    Function g = function({x, yd}, {x + y});
    CHECK(g({NDArray::scalar(1.0)})[0].item<double>() == 11.0);
    CHECK(g({NDArray::scalar(1.0), NDArray::scalar(2.0)})[0].item<double>() == 3.0);
    CHECK(error_of([&] { g({}); }).find("expected 1 to 2 arguments, got 0") != std::string::npos);
    // Named call.
    CHECK(g.call({{"x", NDArray::scalar(5.0)}})[0].item<double>() == 15.0);
    CHECK(g.call({{"y", NDArray::scalar(1.0)}, {"x", NDArray::scalar(5.0)}})[0].item<double>() == 6.0);
    CHECK(error_of([&] { g.call({{"z", NDArray::scalar(1.0)}}); }).find("unknown input name \"z\"") !=
          std::string::npos);
    CHECK(error_of([&] { g.call({{"y", NDArray::scalar(1.0)}}); }).find("missing required input \"x\"") !=
          std::string::npos);
  }

  TEST_CASE("function: call-time filtering (strict, allow_downcast)") {
    Var x = T::fvector("x");
    Function f = function({x}, {x * 2.0f});
    // float64 -> float32 loses precision: refused without allow_downcast, naming the input.
    const std::string e = error_of([&] { f({vec({1, 2})}); });
    CHECK(e.find("Bad input argument with name \"x\"") != std::string::npos);
    CHECK(e.find("float64") != std::string::npos);
    // int8 -> float32 is safe.
    CHECK(array_equal(f({NDArray::from_list<std::int8_t>({1, 2})})[0], vec({2, 4})));
    FunctionOptions down;
    down.allow_input_downcast = true;
    Function g = function({x}, {x * 2.0f}, down);
    NDArray r = g({vec({1, 2})})[0];
    CHECK(r.dtype() == DType::Float32);
    In strict(x);
    strict.strict = true;
    Function h = function({strict}, {x * 2.0f});
    CHECK(error_of([&] { h({NDArray::from_list<std::int8_t>({1, 2})}); }).find("strict") != std::string::npos);
    In allow(x);
    allow.allow_downcast = true;
    Function k = function({allow}, {x * 2.0f});
    CHECK(k({vec({1.5})})[0].item<float>() == 3.0f);
    // Wrong rank.
    CHECK(error_of([&] { f({NDArray::scalar(1.0f)}); }).find("expected a 1-d array") != std::string::npos);
  }

  TEST_CASE("function: input validation errors") {
    Var x = T::dscalar("x"), y = T::dscalar("y");
    Var c = T::constant(NDArray::scalar(2.0));
    CHECK_THROWS_AS(function({c}, {x}), TypeError);
    CHECK(error_of([&] { function({c, x}, {x + c}); }).find("is a Constant") != std::string::npos);
    Var w = shared(NDArray::scalar(1.0), "w");
    CHECK(error_of([&] { function({w}, {w * 2.0}); }).find("cannot use a shared variable (w) as explicit input") !=
          std::string::npos);
    CHECK(error_of([&] { function({x, x}, {x}); }).find("used twice") != std::string::npos);
    // Missing input.
    const std::string missing = error_of([&] { function({x}, {x + y}); });
    CHECK(missing.find("variable y") != std::string::npos);
    CHECK_THROWS_AS(function({x}, {x + y}), MissingInputError);
    // Unused input.
    CHECK_THROWS_AS(function({x, y}, {x * 2.0}), UnusedInputError);
    const std::string unused = error_of([&] { function({x, y}, {x * 2.0}); });
    CHECK(unused.find("input variable at index 1 (y) is not part of the computational graph") != std::string::npos);
    FunctionOptions warn;
    warn.on_unused_input = OnUnusedInput::Warn;
    CHECK(function({x, y}, {x * 2.0}, warn)({NDArray::scalar(1.0), NDArray::scalar(5.0)})[0].item<double>() == 2.0);
    FunctionOptions ignore;
    ignore.on_unused_input = OnUnusedInput::Ignore;
    CHECK(function({x, y}, {x * 2.0}, ignore)({NDArray::scalar(1.0), NDArray::scalar(5.0)})[0].item<double>() == 2.0);
  }

  TEST_CASE("function: an intermediate variable as input cuts the graph") {
    Var x = T::dscalar("x");
    Var y = x * 3.0;
    Var z = y + 1.0;
    Function f = function({y}, {z});
    CHECK(f({NDArray::scalar(2.0)})[0].item<double>() == 3.0);
  }

  TEST_CASE("function: givens") {
    Var x = T::dscalar("x"), y = T::dscalar("y"), z = T::dscalar("z");
    FunctionOptions o;
    o.givens = {{y, z * 2.0}};
    Function f = function({x, z}, {x + y}, o);
    CHECK(f({NDArray::scalar(1.0), NDArray::scalar(3.0)})[0].item<double>() == 7.0);
    // A given replacing an input is refused.
    FunctionOptions bad;
    bad.givens = {{x, z}};
    CHECK(error_of([&] { function({x, z}, {x + 1.0}, bad); }).find("is an input to your function") !=
          std::string::npos);
    // Types must match.
    FunctionOptions wrong;
    wrong.givens = {{y, T::fscalar("f")}};
    CHECK_THROWS_AS(function({x}, {x + y}, wrong), TypeError);
    // A shared variable replaced by givens.
    Var w = shared(NDArray::scalar(5.0), "w");
    FunctionOptions sw;
    sw.givens = {{w, z}};
    CHECK(function({z}, {w + 1.0}, sw)({NDArray::scalar(1.0)})[0].item<double>() == 2.0);
  }

  TEST_CASE("function: modes") {
    Var x = T::dscalar("x");
    FunctionOptions o;
    o.mode = "FAST_COMPILE";
    CHECK(function({x}, {x + 1.0}, o).mode().name == "fast_compile");
    o.mode = "nope";
    const std::string e = error_of([&] { function({x}, {x + 1.0}, o); });
    CHECK(e.find("unknown mode 'nope'") != std::string::npos);
    CHECK(e.find("fast_run") != std::string::npos);
    CHECK(get_mode().linker == "py");
    Config c = config();
    c.flags["mode"] = "o1";
    c.flags["linker"] = "perform";
    {
      ConfigGuard guard(c);
      CHECK(get_mode().name == "fast_compile");
      CHECK(get_mode().linker == "perform");
    }
    c.flags["linker"] = "cvm_nope";
    ConfigGuard guard(c);
    CHECK(error_of([] { get_mode(); }).find("registered linkers: perform, py") != std::string::npos);
  }
}
