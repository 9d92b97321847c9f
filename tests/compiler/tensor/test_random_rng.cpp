// One random variable's generator (rng(rv), Theano's `rv.rng`), as Theano's
// "Using Random Numbers" tutorial uses it: seeding one variable, saving its
// state and restoring it to repeat the same draws ("Copying Random State"),
// without touching the other variables of the stream.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

TEST_SUITE("tensor_tests") {

TEST_CASE("rng(rv): save the state, draw, restore it, and the same draws come again (the tutorial's v1, v2, v3)") {
  RandomStream srng(234);
  const Var rv_u = srng.uniform({2, 2});
  const Var rv_n = srng.normal({2, 2});
  Function f = function({}, {rv_u});
  Function nearly_zeros = function({}, {rv_u + rv_u - 2 * rv_u});

  const NDArray state_after_v0 = get_value(rng(rv_u));
  nearly_zeros({});  // this advances rv_u's generator
  const NDArray v1 = f({})[0];
  set_value(rng(rv_u), state_after_v0);
  const NDArray v2 = f({})[0];  // v2 != v1
  const NDArray v3 = f({})[0];  // v3 == v1
  CHECK_FALSE(array_equal(v2, v1));
  CHECK(array_equal(v3, v1));
  CHECK(is_shared(rng(rv_n)));
  CHECK(rng(rv_n) != rng(rv_u));
}

TEST_CASE("rng(rv): seeding one variable repeats its draws and leaves the other variables' generators alone") {
  RandomStream srng(234);
  const Var rv_u = srng.uniform({3});
  const Var rv_n = srng.normal({3});
  Function f = function({}, {rv_u, rv_n});

  set_value(rng(rv_u), rng_state(89234));
  const NDArray n_state = get_value(rng(rv_n));
  const std::vector<NDArray> first = f({});
  CHECK(array_equal(get_value(rng(rv_u)), NDArray::from_list<std::uint64_t>({89234, 1})));

  set_value(rng(rv_n), n_state);
  set_value(rng(rv_u), rng_state(89234));  // seeding rv_u again ...
  CHECK(array_equal(get_value(rng(rv_n)), n_state));  // ... does not touch rv_n's state
  const std::vector<NDArray> again = f({});
  CHECK(array_equal(again[0], first[0]));
  CHECK(array_equal(again[1], first[1]));

  // Another seed, other draws for rv_u; rv_n's come from its own state.
  set_value(rng(rv_n), n_state);
  set_value(rng(rv_u), rng_state(1));
  const std::vector<NDArray> other = f({});
  CHECK_FALSE(array_equal(other[0], first[0]));
  CHECK(array_equal(other[1], first[1]));
}

TEST_CASE("rng(v) of a variable that is not a random draw is a ValueError saying so") {
  RandomStream srng(1);
  const Var u = srng.uniform({2});
  const std::string e = test::error_of([&] { rng(u * 2); });
  CHECK(e.find("not a random variable") != std::string::npos);
  CHECK_THROWS_AS(rng(dvector("x")), ValueError);
  // A draw over a state that is not shared: nothing to seed.
  const Var state = TensorType::make(DType::UInt64, {2})->make_variable("state");
  const Var sample = random_function(Distribution::Uniform, state, RandomSize({2}), 0.0, 1.0, DType::Float64).second;
  CHECK(test::error_of([&] { rng(sample); }).find("is not a shared variable") != std::string::npos);
}

}
