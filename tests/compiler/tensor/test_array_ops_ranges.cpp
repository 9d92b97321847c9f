// Array utilities, group 3 (linspace, logspace, geomspace, mgrid, ogrid,
// tile, repeat) against NumPy fixtures (tests/data/array_ops/gen_array_ops.py),
// compiled by function(), with symbolic bounds and counts, infer_shape,
// gradients and the errors.
#include "array_ops_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::array_ops_test;

TEST_CASE("array_ops linspace, logspace, geomspace match NumPy, with symbolic bounds") {
  const Var lo = dscalar("lo"), hi = dscalar("hi");
  const std::vector<NDArray> r =
      run({lo, hi},
          {linspace(lo, hi, 7, true, DType::Float64), linspace(lo, hi, 7, false, DType::Float64),
           linspace(lo, hi, 1, true, DType::Float64), linspace(lo, hi, 5, true, DType::Float32),
           linspace(lo, hi, 0, true, DType::Float64)},
          {NDArray::scalar<double>(-1.5), NDArray::scalar<double>(2.0)});
  check_close(r[0], load("linspace_7"), 1e-15);
  CHECK(r[0].data_as<double>()[6] == 2.0);  // the endpoint exactly
  check_close(r[1], load("linspace_7_open"), 1e-15);
  check_close(r[2], load("linspace_1"));
  check_close(r[3], load("linspace_f32"), 1e-6);
  CHECK(r[4].shape() == std::vector<std::int64_t>{0});
  const std::vector<NDArray> c =
      run({},
          {linspace(-3, 9, 5, true, DType::Int64), logspace(0.0, 2.0, 5, true, 10.0, DType::Float64),
           logspace(0.0, 3.0, 5, false, 2.0, DType::Float64), geomspace(1.0, 1000.0, 4, true, DType::Float64),
           geomspace(-1.0, -1000.0, 4, true, DType::Float64), geomspace(1000.0, 1.0, 4, false, DType::Float64)},
          {});
  check_equal(c[0], load("linspace_int"));
  check_close(c[1], load("logspace_5"), 1e-14);
  check_close(c[2], load("logspace_5_b2"), 1e-14);
  check_close(c[3], load("geomspace_4"), 1e-14);
  check_close(c[4], load("geomspace_neg"), 1e-14);
  check_close(c[5], load("geomspace_open"), 1e-14);
  // The gradient reaches start and stop.
  testing::verify_grad([](const std::vector<Var>& in) { return linspace(in[0], in[1], 6, true, DType::Float64); },
                       {NDArray::scalar<double>(0.3), NDArray::scalar<double>(1.7)});
  testing::verify_grad([](const std::vector<Var>& in) { return geomspace(in[0], in[1], 4, true, DType::Float64); },
                       {NDArray::scalar<double>(0.5), NDArray::scalar<double>(3.0)});
  CHECK_THROWS_WITH_AS(linspace(0, 1, -2), doctest::Contains("linspace: num must be non-negative, got -2"), ValueError);
  CHECK_THROWS_WITH_AS(linspace(dvector("v"), 1, 3), doctest::Contains("linspace: start must be a scalar"), TypeError);
  CHECK_THROWS_WITH_AS(geomspace(0.0, 4.0, 3), doctest::Contains("geomspace: a geometric sequence cannot include zero"),
                       ValueError);
  CHECK_THROWS_WITH_AS(geomspace(-1.0, 4.0, 3),
                       doctest::Contains("geomspace: start -1 and stop 4 have different signs"), ValueError);
  CHECK_THROWS_WITH_AS(run({lo, hi}, {geomspace(lo, hi, 3, true, DType::Float64)},
                           {NDArray::scalar<double>(-1.0), NDArray::scalar<double>(2.0)}),
                       doctest::Contains("geomspace: start and stop must be nonzero and of one sign"), AssertionError);
}

TEST_CASE("array_ops mgrid and ogrid match NumPy") {
  const Var n = lscalar("n");
  const std::vector<NDArray> r = run(
      {n}, {mgrid({{0, n}, {1, 5, 2}}), ogrid({{0, n}, {1, 5, 2}})[0], ogrid({{0, 3}, {1, 5, 2}})[1]}, {test::i64(3)});
  check_equal(r[0], load("mgrid_03_152"));
  check_equal(r[1], load("ogrid_0"));
  check_equal(r[2], load("ogrid_1"));
  CHECK_THROWS_WITH_AS(mgrid({}), doctest::Contains("mgrid: give at least one range"), ValueError);
}

TEST_CASE("array_ops repeat with one count per element matches NumPy") {
  const NDArray a = load("x23");
  const Var x = like(a, "x");
  const Var r = lvector("r"), q = ivector("q");
  const auto i64s = [](std::initializer_list<std::int64_t> v) { return NDArray::from_list<std::int64_t>(v); };
  Function f = function({In(x), In(r), In(q)}, std::vector<Out>{Out(repeat(x, r, 1)), Out(repeat(x, q, 0))});
  const auto out = [&](NDArray rv, NDArray qv) { return f(std::vector<NDArray>{a, rv, qv}); };
  const Outputs o = out(i64s({2, 0, 3}), NDArray::from_list<std::int32_t>({1, 2}));
  check_equal(o[0], load("repeat_x23_203_a1"));
  check_equal(o[1], load("repeat_x23_12_a0"));
  CHECK_THROWS_WITH_AS(out(i64s({2, 0, 3}), NDArray::from_list<std::int32_t>({1, 2, 3})),
                       doctest::Contains("repeat: repeats has 3 entries for axis 0 of length 2"), AssertionError);
  check_equal(run({x, r}, {repeat(x, r, 1)}, {a, i64s({2, 3, 0})})[0], load("repeat_x23_230_a1"));
  check_equal(run({x, r}, {repeat(x, r)}, {a, i64s({0, 1, 0, 2, 3, 1})})[0], load("repeat_x23_each_none"));
  // A static length-1 vector is one count for all, as NumPy broadcasts it.
  check_equal(repeat(x, constant(i64s({3})), 1).eval({{x, a}}), load("repeat_x23_3_a1"));
  CHECK_THROWS_WITH_AS(run({x, r}, {repeat(x, r, 1)}, {a, i64s({1, -1, 2})}),
                       doctest::Contains("repeat: a count in repeats is negative"), AssertionError);
  CHECK_THROWS_WITH_AS(run({x, r}, {repeat(x, r, 1)}, {a, i64s({1, std::int64_t{1} << 62, 2})}),
                       doctest::Contains("repeat: the repeated length of axis 1 (length 3) overflows int64"),
                       AssertionError);
  testing::check_infer_shape({x, r}, {repeat(x, r, 1)}, {a, i64s({1, 0, 2})});
  testing::verify_grad([&](const std::vector<Var>& in) { return repeat(in[0], constant(i64s({2, 0, 3})), 1); }, {a});
}

TEST_CASE("array_ops tile and repeat match NumPy, with a symbolic count") {
  const NDArray a = load("x23");
  const Var x = like(a, "x");
  const Var k = lscalar("k");
  const std::vector<NDArray> r = run({x, k},
                                     {tile(x, {2, 1, 3}), tile(x, {2}), tile(x, {3, 0}), repeat(x, 3, 1), repeat(x, k),
                                      repeat(x, 0, 0), repeat(x, k, -1)},
                                     {a, test::i64(2)});
  check_equal(r[0], load("tile_x23_213"));
  check_equal(r[1], load("tile_x23_2"));
  check_equal(r[2], load("tile_x23_30"));
  check_equal(r[3], load("repeat_x23_3_a1"));
  check_equal(r[4], load("repeat_x23_2_none"));
  check_equal(r[5], load("repeat_x23_0_a0"));
  CHECK(r[6].shape() == std::vector<std::int64_t>{2, 6});
  // Static sizes stay static.
  const Var s = tensor::tensor(DType::Float64, {2, 3}, "s");
  CHECK(tensor_type(tile(s, {2, 1, 3}))->shape() == StaticShape{2, 2, 9});
  CHECK(tensor_type(repeat(s, 4, 0))->shape() == StaticShape{8, 3});
  testing::check_infer_shape({x, k}, {tile(x, {3, 2}), repeat(x, k, 0)}, {a, test::i64(3)});
  testing::verify_grad([](const std::vector<Var>& in) { return tile(in[0], {2, 1, 2}); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return repeat(in[0], 3, 0); }, {a.astype(DType::Float32)});
  CHECK_THROWS_WITH_AS(tile(x, {2, -1}), doctest::Contains("tile: reps[1] is negative (-1)"), ValueError);
  CHECK_THROWS_WITH_AS(tile(tensor::tensor(DType::Float64, {std::int64_t{1} << 40}, "big"), {std::int64_t{1} << 30}),
                       doctest::Contains("tile: the size 1099511627776 * 1073741824 overflows int64"), ValueError);
  CHECK_THROWS_WITH_AS(repeat(x, -2), doctest::Contains("repeat: repeats must be non-negative, got -2"), ValueError);
  CHECK_THROWS_WITH_AS(run({x, k}, {repeat(x, k)}, {a, test::i64(-3)}),
                       doctest::Contains("repeat: repeats must be non-negative, got -3"), AssertionError);
  CHECK_THROWS_WITH_AS(repeat(x, lmatrix("r")),
                       doctest::Contains("repeat: repeats must be an integer or an integer vector"), TypeError);
  CHECK_THROWS_WITH_AS(repeat(x, 2, 2), doctest::Contains("repeat: axis 2 is out of range"), ValueError);
}
