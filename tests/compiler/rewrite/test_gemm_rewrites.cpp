// The gemm family as users write it (PyTensor's tests/tensor/test_blas.py
// cases): sums of two products, scaled forms with any constants, subtraction,
// transposed operands and the transpose of a product, and the gemv / ger
// equivalents. Each: the optimized graph is exactly the expected Gemm / Gemv /
// Ger nodes (no Dot left) and computes what the unoptimized graph does. An
// outer product left over is an elementwise product (local_outer_dot_to_mul).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var s(double v) { return T::constant(NDArray::scalar<double>(v)); }

int count_ops(const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view type) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type;
  return n;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_gemm: Z + dot(a, b) + dot(c, d) is two Gemms and no Dot") {
    Var Z = T::dmatrix("Z"), a = T::dmatrix("a"), b = T::dmatrix("b"), c2 = T::dmatrix("c"), d = T::dmatrix("d");
    Var y = Z + T::dot(a, b) + T::dot(c2, d);
    check_rewrite({Z, a, b, c2, d}, {y}, {T::gemm(T::gemm(Z, s(1), a, b, s(1)), s(1), c2, d, s(1))});
    CHECK(count_ops({Z, a, b, c2, d}, {y}, "Dot22") + count_ops({Z, a, b, c2, d}, {y}, "Dot") == 0);
  }

  TEST_CASE("local_gemm: alpha * Z + beta * dot(a, b) with any constants, and Z - dot(a, b)") {
    Var Z = T::dmatrix("Z"), a = T::dmatrix("a"), b = T::dmatrix("b");
    check_rewrite({Z, a, b}, {s(3) * Z + s(2) * T::dot(a, b)}, {T::gemm(Z, s(2), a, b, s(3))});
    check_rewrite({Z, a, b}, {s(0.5) * Z + s(-7) * T::dot(a, b)}, {T::gemm(Z, s(-7), a, b, s(0.5))});
    check_rewrite({Z, a, b}, {Z - T::dot(a, b)}, {T::gemm(Z, s(-1), a, b, s(1))});
  }

  TEST_CASE("local_lift_transpose_through_dot: transposed operands and the transpose of a product reach Gemm") {
    Var Z = T::dmatrix("Z"), a = T::dmatrix("a"), b = T::dmatrix("b");
    check_rewrite({Z, a, b}, {Z + T::dot(a.T(), b)}, {T::gemm(Z, s(1), a.T(), b, s(1))});
    check_rewrite({Z, a, b}, {Z + T::dot(a, b).T()}, {T::gemm(Z, s(1), b.T(), a.T(), s(1))});
    check_rewrite({a, b}, {T::dot(a, b).T()}, {T::dot22(b.T(), a.T())});
    // A product also used untransposed is not duplicated.
    Var p = T::dot(a, b);
    CHECK(count_ops({a, b}, {p.T(), p}, "Dot22") == 1);
  }

  TEST_CASE("local_gemm: gemv and ger equivalents") {
    Var y = T::dvector("y"), A = T::dmatrix("A"), x = T::dvector("x"), v = T::dvector("v"), Z = T::dmatrix("Z");
    check_rewrite({y, A, x}, {y + T::dot(A, x)}, {T::gemv(y, s(1), A, x, s(1))});
    check_rewrite({y, A, x}, {s(3) * y + s(2) * T::dot(A, x)}, {T::gemv(y, s(2), A, x, s(3))});
    check_rewrite({y, A, x}, {y + T::dot(x, A)}, {T::gemv(y, s(1), A.T(), x, s(1))});
    check_rewrite({Z, x, v}, {Z + T::outer(x, v)}, {T::ger(Z, s(1), x, v)});
    check_rewrite({Z, x, v}, {Z + s(2) * T::outer(x, v)}, {T::ger(Z, s(2), x, v)});
    for (const Var& out : {y + T::dot(A, x), s(3) * y - T::dot(A, x)}) CHECK(count_ops({y, A, x}, {out}, "Dot") == 0);
  }

  TEST_CASE("local_outer_dot_to_mul: an outer product left after the gers is an elementwise product") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var x = T::vector("x", dt), v = T::vector("v", dt), Z = T::matrix("Z", dt), M = T::matrix("M", dt);
      Var c = T::col("c", dt), r = T::row("r", dt);
      const Var xc = T::dimshuffle(x, {0, T::kNewAxis}), vr = T::dimshuffle(v, {T::kNewAxis, 0});
      check_rewrite({x, v}, {T::outer(x, v)}, {T::mul(xc, vr)});
      check_rewrite({c, r}, {T::dot(c, r)}, {T::mul(c, r)});
      // Masked or scaled, not added to a matrix of its type: no ger, no gemm with k = 1 (W11's gradient).
      check_rewrite({x, v, M}, {M - T::outer(x, v) * M}, {M - T::mul(xc, vr) * M});
      // z + outer(x, v) is still blas_opt's ger; an inner dimension 1 on one side only is still a product.
      check_rewrite({Z, x, v}, {Z + T::outer(x, v)}, {T::ger(Z, T::constant(NDArray::scalar<double>(1).astype(dt)), x, v)});
      check_rewrite({M, c}, {T::dot(M, c)}, {T::dot22(M, c)});
      // The elementwise product gives the gemm's values (one product per element, no sum; NaN and
      // infinity too); a zero product keeps its sign, as numpy.outer's (gemm's sum from 0 gave +0).
      NDArray xv = NDArray::empty({37}, DType::Float64), vv = NDArray::empty({29}, DType::Float64);
      for (std::int64_t i = 0; i < 37; ++i) xv.data_as<double>()[i] = 0.37 * static_cast<double>((i * 13) % 17) - 2.9;
      for (std::int64_t i = 0; i < 29; ++i) vv.data_as<double>()[i] = 1e-3 * static_cast<double>((i * 7) % 11) - 4e-3;
      xv.data_as<double>()[3] = std::numeric_limits<double>::quiet_NaN();
      vv.data_as<double>()[5] = std::numeric_limits<double>::infinity();
      vv.data_as<double>()[7] = 0.0;
      xv = xv.astype(dt);
      vv = vv.astype(dt);
      FunctionOptions off;
      off.optimizer_excluding = {"local_outer_dot_to_mul"};
      const NDArray got = function({x, v}, {T::outer(x, v)})({xv, vv})[0];
      const NDArray want = function({x, v}, {T::outer(x, v)}, off)({xv, vv})[0];
      CHECK(allclose(got, want, 0, 0, true));
      const NDArray g64 = got.astype(DType::Float64);
      CHECK(std::signbit(g64.data_as<double>()[0 * 29 + 7]));  // x[0] = -2.9 times +0
      CHECK(std::isnan(g64.data_as<double>()[3 * 29 + 0]));
      CHECK(std::isinf(g64.data_as<double>()[0 * 29 + 5]));
    }
  }

  TEST_CASE("local_gemm: terms with one core are summed first (z + 2*dot, z + z + dot, a dot used twice)") {
    Var Z = T::dmatrix("Z"), a = T::dmatrix("a"), b = T::dmatrix("b");
    // After fast_run (fusion and inplace included): ONE Gemm, no Dot, nothing else (but for
    // gemm_scaled_copy's scaled copy of Z where beta is not 1: test_gemm_scaled_copy.cpp).
    auto only_one_gemm = [&](const Var& out) {
      FunctionGraph fg({Z, a, b}, {out});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"gemm_scaled_copy"}));
      CAPTURE(debugprint(fg));
      CHECK(fg.apply_nodes().size() == 1);
      int gemms = 0;
      for (Apply* n : fg.apply_nodes()) gemms += n->op()->type_name() == "Gemm";
      CHECK(gemms == 1);
    };
    Var d = T::dot(a, b);
    only_one_gemm(Z + s(2) * T::dot(a, b));
    only_one_gemm(Z + Z + T::dot(a, b));
    only_one_gemm(Z + d + d);
    only_one_gemm(Z + T::dot(a, b) + T::dot(a, b));  // the two products become one by merge
    only_one_gemm(s(3) * d + Z - s(0.5) * d);
    // The graphs and their values (fusion and inplace excluded; the coefficients' sums folded).
    check_rewrite({Z, a, b}, {Z + Z + T::dot(a, b)}, {T::gemm(Z, s(1), a, b, s(2))});
    check_rewrite({Z, a, b}, {Z + d + d}, {T::gemm(Z, s(2), a, b, s(1))});
    check_rewrite({Z, a, b}, {s(3) * d + Z - s(0.5) * d}, {T::gemm(Z, s(2.5), a, b, s(1))});
    // A product also used outside the sum is still not folded (it would be computed twice).
    FunctionGraph fg({Z, a, b}, {Z + d + d, d});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int dots = 0;
    for (Apply* n : fg.apply_nodes()) dots += n->op()->type_name() == "Dot22";
    CHECK(dots == 1);
  }
}
