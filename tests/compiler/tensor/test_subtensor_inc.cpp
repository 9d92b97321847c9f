// IncSubtensor, AdvancedSubtensor1, AdvancedIncSubtensor1 and the user entry
// points set_subtensor / inc_subtensor / take: values, broadcasting, duplicate
// indices, copy vs in place, errors, infer_shape and gradients.
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
NDArray ivec(std::initializer_list<std::int64_t> v) { return NDArray::from_list<std::int64_t>(v); }
}  // namespace

TEST_CASE("set_subtensor / inc_subtensor on basic indexing") {
  Var x = dmatrix("x");
  Var y = dvector("y");
  Var s = set_subtensor(x[slice(1, 3)], y);
  Var i = inc_subtensor(x[slice(1, 3)], y);
  CHECK(s.owner()->op()->name() == "IncSubtensor{Set;1:3:}");
  CHECK(i.owner()->op()->name() == "IncSubtensor{Inc;1:3:}");
  CHECK(s.type() == x.type());
  CHECK(s.owner()->op()->destroy_map().empty());
  NDArray a = range({3, 2});
  NDArray before = a.copy();
  NDArray yv = NDArray::from_list<double>({10, 20});
  CHECK(array_equal(s.eval({{x, a}, {y, yv}}), NDArray::from_list<double>({0, 1, 10, 20, 10, 20}, {3, 2})));
  CHECK(array_equal(i.eval({{x, a}, {y, yv}}), NDArray::from_list<double>({0, 1, 12, 23, 14, 25}, {3, 2})));
  CHECK(array_equal(a, before));  // not in place
  // Scalars broadcast; literals are wrapped.
  CHECK(array_equal(inc_subtensor(x[{all, -1}], 1.5).eval({{x, a}}),
                    NDArray::from_list<double>({0, 2.5, 2, 4.5, 4, 6.5}, {3, 2})));
  CHECK(array_equal(set_subtensor(x[{1, 0}], 7).eval({{x, a}}),
                    NDArray::from_list<double>({0, 1, 7, 3, 4, 5}, {3, 2})));
  // Negative steps and a non-contiguous x.
  NDArray t = range({2, 3}).transpose();  // [[0,3],[1,4],[2,5]]
  CHECK(array_equal(set_subtensor(x[slice(none, none, -2)], y).eval({{x, t}, {y, yv}}),
                    NDArray::from_list<double>({10, 20, 1, 4, 10, 20}, {3, 2})));
  // Integer data with an integer increment.
  Var im = imatrix("im");
  NDArray ia = range({2, 2}, DType::Int32);
  CHECK(array_equal(inc_subtensor(im[0], 5).eval({{im, ia}}), NDArray::from_list<std::int32_t>({5, 6, 2, 3}, {2, 2})));
  // Symbolic bounds travel to the IncSubtensor.
  Var n = lscalar("n");
  Var sn = set_subtensor(x[slice(n, none)], 0.0);
  CHECK(sn.owner()->op()->name() == "IncSubtensor{Set;int64::}");
  CHECK(array_equal(sn.eval({{x, a}, {n, i64(-1)}}), NDArray::from_list<double>({0, 1, 2, 3, 0, 0}, {3, 2})));
  testing::check_infer_shape({x, y, n}, {s, i, inc_subtensor(x[{slice(n, none), 0}], y[0])}, {a, yv, i64(1)});
}

TEST_CASE("IncSubtensor errors") {
  Var x = dmatrix("x");
  CHECK_THROWS_WITH_AS(set_subtensor(x, 1.0), doctest::Contains("set_subtensor: the first argument must be the result "
                                                                "of indexing a tensor (x[...]), but x is not computed"),
                       TypeError);
  CHECK_THROWS_WITH_AS(inc_subtensor(x * 2.0, 1.0), doctest::Contains("is the output of Elemwise"), TypeError);
  CHECK_THROWS_WITH_AS(set_subtensor(x[0], dmatrix("m")), doctest::Contains("the value m has 2 dimensions"), TypeError);
  Var im = imatrix("im");
  CHECK_THROWS_WITH_AS(set_subtensor(im[0], dvector("f")),
                       doctest::Contains("the value f has dtype float64, which cannot be cast to im's dtype int32"),
                       TypeError);
  Var k = tensor::tensor(DType::Float64, {Dim(3), Dim(4)}, "k");
  Var v3 = tensor::tensor(DType::Float64, {Dim(3)}, "v3");
  CHECK_THROWS_WITH_AS(set_subtensor(k[0], v3), doctest::Contains("dimension 0 has size 3 where 4 is expected"),
                       ShapeError);
  Var y = dvector("y");
  Var s = set_subtensor(x[slice(0, 2)], y);
  CHECK_THROWS_WITH_AS(s.eval({{x, range({3, 3})}, {y, NDArray::from_list<double>({1, 2})}}),
                       doctest::Contains("indexed shape (2, 3): cannot be broadcast to the target shape at its dimension 0"),
                       ShapeError);
  // A run-time size 1 does not broadcast unless the type says so.
  CHECK_THROWS_AS(s.eval({{x, range({3, 3})}, {y, NDArray::from_list<double>({1})}}), ShapeError);
  Var r = drow("r");
  CHECK(array_equal(set_subtensor(x[slice(0, 2)], r).eval({{x, range({3, 2})}, {r, NDArray::from_list<double>({7, 8}, {1, 2})}}),
                    NDArray::from_list<double>({7, 8, 7, 8, 4, 5}, {3, 2})));
}

TEST_CASE("IncSubtensor in place") {
  Var x = dmatrix("x"), y = dscalar("y");
  Var s = x[slice(0, 1)];
  IdxList idx = dynamic_cast<const Subtensor&>(*s.owner()->op()).idx_list();
  OpPtr op(new IncSubtensor(idx, /*inplace=*/true, /*set=*/false));
  CHECK(op->name() == "IncSubtensor{InplaceInc;0:1:}");
  CHECK(op->destroy_map() == ViewMap{{0, {0}}});
  ApplyPtr node = op->make_node({x, y});
  NDArray a = range({2, 2});
  std::vector<NDArray> outs(1);
  op->perform(*node, std::vector<NDArray>{a, NDArray::scalar<double>(10)}, outs);
  CHECK(outs[0].shares_buffer(a));
  CHECK(array_equal(a, NDArray::from_list<double>({10, 11, 2, 3}, {2, 2})));
  CHECK_FALSE(*op == *OpPtr(new IncSubtensor(idx)));
}

TEST_CASE("IncSubtensor gradients") {
  // inc: gx = gz, gy = gz[idx] summed over y's broadcast dimensions.
  testing::verify_grad([](const std::vector<Var>& in) { return inc_subtensor(in[0][slice(1, 3)], in[1]); },
                       {range({3, 4}), NDArray::from_list<double>({1, 2, 3, 4})});
  // set: gx is zero where x was overwritten.
  testing::verify_grad(
      [](const std::vector<Var>& in) { return set_subtensor(in[0][{slice(none, none, -2), 1}], in[1]) * in[0]; },
      {range({5, 3}), NDArray::from_list<double>({1, 2, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return set_subtensor(in[0][{1, 2}], in[1] * 3.0); },
                       {range({3, 4}), NDArray::scalar<double>(2)});
  Var x = dmatrix("x"), y = dscalar("y");
  Var gx = grad(set_subtensor(x[0], y).sum(), x);
  CHECK(array_equal(gx.eval({{x, range({2, 2})}, {y, NDArray::scalar<double>(1)}}),
                    NDArray::from_list<double>({0, 0, 1, 1}, {2, 2})));
  Var gy = grad(inc_subtensor(x[slice(0, 2)], y).sum(), y);
  CHECK(gy.eval({{x, range({3, 2})}, {y, NDArray::scalar<double>(1)}}).item<double>() == 4.0);
}

TEST_CASE("AdvancedSubtensor1") {
  Var x = dmatrix("x");
  Var idx = lvector("idx");
  Var a = x[idx];
  CHECK(a.owner()->op()->name() == "AdvancedSubtensor1");
  CHECK(tensor_type(a)->str() == "TensorType(float64, matrix)");
  NDArray xv = range({4, 2});
  CHECK(array_equal(a.eval({{x, xv}, {idx, ivec({3, 0, -1, 3})}}),
                    NDArray::from_list<double>({6, 7, 0, 1, 6, 7, 6, 7}, {4, 2})));
  CHECK(a.eval({{x, xv}, {idx, NDArray::empty({0}, DType::Int64)}}).shape() == Shp{0, 2});
  CHECK_THROWS_WITH_AS(a.eval({{x, xv}, {idx, ivec({1, 4})}}),
                       doctest::Contains("AdvancedSubtensor1: index 4 is out of bounds for axis 0 with size 4"),
                       IndexError);
  CHECK_THROWS_WITH_AS(a.eval({{x, xv}, {idx, ivec({-5})}}), doctest::Contains("index -5 is out of bounds"),
                       IndexError);
  // int32 indices on a non-contiguous int16 vector; a constant index vector gives a static length.
  Var w = tensor::tensor(DType::Int16, {Dim()}, "w");
  NDArray wv = NDArray::arange(0, 10, 1, DType::Int16).slice(0, std::nullopt, std::nullopt, 3);  // 0 3 6 9
  Var ci = constant(NDArray::from_list<std::int32_t>({2, 2, 0}));
  Var wa = w[ci];
  CHECK(tensor_type(wa)->str() == "TensorType(int16, (3,))");
  CHECK(array_equal(wa.eval({{w, wv}}), NDArray::from_list<std::int16_t>({6, 6, 0})));
  // An index vector on another axis goes through transposes (Theano's take).
  NDArray cols = x[{all, idx}].eval({{x, xv}, {idx, ivec({1, 1, 0})}});
  CHECK(array_equal(cols, NDArray::from_list<double>({1, 1, 0, 3, 3, 2, 5, 5, 4, 7, 7, 6}, {4, 3})));
  // Errors.
  CHECK_THROWS_WITH_AS(x[dvector("f")], doctest::Contains("must be an integer scalar, an integer array or a boolean"),
                       TypeError);
  // An array beside a partial slice follows NumPy's rules (test_general_index.cpp).
  CHECK(tensor_type(x[{slice(0, 1), idx}][{idx, slice(0, 1)}])->ndim() == 2);
  CHECK_NOTHROW(x[{idx, idx}]);  // two integer vectors: test_subtensor_multi.cpp
  CHECK_THROWS_WITH_AS(advanced_subtensor1(dscalar("s"), idx), doctest::Contains("cannot index into s, a scalar"),
                       TypeError);
  CHECK_THROWS_WITH_AS(advanced_subtensor1(x, lmatrix("lm")), doctest::Contains("the index must be an integer vector"),
                       TypeError);

  testing::check_infer_shape({x, idx}, {a, x[{all, idx}]}, {xv, ivec({0, 1, 1})});
  testing::verify_grad([](const std::vector<Var>& in) { return in[0][constant(NDArray::from_list<std::int64_t>({2, 0, 2, 1}))]; },
                       {range({3, 2})});
  // Repeated indices accumulate in the gradient.
  Var g = grad(a.sum(), x);
  CHECK(array_equal(g.eval({{x, xv}, {idx, ivec({3, 3, 0})}}),
                    NDArray::from_list<double>({1, 1, 0, 0, 0, 0, 2, 2}, {4, 2})));
  CHECK(a.owner()->op()->connection_pattern(*a.owner()) == std::vector<std::vector<bool>>{{true}, {false}});
}

TEST_CASE("AdvancedIncSubtensor1") {
  Var x = dmatrix("x");
  Var idx = lvector("idx");
  Var y = dmatrix("y");
  Var inc = inc_subtensor(x[idx], y);
  Var set = set_subtensor(x[idx], y);
  CHECK(inc.owner()->op()->name() == "AdvancedIncSubtensor1{no_inplace,inc}");
  CHECK(set.owner()->op()->name() == "AdvancedIncSubtensor1{no_inplace,set}");
  CHECK(inc.owner()->op()->destroy_map().empty());
  CHECK(AdvancedIncSubtensor1(true, false).destroy_map() == ViewMap{{0, {0}}});
  NDArray xv = range({3, 2});
  NDArray yv = NDArray::from_list<double>({1, 1, 10, 10, 100, 100}, {3, 2});
  // Duplicates accumulate for inc; the last write wins for set.
  CHECK(array_equal(inc.eval({{x, xv}, {idx, ivec({0, 2, 0})}, {y, yv}}),
                    NDArray::from_list<double>({101, 102, 2, 3, 14, 15}, {3, 2})));
  CHECK(array_equal(set.eval({{x, xv}, {idx, ivec({0, 2, 0})}, {y, yv}}),
                    NDArray::from_list<double>({100, 100, 2, 3, 10, 10}, {3, 2})));
  // Broadcast value and scalar.
  CHECK(array_equal(inc_subtensor(x[idx], 1.0).eval({{x, xv}, {idx, ivec({1, 1})}}),
                    NDArray::from_list<double>({0, 1, 4, 5, 4, 5}, {3, 2})));
  Var r = dvector("r");
  CHECK(array_equal(set_subtensor(x[idx], r).eval({{x, xv}, {idx, ivec({-1})}, {r, NDArray::from_list<double>({7, 8})}}),
                    NDArray::from_list<double>({0, 1, 2, 3, 7, 8}, {3, 2})));
  // Through a transpose (index on axis 1).
  Var c = inc_subtensor(x[{all, idx}], r);
  NDArray cv = c.eval({{x, xv}, {idx, ivec({1, 1})}, {r, NDArray::from_list<double>({1, 2})}});
  CHECK(array_equal(cv, NDArray::from_list<double>({0, 4, 2, 6, 4, 8}, {3, 2})));
  CHECK(c.type() == x.type());
  // Errors.
  CHECK_THROWS_WITH_AS(inc.eval({{x, xv}, {idx, ivec({3})}, {y, NDArray::ones({1, 2})}}),
                       doctest::Contains("index 3 is out of bounds for axis 0 with size 3"), IndexError);
  CHECK_THROWS_WITH_AS(inc.eval({{x, xv}, {idx, ivec({0, 1})}, {y, NDArray::ones({3, 2})}}),
                       doctest::Contains("indexed shape (2, 2): cannot be broadcast to the target shape at its dimension 0"),
                       ShapeError);
  CHECK_THROWS_WITH_AS(inc_subtensor(imatrix("im")[idx], 0.5),
                       doctest::Contains("dtype float32, which cannot be cast to im's dtype int32"), TypeError);

  testing::check_infer_shape({x, idx, y, r}, {inc, set, c},
                             {xv, ivec({1, 0}), NDArray::ones({2, 2}), NDArray::ones({2})});
  Var ci = constant(NDArray::from_list<std::int64_t>({2, 0, 2}));
  testing::verify_grad([&](const std::vector<Var>& in) { return inc_subtensor(in[0][ci], in[1]) * in[0]; },
                       {range({3, 2}), NDArray::from_list<double>({1, 2, 3, 4, 5, 6}, {3, 2})});
  Var cu = constant(NDArray::from_list<std::int64_t>({2, 0}));
  testing::verify_grad([&](const std::vector<Var>& in) { return set_subtensor(in[0][cu], in[1]) * in[0]; },
                       {range({3, 2}), NDArray::from_list<double>({1, 2})});
  testing::verify_grad([&](const std::vector<Var>& in) { return inc_subtensor(in[0][{all, cu}], in[1]); },
                       {range({3, 4}), NDArray::from_list<double>({1, 2, 3, 4, 5, 6}, {3, 2})});
}

TEST_CASE("inc_subtensor of integers wraps as numpy does (perform, no signed overflow)") {
  // INT32_MAX + 1 wraps to INT32_MIN; found by the UBSan fuzz (seed 12, graph 1238).
  Var x = ivector("x"), y = iscalar("y");
  Function f = function({x, y}, {inc_subtensor(x[{slice(1, none)}], y)}, {.mode = "unoptimized"});
  const NDArray xv = NDArray::from_vector<std::int32_t>({1, 2147483647, -2147483647 - 1}, {3});
  const NDArray got = f({xv, NDArray::scalar<std::int32_t>(1)})[0];
  CHECK(got.at<std::int32_t>({0}) == 1);
  CHECK(got.at<std::int32_t>({1}) == -2147483647 - 1);
  CHECK(got.at<std::int32_t>({2}) == -2147483647);
}
