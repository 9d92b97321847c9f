// local_sort_slice_to_topk: sort(x)[..., -k:] and sort(x)[..., :k] become a
// top-k (ArgTopKOp, a partial selection) when k fits the static length and
// nothing else reads the sort; graph before/after and values against the
// unoptimized graph, ties and NaN included; local_cumsum_of_fill: the running
// sum of a constant fill becomes a product with 1, 2, 3, ...
#include <doctest/doctest.h>

#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

int count_after(const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view type) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run"));
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type ? 1 : 0;
  return n;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_sort_slice_to_topk: the ends of a sort become a top-k, values unchanged") {
    const Var x = T::tensor(DType::Float64, {3, 8}, "x");
    const Var last = T::sort(x, 1)[{T::all, T::slice(-3, T::none)}];
    const Var first = T::sort(x, 0)[{T::slice(T::none, 2)}];
    CHECK(count_after({x}, {last}, "SortOp") == 0);
    CHECK(count_after({x}, {last}, "ArgTopKOp") == 1);
    CHECK(count_after({x}, {first}, "SortOp") == 0);
    CHECK(count_after({x}, {first}, "ArgTopKOp") == 1);
    NDArray xv = NDArray::empty({3, 8}, DType::Float64);
    for (std::int64_t e = 0; e < 24; ++e) xv.data_as<double>()[e] = static_cast<double>((e * 5) % 7) - 3;  // ties
    xv.data_as<double>()[3] = std::numeric_limits<double>::quiet_NaN();
    xv.data_as<double>()[13] = -std::numeric_limits<double>::infinity();
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const auto want = function({x}, {last, first}, raw)({xv});
    const auto got = function({x}, {last, first})({xv});
    CHECK(allclose(got[0], want[0], 0, 0, true));
    CHECK(allclose(got[1], want[1], 0, 0, true));
    // Kept: k past the static length, an unknown length, a step, a sort read elsewhere.
    CHECK(count_after({x}, {T::sort(x, 1)[{T::all, T::slice(-9, T::none)}]}, "SortOp") == 1);
    const Var m = T::dmatrix("m");
    CHECK(count_after({m}, {T::sort(m, 1)[{T::all, T::slice(-2, T::none)}]}, "SortOp") == 1);
    CHECK(count_after({x}, {T::sort(x, 1)[{T::all, T::slice(-4, T::none, 2)}]}, "SortOp") == 1);
    const Var s = T::sort(x, 1);
    CHECK(count_after({x}, {s[{T::all, T::slice(-2, T::none)}], s * 2.0}, "SortOp") == 1);
  }
}

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_cumsum_of_fill: the running sum of a constant fill is the fill times 1, 2, 3, ...") {
    const Var n = T::lscalar("n"), c = T::dscalar("c");
    const Var fill = T::alloc(c, {n, 5});
    const Var along1 = T::cumsum(fill, 1), along0 = T::cumsum(fill, 0);
    const Var ints = T::cumsum(T::alloc(T::constant(NDArray::scalar<std::int32_t>(3)), {n, 2}), 0);
    CHECK(count_after({n, c}, {along1}, "CumOp") == 0);
    CHECK(count_after({n, c}, {along0, ints}, "CumOp") == 0);
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const std::vector<NDArray> args{NDArray::scalar<std::int64_t>(4), NDArray::scalar<double>(0.1)};
    const auto want = function({n, c}, {along1, along0, ints}, raw)(args);
    const auto got = function({n, c}, {along1, along0, ints})(args);
    for (int k = 0; k < 3; ++k) {
      CHECK(got[k].dtype() == want[k].dtype());
      CHECK(allclose(got[k], want[k], 1e-15, 0));  // one rounding instead of a running one
    }
    CHECK(got[2].dtype() == DType::Int32);
    // Kept: a cumprod, the cumsum of a non-constant tensor.
    CHECK(count_after({n, c}, {T::cumprod(fill, 1)}, "CumOp") == 1);
    const Var m = T::dmatrix("m");
    CHECK(count_after({m}, {T::cumsum(m, 1)}, "CumOp") == 1);
  }
}
