// Shape, Shape_i, MakeVector, SpecifyShape, Reshape and flatten: types, values,
// views, infer_shape, gradients and errors.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
using namespace theano::tensor;
using Shp = std::vector<std::int64_t>;

namespace {
std::vector<std::int64_t> ivec(const NDArray& a) {
  std::vector<std::int64_t> r;
  for (std::int64_t i = 0; i < a.shape()[0]; ++i) r.push_back(a.index(0, i).item<std::int64_t>());
  return r;
}
}  // namespace

TEST_CASE("Shape and Shape_i") {
  Var x = dtensor3("x");
  Var s = x.shape();
  CHECK(s.owner()->op()->name() == "Shape");
  CHECK(tensor_type(s)->str() == "TensorType(int64, (3,))");
  CHECK(ivec(s.eval({{x, range({2, 3, 4})}})) == Shp{2, 3, 4});
  // Non-contiguous input.
  CHECK(ivec(s.eval({{x, range({2, 3, 4}).transpose()}})) == Shp{4, 3, 2});

  Var s1 = shape_i(x, 1);
  CHECK(s1.owner()->op()->name() == "Shape_i{1}");
  CHECK(tensor_type(s1)->ndim() == 0);
  CHECK(s1.eval({{x, range({2, 3, 4})}}).item<std::int64_t>() == 3);
  CHECK(shape_i(x, -1).owner()->op()->name() == "Shape_i{2}");
  // Known static sizes fold to constants.
  Var r = tensor::tensor(DType::Float32, {Dim(5), Dim()}, "r");
  CHECK(shape_i(r, 0).is_constant());
  CHECK(shape_i(r, 0).as_constant()->data().item<std::int64_t>() == 5);
  CHECK_THROWS_WITH_AS(shape_i(x, 3), doctest::Contains("dimension 3 is out of range for x"), IndexError);
  CHECK_THROWS_WITH_AS(OpPtr(new Shape_i(4))->apply1({x}), doctest::Contains("x has only 3 dimensions"), IndexError);

  testing::check_infer_shape({x}, {s, s1}, {range({2, 3, 4})});
  // Disconnected gradients.
  CHECK(s.owner()->op()->connection_pattern(*s.owner()) == std::vector<std::vector<bool>>{{false}});
  CHECK_FALSE(s.owner()->op()->grad(*s.owner(), {lvector()})[0]);
}

TEST_CASE("MakeVector") {
  Var a = lscalar("a"), b = iscalar("b");
  Var v = make_vector({a, b});
  CHECK(v.owner()->op()->name() == "MakeVector{dtype='int64'}");
  CHECK(tensor_type(v)->str() == "TensorType(int64, (2,))");
  auto out = v.eval({{a, NDArray::scalar<std::int64_t>(7)}, {b, NDArray::scalar<std::int32_t>(-2)}});
  CHECK(ivec(out) == Shp{7, -2});
  // Constants that fit are converted; unsafe casts are refused.
  Var c = make_vector({a, constant(NDArray::scalar<double>(3.0))}, DType::Int64);
  CHECK(c.owner()->inputs()[1].is_constant());
  CHECK_THROWS_WITH_AS(make_vector({a, dscalar("d")}, DType::Int64),
                       doctest::Contains("input 1 (d) has dtype float64, which cannot be safely cast to int64"),
                       TypeError);
  CHECK_THROWS_WITH_AS(make_vector({a, lvector("w")}), doctest::Contains("input 1 (w) must be a scalar"), TypeError);
  CHECK(tensor_type(make_vector({}))->str() == "TensorType(int64, (0,))");
  testing::check_infer_shape({a, b}, {v}, {NDArray::scalar<std::int64_t>(1), NDArray::scalar<std::int32_t>(2)});
  // Gradient: element i of the output gradient.
  testing::verify_grad(
      [](const std::vector<Var>& in) { return make_vector({in[0], in[1] * 2.0, in[0] * in[1]}); },
      {NDArray::scalar<double>(1.5), NDArray::scalar<double>(-0.5)});
}

TEST_CASE("SpecifyShape") {
  Var x = dmatrix("x");
  Var y = specify_shape(x, StaticShape{2, std::nullopt});
  CHECK(tensor_type(y)->str() == "TensorType(float64, (2, ?))");
  CHECK(y.owner()->op()->name() == "SpecifyShape{(2, ?)}");
  CHECK(y.owner()->op()->view_map() == ViewMap{{0, {0}}});
  NDArray a = range({2, 3});
  NDArray out = y.eval({{x, a}});
  CHECK(array_equal(out, a));
  CHECK_THROWS_WITH_AS(y.eval({{x, range({3, 3})}}),
                       doctest::Contains("SpecifyShape: dimension 0 of x has size 3, expected 2"), ShapeError);
  CHECK_THROWS_WITH_AS(specify_shape(x, StaticShape{2}), doctest::Contains("x has 2 dimensions"), ShapeError);
  Var r = tensor::tensor(DType::Float64, {Dim(4), Dim()}, "r");
  CHECK_THROWS_WITH_AS(specify_shape(r, StaticShape{3, 1}), doctest::Contains("dimension 0 of r is known to be 4"),
                       ShapeError);

  // Symbolic sizes; constant ones fold into the op.
  Var n = lscalar("n");
  Var z = specify_shape(x, std::vector<Var>{n, constant(NDArray::scalar<std::int64_t>(3))});
  CHECK(z.owner()->op()->name() == "SpecifyShape{(s, 3)}");
  CHECK(tensor_type(z)->str() == "TensorType(float64, (?, 3))");
  CHECK(array_equal(z.eval({{x, a}, {n, NDArray::scalar<std::int64_t>(2)}}), a));
  CHECK_THROWS_WITH_AS(z.eval({{x, a}, {n, NDArray::scalar<std::int64_t>(5)}}),
                       doctest::Contains("dimension 0 of x has size 2, expected 5"), ShapeError);
  testing::check_infer_shape({x, n}, {z}, {a, NDArray::scalar<std::int64_t>(2)});
  testing::check_infer_shape({x}, {y}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return specify_shape(in[0], StaticShape{2, 3}) * 3.0; },
                       {range({2, 3})});
}

TEST_CASE("Reshape: static shapes, values and views") {
  Var x = dmatrix("x");
  Var r = x.reshape({3, -1});
  CHECK(r.owner()->op()->name() == "Reshape{2}");
  CHECK(tensor_type(r)->str() == "TensorType(float64, (3, ?))");
  NDArray a = range({2, 6});
  NDArray out = r.eval({{x, a}});
  CHECK(out.shape() == Shp{3, 4});
  CHECK(array_equal(out, a.reshape({3, 4})));
  // Fully known input: -1 resolved statically.
  Var k = tensor::tensor(DType::Float32, {Dim(2), Dim(6)}, "k");
  CHECK(tensor_type(reshape(k, {-1, 4}))->str() == "TensorType(float32, (3, 4))");
  CHECK(tensor_type(reshape(k, {12, 1}))->str() == "TensorType(float32, (12, 1))");
  CHECK_THROWS_WITH_AS(reshape(k, {5, -1}), doctest::Contains("cannot reshape k"), ShapeError);
  CHECK_THROWS_WITH_AS(reshape(k, {5, 2}), doctest::Contains("into a shape of size 10"), ShapeError);
  CHECK_THROWS_WITH_AS(reshape(x, {-1, -1}), doctest::Contains("only specify one unknown dimension"), ValueError);

  // A view of a contiguous input, a copy of a non-contiguous one.
  const Op& op = *r.owner()->op();
  CHECK(op.view_map() == ViewMap{{0, {0}}});
  std::vector<NDArray> outs(1);
  NDArray shp = NDArray::from_vector<std::int64_t>({3, -1}, {2});
  op.perform(*r.owner(), std::vector<NDArray>{a, shp}, outs);
  CHECK(outs[0].shares_buffer(a));
  NDArray t = range({6, 2}).transpose();
  op.perform(*r.owner(), std::vector<NDArray>{t, shp}, outs);
  CHECK_FALSE(outs[0].shares_buffer(t));
  CHECK(array_equal(outs[0], t.copy().reshape({3, 4})));

  // Run-time errors name the variable and shapes.
  CHECK_THROWS_WITH_AS(r.eval({{x, range({2, 5})}}),
                       doctest::Contains("cannot reshape x of size 10 (shape (2, 5)) into shape (3, -1)"), ShapeError);
  Var s = x.reshape({4, 4});
  CHECK_THROWS_WITH_AS(s.eval({{x, a}}), doctest::Contains("into shape (4, 4)"), ShapeError);

  // int32 data and 0-d / 1-d edge cases.
  Var iv = ivector("iv");
  NDArray ia = NDArray::arange(0, 6, 1, DType::Int32);
  CHECK(array_equal(iv.reshape({2, 1, 3}).eval({{iv, ia}}), ia.reshape({2, 1, 3})));
  CHECK(tensor_type(iv.reshape({2, 1, 3}))->str() == "TensorType(int32, (2, 1, 3))");
  CHECK(iv.reshape({}).eval({{iv, NDArray::from_list<std::int32_t>({7})}}).item<int>() == 7);
}

TEST_CASE("Reshape with a symbolic shape") {
  Var x = dvector("x");
  Var m = dmatrix("m");
  Var r = reshape(x, m.shape(), 2);
  NDArray a = range({6}), b = range({2, 3});
  CHECK(array_equal(r.eval({{x, a}, {m, b}}), a.reshape({2, 3})));
  Var n = lscalar("n");
  Var r2 = reshape(x, make_vector({n, constant(NDArray::scalar<std::int64_t>(-1))}), 2);
  CHECK(tensor_type(r2)->ndim() == 2);
  CHECK(r2.eval({{x, a}, {n, NDArray::scalar<std::int64_t>(3)}}).shape() == Shp{3, 2});
  CHECK_THROWS_WITH_AS(reshape(x, dvector("f"), 2), doctest::Contains("must be an integer vector"), TypeError);
  CHECK_THROWS_WITH_AS(reshape(x, constant(NDArray::from_list<std::int64_t>({1, 2, 3})), 2),
                       doctest::Contains("has 3 entries, expected 2"), ValueError);

  testing::check_infer_shape({x, m}, {r}, {a, b});
  testing::check_infer_shape({x, n}, {r2}, {a, NDArray::scalar<std::int64_t>(2)});
  testing::check_infer_shape({m}, {m.reshape({-1}), m.reshape({3, -1, 1}), m.reshape({1, 6})}, {b});
  testing::check_infer_shape({m}, {m.reshape({-1})}, {NDArray::zeros({0, 4})});
}

TEST_CASE("Reshape gradient and flatten") {
  testing::verify_grad([](const std::vector<Var>& in) { return in[0].reshape({3, -1}) * 2.0; }, {range({2, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0].T().reshape({6}); }, {range({2, 3})});

  Var x = dtensor3("x");
  NDArray a = range({2, 3, 4});
  CHECK(x.flatten().eval({{x, a}}).shape() == Shp{24});
  CHECK(array_equal(x.flatten(2).eval({{x, a}}), a.reshape({2, 12})));
  CHECK(array_equal(x.flatten(3).eval({{x, a}}), a));
  NDArray t = a.transpose();  // non-contiguous
  CHECK(array_equal(x.flatten(2).eval({{x, t}}), t.copy().reshape({4, 6})));
  Var k = tensor::tensor(DType::Float64, {Dim(2), Dim(3), Dim(4)}, "k");
  CHECK(tensor_type(k.flatten(2))->str() == "TensorType(float64, (2, 12))");
  Var p = tensor::tensor(DType::Float64, {Dim(), Dim(1), Dim(1)}, "p");
  CHECK(tensor_type(p.flatten(2))->str() == "TensorType(float64, col)");
  Var s = dscalar("s");
  CHECK(s.flatten().eval({{s, NDArray::scalar<double>(4.0)}}).shape() == Shp{1});
  CHECK_THROWS_WITH_AS(x.flatten(0), doctest::Contains("flatten: ndim 0 is out of bounds [1, 3] for x"), ValueError);
  CHECK_THROWS_WITH_AS(x.flatten(4), doctest::Contains("ndim 4 is out of bounds"), ValueError);
  testing::check_infer_shape({x}, {x.flatten(), x.flatten(2)}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0].flatten(2); }, {range({2, 3, 2})});
}
