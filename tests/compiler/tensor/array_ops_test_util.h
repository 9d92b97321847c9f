// Shared helpers of the test_array_ops*.cpp suites: the NumPy fixtures of
// tests/data/array_ops/gen_array_ops.py, a comparison that checks dtype and
// shape and treats NaN as equal to NaN, and `run`, which compiles the
// outputs with function() (the optimized graph, as users get it).
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "theano/tensor/array_ops.h"
#include "theano/theano.hpp"

namespace theano::array_ops_test {

inline NDArray load(const std::string& name) {
  return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/array_ops/" + name + ".npy");
}

/// Same dtype and shape, values within rtol (NaN equal to NaN).
inline void check_close(const NDArray& got, const NDArray& want, double rtol = 1e-12, double atol = 1e-12) {
  REQUIRE(dtype_name(got.dtype()) == dtype_name(want.dtype()));
  REQUIRE(got.shape() == want.shape());
  CHECK_MESSAGE(allclose(got, want, rtol, atol, true), got.str() << "\nvs\n" << want.str());
}

/// Same dtype, shape and values (compared as float64 / int64, NaN equal to NaN).
inline void check_equal(const NDArray& got, const NDArray& want) { check_close(got, want, 0.0, 0.0); }

/// The outputs compiled together by function() and called on `values`.
inline std::vector<NDArray> run(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                const std::vector<NDArray>& values) {
  std::vector<In> ins(inputs.begin(), inputs.end());
  std::vector<Out> outs(outputs.begin(), outputs.end());
  Outputs r = function(ins, outs)(values);
  return {r.begin(), r.end()};
}

/// A symbolic input of `a`'s dtype and rank, sizes unknown.
inline Var like(const NDArray& a, const std::string& name) {
  return tensor::tensor(a.dtype(), tensor::StaticShape(static_cast<std::size_t>(a.ndim())), name);
}

}  // namespace theano::array_ops_test
