// Value comparisons and hashing of whole arrays: array_equal, allclose (both used by
// tests and by constant folding checks) and content_hash (used to merge constants).
#include <cmath>
#include <complex>
#include <cstring>

#include "strided_loop.h"
#include "theano/runtime/ndarray.h"
#include "theano/runtime/scalar_cast.h"

namespace theano {
namespace {

// A value wide enough to compare any two elements exactly as numpy would: integers
// keep their exact value (int64 vs uint64 compare by value), others go through
// complex<double>.
struct Wide {
  bool integral;
  bool negative;        // integral only
  uint64_t magnitude;   // integral only
  std::complex<double> c;
};

template <class T>
Wide widen(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  Wide w{};
  if constexpr (std::is_integral_v<T>) {
    w.integral = true;
    if constexpr (std::is_signed_v<T>) {
      w.negative = v < 0;
      w.magnitude = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    } else {
      w.magnitude = static_cast<uint64_t>(v);
    }
    w.c = std::complex<double>(w.negative ? -static_cast<double>(w.magnitude) : static_cast<double>(w.magnitude), 0);
  } else {
    w.c = scalar_cast<std::complex<double>>(v);
  }
  return w;
}

using Reader = Wide (*)(const std::byte*);

Reader reader_for(DType d) {
  return visit_dtype(d, [](auto tag) -> Reader { return &widen<typename decltype(tag)::type>; });
}

bool wide_equal(const Wide& a, const Wide& b) {
  if (a.integral && b.integral) return a.negative == b.negative && a.magnitude == b.magnitude;
  return a.c == b.c;
}

bool close(double a, double b, double rtol, double atol, bool equal_nan) {
  if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

uint64_t mix(uint64_t h, uint64_t v) {
  // splitmix64-style combination; order-dependent.
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

}  // namespace

bool array_equal(const NDArray& a, const NDArray& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  if (a.shape() != b.shape()) return false;
  const Reader ra = reader_for(a.dtype()), rb = reader_for(b.dtype());
  return detail::for_each_pair(
      a.shape(), static_cast<const std::byte*>(a.data()), a.strides(),
      static_cast<const std::byte*>(b.data()), b.strides(),
      [&](const std::byte* x, const std::byte* y) { return wide_equal(ra(x), rb(y)); });
}

bool allclose(const NDArray& a, const NDArray& b, double rtol, double atol, bool equal_nan) {
  THEANO_USER_CHECK(a.defined() && b.defined(), ValueError) << "allclose: null NDArray handle";
  const std::vector<int64_t> shape = broadcast_shapes(a.shape(), b.shape());
  const NDArray x = a.broadcast_to(shape), y = b.broadcast_to(shape);
  const Reader ra = reader_for(a.dtype()), rb = reader_for(b.dtype());
  const bool cplx = is_complex(a.dtype()) || is_complex(b.dtype());
  return detail::for_each_pair(
      shape, static_cast<const std::byte*>(x.data()), x.strides(),
      static_cast<const std::byte*>(y.data()), y.strides(),
      [&](const std::byte* p, const std::byte* q) {
        const Wide u = ra(p), v = rb(q);
        if (!cplx) return close(u.c.real(), v.c.real(), rtol, atol, equal_nan);
        // numpy.isclose on complex: |a - b| <= atol + rtol * |b|, non-finite compared exactly.
        const bool fin = std::isfinite(u.c.real()) && std::isfinite(u.c.imag()) &&
                         std::isfinite(v.c.real()) && std::isfinite(v.c.imag());
        if (fin) return std::abs(u.c - v.c) <= atol + rtol * std::abs(v.c);
        const bool nan_u = std::isnan(u.c.real()) || std::isnan(u.c.imag());
        const bool nan_v = std::isnan(v.c.real()) || std::isnan(v.c.imag());
        if (nan_u || nan_v) return equal_nan && nan_u && nan_v;
        return u.c == v.c;
      });
}

std::size_t content_hash(const NDArray& a) {
  if (!a.defined()) return 0;
  uint64_t h = mix(0x7468656e6f617272ull, static_cast<uint64_t>(a.dtype()));
  h = mix(h, static_cast<uint64_t>(a.ndim()));
  for (int64_t s : a.shape()) h = mix(h, static_cast<uint64_t>(s));
  const std::size_t item = a.itemsize();
  const bool is_b = a.dtype() == DType::Bool;
  detail::for_each_element(a.shape(), static_cast<const std::byte*>(a.data()), a.strides(),
                           [&](const std::byte* p) {
                             uint64_t v = 0;
                             if (is_b) v = *p != std::byte{0};  // any non-zero byte is true
                             else if (item <= 8) std::memcpy(&v, p, item);
                             else {
                               uint64_t hi = 0;
                               std::memcpy(&v, p, 8);
                               std::memcpy(&hi, p + 8, 8);
                               h = mix(h, hi);
                             }
                             h = mix(h, v);
                           });
  return static_cast<std::size_t>(h);
}

}  // namespace theano
