/// \file
/// Shared pieces of the op-lowering tests: random inputs, non-contiguous copies
/// of them, and `check_lowering`, which runs a graph through the PerformLinker
/// (the reference) and the cpp linker and checks they agree, on contiguous and
/// on strided inputs.
#pragma once

#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/ndarray.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

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

/// The same values as `a` in a non-contiguous array: a view with every
/// dimension's stride doubled (a slice of a larger array), reversed in the
/// last dimension. 0-d arrays are returned as they are.
inline NDArray strided_copy(const NDArray& a) {
  if (a.ndim() == 0) return a;
  std::vector<std::int64_t> big = a.shape();
  for (auto& s : big) s = 2 * s + 1;
  NDArray b = NDArray::zeros(big, a.dtype());
  std::vector<std::int64_t> strides = b.strides();
  for (auto& s : strides) s *= 2;
  // Last dimension reversed: start at its last element, negative stride.
  std::int64_t offset = 0;
  const std::size_t last = static_cast<std::size_t>(a.ndim() - 1);
  offset += (a.shape()[last] - 1) * strides[last];
  strides[last] = -strides[last];
  NDArray v = NDArray::from_strided(b.owner(), static_cast<char*>(b.data()) + offset, a.dtype(), a.shape(), strides);
  v.assign(a);
  return v;
}

/// Runs `fg` with the PerformLinker and with `cpp` on `values`; checks the
/// outputs agree (dtype, shape, values: floats within rtol).
inline void compare_thunks(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp,
                           const std::vector<NDArray>& values, double rtol = 0) {
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
    if (is_float(want[o].dtype())) {
      const double tol = rtol > 0 ? rtol : (want[o].dtype() == DType::Float32 ? 1e-5 : 1e-10);
      CHECK(allclose(got[o], want[o], tol, tol * 1e-2, true));
    } else {
      CHECK(array_equal(got[o], want[o]));
    }
  }
}

/// Fast compile options for tests (-O1).
inline codegen::CompileOptions quick_options() {
  codegen::CompileOptions o;
  o.opt = codegen::OptLevel::O1;
  return o;
}

/// Compiles `outs` as functions of `ins` with the cpp linker and compares it
/// with perform on `values`, then on strided (non-contiguous) copies of them.
inline void check_lowering(const std::vector<Var>& ins, const std::vector<Var>& outs,
                           const std::vector<NDArray>& values, double rtol = 0) {
  auto fg = std::make_shared<FunctionGraph>(ins, outs);
  auto cpp = codegen::CLinker(quick_options()).allow_perform_fallback(false).make_thunk(fg);
  {
    INFO("contiguous inputs");
    compare_thunks(fg, *cpp, values, rtol);
  }
  std::vector<NDArray> strided;
  for (const NDArray& v : values) strided.push_back(strided_copy(v));
  INFO("strided inputs");
  compare_thunks(fg, *cpp, strided, rtol);
}

}  // namespace theano::test
