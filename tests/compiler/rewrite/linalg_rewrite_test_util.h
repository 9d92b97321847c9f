/// \file
/// Helpers of the tests of the linalg rewrites (test_linalg_solve_rewrites.cpp,
/// test_linalg_det_rewrites.cpp): a graph's before / after check under a mode
/// (equal_computations against a graph built by hand, all three printed on
/// failure), a numeric check of the fully optimized function against the
/// unoptimized one on given values (well-conditioned matrices: the default
/// test values of rewrite_test_util.h can be singular), and op counts.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/tensor/linalg_test_util.h"
#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/subtensor.h"

namespace theano::test::la_rw {

namespace T = theano::tensor;
namespace LA = theano::tensor::linalg;

/// fusion and inplace rename the ops; the structural ops' expansion at specialize hides ExtractDiag / AllocDiag.
inline const std::vector<std::string>& excluded() {
  static const std::vector<std::string> e{"fusion", "inplace", "local_linalg_structure_expand"};
  return e;
}

/// `outs` optimized under `mode` (canonicalize + stabilize for "stabilize"; fast_run: also blas_opt and specialize).
inline std::unique_ptr<FunctionGraph> optimized(const std::vector<Var>& ins, const std::vector<Var>& outs,
                                                const std::string& mode = "stabilize") {
  auto fg = std::make_unique<FunctionGraph>(ins, outs);
  rewrite::optimize(*fg, rewrite::mode_query(mode).excluding(excluded()));
  return fg;
}

inline int count_ops(const std::unique_ptr<FunctionGraph>& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg->apply_nodes()) n += node->op()->type_name() == type_name ? 1 : 0;
  return n;
}

/// The optimized (fast_run) function's values on `args` against the unoptimized one's.
inline void check_values(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args,
                         double rtol = 1e-9) {
  FunctionOptions raw, opt;
  raw.mode = "unoptimized";
  opt.mode = "fast_run";
  const auto want = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, raw)(args);
  const auto got = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, opt)(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].dtype() == want[i].dtype());
    REQUIRE(got[i].shape() == want[i].shape());
    const NDArray g = got[i].astype(DType::Float64).contiguous(), w = want[i].astype(DType::Float64).contiguous();
    for (std::int64_t k = 0; k < g.size(); ++k) {
      const double u = g.data_as<double>()[k], v = w.data_as<double>()[k];
      CAPTURE(k);
      CAPTURE(u);
      CAPTURE(v);
      CHECK((std::abs(u - v) <= rtol * (1 + std::abs(v)) || (std::isnan(u) && std::isnan(v)) || u == v));
    }
  }
}

/// `outs` optimized under `mode` equal `expected` (as functions of `ins`), and compute the unoptimized values.
/// With `optimize_expected`, `expected` is constant-folded and merged first (fast_compile): for replacements
/// built from graphs whose constants the stage folds (lu_solve's arange).
inline void check(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected,
                  const std::vector<NDArray>& args, const std::string& mode = "stabilize",
                  bool optimize_expected = false) {
  const auto fg = optimized(ins, outs, mode);
  std::vector<Var> want = expected;
  std::vector<Var> want_ins = ins;
  std::unique_ptr<FunctionGraph> efg;
  if (optimize_expected) {
    efg = optimized(ins, expected, "fast_compile");
    want = efg->outputs();
    want_ins = efg->inputs();
  }
  const bool same = equal_computations(fg->outputs(), want, fg->inputs(), want_ins);
  if (!same)
    std::cerr << "Input:\n" << debugprint(outs) << "Output (" << mode << "):\n" << debugprint(*fg) << "Expected:\n"
              << debugprint(want);
  CHECK(same);
  check_values(ins, outs, args);
}

/// The constant of `fg` whose values are all NaN (a NaN constant never equals another: equal_computations
/// compares constants by value), for building the expected graph around the very constant a rewrite made.
inline Var nan_constant(const FunctionGraph& fg) {
  for (const Var& v : fg.variables())
    if (const Constant* c = v.as_constant()) {
      const NDArray d = c->data().astype(DType::Float64).contiguous();
      bool all_nan = d.size() > 0;
      for (std::int64_t i = 0; i < d.size(); ++i) all_nan = all_nan && std::isnan(d.data_as<double>()[i]);
      if (all_nan) return v;
    }
  return {};
}

/// check() for an expected graph built from the optimized graph's NaN constant (`expected(nan)`).
template <class F>
void check_nan(const std::vector<Var>& ins, const std::vector<Var>& outs, F expected, const std::vector<NDArray>& args) {
  const auto fg = optimized(ins, outs);
  const Var nan = nan_constant(*fg);
  REQUIRE(nan);
  const std::vector<Var> want = expected(nan);
  const bool same = equal_computations(fg->outputs(), want, fg->inputs(), ins);
  if (!same)
    std::cerr << "Input:\n" << debugprint(outs) << "Output:\n" << debugprint(*fg) << "Expected:\n" << debugprint(want);
  CHECK(same);
  check_values(ins, outs, args);
}

/// Well-conditioned values: spd (symmetric positive definite) and general matrices, uniform others.
inline std::mt19937_64& rng() {
  static std::mt19937_64 r(37);
  return r;
}
inline NDArray spd(std::vector<std::int64_t> shape) { return latest::spd(rng(), std::move(shape)); }
inline NDArray general(std::vector<std::int64_t> shape) { return latest::general(rng(), std::move(shape)); }
inline NDArray uniform(std::vector<std::int64_t> shape) { return latest::uniform(rng(), std::move(shape)); }

/// The solve with a matrix's lu_factor {LU, piv} that local_reuse_decomposition builds: A[perm] = L U, so
/// x = U^-1 L^-1 b[perm]; A^T x = b: x = (L^-T U^-T b)[p], p the inverse order (rows: b's axis rank - b_ndim).
inline Var lu_rows_solve(const Var& LU, const Var& piv, const Var& b, bool trans = false) {
  const int axis = T::tensor_type(b)->ndim() == 1 ? 0 : T::tensor_type(b)->ndim() - 2;
  if (!trans)
    return LA::solve_triangular(LU, LA::solve_triangular(LU, T::take(b, LA::pivot_to_permutation(piv), axis), true, 0, true),
                                false);
  return T::take(LA::solve_triangular(LU, LA::solve_triangular(LU, b, false, 1), true, 1, true),
                 LA::pivot_to_permutation(piv, true), axis);
}

inline Var scalar(double v) { return T::constant(NDArray::scalar<double>(v)); }

}  // namespace theano::test::la_rw
