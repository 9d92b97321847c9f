// Array utilities, group 2 (diff, ptp, isclose / allclose, nan_to_num,
// round_half_away_from_zero / iround, max_and_argmax, take_along_axis,
// to_one_hot) against NumPy fixtures (tests/data/array_ops/gen_array_ops.py),
// compiled by function(), with infer_shape, gradients and the errors.
#include "array_ops_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::array_ops_test;

TEST_CASE("array_ops diff and ptp match NumPy, with gradients") {
  const NDArray a = load("x3");
  const Var x = like(a, "x");
  const std::vector<NDArray> r =
      run({x}, {diff(x), diff(x, 2, 0), diff(x, 2, 1), diff(x, 3, 1), diff(x, 0, 2), ptp(x, 1), ptp(x)}, {a});
  check_close(r[0], load("diff_x3_n1_a-1"));
  check_close(r[1], load("diff_x3_n2_a0"));
  check_close(r[2], load("diff_x3_n2_a1"));
  check_close(r[3], load("diff_x3_n3_a1"));
  check_close(r[4], load("diff_x3_n0_a2"));
  check_close(r[5], load("ptp_x3_a1"));
  check_close(r[6], load("ptp_x3_all"));
  // bool: not_equal, as NumPy.
  const Var b = vector("b", DType::Bool);
  check_equal(diff(b).eval({{b, NDArray::from_list<bool>({true, true, false, true})}}),
              NDArray::from_list<bool>({false, true, true}));
  testing::check_infer_shape({x}, {diff(x, 2, 1), ptp(x, {0, 2})}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return diff(in[0], 2, 1); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return ptp(in[0], 2); }, {a});
  CHECK_THROWS_WITH_AS(diff(x, -1), doctest::Contains("diff: order n must be non-negative, got -1"), ValueError);
  CHECK_THROWS_WITH_AS(diff(scalar("s")), doctest::Contains("diff: s must be at least 1-d"), ValueError);
  CHECK_THROWS_WITH_AS(diff(x, 1, 3), doctest::Contains("diff: axis 3 is out of range for x of rank 3"), ValueError);
  CHECK_THROWS_WITH_AS(ptp(x, 3), doctest::Contains("ptp: axis 3 is out of range"), ValueError);
}

TEST_CASE("array_ops isclose, allclose and nan_to_num match NumPy") {
  const NDArray ca = load("close_a"), cb = load("close_b"), nn = load("nan_in");
  const Var a = like(ca, "a"), b = like(cb, "b"), n = like(nn, "n");
  const std::vector<NDArray> r =
      run({a, b, n},
          {isclose(a, b), isclose(a, b, 1e-5, 1e-8, true), isclose(a, b, 0.1, 0.0), allclose(a, b),
           allclose(a, a, 1e-5, 1e-8, true), nan_to_num(n), nan_to_num(n, -1.0, 9.0, -9.0)},
          {ca, cb, nn});
  check_equal(r[0], load("isclose_default"));
  check_equal(r[1], load("isclose_equal_nan"));
  check_equal(r[2], load("isclose_tol"));
  check_equal(r[3], load("allclose_default"));
  CHECK(r[4].item<bool>());
  check_equal(r[5], load("nan_to_num_default"));
  check_equal(r[6], load("nan_to_num_custom"));
  const NDArray nf = nn.astype(DType::Float32);
  const Var f = like(nf, "f");
  check_equal(run({f}, {nan_to_num(f)}, {nf})[0], load("nan_to_num_f32"));
  // Integers: returned as they are; isclose compares them as float64.
  const Var i = ivector("i");
  CHECK(nan_to_num(i).get() == i.get());
  check_equal(isclose(i, 3).eval({{i, NDArray::from_list<std::int32_t>({3, 4})}}),
              NDArray::from_list<bool>({true, false}));
  testing::verify_grad([](const std::vector<Var>& in) { return nan_to_num(in[0]); }, {load("x3")});
}

TEST_CASE("array_ops round_half_away_from_zero and iround") {
  const NDArray h = load("halves");
  const Var x = like(h, "x");
  const std::vector<NDArray> r = run({x}, {round_half_away_from_zero(x), iround(x), iround(x, "half_to_even")}, {h});
  check_equal(r[0], load("round_away"));
  check_equal(r[1], load("round_away").astype(DType::Int64));
  const NDArray even = NDArray::from_list<double>({-2, -2, -0.0, 0, 2, 2, 0, -0.0, 2, -3, 4503599627370497.0, -0.0, 7});
  check_equal(r[2], even.astype(DType::Int64));
  const Var f = fvector("f");
  check_equal(round_half_away_from_zero(f).eval({{f, NDArray::from_list<float>({2.5f, -0.5f, 0.49999997f})}}),
              NDArray::from_list<float>({3.f, -1.f, 0.f}));
  CHECK_THROWS_WITH_AS(iround(x, "up"), doctest::Contains("iround: mode must be"), ValueError);
}

TEST_CASE("array_ops max_and_argmax, take_along_axis and to_one_hot match NumPy") {
  const NDArray a = load("x3"), i1 = load("tal_idx_a1"), i2 = load("tal_idx_a2"), fi = load("tal_flat_idx");
  const Var x = like(a, "x"), j1 = like(i1, "j1"),
            j2 = tensor::tensor(DType::Int64, {1, std::nullopt, std::nullopt}, "j2"), jf = like(fi, "jf");
  const auto [m1, am1] = max_and_argmax(x, 1);
  const auto [m, am] = max_and_argmax(x);
  const std::vector<NDArray> r =
      run({x, j1, j2, jf},
          {m1, am1, m, am, take_along_axis(x, j1, 1), take_along_axis(x, j2, -1), take_along_axis(x, jf, std::nullopt)},
          {a, i1, i2, fi});
  check_equal(r[0], load("max_x3_a1"));
  check_equal(r[1], load("argmax_x3_a1"));
  check_equal(r[2], load("max_x3_all"));
  check_equal(r[3], load("argmax_x3_all"));
  check_equal(r[4], load("tal_x3_a1"));
  check_equal(r[5], load("tal_x3_a2"));
  check_equal(r[6], load("tal_x3_none"));
  // x's axes of static size 1 broadcast against the indices, as NumPy's.
  const NDArray xb = load("x214"), ib = load("tal_idx_b");
  const Var xs = tensor::tensor(DType::Float64, {2, 1, std::nullopt}, "xs"), js = like(ib, "js");
  check_equal(run({xs, js}, {take_along_axis(xs, js, 2)}, {xb, ib})[0], load("tal_x214_a2"));
  testing::check_infer_shape({x, j1}, {take_along_axis(x, j1, 1)}, {a, i1});
  // The gradient scatters back, repeated indices accumulating.
  testing::verify_grad([&](const std::vector<Var>& in) { return take_along_axis(in[0], constant(i1), 1); }, {a});
  NDArray bad = i1.copy();
  bad.data_as<std::int64_t>()[3] = 3;
  CHECK_THROWS_WITH_AS(run({x, j1}, {take_along_axis(x, j1, 1)}, {a, bad}),
                       doctest::Contains("take_along_axis: an index is out of range for axis 1 of x (size 3)"),
                       AssertionError);
  CHECK_THROWS_WITH_AS(take_along_axis(x, matrix("m"), 1), doctest::Contains("must be integers"), TypeError);
  CHECK_THROWS_WITH_AS(take_along_axis(x, lmatrix("k"), 1), doctest::Contains("have rank 2, x has rank 3"), ValueError);
  CHECK_THROWS_WITH_AS(take_along_axis(x, j1, std::nullopt), doctest::Contains("must be 1-d"), ValueError);
  CHECK_THROWS_WITH_AS(max_and_argmax(x, -4), doctest::Contains("max_and_argmax: axis -4 is out of range"), ValueError);

  const NDArray lab = load("labels");
  const Var y = like(lab, "y");
  const Var nb = lscalar("nb");
  const std::vector<NDArray> oh = run({y, nb}, {to_one_hot(y, 5), to_one_hot(y, nb, DType::Int8)}, {lab, test::i64(5)});
  check_equal(oh[0], load("one_hot_5"));
  check_equal(oh[1], load("one_hot_5").astype(DType::Int8));
  CHECK_THROWS_WITH_AS(run({y, nb}, {to_one_hot(y, nb)}, {lab, test::i64(4)}),
                       doctest::Contains("to_one_hot: a label of y is outside [0, 4) (nb_class)"), AssertionError);
  CHECK_THROWS_WITH_AS(to_one_hot(y, -2), doctest::Contains("to_one_hot: nb_class must be non-negative, got -2"),
                       ValueError);
  CHECK_THROWS_WITH_AS(to_one_hot(vector("v"), 3), doctest::Contains("to_one_hot: y must be an integer vector"),
                       TypeError);
}
