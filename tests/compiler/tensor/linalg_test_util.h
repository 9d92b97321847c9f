// Helpers of the linear algebra tests (test_linalg*.cpp, test_lower_linalg.cpp):
// plain loops over float64 matrices, sharing nothing with the LAPACK path,
// to check identities (L L^T = A, A x = b, Q R = A, U S V^T = A) and to make
// well- or badly-conditioned inputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "theano/runtime/ndarray.h"

namespace theano::latest {

/// The 2-d float64 matrix a (any layout, any float dtype) as a row-major vector.
inline std::vector<double> rows(const NDArray& a) {
  const NDArray c = a.astype(DType::Float64).copy();
  const double* p = c.data_as<double>();
  return std::vector<double>(p, p + c.size());
}

/// a (m x k) times b (k x n), row-major.
inline std::vector<double> mm(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m,
                              std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t t = 0; t < k; ++t) s += a[static_cast<std::size_t>(i * k + t)] * b[static_cast<std::size_t>(t * n + j)];
      c[static_cast<std::size_t>(i * n + j)] = s;
    }
  return c;
}

inline std::vector<double> transposed(const std::vector<double>& a, std::int64_t m, std::int64_t n) {
  std::vector<double> t(a.size());
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) t[static_cast<std::size_t>(j * m + i)] = a[static_cast<std::size_t>(i * n + j)];
  return t;
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = a.size() == b.size() ? 0.0 : 1e300;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

inline std::vector<double> identity(std::int64_t n) {
  std::vector<double> e(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) e[static_cast<std::size_t>(i * n + i)] = 1;
  return e;
}

/// Uniform values in [-1, 1) of `shape` (float64).
inline NDArray uniform(std::mt19937_64& rng, std::vector<std::int64_t> shape) {
  NDArray a = NDArray::empty(std::move(shape), DType::Float64);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = u(rng);
  return a;
}

/// Symmetric positive-definite matrices of `shape` (..., n, n): M M^T / n + shift I.
/// A small shift gives a badly-conditioned matrix.
inline NDArray spd(std::mt19937_64& rng, std::vector<std::int64_t> shape, double shift = 1.0) {
  const std::int64_t n = shape.back();
  NDArray m = uniform(rng, shape);
  NDArray out = NDArray::empty(shape, DType::Float64);
  const std::int64_t count = n ? m.size() / (n * n) : 0;
  for (std::int64_t b = 0; b < count; ++b) {
    const double* p = m.data_as<double>() + b * n * n;
    double* o = out.data_as<double>() + b * n * n;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t t = 0; t < n; ++t) s += p[i * n + t] * p[j * n + t];
        o[i * n + j] = s / static_cast<double>(n) + (i == j ? shift : 0.0);
      }
  }
  return out;
}

/// A well-conditioned general matrix: uniform values plus `shift` on the diagonal.
inline NDArray general(std::mt19937_64& rng, std::vector<std::int64_t> shape, double shift = 2.0) {
  NDArray a = uniform(rng, shape);
  const std::int64_t n = shape.back();
  const std::int64_t count = n ? a.size() / (n * n) : 0;
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t i = 0; i < n; ++i) a.data_as<double>()[b * n * n + i * n + i] += shift;
  return a;
}

/// Batch entry `b` of a (..., r, c) array as a 2-d array.
inline NDArray entry(const NDArray& a, std::int64_t b) {
  const std::int64_t r = a.shape()[static_cast<std::size_t>(a.ndim() - 2)], c = a.shape().back();
  return a.copy().reshape({a.size() / (r * c), r, c}).index(0, b);
}

}  // namespace theano::latest
