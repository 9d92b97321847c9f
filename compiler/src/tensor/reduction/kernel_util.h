// Internal helpers shared by the reduction, BLAS and nnet ops: strided element
// walks over NDArray views, static-shape text for error messages, and the
// keepdims DimShuffle order. Not a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/type.h"

namespace theano::tensor::detail {

/// Calls `f(p)` with the address of every element of `a`, in C (row-major) order.
template <class F>
void for_each_element(const NDArray& a, F&& f) {
  if (a.size() == 0) return;
  const auto* base = static_cast<const std::byte*>(a.data());
  const int nd = a.ndim();
  if (nd == 0) {
    f(base);
    return;
  }
  const auto& sh = a.shape();
  const auto& st = a.strides();
  std::vector<int64_t> idx(static_cast<std::size_t>(nd), 0);
  const int64_t n_inner = sh.back();
  const int64_t s_inner = st.back();
  const std::byte* p = base;
  for (;;) {
    const std::byte* q = p;
    for (int64_t i = 0; i < n_inner; ++i, q += s_inner) f(q);
    int d = nd - 2;
    for (; d >= 0; --d) {
      const auto u = static_cast<std::size_t>(d);
      if (++idx[u] < sh[u]) {
        p += st[u];
        break;
      }
      p -= st[u] * (sh[u] - 1);
      idx[u] = 0;
    }
    if (d < 0) return;
  }
}

/// Element arithmetic with NumPy's results: integers wrap (computed in uint64,
/// so there is no signed-overflow UB), bool add/mul are or/and.
template <class T>
T add_wrap(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else return a + b;
}
template <class T>
T mul_wrap(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else return a * b;
}

/// "(3, ?)" for a static shape (Python tuple style, ? for unknown).
inline std::string static_shape_text(const StaticShape& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + (s[i] ? std::to_string(*s[i]) : std::string("?"));
  return r + (s.size() == 1 ? ",)" : ")");
}

/// Static shape of a tensor variable (TypeError naming `what` if not a tensor).
const TensorType& tensor_type_of(const Var& v, const char* what);

/// DimShuffle order that re-inserts size-1 axes at `axes` of an `ndim`-d input
/// into a reduction output (keepdims, and gradient broadcasting).
std::vector<int> keepdims_order(int ndim, const std::vector<int>& axes);
/// `r` (a reduction of an `ndim`-d tensor over `axes`) with those axes restored as size 1.
Var restore_reduced_axes(const Var& r, int ndim, const std::vector<int>& axes);

/// "(0, 2)" for an axis list.
std::string axes_text(const std::vector<int>& axes);

/// How a reduction over `axes` walks `x`: the permutation that moves the
/// reduced axes last, the shape of what is kept, and the number of elements
/// reduced into each output. ValueError naming `op_name` for an axis the value
/// does not have.
struct ReductionLayout {
  std::vector<int> perm;
  std::vector<int64_t> out_shape;
  int64_t group = 1;
};
ReductionLayout reduction_layout(const NDArray& x, const std::vector<int>& axes, const std::string& op_name);

}  // namespace theano::tensor::detail
