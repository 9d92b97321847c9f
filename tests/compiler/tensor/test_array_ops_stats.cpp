// Array utilities, groups 4 and 5 (topk / argtopk, quantile, percentile,
// median, cov) against NumPy fixtures (tests/data/array_ops/gen_array_ops.py),
// compiled by function(), with infer_shape, gradients and the errors.
#include "array_ops_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::array_ops_test;

TEST_CASE("array_ops topk and argtopk match NumPy, with a gradient") {
  const NDArray a = load("x2");
  const Var x = like(a, "x");
  const auto [v3, i3] = topk_and_argtopk(x, 3);
  const std::vector<NDArray> r = run({x}, {v3, i3, topk(x, -2, 0), argtopk(x, -2, 0), topk(x, 6, 1, false)}, {a});
  check_equal(r[0], load("topk_x2_k3"));
  check_equal(r[1], load("argtopk_x2_k3"));
  check_equal(r[2], load("topk_x2_km2_a0"));
  check_equal(r[3], load("argtopk_x2_km2_a0"));
  check_equal(r[4], load("topk_x2_k6"));
  const NDArray f = a.astype(DType::Float32);
  const Var xf = like(f, "xf");
  check_equal(run({xf}, {topk(xf, 3)}, {f})[0], load("topk_x2_k3").astype(DType::Float32));
  testing::check_infer_shape({x}, {topk(x, 3), argtopk(x, -2, 0)}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return topk(in[0], 2); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return topk(in[0], -3, 0); }, {a});
  CHECK_THROWS_WITH_AS(topk(x, 0), doctest::Contains("topk: kth must not be 0"), ValueError);
  CHECK_THROWS_WITH_AS(topk(tensor::tensor(DType::Float64, {2, 5}, "s"), 6),
                       doctest::Contains("topk: |kth| = 6 exceeds the length 5 of axis 1 of s"), ValueError);
  CHECK_THROWS_WITH_AS(run({x}, {topk(x, -7)}, {a}),
                       doctest::Contains("topk: |kth| = 7 exceeds the length 6 of axis 1 of x"), AssertionError);
  CHECK_THROWS_WITH_AS(topk(x, 1, 2), doctest::Contains("topk: axis 2 is out of range"), ValueError);
}

TEST_CASE("array_ops quantile, percentile and median match NumPy") {
  const NDArray a = load("x3"), an = load("x3_nan");
  const Var x = like(a, "x"), xn = like(an, "xn");
  const std::vector<NDArray> r = run({x, xn},
                                     {quantile(x, 0.3, 1), quantile(x, {0.1, 0.5, 1.0}), percentile(x, 75, 2, true),
                                      median(x, 0), median(x, 2), median(x, std::nullopt, true), median(xn, 2)},
                                     {a, an});
  check_close(r[0], load("quantile_x3_q03_a1"), 1e-14);
  check_close(r[1], load("quantile_x3_qs_all"), 1e-14);
  check_close(r[2], load("percentile_x3_q75_a2_keep"), 1e-14);
  check_close(r[3], load("median_x3_a0"), 1e-14);
  check_close(r[4], load("median_x3_a2"), 1e-14);
  check_close(r[5], load("median_x3_all_keep"), 1e-14);
  check_close(r[6], load("median_x3_nan_a2"), 1e-14);
  const NDArray f = load("x3_f32");
  const Var xf = like(f, "xf");
  check_close(run({xf}, {median(xf, 2)}, {f})[0], load("median_x3_f32_a2"), 1e-6);
  // Integers give float64.
  const Var iv = ivector("iv");
  check_close(median(iv).eval({{iv, NDArray::from_list<std::int32_t>({4, 1, 3, 2})}}), NDArray::scalar<double>(2.5));
  testing::check_infer_shape({x}, {quantile(x, 0.3, 1), percentile(x, {10.0, 90.0}, 2, true)}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return quantile(in[0], {0.25, 0.8}, 1); }, {a});
  CHECK_THROWS_WITH_AS(quantile(x, 1.5), doctest::Contains("quantile: q must be in [0, 1], got 1.5"), ValueError);
  CHECK_THROWS_WITH_AS(percentile(x, {10.0, -5.0}), doctest::Contains("percentile: q must be in [0, 100], got -5"),
                       ValueError);
  CHECK_THROWS_WITH_AS(median(tensor::tensor(DType::Float64, {3, 0}, "e"), 1),
                       doctest::Contains("median: axis 1 of e is empty"), ValueError);
  CHECK_THROWS_WITH_AS(run({x}, {median(x, 1)}, {NDArray::empty({2, 0, 4})}),
                       doctest::Contains("median: axis 1 of x is empty (size 0)"), AssertionError);
}

TEST_CASE("array_ops cov matches NumPy") {
  const NDArray a = load("m37");
  const Var x = like(a, "x");
  const Var v = dvector("v");
  const std::vector<NDArray> r =
      run({x, v}, {cov(x), cov(x, false), cov(x, true, true), cov(x, true, false, 2), cov(v)}, {a, load("m37_row0")});
  check_close(r[0], load("cov_m37"), 1e-13);
  check_close(r[1], load("cov_m37_cols"), 1e-13);
  check_close(r[2], load("cov_m37_bias"), 1e-13);
  check_close(r[3], load("cov_m37_ddof2"), 1e-13);
  check_close(r[4], load("cov_v7"), 1e-13);
  testing::check_infer_shape({x}, {cov(x), cov(x, false)}, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return cov(in[0]); }, {a});
  CHECK_THROWS_WITH_AS(cov(tensor3("t")), doctest::Contains("cov: t must be 1-d or 2-d, got rank 3"), ValueError);
}
