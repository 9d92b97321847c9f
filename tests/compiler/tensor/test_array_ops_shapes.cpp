// Array utilities, group 1 (squeeze, expand_dims, swapaxes, moveaxis, flip,
// roll, broadcast_to, broadcast_arrays, full, full_like) against NumPy
// fixtures (tests/data/array_ops/gen_array_ops.py), compiled by function(),
// with infer_shape, gradients and the errors.
#include "array_ops_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::array_ops_test;

TEST_CASE("array_ops squeeze, expand_dims, swapaxes, moveaxis match NumPy") {
  const NDArray a = load("x3");
  const Var x = like(a, "x");
  const std::vector<NDArray> r =
      run({x},
          {swapaxes(x, 0, 2), moveaxis(x, 0, -1), moveaxis(x, {0, 1}, {2, 0}), expand_dims(x, {0, -1}),
           squeeze(expand_dims(x, {1, 3})), squeeze(expand_dims(x, 2), -2)},
          {a});
  check_equal(r[0], load("swapaxes_x3_0_2"));
  check_equal(r[1], load("moveaxis_x3_0_m1"));
  check_equal(r[2], load("moveaxis_x3_01_20"));
  check_equal(r[3], a.reshape({1, 2, 3, 4, 1}));
  check_equal(r[4], a);
  check_equal(r[5], a);
  CHECK(expand_dims(x, {0, -1}).owner()->op()->name() == "DimShuffle{x,0,1,2,x}");
  // An axis of unknown size: checked at run time, then dropped.
  const Var m = matrix("m", DType::Float64);
  const Var s = squeeze(m, 0);
  CHECK(s.ndim() == 1);
  check_equal(s.eval({{m, NDArray::from_list<double>({1, 2, 3}, {1, 3})}}), NDArray::from_list<double>({1, 2, 3}));
  CHECK_THROWS_WITH_AS(s.eval({{m, NDArray::from_list<double>({1, 2, 3, 4}, {2, 2})}}),
                       doctest::Contains("squeeze: axis 0 of m has size 2, not 1"), AssertionError);
  // No axes: only the axes whose static size is 1.
  CHECK(squeeze(tensor::tensor(DType::Float64, {1, std::nullopt, 1}, "t")).ndim() == 1);
  testing::check_infer_shape({x}, {swapaxes(x, 1, 2), moveaxis(x, 2, 0), expand_dims(x, 1)}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return moveaxis(in[0], {0, 2}, {1, 0}); }, {a});
}

TEST_CASE("array_ops shape errors name the function and the values") {
  const Var x = tensor3("x", DType::Float64);
  CHECK_THROWS_WITH_AS(swapaxes(x, 0, 3), doctest::Contains("swapaxes: axis 3 is out of range for x of rank 3"),
                       ValueError);
  CHECK_THROWS_WITH_AS(moveaxis(x, {0, 1}, {2}), doctest::Contains("moveaxis: source has 2 axes and destination 1"),
                       ValueError);
  CHECK_THROWS_WITH_AS(moveaxis(x, {0, 0}, {1, 2}), doctest::Contains("moveaxis (source): axis 0 is repeated"),
                       ValueError);
  CHECK_THROWS_WITH_AS(expand_dims(x, 5), doctest::Contains("expand_dims: axis 5 is out of range"), ValueError);
  CHECK_THROWS_WITH_AS(squeeze(tensor::tensor(DType::Float64, {2, 3}, "t"), 1),
                       doctest::Contains("squeeze: axis 1 of t has size 3, not 1"), ValueError);
  CHECK_THROWS_WITH_AS(flip(x, {0, -3}), doctest::Contains("flip: axis -3 is repeated"), ValueError);
  CHECK_THROWS_WITH_AS(roll(x, 1, 4), doctest::Contains("roll: axis 4 is out of range"), ValueError);
  CHECK_THROWS_WITH_AS(roll(x, 1.5, 0), doctest::Contains("roll"), TypeError);
  CHECK_THROWS_WITH_AS(broadcast_to(tensor::tensor(DType::Float64, {3}, "v"), {2, 4}),
                       doctest::Contains("broadcast_to: axis 0 of v has size 3, which cannot be broadcast to 4"),
                       ValueError);
  CHECK_THROWS_WITH_AS(broadcast_to(x, {2, 4}), doctest::Contains("broadcast_to: the target shape has 2 dimensions"),
                       ValueError);
  CHECK_THROWS_WITH_AS(broadcast_to(x, {2, -4, 1}), doctest::Contains("broadcast_to: shape entry 1 is negative (-4)"),
                       ValueError);
  CHECK_THROWS_WITH_AS(full({3, -1}, 2.0), doctest::Contains("full: shape entry 1 is negative (-1)"), ValueError);
  CHECK_THROWS_WITH_AS(full_like(x, x), doctest::Contains("full_like: value must be a scalar"), TypeError);
}

TEST_CASE("array_ops flip and roll match NumPy, with a symbolic shift, float32 and gradients") {
  const NDArray a = load("x3");
  const Var x = like(a, "x");
  const Var k = lscalar("k");
  const Var j = iscalar("j");
  const std::vector<NDArray> r = run({x, k, j},
                                     {flip(x), flip(x, 1), flip(x, {0, 2}), roll(x, 2), roll(x, -1, 1), roll(x, 5, 2),
                                      roll(x, -7, 0), roll(x, 0, 1), roll(x, k, 2), roll(x, j)},
                                     {a, test::i64(5), NDArray::scalar<std::int32_t>(2)});
  check_equal(r[0], load("flip_x3_all"));
  check_equal(r[1], load("flip_x3_a1"));
  check_equal(r[2], load("flip_x3_a0_a2"));
  check_equal(r[3], load("roll_x3_s2_aNone"));
  check_equal(r[4], load("roll_x3_s-1_a1"));
  check_equal(r[5], load("roll_x3_s5_a2"));
  check_equal(r[6], load("roll_x3_s-7_a0"));
  check_equal(r[7], load("roll_x3_s0_a1"));
  check_equal(r[8], load("roll_x3_s5_a2"));
  check_equal(r[9], load("roll_x3_s2_aNone"));
  // NumPy's tuples: a shift per axis, or one shift for every axis (an axis twice adds).
  const std::vector<NDArray> t = run({x, k}, {roll(x, {1, -2}, {0, 2}), roll(x, {k}, {1, 2, 1})}, {a, test::i64(3)});
  check_equal(t[0], load("roll_x3_s1m2_a02"));
  check_equal(t[1], load("roll_x3_s3_a121"));
  CHECK_THROWS_WITH_AS(roll(x, {1, 2}, {0}), doctest::Contains("roll: 2 shifts for 1 axes"), ValueError);
  const NDArray f = load("x3_f32");
  const Var xf = like(f, "xf");
  check_equal(run({xf}, {roll(xf, 2, 2)}, {f})[0], load("roll_x3_f32_s2_a2"));
  // An empty axis rolls to itself (no division by zero in the symbolic path).
  const Var v = vector("v", DType::Float64);
  CHECK(roll(v, k, 0).eval({{v, NDArray::empty({0})}, {k, test::i64(3)}}).size() == 0);
  testing::check_infer_shape({x, k}, {roll(x, k, 1), flip(x, 2), roll(x, k)}, {a, test::i64(-4)});
  testing::verify_grad([](const std::vector<Var>& in) { return roll(in[0], 2, 1); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return flip(in[0], {0, 2}); }, {a});
}

TEST_CASE("array_ops broadcast_to, broadcast_arrays, full, full_like") {
  const NDArray v3 = load("v3"), c = load("col3"), rw = load("row4");
  const Var v = like(v3, "v"), rv = like(rw, "r");
  const Var n = lscalar("n");
  const Var c3 = tensor::tensor(DType::Float64, {3, 1}, "c3");
  const std::vector<Var> ba = broadcast_arrays({c3, rv});
  const std::vector<NDArray> r = run({v, c3, rv, n},
                                     {broadcast_to(v, {2, n, 3}), ba[0], ba[1], full({n, 2}, 1.5, DType::Float32),
                                      full_like(c3, 4, DType::Int32), full_like(rv, 2.5)},
                                     {v3, c, rw, test::i64(4)});
  check_equal(r[0], load("broadcast_to_v3_2_4_3"));
  check_equal(r[1], load("broadcast_arrays_0"));
  check_equal(r[2], load("broadcast_arrays_1"));
  check_equal(r[3], NDArray::full({4, 2}, 1.5, DType::Float32));
  check_equal(r[4], NDArray::full({3, 1}, 4, DType::Int32));
  check_equal(r[5], NDArray::full({4}, 2.5, DType::Float64));
  testing::check_infer_shape({v, n}, {broadcast_to(v, {n, 3}), full_like(v, 0.5)}, {v3, test::i64(2)});
  testing::verify_grad([](const std::vector<Var>& in) { return broadcast_to(in[0], {2, 3}); }, {v3});
  testing::verify_grad(
      [](const std::vector<Var>& in) {
        const std::vector<Var> b = broadcast_arrays({in[0], in[1]});
        return add(b[0], mul(b[1], 2.0));
      },
      {c, rw});
}
