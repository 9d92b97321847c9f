// Array utilities, group 6 (pad: constant, edge, reflect, symmetric, wrap)
// against NumPy fixtures (tests/data/array_ops/gen_array_ops.py), compiled by
// function(), at the widest widths each mode allows, with infer_shape,
// gradients and the errors (static and run-time).
#include "array_ops_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::array_ops_test;

TEST_CASE("array_ops pad matches NumPy in every mode") {
  const NDArray a = load("x34");
  const Var x = like(a, "x");
  const std::vector<std::pair<std::int64_t, std::int64_t>> w{{1, 2}, {2, 0}};
  const std::vector<NDArray> r = run(
      {x},
      {pad(x, w, "constant", 7.5), pad(x, w, "edge"), pad(x, w, "reflect"), pad(x, w, "symmetric"), pad(x, w, "wrap"),
       pad(x, {{2, 2}, {3, 3}}, "reflect"), pad(x, {{3, 3}, {4, 4}}, "symmetric"), pad(x, {{3, 3}, {4, 4}}, "wrap")},
      {a});
  check_equal(r[0], load("pad_x34_constant"));
  check_equal(r[1], load("pad_x34_edge"));
  check_equal(r[2], load("pad_x34_reflect"));
  check_equal(r[3], load("pad_x34_symmetric"));
  check_equal(r[4], load("pad_x34_wrap"));
  check_equal(r[5], load("pad_x34_reflect_full"));
  check_equal(r[6], load("pad_x34_symmetric_full"));
  check_equal(r[7], load("pad_x34_wrap_full"));
  const NDArray b = load("x3"), bf = load("x3_f32");
  const Var y = like(b, "y"), yf = like(bf, "yf");
  const std::vector<NDArray> r3 = run({y, yf}, {pad(y, 1, "reflect"), pad(yf, 1, "wrap")}, {b, bf});
  check_equal(r3[0], load("pad_x3_1_reflect"));
  check_equal(r3[1], load("pad_x3_f32_1_wrap"));
  testing::check_infer_shape({x}, {pad(x, w, "constant"), pad(x, w, "reflect"), pad(x, w, "edge")}, {a});
  for (const char* mode : {"constant", "edge", "reflect", "symmetric", "wrap"}) {
    CAPTURE(mode);
    testing::verify_grad([&](const std::vector<Var>& in) { return pad(in[0], w, mode); }, {a});
  }
}

TEST_CASE("array_ops pad errors name pad and the values") {
  const Var x = tensor::tensor(DType::Float64, {3, 4}, "x");
  CHECK_THROWS_WITH_AS(pad(x, 1, "mean"), doctest::Contains("pad: mode must be 'constant', 'edge', 'reflect'"),
                       ValueError);
  CHECK_THROWS_WITH_AS(pad(x, {{1, -2}, {0, 0}}), doctest::Contains("pad: the widths (1, -2) of entry 0 are negative"),
                       ValueError);
  CHECK_THROWS_WITH_AS(pad(x, {{1, 1}, {0, 0}, {2, 2}}),
                       doctest::Contains("pad: 3 (before, after) widths for x of rank 2"), ValueError);
  CHECK_THROWS_WITH_AS(pad(x, {{3, 0}, {0, 0}}, "reflect"),
                       doctest::Contains("pad: mode 'reflect' with widths (3, 0) on axis 0 of x needs a length of at "
                                         "least 4, got 3"),
                       ValueError);
  CHECK_THROWS_WITH_AS(pad(x, {{0, 0}, {0, 5}}, "wrap"),
                       doctest::Contains("pad: mode 'wrap' with widths (0, 5) on axis 1 of x needs a length of at "
                                         "least 5, got 4"),
                       ValueError);
  CHECK_THROWS_WITH_AS(
      pad(tensor::tensor(DType::Float64, {0}, "e"), 1, "edge"),
      doctest::Contains("pad: mode 'edge' with widths (1, 1) on axis 0 of e needs a length of at least "
                        "1, got 0"),
      ValueError);
  CHECK_THROWS_WITH_AS(pad(x, 1, "constant", dvector("v")), doctest::Contains("pad: value must be a scalar"),
                       TypeError);
  // An axis of unknown length: checked when the function runs.
  const Var m = dmatrix("m");
  CHECK_THROWS_WITH_AS(run({m}, {pad(m, 2, "symmetric")}, {NDArray::zeros({1, 4})}),
                       doctest::Contains("pad: mode 'symmetric' with widths (2, 2) on axis 0 of m needs a length of at "
                                         "least 2, got 1"),
                       AssertionError);
  // Zero widths: x itself.
  CHECK(pad(x, 0, "reflect").get() == x.get());
}
