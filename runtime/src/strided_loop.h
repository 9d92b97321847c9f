// Internal: visit the elements of one or two equally shaped strided arrays in C order.
// Every copying / converting / comparing routine of the runtime goes through these,
// so negative, zero and Fortran strides are handled in one place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace theano::detail {

/// Calls f(pa, pb) for each element (C order) of arrays of `shape` starting at a / b
/// with byte strides sa / sb. f returns void, or bool where false stops the loop
/// (the function then returns false).
template <class F>
bool for_each_pair(const std::vector<int64_t>& shape, const std::byte* a,
                   const std::vector<int64_t>& sa, const std::byte* b,
                   const std::vector<int64_t>& sb, F&& f) {
  auto call = [&](const std::byte* x, const std::byte* y) -> bool {
    if constexpr (std::is_same_v<decltype(f(x, y)), bool>) return f(x, y);
    else {
      f(x, y);
      return true;
    }
  };
  const std::size_t nd = shape.size();
  for (int64_t s : shape)
    if (s == 0) return true;
  if (nd == 0) return call(a, b);
  std::vector<int64_t> idx(nd, 0);
  const int64_t n_inner = shape[nd - 1];
  const int64_t ia = sa[nd - 1], ib = sb[nd - 1];
  for (;;) {
    const std::byte* x = a;
    const std::byte* y = b;
    for (int64_t i = 0; i < n_inner; ++i, x += ia, y += ib)
      if (!call(x, y)) return false;
    // Odometer over the outer dimensions.
    std::size_t d = nd - 1;
    for (;;) {
      if (d == 0) return true;
      --d;
      if (++idx[d] < shape[d]) {
        a += sa[d];
        b += sb[d];
        break;
      }
      a -= sa[d] * (shape[d] - 1);
      b -= sb[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

/// Single-array form: f(p) for each element in C order.
template <class F>
bool for_each_element(const std::vector<int64_t>& shape, const std::byte* a,
                      const std::vector<int64_t>& sa, F&& f) {
  return for_each_pair(shape, a, sa, a, sa,
                       [&](const std::byte* x, const std::byte*) { return f(x); });
}

}  // namespace theano::detail
