/// \file
/// Helpers of the rewrite tests: a graph's before/after check under a mode
/// (compared with equal_computations against a graph built by hand, both
/// printed on failure) plus a numeric check that the optimized function
/// computes what the unoptimized one does.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/extending.hpp"

namespace theano::test {
namespace rw_detail {
namespace T = theano::tensor;
}  // namespace rw_detail
using namespace rw_detail;

inline Var c(double v) { return T::constant(vec({v})); }  // shape (1,): no DimShuffle needed against vectors

/// A deterministic positive float64 test value for `v` (known dims, 3 for unknown).
inline NDArray value_for(const Var& v, int salt) {
  const T::TensorType* t = T::tensor_type(v);
  std::vector<std::int64_t> shape;
  for (const T::Dim& d : t->shape()) shape.push_back(d.value_or(3));
  NDArray a = range(shape);
  double* p = a.data_as<double>();
  for (std::int64_t i = 0; i < a.size(); ++i) p[i] = 0.25 + 0.5 * static_cast<double>((i * 7 + salt) % 5);
  return a;
}

inline bool close_enough(const NDArray& a, const NDArray& b) {
  if (a.shape() != b.shape()) return false;
  NDArray x = a.astype(DType::Float64).contiguous(), y = b.astype(DType::Float64).contiguous();
  for (std::int64_t i = 0; i < x.size(); ++i) {
    double u = x.data_as<double>()[i], w = y.data_as<double>()[i];
    if (!(std::abs(u - w) <= 1e-9 + 1e-7 * std::abs(w)) && !(std::isnan(u) && std::isnan(w))) return false;
  }
  return true;
}

/// Optimizes `outs` under `mode` (without elemwise fusion, which would fold
/// the rewritten ops into one Composite, and without the inplace stages, which
/// would rename them; both have their own tests), checks the
/// result equals `expected` (as functions of `ins`) and that the optimized
/// function computes the unoptimized one's values.
inline void check_rewrite(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected,
                   const std::string& mode = "fast_run") {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query(mode).excluding({"fusion", "inplace"}));
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same)
    std::cerr << "Input:\n" << debugprint(outs) << "Output (" << mode << "):\n" << debugprint(fg) << "Expected:\n"
              << debugprint(expected);
  CHECK(same);
  std::vector<NDArray> args;
  for (std::size_t i = 0; i < ins.size(); ++i) {  // integer inputs get 0, 1 or 2 (valid indices of a dim of 3)
    const NDArray a = value_for(ins[i], static_cast<int>(i));
    const DType dt = T::tensor_type(ins[i])->dtype();
    args.push_back(dt == DType::Float64 ? a : a.astype(dt));
  }
  FunctionOptions raw, opt;
  raw.mode = "unoptimized";
  opt.mode = mode;
  opt.optimizer_excluding = {"fusion", "inplace"};
  const auto want = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, raw)(args);
  const auto got = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, opt)(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].dtype() == want[i].dtype());
    CHECK(close_enough(got[i], want[i]));
  }
}

inline int count_nodes(const FunctionGraph& fg, std::string_view scalar) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += T::is_elemwise(node, scalar) ? 1 : 0;
  return n;
}


}  // namespace theano::test
