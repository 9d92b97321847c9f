// Creation ops: Alloc (zeros, ones), ARange, Eye, Assert.
#include <doctest/doctest.h>

#include <limits>

#include "test_util.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/shape.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
using namespace theano::tensor;
using Shp = std::vector<std::int64_t>;


TEST_CASE("Alloc: types, values and broadcasting") {
  Var v = dvector("v");
  Var n = lscalar("n");
  Var a = alloc(v, {n, 3});
  CHECK(a.owner()->op()->name() == "Alloc");
  CHECK(tensor_type(a)->str() == "TensorType(float64, (?, 3))");
  NDArray vv = NDArray::from_list<double>({1, 2, 3});
  NDArray out = a.eval({{v, vv}, {n, i64(2)}});
  CHECK(array_equal(out, NDArray::from_list<double>({1, 2, 3, 1, 2, 3}, {2, 3})));
  // The value's known size fills in the static shape.
  Var k = tensor::tensor(DType::Float32, {Dim(4)}, "k");
  CHECK(tensor_type(alloc(k, {n, n}))->str() == "TensorType(float32, (?, 4))");
  CHECK_THROWS_WITH_AS(alloc(k, {2, 5}), doctest::Contains("dimension 0 of the value k has size 4"), ShapeError);
  CHECK_THROWS_WITH_AS(alloc(dmatrix("m"), {3}), doctest::Contains("the value m has 2 dimensions"), TypeError);
  CHECK_THROWS_WITH_AS(alloc(v, {2.5}), doctest::Contains("shape entry 0 must be an integer scalar"), TypeError);
  CHECK_THROWS_WITH_AS(alloc(v, {-1, 3}), doctest::Contains("shape entry 0 is negative (-1)"), ValueError);
  // A value dimension broadcasts only when its type says 1.
  CHECK_THROWS_WITH_AS(a.eval({{v, NDArray::from_list<double>({1})}, {n, i64(2)}}),
                       doctest::Contains("the value v of shape (1,) (type TensorType(float64, vector); only dimensions whose type says size "
                                         "1 broadcast), target shape (2, 3): cannot be broadcast to the target shape at its "
                                         "dimension 0"), ShapeError);
  Var c = dcol("c");
  NDArray cv = NDArray::from_list<double>({5, 6}, {2, 1});
  CHECK(array_equal(alloc(c, {2, 3}).eval({{c, cv}}), NDArray::from_list<double>({5, 5, 5, 6, 6, 6}, {2, 3})));
  // int dtype, 0-d value, empty result.
  Var s = iscalar("s");
  NDArray si = alloc(s, {2, 2}).eval({{s, NDArray::scalar<std::int32_t>(7)}});
  CHECK(si.dtype() == DType::Int32);
  CHECK(array_equal(si, NDArray::full({2, 2}, 7, DType::Int32)));
  CHECK(alloc(s, {n, 0}).eval({{s, NDArray::scalar<std::int32_t>(7)}, {n, i64(3)}}).shape() == Shp{3, 0});
  CHECK_THROWS_WITH_AS(alloc(s, std::vector<TensorLike>{n}).eval({{s, NDArray::scalar<std::int32_t>(7)}, {n, i64(-3)}}),
                       doctest::Contains("shape entry 0 is negative (-3)"), ValueError);

  testing::check_infer_shape({v, n}, {a}, {vv, i64(4)});
  testing::check_infer_shape({c}, {alloc(c, {2, 5})}, {cv});
}

TEST_CASE("Alloc gradient sums over the broadcast dimensions") {
  testing::verify_grad([](const std::vector<Var>& in) { return alloc(in[0], {4, 3}); },
                       {NDArray::from_list<double>({1, 2, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return alloc(in[0], {2, 3, 4}); },
                       {NDArray::from_list<double>({0.5, 1.5, 2.5}, {3, 1})});
  testing::verify_grad([](const std::vector<Var>& in) { return alloc(in[0], {3}); }, {NDArray::scalar<double>(2.0)});
  testing::verify_grad([](const std::vector<Var>& in) { return alloc(in[0], {2, 3}); },
                       {NDArray::from_list<double>({1, 2, 3, 4, 5, 6}, {2, 3})});
}

TEST_CASE("zeros and ones") {
  Var z = zeros({2, 3});
  CHECK(tensor_type(z)->str() == "TensorType(float64, (2, 3))");
  CHECK(array_equal(z.eval(), NDArray::zeros({2, 3})));
  Var o = ones({3}, DType::Int8);
  CHECK(array_equal(o.eval(), NDArray::ones({3}, DType::Int8)));
  CHECK(o.eval().dtype() == DType::Int8);
  Var m = dmatrix("m");
  Var zm = zeros(m.shape(), DType::Float32);
  CHECK(tensor_type(zm)->str() == "TensorType(float32, matrix)");
  CHECK(zm.eval({{m, range({4, 2})}}).shape() == Shp{4, 2});
  Var k = tensor::tensor(DType::Float64, {Dim(5), Dim()}, "k");
  CHECK(tensor_type(ones(k.shape()))->str() == "TensorType(float64, (5, ?))");
  CHECK_THROWS_WITH_AS(zeros(dvector("f")), doctest::Contains("the shape must be an integer vector"), TypeError);
  CHECK_THROWS_WITH_AS(zeros(lvector("u")), doctest::Contains("must be known statically"), ValueError);
}

TEST_CASE("ARange: dtype rule, values and errors") {
  CHECK(arange(5).owner()->op()->name() == "ARange{dtype='int64'}");
  CHECK(array_equal(arange(5).eval(), NDArray::arange(0, 5, 1, DType::Int64)));
  CHECK(tensor_type(arange(5))->str() == "TensorType(int64, (5,))");
  CHECK(tensor_type(arange(2, 11, 3))->str() == "TensorType(int64, (3,))");
  CHECK(array_equal(arange(10, 0, -3).eval(), NDArray::from_list<std::int64_t>({10, 7, 4, 1})));
  CHECK(arange(3, 3).eval().shape() == Shp{0});
  CHECK(arange(5, 0).eval().shape() == Shp{0});
  Var u = tensor::tensor(DType::UInt8, {}, "u");
  CHECK(tensor_type(arange(u))->dtype() == DType::Int64);  // upcast(int8, uint8) = int16 -> int64
  CHECK(tensor_type(arange(u, u, u))->dtype() == DType::UInt64);
  // Float arguments keep the promoted float dtype.
  Var f = fscalar("f");
  Var af = arange(f);
  CHECK(tensor_type(af)->dtype() == DType::Float32);
  NDArray vf = af.eval({{f, NDArray::scalar<float>(3.5f)}});
  CHECK(array_equal(vf, NDArray::from_list<float>({0, 1, 2, 3})));
  Var d = dscalar("d");
  Var ad = arange(d, 1.0, 0.25);
  NDArray vd = ad.eval({{d, NDArray::scalar<double>(0.0)}});
  CHECK(allclose(vd, NDArray::from_list<double>({0, 0.25, 0.5, 0.75})));
  CHECK(arange(0, 1.0, 0.1).eval().shape() == Shp{10});
  CHECK(arange(4, DType::Float32).eval().dtype() == DType::Float32);
  Var n = lscalar("n"), st = lscalar("st");
  Var an = arange(0, n, st);
  CHECK(array_equal(an.eval({{n, i64(-7)}, {st, i64(-2)}}), NDArray::from_list<std::int64_t>({0, -2, -4, -6})));
  CHECK_THROWS_WITH_AS(an.eval({{n, i64(3)}, {st, i64(0)}}), doctest::Contains("ARange: step must not be zero"),
                       ValueError);
  CHECK_THROWS_WITH_AS(arange(dvector("w")), doctest::Contains("stop must be a real scalar"), TypeError);

  testing::check_infer_shape({n, st}, {an}, {i64(9), i64(2)});
  testing::check_infer_shape({n, st}, {an}, {i64(-9), i64(-4)});
  testing::check_infer_shape({n, st}, {an}, {i64(3), i64(-1)});
  testing::check_infer_shape({d}, {ad, arange(d, 2.0, 0.3), arange(2.0, d, -0.7)}, {NDArray::scalar<double>(-0.4)});
}

TEST_CASE("ARange: extreme int64 bounds neither overflow nor trap") {
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  Var a = lscalar("a"), b = lscalar("b"), s = lscalar("s");
  Var r = arange(a, b, s);
  // Empty: start INT64_MIN, stop 0, step -1 (a - b = INT64_MIN, divided by -1, used to trap).
  CHECK(r.eval({{a, i64(lo)}, {b, i64(0)}, {s, i64(-1)}}).shape() == Shp{0});
  // Three elements spanning the whole range.
  CHECK(array_equal(r.eval({{a, i64(lo)}, {b, i64(hi)}, {s, i64(hi)}}),
                    NDArray::from_list<std::int64_t>({lo, -1, hi - 1})));
  CHECK(array_equal(r.eval({{a, i64(hi)}, {b, i64(lo)}, {s, i64(lo)}}), NDArray::from_list<std::int64_t>({hi, -1})));
  // 2^64 - 1 elements: too many for an int64 length.
  CHECK_THROWS_WITH_AS(r.eval({{a, i64(lo)}, {b, i64(hi)}, {s, i64(1)}}), doctest::Contains("more elements than int64 holds"),
                       ValueError);
}

TEST_CASE("ARange gradient") {
  // d/dstart and d/dstep of start + i*step; stop only changes the length.
  testing::verify_grad([](const std::vector<Var>& in) { return arange(in[0], 3.0, in[1]); },
                       {NDArray::scalar<double>(0.3), NDArray::scalar<double>(0.7)});
  Var s = dscalar("s");
  Var a = arange(s, 10.0, 1.5);
  Var g = grad(a.sum(), s);
  CHECK(g.eval({{s, NDArray::scalar<double>(1.0)}}).item<double>() == 6.0);
  Var n = lscalar("n");
  CHECK(arange(n).owner()->op()->connection_pattern(*arange(n).owner()) ==
        std::vector<std::vector<bool>>{{true}, {false}, {true}});
}

TEST_CASE("Eye") {
  Var e = eye(3);
  CHECK(e.owner()->op()->name() == "Eye{dtype='float64'}");
  CHECK(tensor_type(e)->str() == "TensorType(float64, (3, 3))");
  CHECK(array_equal(e.eval(), NDArray::from_list<double>({1, 0, 0, 0, 1, 0, 0, 0, 1}, {3, 3})));
  CHECK(array_equal(eye(2, 4, 1, DType::Int32).eval(),
                    NDArray::from_list<std::int32_t>({0, 1, 0, 0, 0, 0, 1, 0}, {2, 4})));
  CHECK(array_equal(eye(3, 2, -1).eval(), NDArray::from_list<double>({0, 0, 1, 0, 0, 1}, {3, 2})));
  CHECK(array_equal(eye(2, 2, 5).eval(), NDArray::zeros({2, 2})));
  Var n = lscalar("n"), k = iscalar("k");
  Var en = eye(n, n, k, DType::Float32);
  CHECK(tensor_type(en)->str() == "TensorType(float32, matrix)");
  CHECK(en.eval({{n, i64(4)}, {k, NDArray::scalar<std::int32_t>(-2)}}).at<float>({3, 1}) == 1.0f);
  CHECK_THROWS_WITH_AS(eye(1.5), doctest::Contains("Eye: n must be an integer scalar"), TypeError);
  CHECK_THROWS_WITH_AS(eye(-2), doctest::Contains("n must be >= 0, got -2"), ValueError);
  CHECK_THROWS_WITH_AS(en.eval({{n, i64(-1)}, {k, NDArray::scalar<std::int32_t>(0)}}),
                       doctest::Contains("negative dimensions are not allowed"), ValueError);
  testing::check_infer_shape({n, k}, {en}, {i64(3), NDArray::scalar<std::int32_t>(1)});
}

TEST_CASE("Assert") {
  Var x = dvector("x");
  Var n = lscalar("n");
  Var a = assert_op(x, {gt(n, 0), lt(n, 10)}, "n must be in (0, 10)");
  CHECK(a.owner()->op()->name() == "Assert{msg='n must be in (0, 10)'}");
  CHECK(a.type() == x.type());
  CHECK(a.owner()->op()->view_map() == ViewMap{{0, {0}}});
  NDArray v = NDArray::from_list<double>({1, 2});
  CHECK(array_equal(a.eval({{x, v}, {n, i64(3)}}), v));
  // The linker adds the node's context and keeps the exception type.
  CHECK_THROWS_WITH_AS(a.eval({{x, v}, {n, i64(30)}}), doctest::Contains("n must be in (0, 10)"), AssertionError);
  std::vector<NDArray> outs(1);
  CHECK_THROWS_WITH_AS(a.owner()->op()->perform(*a.owner(), std::vector<NDArray>{v, NDArray::scalar<bool>(true),
                                                                                 NDArray::scalar<bool>(false)},
                                                outs),
                       "n must be in (0, 10)", AssertionError);
  CHECK_THROWS_WITH_AS(assert_op(x, {x}), doctest::Contains("condition 0 (x) must be a scalar"), TypeError);
  // Reported values: integer scalars, one per "{}" of the message, at most three.
  Var m = assert_op(x, {lt(n, 10)}, "n = {} must be below 10", {n});
  CHECK(m.owner()->op()->name() == "Assert{msg='n = {} must be below 10'}");
  CHECK_THROWS_WITH_AS(m.eval({{x, v}, {n, i64(30)}}), doctest::Contains("n = 30 must be below 10"), AssertionError);
  CHECK(array_equal(m.eval({{x, v}, {n, i64(3)}}), v));
  CHECK_THROWS_WITH_AS(assert_op(x, {lt(n, 10)}, "no places", {n}),
                       doctest::Contains("the message has 0 \"{}\" places for 1 reported values"), TypeError);
  CHECK_THROWS_WITH_AS(assert_op(x, {lt(n, 10)}, "{}{}{}{}", {n, n, n, n}), doctest::Contains("reports 0 to 3 values, got 4"),
                       TypeError);
  CHECK_THROWS_WITH_AS(assert_op(x, {lt(n, 10)}, "{}", {x.sum()}),
                       doctest::Contains("reported value 0 (") , TypeError);
  // Without reported values a "{}" is plain text.
  CHECK_THROWS_WITH_AS(assert_op(x, {lt(n, 10)}, "set {} is empty").eval({{x, v}, {n, i64(30)}}),
                       doctest::Contains("set {} is empty"), AssertionError);
  // The reported values are not differentiated (no gradient flows to them).
  testing::check_infer_shape({x, n}, {m}, {v, i64(2)});
  testing::check_infer_shape({x, n}, {a}, {v, i64(2)});
  testing::verify_grad([](const std::vector<Var>& in) { return assert_op(in[0] * 2.0, {gt(in[0].sum(), 0.0)}); },
                       {NDArray::from_list<double>({1, 2, 3})});
}
