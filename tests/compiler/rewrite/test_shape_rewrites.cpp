// Shape promotion (ShapeFeature), the reshape chain and the useless shape ops:
// each rewrite's graph before/after under fast_run (equal_computations against
// a graph built by hand) plus a numeric check against the unoptimized graph,
// and the cases where nothing may change because nothing is proven.
#include <doctest/doctest.h>

#include "../../../compiler/src/rewrite/shape_feature.h"
#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var si(const Var& x, int i) { return OpPtr(new T::Shape_i(i))->apply1({x}); }
Var i64c(std::int64_t v) { return T::constant(NDArray::scalar<std::int64_t>(v)); }

int count_op(const FunctionGraph& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type_name ? 1 : 0;
  return n;
}

/// Optimizes `outs` under fast_run and counts the nodes of `type_name` left.
int left_after(const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view type_name) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
  return count_op(fg, type_name);
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("ShapeFeature: shape(log(x)) is computed from x, the log never runs") {
    Var x = T::dmatrix("x");
    check_rewrite({x}, {T::shape(T::log(x))}, {T::make_vector({si(x, 0), si(x, 1)}, DType::Int64)});
    Function f = function({x}, {T::shape(T::log(x))});
    for (Apply* n : f.fgraph().apply_nodes()) CHECK_FALSE(T::is_elemwise(n, "log"));
    auto r = f({range({2, 5})});
    CHECK(r[0].shape() == std::vector<std::int64_t>{2});
    CHECK(r[0].data_as<std::int64_t>()[0] == 2);
    CHECK(r[0].data_as<std::int64_t>()[1] == 5);
    auto e = f({range({0, 4})});  // empty arrays
    CHECK(e[0].data_as<std::int64_t>()[0] == 0);
    CHECK(e[0].data_as<std::int64_t>()[1] == 4);
  }

  TEST_CASE("ShapeFeature: 0-d and static shapes become constants") {
    Var s = T::dscalar("s");
    check_rewrite({s}, {T::shape(T::exp(s))}, {T::constant(NDArray::from_vector<std::int64_t>({}, {0}))});
    Var x = T::tensor(DType::Float64, {4, std::nullopt}, "x");
    check_rewrite({x}, {T::shape(T::exp(x))}, {T::make_vector({i64c(4), si(x, 1)}, DType::Int64)});
    check_rewrite({x}, {si(T::exp(x), 0) * i64c(2)}, {i64c(8)});
    // shape_i of a constant
    Var k = T::constant(range({2, 3}));
    check_rewrite({s}, {T::make_vector({si(k, 1), T::cast(s, DType::Int64)})},
                  {T::make_vector({i64c(3), T::cast(s, DType::Int64)})});
  }

  TEST_CASE("local_track_shape_i: shape_i(f(x), i) is read from x") {
    Var x = T::dmatrix("x");
    Var row = T::tensor(DType::Float64, {1, std::nullopt}, "row");
    // Elementwise: the first input that is not broadcast in that dimension.
    check_rewrite({x, row}, {si(T::exp(row + x), 0)}, {si(x, 0)});
    check_rewrite({x, row}, {si(T::exp(row + x), 1)}, {si(row, 1)});
    // Through a subtensor: the slice's length, with no Subtensor of x computed.
    Var sub = T::subtensor(T::exp(x), {T::slice(1, T::none, T::none)});
    CHECK(left_after({x}, {si(sub, 0)}, "Subtensor") == 0);
    CHECK(left_after({x}, {si(sub, 0)}, "Elemwise") <= 3);  // integer arithmetic only, no exp
    FunctionOptions raw;
    raw.mode = "unoptimized";
    for (std::int64_t n : {0, 1, 4}) {
      auto want = function({x}, {si(sub, 0)}, raw)({range({n, 2})});
      auto got = function({x}, {si(sub, 0)})({range({n, 2})});
      CHECK(got[0].item<std::int64_t>() == want[0].item<std::int64_t>());
    }
  }

  TEST_CASE("ShapeFeature: follows replacements and keeps its shapes") {
    Var x = T::dmatrix("x");
    Var y = T::exp(-(-x));
    FunctionGraph fg({x}, {y});
    auto& sf = rewrite::detail::shape_feature(fg);
    CHECK(&sf == &rewrite::detail::shape_feature(fg));  // attached once
    Var gy = fg.outputs()[0], gx = fg.inputs()[0];
    CHECK(sf.is_dim(si(gx, 1), gy, 1));
    CHECK(sf.is_fallback(gx, 0));
    CHECK_FALSE(sf.is_fallback(gy, 0));
    Var neg = gy.owner()->input(0);  // -(-x)
    fg.replace(neg, gx, "test");
    CHECK(sf.is_dim(si(gx, 0), fg.outputs()[0], 0));
    // A replacement whose shape is unknown (a new input) takes the old one's.
    Var a = T::exp(gx);
    Var out2 = a * 2.0;
    fg.add_output(out2);
    Var fresh = T::dmatrix("fresh");
    CHECK(sf.is_fallback(fresh, 0));
    fg.replace(a, fresh, "test", false, /*import_missing=*/true);
    CHECK_FALSE(sf.is_fallback(fresh, 0));
    CHECK(sf.is_dim(si(gx, 1), fresh, 1));
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    CHECK(fg.find_feature<rewrite::detail::ShapeFeature>() == &sf);
  }

  TEST_CASE("local_reshape_chain: reshape(reshape(x, s1), s2) -> reshape(x, s2)") {
    Var x = T::tensor(DType::Float64, {6}, "x");
    check_rewrite({x}, {T::exp(T::reshape(T::reshape(x, {2, 3}), {3, 2}))}, {T::exp(T::reshape(x, {3, 2}))});
    // reshape(flatten(m), shape(m)) -> reshape(m, shape(m)) -> m
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(T::reshape(T::flatten(m, 1), T::shape(m), 2))}, {T::exp(m)});
  }

  TEST_CASE("local_useless_reshape: reshape(x, shape(x)) -> x, only when proven") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(T::reshape(m, T::shape(m), 2))}, {T::exp(m)});
    Var v = T::dvector("v");
    check_rewrite({v}, {T::exp(T::reshape(v, {-1}))}, {T::exp(v)});
    Var s = T::tensor(DType::Float64, {2, 3}, "s");
    check_rewrite({s}, {T::exp(T::reshape(s, {2, 3}))}, {T::exp(s)});
    // Not provable: kept.
    CHECK(left_after({m}, {T::exp(T::reshape(m, {3, -1}))}, "Reshape") == 1);
    Var w = T::dmatrix("w");
    CHECK(left_after({m, w}, {T::exp(T::reshape(m, T::shape(w), 2))}, "Reshape") == 1);
    CHECK(left_after({s}, {T::exp(T::reshape(s, {3, 2}))}, "Reshape") == 1);
  }

  TEST_CASE("local_useless_alloc: alloc(x, *shape(x)) -> x") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(T::alloc(m, std::vector<T::TensorLike>{T::shape_i(m, 0), T::shape_i(m, 1)}))},
                  {T::exp(m)});
    check_rewrite({m}, {T::exp(T::alloc(m, T::shape(m)))}, {T::exp(m)});
    Var s = T::dscalar("s");
    check_rewrite({s}, {T::exp(T::alloc(s, std::vector<T::TensorLike>{}))}, {T::exp(s)});
    // Empty arrays go through unchanged.
    Function f = function({m}, {T::exp(T::alloc(m, T::shape(m)))});
    CHECK(f({range({0, 3})})[0].shape() == std::vector<std::int64_t>{0, 3});
    // Not provable (or a real broadcast): kept.
    CHECK(left_after({m}, {T::exp(T::alloc(m, std::vector<T::TensorLike>{3, T::shape_i(m, 1)}))}, "Alloc") == 1);
    Var v = T::dvector("v");
    CHECK(left_after({v, m}, {T::exp(T::alloc(v, std::vector<T::TensorLike>{T::shape_i(m, 0), T::shape_i(v, 0)}))},
                     "Alloc") == 1);
  }

  TEST_CASE("local_useless_specify_shape: specify_shape of a known shape -> x") {
    Var x = T::tensor(DType::Float64, {2, std::nullopt}, "x");
    check_rewrite({x}, {T::exp(T::specify_shape(x, T::StaticShape{2, std::nullopt}))}, {T::exp(x)});
    check_rewrite({x}, {T::exp(T::specify_shape(x, std::vector<Var>{Var(), T::shape_i(x, 1)}))}, {T::exp(x)});
    // A promise the type does not already make is kept (the output type is more specific).
    Var m = T::dmatrix("m");
    CHECK(left_after({m}, {T::exp(T::specify_shape(m, T::StaticShape{3, std::nullopt}))}, "SpecifyShape") == 1);
  }

  TEST_CASE("shape rewrites stay linear on a long chain") {
    Var x = T::dvector("x");
    Var y = x;
    for (int i = 0; i < 3000; ++i) y = T::exp(y);
    FunctionGraph fg({x}, {T::shape(y), y});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
    // The shape output is computed from x alone.
    Var shp = fg.outputs()[0];
    REQUIRE(shp.owner());
    CHECK(shp.owner()->op()->type_name() == "MakeVector");
    CHECK(shp.owner()->input(0).owner()->input(0) == fg.inputs()[0]);
  }
}
