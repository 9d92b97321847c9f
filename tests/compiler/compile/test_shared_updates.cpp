// Shared variables, updates over several calls, default updates, Function::copy
// and Var::eval caching.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/runtime/error.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {
double scalar_of(const Var& v) { return get_value(v).item<double>(); }
}  // namespace

TEST_SUITE("compile_tests") {
  TEST_CASE("shared: get_value / set_value copy unless borrow") {
    NDArray a = vec({1, 2, 3});
    Var w = shared(a, "w");
    CHECK(w.name() == "w");
    CHECK(is_shared(w));
    CHECK_FALSE(is_shared(T::dvector()));
    NDArray v = get_value(w);
    CHECK(array_equal(v, a));
    CHECK_FALSE(v.shares_buffer(a));  // shared() copied
    v.fill(9);
    CHECK(array_equal(get_value(w), a));  // get_value copied
    NDArray b = get_value(w, /*borrow=*/true);
    CHECK(b.shares_buffer(get_value(w, true)));
    NDArray c = vec({4, 5});
    set_value(w, c);
    CHECK_FALSE(get_value(w, true).shares_buffer(c));
    set_value(w, c, /*borrow=*/true);
    CHECK(get_value(w, true).shares_buffer(c));
    // set_value filters through the type: rank must match; safe casts allowed.
    CHECK(error_of([&] { set_value(w, NDArray::scalar(1.0)); }).find("shared variable w") != std::string::npos);
    set_value(w, NDArray::from_list<std::int32_t>({1, 2}));
    CHECK(get_value(w).dtype() == DType::Float64);
    // strict shared variables refuse conversions.
    Var s = shared(vec({1}), "s", /*strict=*/true);
    CHECK_THROWS_AS(set_value(s, NDArray::from_list<std::int32_t>({1})), TypeError);
    // Non-shared variables.
    CHECK(error_of([] { get_value(T::dscalar("q")); }).find("q is not a shared variable") != std::string::npos);
  }

  TEST_CASE("updates: a counter over several calls") {
    Var c = shared(NDArray::scalar(0.0), "c");
    FunctionOptions o;
    o.updates = {{c, c + 1.0}};
    Function f = function({}, {c}, o);
    CHECK(f({})[0].item<double>() == 0.0);  // outputs read the old value
    CHECK(f({})[0].item<double>() == 1.0);
    CHECK(f({})[0].item<double>() == 2.0);
    CHECK(scalar_of(c) == 3.0);
    set_value(c, NDArray::scalar(10.0));
    CHECK(f({})[0].item<double>() == 10.0);
    CHECK(scalar_of(c) == 11.0);
  }

  TEST_CASE("updates: every update reads the old values") {
    Var a = shared(NDArray::scalar(1.0), "a");
    Var b = shared(NDArray::scalar(2.0), "b");
    FunctionOptions o;
    o.updates = {{a, b}, {b, a + b}};  // (a, b) <- (b, a + b): Fibonacci
    Function f = function({}, {}, o);
    f({});
    CHECK(scalar_of(a) == 2.0);
    CHECK(scalar_of(b) == 3.0);
    f({});
    CHECK(scalar_of(a) == 3.0);
    CHECK(scalar_of(b) == 5.0);
    f({});
    CHECK(scalar_of(a) == 5.0);
    CHECK(scalar_of(b) == 8.0);
  }

  TEST_CASE("updates: with inputs, and outputs that alias the new value") {
    Var x = T::dvector("x");
    Var acc = shared(vec({0, 0}), "acc");
    FunctionOptions o;
    Var next = acc + x;
    o.updates = {{acc, next}};
    Function f = function({x}, {next}, o);
    NDArray r1 = f({vec({1, 2})})[0];
    CHECK(array_equal(r1, vec({1, 2})));
    NDArray r2 = f({vec({1, 2})})[0];
    CHECK(array_equal(r2, vec({2, 4})));
    CHECK_FALSE(r2.shares_buffer(get_value(acc, true)));  // the output is not the shared storage
    r2.fill(100);
    CHECK(array_equal(get_value(acc), vec({2, 4})));
    // An update that is the argument itself is copied (In without borrow).
    FunctionOptions o2;
    o2.updates = {{acc, x}};
    Function g = function({x}, {}, o2);
    NDArray arg = vec({7, 8});
    g({arg});
    CHECK_FALSE(get_value(acc, true).shares_buffer(arg));
    CHECK(array_equal(get_value(acc), arg));
  }

  TEST_CASE("updates: errors") {
    Var x = T::dscalar("x");
    Var w = shared(NDArray::scalar(1.0), "w");
    FunctionOptions o;
    o.updates = {{x, x + 1.0}};
    CHECK(error_of([&] { function({x}, {x}, o); }).find("update target x is not a shared variable") !=
          std::string::npos);
    FunctionOptions t;
    t.updates = {{w, T::cast(w, DType::Float32)}};
    const std::string e = error_of([&] { function({}, {w}, t); });
    CHECK(e.find("an update must have the same type as the original shared variable") != std::string::npos);
    CHECK(e.find("shared_var=w") != std::string::npos);
    CHECK(e.find("float32") != std::string::npos);
    CHECK(e.find("float64") != std::string::npos);
    CHECK_THROWS_AS(function({}, {w}, t), TypeError);
    // Two updates of one shared variable: refused as the list is made.
    FunctionOptions twice;
    CHECK(error_of([&] { twice.updates = {{w, w + 1.0}, {w, w + 2.0}}; }).find("w is given two update expressions") !=
          std::string::npos);
    CHECK_THROWS_AS((twice.updates = {{w, w + 1.0}, {w, w + 2.0}}), ValueError);
  }

  TEST_CASE("default updates") {
    Var s = shared(NDArray::scalar(0.0), "s");
    set_default_update(s, s + 1.0);
    CHECK(as_shared(s)->default_update());
    Function f = function({}, {s * 2.0});
    CHECK(f({})[0].item<double>() == 0.0);
    CHECK(f({})[0].item<double>() == 2.0);
    CHECK(scalar_of(s) == 2.0);
    // An explicit update wins.
    FunctionOptions o;
    o.updates = {{s, s - 1.0}};
    function({}, {s}, o)({});
    CHECK(scalar_of(s) == 1.0);
    // no_default_updates.
    FunctionOptions none;
    none.no_default_updates = true;
    function({}, {s}, none)({});
    CHECK(scalar_of(s) == 1.0);
    // Type of a default update is checked when it is set.
    CHECK_THROWS_AS(set_default_update(s, T::cast(s, DType::Int32)), TypeError);
    set_default_update(s, Var());
    CHECK_FALSE(as_shared(s)->default_update());
  }

  TEST_CASE("Function::copy") {
    Var c = shared(NDArray::scalar(0.0), "c");
    FunctionOptions o;
    o.updates = {{c, c + 1.0}};
    Function f = function({}, {c}, o);
    Function own = f.copy(/*share_memory=*/false);
    Function same = f.copy(/*share_memory=*/true);
    f({});
    CHECK(scalar_of(c) == 1.0);
    own({});
    own({});
    CHECK(scalar_of(c) == 1.0);  // the copy updates its own storage
    CHECK(own.shared_value(c).item<double>() == 2.0);
    same({});
    CHECK(scalar_of(c) == 2.0);
    Var unused = shared(NDArray::scalar(0.0), "unused");
    CHECK_THROWS_AS(f.shared_value(unused), ValueError);
  }

  TEST_CASE("Var::eval caches its function") {
    clear_eval_cache();
    Var x = T::dvector("x");
    Var e = x + 1.0;
    CHECK(array_equal(e.eval({{x, vec({1, 2})}}), vec({2, 3})));
    CHECK(eval_cache_size() == 1);
    CHECK(array_equal(e.eval({{x, vec({5})}}), vec({6})));
    CHECK(eval_cache_size() == 1);  // same graph, same inputs: reused
    Var y = T::dvector("y");
    Var e2 = x * y;
    CHECK(array_equal(e2.eval({{y, vec({2})}, {x, vec({3})}}), vec({6})));
    CHECK(array_equal(e2.eval({{x, vec({3})}, {y, vec({4})}}), vec({12})));
    CHECK(eval_cache_size() == 2);  // input order does not matter
    // Constant graphs and shared values (read at every call).
    Var w = shared(NDArray::scalar(2.0), "w");
    Var ew = w * 3.0;
    CHECK(ew.eval().item<double>() == 6.0);
    set_value(w, NDArray::scalar(5.0));
    CHECK(ew.eval().item<double>() == 15.0);
    // The cache is bounded.
    for (int i = 0; i < 100; ++i) (x + static_cast<double>(i)).eval({{x, vec({0})}});
    CHECK(eval_cache_size() <= 64);
    clear_eval_cache();
    CHECK(eval_cache_size() == 0);
    // A bound variable that the expression does not need is ignored.
    CHECK(array_equal(e.eval({{x, vec({1})}, {y, vec({7})}}), vec({2})));
    // Missing input.
    CHECK_THROWS_AS(e2.eval({{x, vec({1})}}), MissingInputError);
  }
}
