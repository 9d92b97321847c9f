// Join (concatenate, stack) and Split: static shapes, values, errors,
// infer_shape and gradients.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/join.h"
#include "theano/tensor/shape.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using Shp = std::vector<std::int64_t>;

namespace {
NDArray range(std::vector<std::int64_t> shape, double start = 0, DType dtype = DType::Float64) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return NDArray::arange(start, start + static_cast<double>(n), 1, dtype).reshape(std::move(shape));
}
}  // namespace

TEST_CASE("Join: types and values") {
  Var x = dmatrix("x"), y = dmatrix("y");
  Var j = join(0, {x, y});
  CHECK(j.owner()->op()->name() == "Join{0}");
  NDArray a = range({2, 3}), b = range({1, 3}, 10);
  NDArray out = j.eval({{x, a}, {y, b}});
  CHECK(array_equal(out, NDArray::from_list<double>({0, 1, 2, 3, 4, 5, 10, 11, 12}, {3, 3})));
  // axis 1 and -1, non-contiguous inputs.
  NDArray bt = range({3, 2}, 20).transpose();  // (2, 3) strided
  NDArray o1 = concatenate({x, y}, -1).eval({{x, a}, {y, bt}});
  CHECK(o1.shape() == Shp{2, 6});
  CHECK(o1.at<double>({1, 4}) == bt.at<double>({1, 1}));
  CHECK(o1.at<double>({0, 2}) == 2.0);

  // Static shapes and dtype promotion.
  Var p = tensor::tensor(DType::Float32, {Dim(2), Dim()}, "p");
  Var q = tensor::tensor(DType::Int16, {Dim(3), Dim(4)}, "q");
  Var pq = join(0, {p, q});
  CHECK(tensor_type(pq)->str() == "TensorType(float32, (5, 4))");
  CHECK(tensor_type(join(1, {p, p}))->str() == "TensorType(float32, (2, ?))");
  NDArray po = pq.eval({{p, range({2, 4}, 0, DType::Float32)}, {q, range({3, 4}, 100, DType::Int16)}});
  CHECK(po.dtype() == DType::Float32);
  CHECK(po.at<float>({4, 3}) == 111.0f);
  // Three inputs, int dtype, empty piece.
  Var iv = ivector("iv"), jv = ivector("jv");
  NDArray r = join(0, {iv, jv, iv}).eval({{iv, NDArray::from_list<std::int32_t>({1, 2})},
                                            {jv, NDArray::empty({0}, DType::Int32)}});
  CHECK(array_equal(r, NDArray::from_list<std::int32_t>({1, 2, 1, 2})));
  CHECK(join(0, {x}) == x);

  testing::check_infer_shape({x, y}, {j, join(1, {x, x})}, {a, b});
  testing::check_infer_shape({p, q}, {pq}, {range({2, 4}, 0, DType::Float32), range({3, 4}, 0, DType::Int16)});
}

TEST_CASE("Join errors") {
  Var x = dmatrix("x"), v = dvector("v");
  CHECK_THROWS_WITH_AS(join(0, {x, v}), doctest::Contains("all tensors must have the same rank"), TypeError);
  CHECK_THROWS_WITH_AS(join(2, {x, x}), doctest::Contains("axis 2 is out of bounds for tensors of rank 2"), IndexError);
  CHECK_THROWS_WITH_AS(join(0, {dscalar("s"), dscalar("t")}), doctest::Contains("cannot join 0-d tensors (s)"),
                       TypeError);
  CHECK_THROWS_WITH_AS(join(0, {}), doctest::Contains("empty list"), ValueError);
  Var p = tensor::tensor(DType::Float64, {Dim(), Dim(3)}, "p");
  Var q = tensor::tensor(DType::Float64, {Dim(), Dim(4)}, "q");
  CHECK_THROWS_WITH_AS(join(0, {p, q}), doctest::Contains("dimension 1 of input 0 (p, type TensorType(float64, (?, 3))) is 3"),
                       ShapeError);
  Var y = dmatrix("y");
  CHECK_THROWS_WITH_AS(join(0, {x, y}).eval({{x, range({2, 3})}, {y, range({2, 4})}}),
                       doctest::Contains("along dimension 1, input 0 (x) has size 3 and input 1 (y) has size 4"),
                       ShapeError);
}

TEST_CASE("Join gradient") {
  testing::verify_grad([](const std::vector<Var>& in) { return join(0, {in[0], in[1], in[0]}); },
                       {range({2, 3}), range({1, 3}, 5)});
  testing::verify_grad([](const std::vector<Var>& in) { return join(1, {in[0] * 2.0, in[1]}); },
                       {range({2, 3}), range({2, 2}, 5)});
  // A float32 input joined with float64: its gradient keeps float32.
  Var f = fvector("f"), d = dvector("d");
  Var g = grad(join(0, {f, d}).sum(), f);
  CHECK(tensor_type(g)->dtype() == DType::Float32);
  CHECK(array_equal(g.eval({{f, NDArray::ones({2}, DType::Float32)}, {d, NDArray::ones({3})}}),
                    NDArray::ones({2}, DType::Float32)));
  // Static sizes survive in the gradient's type.
  Var k = tensor::tensor(DType::Float64, {Dim(2), Dim()}, "k");
  Var m = dmatrix("m");
  Var gk = grad(join(0, {m, k}).sum(), k);
  CHECK(tensor_type(gk)->str() == "TensorType(float64, (2, ?))");
}

TEST_CASE("stack") {
  Var a = dscalar("a"), b = dscalar("b");
  Var s = stack({a, b});
  CHECK(s.owner()->op()->name() == "MakeVector{dtype='float64'}");
  CHECK(array_equal(s.eval({{a, NDArray::scalar<double>(1)}, {b, NDArray::scalar<double>(2)}}),
                    NDArray::from_list<double>({1, 2})));
  Var x = dvector("x"), y = dvector("y");
  NDArray xv = NDArray::from_list<double>({1, 2, 3}), yv = NDArray::from_list<double>({4, 5, 6});
  CHECK(array_equal(stack({x, y}).eval({{x, xv}, {y, yv}}), NDArray::from_list<double>({1, 2, 3, 4, 5, 6}, {2, 3})));
  CHECK(array_equal(stack({x, y}, 1).eval({{x, xv}, {y, yv}}),
                    NDArray::from_list<double>({1, 4, 2, 5, 3, 6}, {3, 2})));
  CHECK(array_equal(stack({x, y}, -1).eval({{x, xv}, {y, yv}}),
                    NDArray::from_list<double>({1, 4, 2, 5, 3, 6}, {3, 2})));
  CHECK(tensor_type(stack({x, y}))->str() == "TensorType(float64, (2, ?))");
  CHECK_THROWS_WITH_AS(stack({x, y}, 3), doctest::Contains("axis 3 is out of bounds"), IndexError);
  CHECK_THROWS_WITH_AS(stack({x, dmatrix("m")}), doctest::Contains("same rank"), TypeError);
  testing::check_infer_shape({x, y}, {stack({x, y}, 1)}, {xv, yv});
  testing::verify_grad([](const std::vector<Var>& in) { return stack({in[0], in[1] * in[0]}, 1); },
                       {range({3}), range({3}, 2)});
}

TEST_CASE("Split") {
  Var x = dmatrix("x");
  std::vector<Var> parts = split(x, {1, 3, 0}, 1);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].owner()->op()->name() == "Split{3,1}");
  CHECK(tensor_type(parts[1])->str() == "TensorType(float64, (?, 3))");
  CHECK(parts[0].owner()->op()->view_map() == ViewMap{{0, {0}}, {1, {0}}, {2, {0}}});
  NDArray a = range({2, 4});
  std::vector<NDArray> outs(3);
  parts[0].owner()->op()->perform(*parts[0].owner(), std::vector<NDArray>{a, NDArray::from_list<std::int64_t>({1, 3, 0})},
                                  outs);
  CHECK(array_equal(outs[0], NDArray::from_list<double>({0, 4}, {2, 1})));
  CHECK(array_equal(outs[1], NDArray::from_list<double>({1, 2, 3, 5, 6, 7}, {2, 3})));
  CHECK(outs[2].shape() == Shp{2, 0});
  CHECK(outs[1].shares_buffer(a));

  // Symbolic splits.
  Var sp = lvector("sp");
  std::vector<Var> ps = split(x, sp, 2, 0);
  Var sum2 = ps[0].sum() * 10.0 + ps[1].sum();
  NDArray b = range({5, 2});
  CHECK(sum2.eval({{x, b}, {sp, NDArray::from_list<std::int64_t>({2, 3})}}).item<double>() == 10 * 6.0 + 39.0);
  CHECK_THROWS_WITH_AS(ps[0].eval({{x, b}, {sp, NDArray::from_list<std::int64_t>({2, 2})}}),
                       doctest::Contains("the splits [2, 2] sum to 4, but dimension 0 of x has size 5"), ShapeError);
  CHECK_THROWS_WITH_AS(ps[0].eval({{x, b}, {sp, NDArray::from_list<std::int64_t>({2, 2, 1})}}),
                       doctest::Contains("got 3 split sizes, expected 2"), ValueError);
  CHECK_THROWS_WITH_AS(ps[0].eval({{x, b}, {sp, NDArray::from_list<std::int64_t>({6, -1})}}),
                       doctest::Contains("negative dimensions are not allowed, got -1"), ValueError);
  Var k = tensor::tensor(DType::Float64, {Dim(4)}, "k");
  CHECK_THROWS_WITH_AS(split(k, {1, 2}), doctest::Contains("sum to 3, but dimension 0 of k has size 4"), ShapeError);
  CHECK_THROWS_WITH_AS(split(x, {1, 2}, 2), doctest::Contains("axis 2 is out of bounds"), IndexError);
  CHECK_THROWS_WITH_AS(split(x, dvector("fs"), 2), doctest::Contains("splits must be an integer vector"), TypeError);

  testing::check_infer_shape({x, sp}, ps, {b, NDArray::from_list<std::int64_t>({4, 1})});
  testing::check_infer_shape({x}, parts, {a});
}

TEST_CASE("Split gradient") {
  testing::verify_grad([](const std::vector<Var>& in) {
                         auto p = split(in[0], {2, 1, 1}, 0);
                         return join(0, {p[2] * 3.0, p[0], p[1] * p[1]});
                       },
                       {range({4, 2}, 1)});
  // Only one piece used: the others get zeros.
  Var x = dvector("x");
  auto p = split(x, {2, 3}, 0);
  Var g = grad(p[1].sum(), x);
  CHECK(array_equal(g.eval({{x, range({5})}}), NDArray::from_list<double>({0, 0, 1, 1, 1})));
}
