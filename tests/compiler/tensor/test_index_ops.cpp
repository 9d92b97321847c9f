// The value-dependent and index-producing functions of index_ops.h (nonzero,
// flatnonzero, argwhere, unique, bincount, searchsorted, fill_diagonal(_offset),
// ravel_multi_index / unravel_index, compress, choose) against the NumPy
// fixtures of tests/data/index_ops/gen_index_ops_fixtures.py, through their
// perform (tests/codegen/test_index_ops_codegen.cpp runs the generated code),
// with infer_shape, gradients and the errors for bad input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using theano::test::error_of;

namespace {

NDArray load(const std::string& name) {
  return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/index_ops/" + name + ".npy");
}

Var var_like(const NDArray& a, const std::string& name) {
  return tensor::tensor(a.dtype(), StaticShape(static_cast<std::size_t>(a.ndim()), std::nullopt), name);
}

/// NaN-aware equality of two float arrays of one shape.
bool same(const NDArray& a, const NDArray& b) {
  return a.shape() == b.shape() && allclose(a.astype(DType::Float64), b.astype(DType::Float64), 0, 0, true);
}

}  // namespace

TEST_CASE("nonzero, flatnonzero, argwhere against NumPy (NaN nonzero, -0.0 zero), empty and all-false inputs") {
  const NDArray xv = load("nonzero_x");
  const Var x = var_like(xv, "x");
  const std::vector<Var> nz = nonzero(x);
  REQUIRE(nz.size() == 3);
  Function f = function({x}, {stack(nz), flatnonzero(x), argwhere(x)});
  const std::vector<NDArray> got = f({xv});
  CHECK(array_equal(got[0], load("nonzero_out")));
  CHECK(array_equal(got[1], load("flatnonzero_out")));
  CHECK(array_equal(got[2], load("argwhere_out")));
  // Empty and all-false inputs; a bool input goes straight in.
  const Var b = tensor::tensor(DType::Bool, {std::nullopt}, "b");
  Function fb = function({b}, flatnonzero(b));
  CHECK(fb(NDArray::zeros({0}, DType::Bool)).value().shape() == std::vector<std::int64_t>{0});
  CHECK(fb(NDArray::zeros({4}, DType::Bool)).value().shape() == std::vector<std::int64_t>{0});
  CHECK_THROWS_WITH_AS(nonzero(dscalar("s")), doctest::Contains("0-d"), ValueError);
  CHECK(function({x}, argwhere(x[0][0][0]))({xv})[0].shape() == std::vector<std::int64_t>{1, 0});
  testing::check_infer_shape({x}, {argwhere(x), flatnonzero(x)}, {xv});
}

TEST_CASE("unique against NumPy: index, inverse, counts, NaNs as one value, axis") {
  const NDArray uv = load("unique_x");
  const Var u = var_like(uv, "u");
  const std::vector<Var> r = unique(u, true, true, true);
  REQUIRE(r.size() == 4);
  const std::vector<NDArray> got = function({u}, std::vector<Out>(r.begin(), r.end()))({uv});
  CHECK(same(got[0], load("unique_values")));
  CHECK(array_equal(got[1], load("unique_index")));
  CHECK(array_equal(got[2], load("unique_inverse")));
  CHECK(array_equal(got[3], load("unique_counts")));
  const NDArray rv = load("unique_rows_x");
  const Var rows = tensor::tensor(DType::Int64, {std::nullopt, 3}, "rows");
  const std::vector<NDArray> gr = function({rows}, [&] { const auto v = unique(rows, true, true, true, 0); return std::vector<Out>(v.begin(), v.end()); }())({rv});
  CHECK(array_equal(gr[0], load("unique_rows_values")));
  CHECK(array_equal(gr[1], load("unique_rows_index")));
  CHECK(array_equal(gr[2], load("unique_rows_inverse")));
  CHECK(array_equal(gr[3], load("unique_rows_counts")));
  const Var rc = tensor::tensor(DType::Int64, {5, std::nullopt}, "rc");
  CHECK(array_equal(function({rc}, unique(rc, false, false, false, 1)[0])({rv})[0], load("unique_cols_values")));
  // Empty input; an axis whose other sizes are unknown is refused with the reason.
  CHECK(function({u}, unique(u))(std::vector<NDArray>{NDArray::zeros({0, 3})})[0].shape() == std::vector<std::int64_t>{0});
  CHECK_THROWS_WITH_AS(unique(lmatrix("m"), false, false, false, 0), doctest::Contains("must be known"), ValueError);
}

TEST_CASE("bincount against NumPy: counts, weights (with gradient), minlength, negative values rejected") {
  const NDArray bv = load("bincount_x"), wv = load("bincount_w");
  const Var b = lvector("b"), w = dvector("w");
  const std::vector<NDArray> got = function({b, w}, {bincount(b), bincount(b, w), bincount(b, Var(), 12)})({bv, wv});
  CHECK(array_equal(got[0], load("bincount_out")));
  CHECK(allclose(got[1], load("bincount_w_out"), 1e-14, 1e-14));
  CHECK(array_equal(got[2], load("bincount_min_out")));
  Function f = function({b}, bincount(b, Var(), 3));
  CHECK(array_equal(f(NDArray::zeros({0}, DType::Int64)).value(), NDArray::zeros({3}, DType::Int64)));
  CHECK(error_of([&] { f(NDArray::from_list<std::int64_t>({1, -2}, {2})); }).find("non-negative, got the value -2") !=
        std::string::npos);
  CHECK_THROWS_AS(bincount(b, Var(), -1), ValueError);
  CHECK_THROWS_AS(bincount(dvector("d")), TypeError);
  testing::verify_grad([&](const std::vector<Var>& in) { return bincount(constant(bv), in[0]); }, {wv});
}

TEST_CASE("searchsorted against NumPy: sides, NaN last, sorter checked") {
  const NDArray av = load("ss_a"), vv = load("ss_v");
  const Var a = dvector("a"), v = dmatrix("v"), s = lvector("s");
  const std::vector<NDArray> got =
      function({a, v}, {searchsorted(a, v), searchsorted(a, v, "right")})({av, vv});
  CHECK(array_equal(got[0], load("ss_left")));
  CHECK(array_equal(got[1], load("ss_right")));
  Function fs = function({a, v, s}, searchsorted(a, v, "left", s));
  const NDArray uns = load("ss_unsorted"), sorter = load("ss_sorter");
  CHECK(array_equal(fs({uns, vv, sorter}).value(), load("ss_sorter_left")));
  NDArray bad = sorter.copy();
  bad.data_as<std::int64_t>()[2] = 40;
  CHECK(error_of([&] { fs({uns, vv, bad}); }).find("sorter[2] = 40 is out of range for a of length 12") !=
        std::string::npos);
  // Mixed dtypes meet in float64; an int64 v against float a.
  CHECK(array_equal(function({a}, searchsorted(a, constant(NDArray::from_list<std::int64_t>({3}, {1}))))({av})[0],
                    function({a}, searchsorted(a, constant(NDArray::from_list<double>({3}, {1}))))({av})[0]));
  CHECK_THROWS_AS(searchsorted(a, v, "middle"), ValueError);
  testing::check_infer_shape({a, v}, {searchsorted(a, v)}, {av, vv});
}

TEST_CASE("fill_diagonal and fill_diagonal_offset against NumPy, with gradients") {
  for (const char* name : {"tall", "wide", "cube"}) {
    CAPTURE(name);
    const NDArray xv = load(std::string("fd_") + name + "_x");
    const Var x = var_like(xv, "x");
    CHECK(array_equal(function({x}, fill_diagonal(x, 5.0))({xv})[0], load(std::string("fd_") + name + "_out")));
  }
  const NDArray fo = load("fdo_x");
  const Var m = dmatrix("m"), off = lscalar("off");
  Function f = function({m, off}, fill_diagonal_offset(m, 5.0, off));
  for (const int o : {-5, -2, 0, 3, 7}) {
    CAPTURE(o);
    const std::string tag = o < 0 ? "m" + std::to_string(-o) : std::to_string(o);
    CHECK(array_equal(f({fo, NDArray::scalar<std::int64_t>(o)}).value(), load("fdo_" + tag + "_out")));
  }
  testing::verify_grad([](const std::vector<Var>& in) { return fill_diagonal(in[0], in[1]) * in[0]; },
                       {load("fd_tall_x"), NDArray::scalar<double>(0.7)});
  testing::verify_grad([](const std::vector<Var>& in) { return fill_diagonal_offset(in[0], in[1], -1) * in[0]; },
                       {fo, NDArray::scalar<double>(-0.3)});
  CHECK_THROWS_AS(fill_diagonal(dvector("v"), 1.0), ValueError);
  CHECK_THROWS_AS(fill_diagonal(dmatrix("q"), dvector("v")), TypeError);
}

TEST_CASE("ravel_multi_index and unravel_index against NumPy: modes, orders, range errors") {
  const Var i0 = tensor::tensor(DType::Int64, {std::nullopt, 1}, "i0"), i1 = tensor::tensor(DType::Int64, {1, std::nullopt}, "i1");
  const NDArray v0 = load("rmi_i0"), v1 = load("rmi_i1");
  const std::vector<NDArray> got = function(
      {i0, i1}, {ravel_multi_index({i0, i1}, {3, 5}, "wrap"), ravel_multi_index({i0, i1}, {3, 5}, "clip", 'F')})({v0, v1});
  CHECK(array_equal(got[0], load("rmi_wrap_C")));
  CHECK(array_equal(got[1], load("rmi_clip_F")));
  const Var a = lvector("a"), b = lvector("b"), d = lscalar("d");
  Function fr = function({a, b, d}, ravel_multi_index({a, b}, {d, 5}));
  CHECK(array_equal(fr({load("rmi_ok0"), load("rmi_ok1"), NDArray::scalar<std::int64_t>(3)}).value(), load("rmi_raise_C")));
  CHECK(error_of([&] { fr({load("rmi_ok0"), load("rmi_ok1"), NDArray::scalar<std::int64_t>(2)}); })
            .find("invalid entry in coordinates array 0: a value is out of [0, 2)") != std::string::npos);
  const NDArray ui = load("ui_idx");
  const Var idx = lmatrix("idx");
  CHECK(array_equal(function({idx}, stack(unravel_index(idx, {3, 4, 5})))({ui})[0], load("ui_C")));
  CHECK(array_equal(function({idx}, stack(unravel_index(idx, {3, 4, 5}, 'F')))({ui})[0], load("ui_F")));
  Function fu = function({idx}, stack(unravel_index(idx, {3, 4, 5})));
  CHECK(error_of([&] { fu(NDArray::from_list<std::int64_t>({60}, {1, 1})); })
            .find("out of bounds for an array of size 60") != std::string::npos);
  CHECK_THROWS_AS(ravel_multi_index({a}, {3, 4}), ValueError);
  CHECK_THROWS_AS(unravel_index(a, {3}, 'X'), ValueError);
}

TEST_CASE("compress and choose against NumPy, with gradients and range errors") {
  const NDArray cx = load("compress_x"), cond = load("compress_cond").astype(DType::Bool);
  const Var x = dmatrix("x"), c = tensor::tensor(DType::Bool, {std::nullopt}, "c");
  const std::vector<NDArray> got = function({c, x}, {compress(c, x, 1), compress(c, x)})({cond, cx});
  CHECK(array_equal(got[0], load("compress_axis1")));
  CHECK(array_equal(got[1], load("compress_none")));
  Function fc = function({c, x}, compress(c, x, 0));
  CHECK(error_of([&] { fc({NDArray::zeros({5}, DType::Bool), cx}); }).find("condition has 5 entries, more than the 4") !=
        std::string::npos);
  const NDArray av = load("choose_a"), c0 = load("choose_c0"), c1 = load("choose_c1");
  const Var a = lmatrix("a"), x0 = dmatrix("x0"), x1 = tensor::tensor(DType::Float64, {1, std::nullopt}, "x1");
  const std::vector<NDArray> gc =
      function({a, x0, x1}, {choose(a, {x0, x1, 7.5}, "wrap"), choose(a, {x0, x1, 7.5}, "clip")})({av, c0, c1});
  CHECK(array_equal(gc[0], load("choose_wrap")));
  CHECK(array_equal(gc[1], load("choose_clip")));
  Function fr = function({a, x0, x1}, choose(a, {x0, x1, 7.5}));
  CHECK(error_of([&] { fr({av, c0, c1}); }).find("a value is out of [0, 3)") != std::string::npos);
  testing::verify_grad([&](const std::vector<Var>& in) { return choose(constant(av), {in[0], in[1], 7.5}, "wrap"); },
                       {c0, c1});
  testing::verify_grad([&](const std::vector<Var>& in) { return compress(constant(cond), in[0], 1); }, {cx});
}
