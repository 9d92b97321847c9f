// Deterministic test values shared by the scan suites.
#pragma once

#include <cstdint>

#include "theano/runtime/ndarray.h"

namespace theano::test {

/// An m x n float64 matrix of values in [-scale, scale), a function of `seed` only.
inline NDArray matrix(std::int64_t m, std::int64_t n, double scale, std::uint64_t seed) {
  NDArray a = NDArray::empty({m, n});
  std::uint64_t s = seed * 2862933555777941757ULL + 3037000493ULL;
  for (std::int64_t i = 0; i < m * n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    a.data_as<double>()[i] = (static_cast<double>(s >> 11) / 9007199254740992.0 * 2 - 1) * scale;
  }
  return a;
}

/// The same as a vector of n values.
inline NDArray vector_of(std::int64_t n, double scale, std::uint64_t seed) {
  return matrix(1, n, scale, seed).reshape({n});
}

}  // namespace theano::test
