// RandomStream through compiled functions: default updates advance the state on
// every call, the same seed repeats the stream, seed() restarts it, explicit
// updates work with no_default_updates, infer_shape and gradients.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"
#include "theano/tensor/random.h"

using namespace theano;
using namespace theano::tensor;

namespace {

FunctionOptions no_default_updates(std::vector<std::pair<Var, Var>> updates = {}) {
  FunctionOptions o;
  o.updates = std::move(updates);
  o.no_default_updates = true;
  return o;
}

}  // namespace

TEST_SUITE("tensor_tests") {

TEST_CASE("RandomStream: each call draws new numbers, the same seed repeats them") {
  RandomStream rs(2024);
  const Var u = rs.uniform({5});
  CHECK(tensor_type(u)->str() == "TensorType(float64, (5,))");
  REQUIRE(rs.updates().size() == 1);
  const Var state = rs.updates()[0].first;
  CHECK(is_shared(state));
  CHECK(get_value(state).at<std::uint64_t>({0}) == RandomStream::derive_seed(2024, 0));
  CHECK(get_value(state).at<std::uint64_t>({1}) == 0);

  Function f = function({}, {u});
  const NDArray a = f({})[0], b = f({})[0], c = f({})[0];
  CHECK_FALSE(array_equal(a, b));
  CHECK_FALSE(array_equal(b, c));
  CHECK(get_value(state).at<std::uint64_t>({1}) == 3);

  RandomStream rs2(2024);
  Function g = function({}, {rs2.uniform({5})});
  CHECK(array_equal(g({})[0], a));
  CHECK(array_equal(g({})[0], b));

  // seed() restarts every variable of the stream.
  rs.seed(2024);
  CHECK(array_equal(f({})[0], a));
  rs.seed(7);
  CHECK(rs.current_seed() == 7);
  CHECK_FALSE(array_equal(f({})[0], b));
}

TEST_CASE("RandomStream: variables of one stream are independent, no_default_updates") {
  RandomStream rs(1);
  const Var u = rs.uniform({4}), v = rs.uniform({4});
  Function f = function({}, {u, v});
  const std::vector<NDArray> r = f({});
  CHECK_FALSE(array_equal(r[0], r[1]));

  // Without default updates the state stays put: the same numbers each call.
  Function frozen = function({}, {u}, no_default_updates());
  const NDArray x = frozen({})[0];
  CHECK(array_equal(frozen({})[0], x));
  // ... unless the update is given explicitly.
  Function explicit_update = function({}, {u}, no_default_updates({rs.updates()[0]}));
  const NDArray y0 = explicit_update({})[0], y1 = explicit_update({})[0];
  CHECK(array_equal(y0, x));
  CHECK_FALSE(array_equal(y1, y0));
}

TEST_CASE("RandomStream: distributions, dtypes and symbolic sizes") {
  RandomStream rs(99);
  const Var x = dmatrix("x");
  const Var n = rs.normal(x.shape(), 0.0, 1.0);
  CHECK(tensor_type(n)->str() == "TensorType(float64, matrix)");
  const Var mask = rs.binomial(x.shape(), 1, 0.5, DType::Float64);
  const Var ints = rs.integers({3, 2}, 0, 4);
  CHECK(tensor_type(ints)->dtype() == DType::Int64);
  const Var f32 = rs.uniform({2}, 0.0, 1.0, DType::Float32);
  CHECK(tensor_type(f32)->dtype() == DType::Float32);
  // The default float dtype follows floatX and the parameters (Theano's upcast).
  CHECK(tensor_type(rs.uniform({2}))->dtype() == config().floatX);

  Function f = function({x}, {n, mask * x, ints});
  const NDArray xv = NDArray::ones({4, 3});
  const std::vector<NDArray> r = f({xv});
  CHECK(r[0].shape() == std::vector<std::int64_t>{4, 3});
  CHECK(r[1].shape() == std::vector<std::int64_t>{4, 3});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const double m = r[1].at<double>({i, j});
      CHECK((m == 0.0 || m == 1.0));
    }
  CHECK(r[2].shape() == std::vector<std::int64_t>{3, 2});

  // eval works too (its cached function applies the default update).
  const Var e = rs.integers({1000}, 10, 20);
  const NDArray ev = e.eval();
  CHECK(ev.size() == 1000);
}

TEST_CASE("RandomFunction: infer_shape matches the drawn shape") {
  RandomStream rs(3);
  const Var sz = tensor::tensor(DType::Int64, {2}, "sz");
  const Var avg = dcol("avg");
  theano::testing::check_infer_shape({sz}, {rs.normal(RandomSize(sz), 0.0, 1.0)},
                                     {NDArray::from_vector(std::vector<std::int64_t>{3, 5}, {2})});
  theano::testing::check_infer_shape({avg}, {rs.normal({}, avg, constant(NDArray::ones({1, 4})))},
                                     {NDArray::zeros({3, 1})});
  theano::testing::check_infer_shape({}, {rs.uniform({2, 0, 3})}, {});
}

TEST_CASE("RandomFunction: no gradient through a draw, but masks work") {
  RandomStream rs(5);
  const Var low = dscalar("low");
  const Var u = rs.uniform({3}, low, 10.0);
  CHECK_THROWS_WITH_AS(theano::grad(sum(u), low),
                       doctest::Contains("no gradient is defined through raw random numbers"), TypeError);
  // The gradient of x * mask with respect to x is the mask (the draw is not differentiated).
  const Var x = dvector("x");
  const Var mask = rs.binomial({6}, 1, 0.5, DType::Float64);
  const Var gx = theano::grad(sum(x * mask), x);
  Function f = function({x}, {gx, mask}, no_default_updates());
  const std::vector<NDArray> r = f({NDArray::arange(0, 6)});
  CHECK(array_equal(r[0], r[1]));
}

}  // TEST_SUITE
