/// \file
/// Tolerant comparisons, summaries and bad-value scans for the checking modes
/// (see value_checks.h). Every element is read through `visit_dtype` on a
/// C-contiguous copy, so any dtype and any strides work.
#include "value_checks.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <sstream>

#include "theano/runtime/half.h"

namespace theano::detail {
namespace {

/// Element `i` of a C-contiguous array as (real, imaginary) doubles.
struct Reader {
  const std::byte* data;
  DType dtype;
  std::size_t item;
  std::pair<double, double> operator()(std::int64_t i) const {
    const std::byte* p = data + static_cast<std::size_t>(i) * item;
    return visit_dtype(dtype, [p](auto tag) -> std::pair<double, double> {
      using T = typename decltype(tag)::type;
      T v;
      std::memcpy(&v, p, sizeof(T));
      if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
      else
        return {static_cast<double>(v), 0.0};
    });
  }
};

std::string element_str(const NDArray& c, std::int64_t i) {
  const std::byte* p = static_cast<const std::byte*>(c.data()) + static_cast<std::size_t>(i) * c.itemsize();
  std::ostringstream os;
  os.precision(9);
  visit_dtype(c.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) os << (v ? "true" : "false");
    else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
      os << v.real() << (v.imag() < 0 ? "" : "+") << v.imag() << "j";
    else if constexpr (std::is_integral_v<T>) os << +v;  // int8 as a number, not a char
    else if (const double d = static_cast<double>(v); std::isnan(d)) os << "nan";  // never "-nan"
    else os << d;
  });
  return os.str();
}

bool close(double a, double b, const Tolerance& t, bool exact) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  if (exact) return a == b;
  return std::fabs(a - b) <= t.atol + t.rtol * std::fabs(b);
}

}  // namespace

Tolerance tolerance_for(DType dtype) {
  switch (dtype) {
    case DType::Float16: return {1e-2, 5e-3};
    case DType::Float32:
    case DType::Complex64: return {1e-5, 1e-5};
    case DType::Float64:
    case DType::Complex128: return {1e-5, 1e-8};
    default: return {0, 0};
  }
}

std::string index_str(const std::vector<std::int64_t>& shape, std::int64_t flat) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    const std::int64_t n = std::max<std::int64_t>(shape[d], 1);
    idx[d] = flat % n;
    flat /= n;
  }
  std::ostringstream os;
  os << '[';
  for (std::size_t d = 0; d < idx.size(); ++d) os << (d ? ", " : "") << idx[d];
  os << ']';
  return os.str();
}

std::string compare_values(const NDArray& got, const NDArray& want, const CompareOptions& o) {
  std::ostringstream os;
  if (!got.defined() || !want.defined()) {
    if (got.defined() == want.defined()) return {};
    os << (got.defined() ? o.want_name : o.got_name) << " produced no value";
    return os.str();
  }
  if (got.dtype() != want.dtype()) {
    os << "dtypes differ: " << o.got_name << " " << dtype_name(got.dtype()) << ", " << o.want_name << " "
       << dtype_name(want.dtype());
    return os.str();
  }
  if (got.shape() != want.shape()) {
    os << "shapes differ: " << o.got_name << " " << shape_to_string(got.shape()) << ", " << o.want_name << " "
       << shape_to_string(want.shape());
    return os.str();
  }
  const NDArray a = got.contiguous(), b = want.contiguous();
  const DType dt = a.dtype();
  const bool exact_kind = !is_float(dt) && !is_complex(dt);
  const Tolerance tol = tolerance_for(dt);
  const std::int64_t n = a.size();
  const std::size_t item = a.itemsize();
  const Reader ra{static_cast<const std::byte*>(a.data()), dt, item}, rb{static_cast<const std::byte*>(b.data()), dt, item};
  std::vector<std::int64_t> bad;
  std::int64_t count = 0;
  double max_abs = 0, max_rel = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bool same;
    if (exact_kind) {
      same = std::memcmp(static_cast<const std::byte*>(a.data()) + static_cast<std::size_t>(i) * item,
                         static_cast<const std::byte*>(b.data()) + static_cast<std::size_t>(i) * item, item) == 0;
    } else {
      const auto [x, xi] = ra(i);
      const auto [y, yi] = rb(i);
      if (o.skip_nonfinite_want && (!std::isfinite(y) || !std::isfinite(yi))) continue;
      same = close(x, y, tol, o.exact) && close(xi, yi, tol, o.exact);
      if (!same && std::isfinite(x) && std::isfinite(y)) {
        const double d = std::hypot(x - y, xi - yi);
        max_abs = std::max(max_abs, d);
        const double m = std::hypot(y, yi);
        if (m > 0) max_rel = std::max(max_rel, d / m);
      }
    }
    if (same) continue;
    ++count;
    if (static_cast<int>(bad.size()) < o.max_reported) bad.push_back(i);
  }
  if (count == 0) return {};
  os << count << " of " << n << " elements differ (" << dtype_name(dt) << " " << shape_to_string(a.shape());
  if (exact_kind || o.exact) os << ", compared exactly";
  else os << ", rtol=" << tol.rtol << " atol=" << tol.atol << ", largest differences: abs " << max_abs << " rel "
          << max_rel;
  os << "):";
  for (std::int64_t i : bad)
    os << "\n  at " << index_str(a.shape(), i) << ": " << o.got_name << "=" << element_str(a, i) << " "
       << o.want_name << "=" << element_str(b, i);
  if (count > static_cast<std::int64_t>(bad.size())) os << "\n  ...";
  return os.str();
}

bool converts_exactly(const NDArray& original, const NDArray& converted) {
  // Back in the original dtype, every value must be what it was (NaN stays NaN).
  const NDArray host = converted.to_host();
  const NDArray back = host.astype(original.dtype());
  const bool round_trip = array_equal(back, original) || ((is_float(original.dtype()) || is_complex(original.dtype())) &&
                                                          allclose(back, original, 0, 0, true));
  // Between integers of one size, signed <-> unsigned wraps both ways (-1 ->
  // 2^64-1 -> -1): the values themselves must be equal too.
  if (round_trip && is_integer(original.dtype()) && is_integer(host.dtype())) return array_equal(host, original);
  return round_trip;
}

std::string summarize(const NDArray& a) {
  if (!a.defined()) return "<no value>";
  std::ostringstream os;
  os.precision(6);
  os << dtype_name(a.dtype()) << " " << shape_to_string(a.shape());
  const NDArray c = a.contiguous();
  const std::int64_t n = c.size();
  if (n == 0) return os.str();
  const Reader r{static_cast<const std::byte*>(c.data()), c.dtype(), c.itemsize()};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  bool has_nan = false, has_inf = false;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto [x, xi] = r(i);
    if (std::isnan(x) || std::isnan(xi)) {
      has_nan = true;
      continue;
    }
    has_inf |= std::isinf(x) || std::isinf(xi);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (lo <= hi) os << " min=" << lo << " max=" << hi << (is_complex(c.dtype()) ? " (real parts)" : "");
  if (is_float(c.dtype()) || is_complex(c.dtype()))
    os << " has_nan=" << (has_nan ? "true" : "false") << " has_inf=" << (has_inf ? "true" : "false");
  return os.str();
}

const char* bad_kind_name(BadValue::Kind k) {
  switch (k) {
    case BadValue::NaN: return "NaN";
    case BadValue::Inf: return "Inf";
    case BadValue::Big: return "big value (abs > 1e10)";
    default: return "none";
  }
}

BadValue find_bad_value(const NDArray& a, bool nan, bool inf, bool big, double big_threshold) {
  BadValue r;
  if (!a.defined() || !(is_float(a.dtype()) || is_complex(a.dtype()))) return r;
  const NDArray c = a.contiguous();
  const std::int64_t n = c.size();
  const Reader rd{static_cast<const std::byte*>(c.data()), c.dtype(), c.itemsize()};
  // First position and count of each kind; the report is the first kind
  // asked for in Theano's order: NaN, then Inf, then big (an infinity is big
  // too, as abs(x).max() > 1e10 in Theano).
  std::int64_t first[4] = {-1, -1, -1, -1}, count[4] = {0, 0, 0, 0};
  for (std::int64_t i = 0; i < n; ++i) {
    const auto [x, xi] = rd(i);
    auto note = [&](int k) {
      if (first[k] < 0) first[k] = i;
      ++count[k];
    };
    if (std::isnan(x) || std::isnan(xi)) {
      note(BadValue::NaN);
      continue;
    }
    if (std::isinf(x) || std::isinf(xi)) note(BadValue::Inf);
    if (std::hypot(x, xi) > big_threshold) note(BadValue::Big);
  }
  const bool want[4] = {false, nan, inf, big};
  for (int k : {BadValue::NaN, BadValue::Inf, BadValue::Big}) {
    if (!want[k] || first[k] < 0) continue;
    r.kind = static_cast<BadValue::Kind>(k);
    r.flat = first[k];
    r.count = count[k];
    r.value = element_str(c, first[k]);
    return r;
  }
  return r;
}

}  // namespace theano::detail
