// The array utilities (theano/tensor/array_ops.h) through the cpp linker: one
// function() of several of them (symbolic roll, pad, tile, a symbolic repeat,
// topk, quantile, take_along_axis, linspace, isclose, cov) compiled to C++ and
// checked against the NumPy fixtures of tests/data/array_ops/gen_array_ops.py.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "theano/tensor/array_ops.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray load(const std::string& name) {
  return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/array_ops/" + name + ".npy");
}

Var like(const NDArray& a, const std::string& name) {
  return tensor::tensor(a.dtype(), StaticShape(static_cast<std::size_t>(a.ndim())), name);
}

void check_close(const NDArray& got, const NDArray& want, double rtol = 1e-12) {
  REQUIRE(dtype_name(got.dtype()) == dtype_name(want.dtype()));
  REQUIRE(got.shape() == want.shape());
  CHECK_MESSAGE(allclose(got, want, rtol, 1e-12, true), got.str() << "\nvs\n" << want.str());
}

}  // namespace

TEST_CASE("array_ops compiled by the cpp linker match NumPy") {
  const NDArray x3 = load("x3"), x2 = load("x2"), x23 = load("x23"), x34 = load("x34"), m37 = load("m37");
  const NDArray idx = load("tal_idx_a1"), ca = load("close_a"), cb = load("close_b");
  const Var a = like(x3, "a"), b = like(x2, "b"), c = like(x23, "c"), d = like(x34, "d"), m = like(m37, "m");
  const Var i = like(idx, "i"), p = like(ca, "p"), q = like(cb, "q");
  const Var k = lscalar("k"), lo = dscalar("lo"), hi = dscalar("hi");
  FunctionOptions o;
  o.mode = "fast_run";
  const std::vector<Var> outs{roll(a, k, 2),
                              pad(d, {{1, 2}, {2, 0}}, "reflect"),
                              pad(d, {{1, 2}, {2, 0}}, "constant", 7.5),
                              tile(c, {2, 1, 3}),
                              repeat(c, k),
                              topk(b, 3),
                              argtopk(b, -2, 0),
                              quantile(a, 0.3, 1),
                              median(a, 2),
                              take_along_axis(a, i, 1),
                              linspace(lo, hi, 7, true, DType::Float64),
                              isclose(p, q),
                              cov(m),
                              diff(a, 2, 1)};
  std::vector<In> ins{In(a), In(b), In(c), In(d), In(m), In(i), In(p), In(q), In(k), In(lo), In(hi)};
  Function f = function(ins, std::vector<Out>(outs.begin(), outs.end()), o);
  CHECK(f.mode().linker == "cpp");
  const Outputs r = f(std::vector<NDArray>{x3, x2, x23, x34, m37, idx, ca, cb, test::i64(5),
                                           NDArray::scalar<double>(-1.5), NDArray::scalar<double>(2.0)});
  check_close(r[0], load("roll_x3_s5_a2"));
  check_close(r[1], load("pad_x34_reflect"));
  check_close(r[2], load("pad_x34_constant"));
  check_close(r[3], load("tile_x23_213"));
  CHECK(r[4].shape() == std::vector<std::int64_t>{30});
  check_close(r[5], load("topk_x2_k3"));
  check_close(r[6], load("argtopk_x2_km2_a0"));
  check_close(r[7], load("quantile_x3_q03_a1"), 1e-14);
  check_close(r[8], load("median_x3_a2"), 1e-14);
  check_close(r[9], load("tal_x3_a1"));
  check_close(r[10], load("linspace_7"), 1e-15);
  check_close(r[11], load("isclose_default"));
  check_close(r[12], load("cov_m37"), 1e-13);
  check_close(r[13], load("diff_x3_n2_a1"));
  // A failed run-time check reports through the generated code's error path.
  CHECK_THROWS_WITH_AS(f(std::vector<NDArray>{x3, x2, x23, x34, m37, idx, ca, cb, test::i64(-1),
                                              NDArray::scalar<double>(0.0), NDArray::scalar<double>(1.0)}),
                       doctest::Contains("repeat: repeats must be non-negative, got -1"), AssertionError);
}
