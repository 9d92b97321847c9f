// Shared test helpers: doctest printing of std::vector so failing CHECKs show
// both sides.
#pragma once

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace doctest {
template <class T>
struct StringMaker<std::vector<T>> {
  static String convert(const std::vector<T>& v) {
    std::ostringstream os;
    os << "{";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) os << ", ";
      if constexpr (std::is_same_v<T, std::string>)
        os << '"' << v[i] << '"';
      else if constexpr (std::is_same_v<T, bool>)
        os << (v[i] ? "true" : "false");
      else
        os << StringMaker<T>::convert(v[i]).c_str();
    }
    os << "}";
    return String(os.str().c_str());
  }
};
}  // namespace doctest

#include <cstring>
#include <functional>
#include <initializer_list>

#include "theano/fgraph/function_graph.h"
#include "theano/runtime/ndarray.h"

// Small value builders and an error catcher shared by the suites.
namespace theano::test {

/// A float64 vector.
inline NDArray vec(std::initializer_list<double> v) { return NDArray::from_list<double>(v); }
/// 0, 1, 2, ... laid out in `shape`.
inline NDArray range(std::vector<std::int64_t> shape, DType dtype = DType::Float64) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return NDArray::arange(0, static_cast<double>(n), 1, dtype).reshape(std::move(shape));
}
/// A 0-d int64 value.
inline NDArray i64(std::int64_t v) { return NDArray::scalar<std::int64_t>(v); }
/// The same values as `a` in a non-contiguous array: a view with every
/// dimension's stride doubled (a slice of a larger array), reversed in the
/// last dimension. 0-d and empty arrays are returned as they are.
inline NDArray strided_copy(const NDArray& a) {
  if (a.ndim() == 0 || a.size() == 0) return a;  // no values to lay out (and maybe a 2^61 dimension)
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

/// How many nodes of `fg` have op name `name` ("Gemm{inplace}") or op type `type_name` ("Elemwise").
inline int nodes_named(const FunctionGraph& fg, std::string_view name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->name() == name;
  return n;
}
inline int nodes_of_type(const FunctionGraph& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type_name;
  return n;
}

/// Whether `a` and `b` hold the same bits in the same shape and dtype (any layouts).
inline bool same_bits(const NDArray& a, const NDArray& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const NDArray x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data(), y.data(), static_cast<std::size_t>(x.size()) * dtype_size(x.dtype())) == 0;
}

/// The lines joined, each ending in a newline: expected printouts.
inline std::string lines(std::initializer_list<const char*> ls) {
  std::string r;
  for (const char* l : ls) r += std::string(l) + "\n";
  return r;
}
/// The message of the exception `f` throws, or "<no error>".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace theano::test
