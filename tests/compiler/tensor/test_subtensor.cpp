// Subtensor (basic indexing): printed names, static shapes, views, symbolic
// bounds, errors, infer_shape and gradients.
#include <tuple>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
using namespace theano::tensor;
using Shp = std::vector<std::int64_t>;

namespace {
std::string tstr(const Var& v) { return tensor_type(v)->str(); }
}  // namespace

TEST_CASE("Subtensor names and static shapes") {
  Var x = dmatrix("x");
  Var n = lscalar("n");
  CHECK(x[1].owner()->op()->name() == "Subtensor{1}");
  CHECK(x[slice(1, 3)].owner()->op()->name() == "Subtensor{1:3:}");
  CHECK(x[{all, -1}].owner()->op()->name() == "Subtensor{::, -1}");
  CHECK(x[{slice(none, none, -2), slice(n, none)}].owner()->op()->name() == "Subtensor{::-2, int64::}");
  CHECK(x[iscalar("i")].owner()->op()->name() == "Subtensor{int32}");
  CHECK(x[slice(1, 3)].owner()->op()->view_map() == ViewMap{{0, {0}}});
  // A constant 0-d index folds into the op.
  CHECK(x[constant(NDArray::scalar<std::int64_t>(2))].owner()->op()->name() == "Subtensor{2}");

  Var k = tensor::tensor(DType::Float32, {Dim(5), Dim(4)}, "k");
  CHECK(tstr(k[slice(1, 3)]) == "TensorType(float32, (2, 4))");
  CHECK(tstr(k[slice(none, none, -2)]) == "TensorType(float32, (3, 4))");
  CHECK(tstr(k[0]) == "TensorType(float32, (4,))");
  CHECK(tstr(k[{all, slice(-10, 10)}]) == "TensorType(float32, (5, 4))");
  CHECK(tstr(k[slice(n)]) == "TensorType(float32, (?, 4))");
  CHECK(tstr(k[{3, 1}]) == "TensorType(float32, scalar)");
  CHECK(tstr(k[slice(4, 1)]) == "TensorType(float32, (0, 4))");
  CHECK(tstr(x[slice(1, 3)]) == "TensorType(float64, matrix)");
  CHECK(tstr(x[all]) == "TensorType(float64, matrix)");
  // Op equality comes from the idx_list.
  CHECK(*x[slice(1, 3)].owner()->op() == *dmatrix()[slice(1, 3)].owner()->op());
  CHECK_FALSE(*x[slice(1, 3)].owner()->op() == *x[slice(1, 4)].owner()->op());
}

TEST_CASE("Subtensor values and views") {
  Var x = dtensor3("x");
  NDArray a = range({3, 4, 5});
  NDArray o = x[{1, slice(none, none, -1), slice(1, 5, 2)}].eval({{x, a}});
  CHECK(o.shape() == Shp{4, 2});
  CHECK(o.at<double>({0, 0}) == a.at<double>({1, 3, 1}));
  CHECK(o.at<double>({3, 1}) == a.at<double>({1, 0, 3}));
  CHECK(x[{-1, -1, -1}].eval({{x, a}}).item<double>() == 59.0);
  // Non-contiguous input.
  NDArray t = a.transpose();  // (5, 4, 3)
  NDArray ot = x[{slice(1, none), 2}].eval({{x, t}});
  CHECK(ot.shape() == Shp{4, 3});
  CHECK(ot.at<double>({0, 2}) == a.at<double>({2, 2, 1}));

  // perform returns a view.
  Var s = x[slice(1, 3)];
  std::vector<NDArray> outs(1);
  s.owner()->op()->perform(*s.owner(), std::vector<NDArray>{a}, outs);
  CHECK(outs[0].shares_buffer(a));
  CHECK(outs[0].shape() == Shp{2, 4, 5});

  // Integer dtypes.
  Var iv = ivector("iv");
  CHECK(array_equal(iv[slice(none, none, -1)].eval({{iv, NDArray::from_list<std::int32_t>({1, 2, 3})}}),
                    NDArray::from_list<std::int32_t>({3, 2, 1})));
}

TEST_CASE("Subtensor with symbolic bounds") {
  Var x = dvector("x");
  Var a = lscalar("a"), b = iscalar("b"), c = lscalar("c");
  Var s = x[slice(a, b, c)];
  NDArray v = range({10});
  auto run = [&](std::int64_t av, std::int32_t bv, std::int64_t cv) {
    return s.eval({{x, v}, {a, i64(av)}, {b, NDArray::scalar<std::int32_t>(bv)}, {c, i64(cv)}});
  };
  CHECK(array_equal(run(1, 7, 2), NDArray::from_list<double>({1, 3, 5})));
  CHECK(array_equal(run(-1, 2, -3), NDArray::from_list<double>({9, 6, 3})));
  CHECK(array_equal(run(100, -100, -4), NDArray::from_list<double>({9, 5, 1})));
  CHECK(run(3, 3, 1).shape() == Shp{0});
  CHECK_THROWS_WITH_AS(run(0, 5, 0), doctest::Contains("slice step cannot be zero"), ValueError);
  for (auto [av, bv, cv] : std::vector<std::tuple<std::int64_t, std::int32_t, std::int64_t>>{
           {1, 7, 2}, {-1, 2, -3}, {100, -100, -4}, {3, 3, 1}, {-20, 20, 1}, {8, -12, -1}, {-3, -1, 5}})
    testing::check_infer_shape({x, a, b, c}, {s}, {v, i64(av), NDArray::scalar<std::int32_t>(bv), i64(cv)});

  Var i = lscalar("i");
  Var m = dmatrix("m");
  NDArray mv = range({3, 4});
  CHECK(array_equal(m[i].eval({{m, mv}, {i, i64(-1)}}), NDArray::from_list<double>({8, 9, 10, 11})));
  CHECK_THROWS_WITH_AS(m[i].eval({{m, mv}, {i, i64(3)}}),
                       doctest::Contains("index 3 is out of bounds for axis 0 with size 3 (indexing m of shape (3, 4))"),
                       IndexError);
  CHECK_THROWS_WITH_AS((m[{all, i}].eval({{m, mv}, {i, i64(-5)}})),
                       doctest::Contains("index -5 is out of bounds for axis 1 with size 4"), IndexError);
  testing::check_infer_shape({m, i}, {m[i], m[{slice(i, none), i}]}, {mv, i64(1)});
  // x.shape()[0]: shapes are indexable like any vector.
  CHECK(m.shape()[0].eval({{m, mv}}).item<std::int64_t>() == 3);
  CHECK(m.shape()[-1].eval({{m, mv}}).item<std::int64_t>() == 4);
}

TEST_CASE("Subtensor errors") {
  Var x = dmatrix("x");
  CHECK_THROWS_WITH_AS((x[{0, 0, 0}]), doctest::Contains("too many indices (3) for x, which has 2 dimensions"),
                       IndexError);
  CHECK_THROWS_WITH_AS((x[slice(0, 4, 0)]), doctest::Contains("slice step cannot be zero"), ValueError);
  CHECK_THROWS_WITH_AS(x[dscalar("f")], doctest::Contains("index 0 (f) must be an integer scalar, an integer array or a boolean array"),
                       TypeError);
  CHECK_THROWS_WITH_AS((x[slice(dscalar("g"), none)]), doctest::Contains("a slice start must be an integer scalar"),
                       TypeError);
  CHECK_THROWS_WITH_AS(x[bscalar("b") > 0], doctest::Contains("is a 0-d boolean"), TypeError);
  Var k = tensor::tensor(DType::Float64, {Dim(3), Dim()}, "k");
  CHECK_THROWS_WITH_AS(k[3], doctest::Contains("index 3 is out of bounds for axis 0 with size 3"), IndexError);
  CHECK_THROWS_WITH_AS(k[-4], doctest::Contains("index -4 is out of bounds"), IndexError);
  CHECK_THROWS_WITH_AS(dscalar("s")[0], doctest::Contains("too many indices (1) for s"), IndexError);
  CHECK_THROWS_WITH_AS(x[2].eval({{x, range({2, 2})}}),
                       doctest::Contains("Subtensor{2}: index 2 is out of bounds for axis 0 with size 2"), IndexError);
}

TEST_CASE("Subtensor infer_shape and gradient") {
  Var x = dtensor3("x");
  NDArray a = range({4, 5, 3});
  testing::check_infer_shape({x},
                             {x[1], x[slice(1, 3)], x[{slice(none, none, -1), 2}], x[{all, slice(-2, none), -1}],
                              x[slice(10, 20)], x[{slice(3, 0, -2), slice(0, 5, 3)}]},
                             {a});
  testing::check_infer_shape({x}, {x[slice(1, 3)]}, {range({0, 2, 2})});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0][{slice(1, 3), slice(none, none, -1)}]; },
                       {range({4, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0][{-1, slice(0, 5, 2)}] * in[0][{0, slice(1, 4)}]; },
                       {range({3, 5})});
  // Symbolic bounds are disconnected from the gradient.
  Var m = dmatrix("m");
  Var i = lscalar("i");
  Var s = m[slice(i, none)];
  CHECK(s.owner()->op()->connection_pattern(*s.owner()) == std::vector<std::vector<bool>>{{true}, {false}});
  Var g = grad(s.sum(), m);
  CHECK(array_equal(g.eval({{m, range({3, 2})}, {i, i64(1)}}), NDArray::from_list<double>({0, 0, 1, 1, 1, 1}, {3, 2})));
  CHECK(g.owner()->op()->name() == "IncSubtensor{Inc;int64::}");
}

TEST_CASE("a braced index list of one element picks the list overload") {
  Var x = theano::tensor::dmatrix("x");
  CHECK(x[{slice(1, 3)}].owner()->op()->name() == "Subtensor{1:3:}");
  CHECK(x[{0, slice(none, none, -1)}].ndim() == 1);
}

TEST_CASE("Index and Bound say what they hold, and an accessor of another kind is an InternalError") {
  Var i = iscalar("i");
  Bound none_b, const_b(-1), sym_b(i);
  CHECK(none_b.is_none());
  CHECK((const_b.is_constant() && const_b.constant() == -1));
  CHECK((sym_b.is_symbolic() && sym_b.symbolic().get() == i.get()));
  CHECK_THROWS_AS(none_b.constant(), InternalError);
  CHECK_THROWS_AS(const_b.symbolic(), InternalError);

  Index k(3), v(i), s(slice(1, none, -1));
  CHECK((k.is_scalar_constant() && k.scalar_constant() == 3));
  CHECK((v.is_variable() && v.variable().get() == i.get()));
  REQUIRE(s.is_slice());
  CHECK((s.as_slice().start.constant() == 1 && s.as_slice().stop.is_none() && s.as_slice().step.constant() == -1));
  CHECK_THROWS_AS(k.as_slice(), InternalError);
  CHECK_THROWS_AS(s.variable(), InternalError);
  CHECK_THROWS_AS(v.scalar_constant(), InternalError);
}
