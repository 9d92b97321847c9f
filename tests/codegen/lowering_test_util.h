/// \file
/// Shared pieces of the op-lowering tests: random inputs, non-contiguous copies
/// of them, `check_sets` / `check_lowering`, which run a graph through the
/// PerformLinker (the reference) and the cpp linker (no perform fallback) and
/// check they agree (within an `Agreement`), on contiguous and on strided
/// inputs, and `check_error`, which checks both raise the same error kind.
#pragma once

#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/ndarray.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace theano::test {

/// Random values in [lo, hi) (integers: truncated towards zero) of `shape` and `dtype`.
inline NDArray random_array(std::mt19937_64& rng, std::vector<std::int64_t> shape, DType dtype, double lo,
                            double hi) {
  NDArray a = NDArray::empty(shape, DType::Float64);
  std::uniform_real_distribution<double> u(lo, hi);
  double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < a.size(); ++k)
    p[k] = is_float(dtype) ? u(rng) : static_cast<double>(static_cast<std::int64_t>(u(rng)));
  return a.astype(dtype);
}


/// How closely the cpp outputs must agree with perform's. Integer and bool
/// outputs are always compared exactly; these settings are for float outputs.
struct Agreement {
  /// Relative tolerance; 0: 1e-10 for float64, 1e-5 for float32.
  double rtol = 0;
  /// Absolute tolerance; < 0: the relative tolerance times 1e-2.
  double atol = -1;
  /// >= 0: the absolute tolerance of float32 outputs (instead of `atol`).
  double atol32 = -1;
  /// Bit for bit (array_equal): the tolerances are not used.
  bool bitwise = false;
};

/// Runs `fg` with the PerformLinker and with `cpp` on `values`; checks the
/// outputs agree (dtype, shape, values: floats as `agree` says).
inline void compare_thunks(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp,
                           const std::vector<NDArray>& values, const Agreement& agree = {}) {
  auto ref = make_perform_linker()->make_thunk(fg);
  std::vector<NDArray> want(fg->outputs().size()), got(fg->outputs().size());
  ref->run(values, want);
  cpp.run(values, got);
  for (std::size_t o = 0; o < want.size(); ++o) {
    CAPTURE(o);
    INFO("want " << want[o] << "\ngot  " << got[o]);
    REQUIRE(got[o].defined());
    CHECK(got[o].dtype() == want[o].dtype());
    REQUIRE(got[o].shape() == want[o].shape());
    if (is_float(want[o].dtype()) && !agree.bitwise) {
      const bool f32 = want[o].dtype() == DType::Float32;
      const double rtol = agree.rtol > 0 ? agree.rtol : (f32 ? 1e-5 : 1e-10);
      const double atol = f32 && agree.atol32 >= 0 ? agree.atol32 : agree.atol >= 0 ? agree.atol : rtol * 1e-2;
      CHECK(allclose(got[o], want[o], rtol, atol, true));
    } else {
      CHECK(array_equal(got[o], want[o]));
    }
  }
}

/// compare_thunks with a relative tolerance (0: the defaults).
inline void compare_thunks(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp,
                           const std::vector<NDArray>& values, double rtol) {
  compare_thunks(fg, cpp, values, Agreement{.rtol = rtol});
}

/// Fast compile options for tests (-O1).
inline codegen::CompileOptions quick_options() {
  codegen::CompileOptions o;
  o.opt = codegen::OptLevel::O1;
  return o;
}

/// The cpp thunk of `fg` with the perform fallback off: every node must have
/// generated code.
inline std::unique_ptr<Thunk> lowered_thunk(const std::shared_ptr<FunctionGraph>& fg) {
  return codegen::CLinker(quick_options()).allow_perform_fallback(false).make_thunk(fg);
}

/// lowered_thunk of `outs` as functions of `ins`.
inline std::unique_ptr<Thunk> lowered_thunk(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  return lowered_thunk(std::make_shared<FunctionGraph>(ins, outs));
}

/// Checks every node of `outs` (functions of `ins`) has generated code, compiles
/// them once (lowered_thunk) and compares with perform on each set of values,
/// then on strided (non-contiguous) copies of them.
inline void check_sets(const std::vector<Var>& ins, const std::vector<Var>& outs,
                       const std::vector<std::vector<NDArray>>& sets, const Agreement& agree = {}) {
  auto fg = std::make_shared<FunctionGraph>(ins, outs);
  REQUIRE_NOTHROW(codegen::CLinker::generate_source(*fg, {}, false));
  auto cpp = lowered_thunk(fg);
  for (std::size_t k = 0; k < sets.size(); ++k) {
    CAPTURE(k);
    {
      INFO("contiguous inputs");
      compare_thunks(fg, *cpp, sets[k], agree);
    }
    std::vector<NDArray> strided;
    for (const NDArray& v : sets[k]) strided.push_back(strided_copy(v));
    INFO("strided inputs");
    compare_thunks(fg, *cpp, strided, agree);
  }
}

/// check_sets with one set of values.
inline void check_lowering(const std::vector<Var>& ins, const std::vector<Var>& outs,
                           const std::vector<NDArray>& values, const Agreement& agree = {}) {
  check_sets(ins, outs, {values}, agree);
}

/// check_lowering with a relative tolerance (0: the defaults).
inline void check_lowering(const std::vector<Var>& ins, const std::vector<Var>& outs,
                           const std::vector<NDArray>& values, double rtol) {
  check_lowering(ins, outs, values, Agreement{.rtol = rtol});
}

/// Both perform and `cpp` (the thunk of `fg`) throw E on `values`, and the
/// cpp message names `op` and contains `what`.
template <class E>
void check_error(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp, const std::vector<NDArray>& values,
                 const std::string& op, const std::string& what = {}) {
  std::vector<NDArray> out(fg->outputs().size());
  auto ref = make_perform_linker()->make_thunk(fg);
  CHECK_THROWS_AS(ref->run(values, out), E);
  CHECK_THROWS_AS(cpp.run(values, out), E);
  const std::string msg = error_of([&] { cpp.run(values, out); });
  INFO(msg);
  CHECK(msg.find(op) != std::string::npos);
  if (!what.empty()) CHECK(msg.find(what) != std::string::npos);
}

/// check_error on the lowered_thunk of `outs` as functions of `ins`.
template <class E>
void check_error(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& values,
                 const std::string& op, const std::string& what = {}) {
  auto fg = std::make_shared<FunctionGraph>(ins, outs);
  check_error<E>(fg, *lowered_thunk(fg), values, op, what);
}

/// A tensor variable of `dtype` and rank `nd`, every dimension of unknown size.
inline Var any_tensor(DType dtype, int nd, const std::string& name) {
  return tensor::tensor(dtype, tensor::StaticShape(static_cast<std::size_t>(nd), std::nullopt), name);
}

/// An integer vector value of `dtype`.
inline NDArray ivec(std::vector<std::int64_t> v, DType dtype = DType::Int64) {
  const auto n = static_cast<std::int64_t>(v.size());
  return NDArray::from_vector(std::move(v), {n}).astype(dtype);
}

}  // namespace theano::test
