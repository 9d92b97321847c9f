// DimShuffle: types, views, errors, infer_shape and gradient.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

TEST_CASE("DimShuffle types and names") {
  Var x = dmatrix("x");
  CHECK(x.T().owner()->op()->name() == "DimShuffle{1,0}");
  CHECK(tensor_type(x.dimshuffle({1, kNewAxis, 0}))->str() == "TensorType(float64, (False, True, False))");
  Var r = drow("r");
  CHECK(tensor_type(r.dimshuffle({1}))->str() == "TensorType(float64, vector)");
  CHECK_THROWS_WITH_AS(x.dimshuffle({1}), doctest::Contains("cannot drop dimension 0 of x"), ValueError);
  CHECK_THROWS_WITH_AS(x.dimshuffle({0, 0}), doctest::Contains("axis 0 appears twice"), ValueError);
  CHECK_THROWS_WITH_AS(x.dimshuffle({2, 0}), doctest::Contains("axis 2 is out of range for a 2-d input"), ValueError);
  CHECK(dynamic_cast<const DimShuffle&>(*x.T().owner()->op()).is_transpose());
  CHECK(x.T().owner()->op()->view_map() == ViewMap{{0, {0}}});
}

TEST_CASE("DimShuffle perform is a view with NumPy's layout") {
  Var x = dtensor3("x");
  NDArray a = NDArray::arange(0, 24).reshape({2, 3, 4});
  NDArray t = x.dimshuffle({2, 0, kNewAxis, 1}).eval({{x, a}});
  CHECK(t.shape() == std::vector<std::int64_t>{4, 2, 1, 3});
  CHECK(t.at<double>({3, 1, 0, 2}) == a.at<double>({1, 2, 3}));
  Var c = tensor::tensor(DType::Float64, {Dim(), 1, Dim()}, "c");
  NDArray b = NDArray::arange(0, 6).reshape({2, 1, 3});
  NDArray d = c.dimshuffle({2, 0}).eval({{c, b}});
  CHECK(array_equal(d, b.squeeze(1).transpose()));
  testing::check_infer_shape({x}, {x.dimshuffle({2, 0, kNewAxis, 1}), x.T()}, {a});
}

TEST_CASE("DimShuffle gradient") {
  testing::verify_grad([](const std::vector<Var>& in) { return in[0].dimshuffle({1, kNewAxis, 0}) * 2.0; },
                       {NDArray::arange(0, 6).reshape({2, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0].T() * in[0].T(); },
                       {NDArray::arange(1, 7).reshape({3, 2})});
}
