// NDArray::str(): numpy's repr, ported from numpy/_core/arrayprint.py (numpy 2.x,
// default print options: linewidth 75, threshold 1000, edgeitems 3, precision 8).
// Two passes as numpy does: collect the values that will be shown (edge items only
// when summarising), build one element formatter from them, then lay out the nested
// brackets with numpy's line wrapping.
#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <string>

#include "float_format.h"
#include "theano/runtime/ndarray.h"

namespace theano {
namespace {

constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

using Formatter = std::function<std::string(const std::byte*)>;

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

struct Printer {
  const NDArray& a;
  bool summarize;

  // Indices shown along an axis of length n.
  std::vector<int64_t> shown(int64_t n) const {
    std::vector<int64_t> idx;
    if (summarize && n > 2 * kEdgeItems) {
      for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
      for (int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) idx.push_back(i);
    }
    return idx;
  }

  void collect(const std::byte* p, std::size_t axis, std::vector<const std::byte*>& out) const {
    if (axis == a.shape().size()) {
      out.push_back(p);
      return;
    }
    for (int64_t i : shown(a.shape()[axis])) collect(p + i * a.strides()[axis], axis + 1, out);
  }

  static void extend_line(std::string& s, std::string& line, const std::string& word, int width,
                          const std::string& next_prefix) {
    bool wrap = static_cast<int>(line.size() + word.size()) > width;
    if (line.size() <= next_prefix.size()) wrap = false;
    if (wrap) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
      s += line + "\n";
      line = next_prefix;
    }
    line += word;
  }

  // numpy's _formatArray recurser.
  std::string recurse(const std::byte* p, std::size_t axis, const std::string& hanging, int width,
                      const Formatter& fmt) const {
    const std::size_t nd = a.shape().size();
    if (axis == nd) return fmt(p);
    const std::string next_hanging = hanging + " ";
    const int next_width = width - 1;
    const int64_t n = a.shape()[axis];
    const int64_t st = a.strides()[axis];
    const bool show_summary = summarize && 2 * kEdgeItems < n;
    const int64_t leading = show_summary ? kEdgeItems : 0;
    const int64_t trailing = show_summary ? kEdgeItems : n;
    const std::string sep = ", ";
    std::string s;
    if (nd - axis == 1) {
      const int elem_width = width - 1;  // max(len(separator.rstrip()), len(']'))
      std::string line = hanging;
      for (int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, recurse(p + i * st, axis + 1, next_hanging, next_width, fmt), elem_width, hanging);
        line += sep;
      }
      if (show_summary) {
        extend_line(s, line, "...", elem_width, hanging);
        line += sep;
      }
      for (int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, recurse(p + (n - i) * st, axis + 1, next_hanging, next_width, fmt), elem_width, hanging);
        line += sep;
      }
      extend_line(s, line, recurse(p + (n - 1) * st, axis + 1, next_hanging, next_width, fmt), elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep = "," + std::string(nd - axis - 1, '\n');
      for (int64_t i = 0; i < leading; ++i)
        s += hanging + recurse(p + i * st, axis + 1, next_hanging, next_width, fmt) + line_sep;
      if (show_summary) s += hanging + "..." + line_sep;
      for (int64_t i = trailing; i > 1; --i)
        s += hanging + recurse(p + (n - i) * st, axis + 1, next_hanging, next_width, fmt) + line_sep;
      s += hanging + recurse(p + (n - 1) * st, axis + 1, next_hanging, next_width, fmt);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }
};

template <class T>
Formatter integer_formatter(const std::vector<const std::byte*>& vals) {
  std::size_t w = 0;
  for (const std::byte* p : vals) w = std::max(w, std::to_string(load<T>(p)).size());
  return [w](const std::byte* p) {
    std::string s = std::to_string(load<T>(p));
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
  };
}

template <class T>
double as_double(const std::byte* p) {
  if constexpr (std::is_same_v<T, half>) return static_cast<double>(load<half>(p));
  else return static_cast<double>(load<T>(p));
}

Formatter make_formatter(const NDArray& a, const std::vector<const std::byte*>& vals) {
  const DType dt = a.dtype();
  if (dt == DType::Bool) {
    bool any_true = false;
    for (const std::byte* p : vals) any_true |= *p != std::byte{0};
    const bool pad = a.ndim() > 0 && any_true;
    return [pad](const std::byte* p) -> std::string {
      return *p != std::byte{0} ? (pad ? " True" : "True") : "False";
    };
  }
  if (is_integer(dt)) {
    return visit_dtype(dt, [&](auto tag) -> Formatter {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if constexpr (sizeof(T) == 1) {
          // Print int8/uint8 as numbers, not characters.
          std::size_t w = 0;
          for (const std::byte* p : vals) w = std::max(w, std::to_string(static_cast<int>(load<T>(p))).size());
          return [w](const std::byte* p) {
            std::string s = std::to_string(static_cast<int>(load<T>(p)));
            return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
          };
        } else {
          return integer_formatter<T>(vals);
        }
      } else {
        return {};
      }
    });
  }
  if (is_float(dt)) {
    auto f = std::make_shared<detail::FloatFormat>(dt, false);
    const auto read = visit_dtype(dt, [](auto tag) -> double (*)(const std::byte*) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, half> || std::is_floating_point_v<T>) return &as_double<T>;
      else return nullptr;
    });
    std::vector<double> values;
    for (const std::byte* p : vals) values.push_back(read(p));
    f->fill(values);
    return [f, read](const std::byte* p) { return f->format(read(p)); };
  }
  // Complex: real and imaginary parts formatted separately (imag with '+').
  const DType part = dt == DType::Complex64 ? DType::Float32 : DType::Float64;
  auto re = std::make_shared<detail::FloatFormat>(part, false);
  auto im = std::make_shared<detail::FloatFormat>(part, true);
  auto read = [dt](const std::byte* p) -> std::complex<double> {
    if (dt == DType::Complex64) {
      const auto c = load<std::complex<float>>(p);
      return {c.real(), c.imag()};
    }
    return load<std::complex<double>>(p);
  };
  std::vector<double> rv, iv;
  for (const std::byte* p : vals) {
    rv.push_back(read(p).real());
    iv.push_back(read(p).imag());
  }
  re->fill(rv);
  im->fill(iv);
  return [re, im, read](const std::byte* p) {
    const std::complex<double> c = read(p);
    // 'j' goes before the imaginary part's right padding.
    const std::string i = im->format(c.imag());
    std::size_t sp = i.size();
    while (sp > 0 && i[sp - 1] == ' ') --sp;
    std::string out = re->format(c.real());
    out.append(i, 0, sp).append(1, 'j').append(i, sp, std::string::npos);
    return out;
  };
}

bool dtype_is_implied(DType d) {
  return d == DType::Float64 || d == DType::Int64 || d == DType::Bool || d == DType::Complex128;
}

}  // namespace

std::string NDArray::str() const {
  if (!defined_) return "NDArray()";
  // A device array's elements are not readable here (ndarray.h): its metadata.
  if (!on_host())
    return "array(shape=" + shape_to_string(shape_) + ", dtype=" + std::string(dtype_name(dtype_)) + ", device='" +
           device_.str() + "')";
  const std::string prefix = "array(";
  const int64_t n = size();
  std::string lst;
  if (n == 0) {
    lst = "[]";
  } else {
    Printer pr{*this, n > kThreshold};
    std::vector<const std::byte*> vals;
    pr.collect(data_, 0, vals);
    const Formatter fmt = make_formatter(*this, vals);
    lst = pr.recurse(data_, 0, " " + std::string(prefix.size(), ' '), kLineWidth - 1, fmt);
  }
  std::vector<std::string> extras;
  if ((n == 0 && shape_ != std::vector<int64_t>{0}) || n > kThreshold)
    extras.push_back("shape=" + shape_to_string(shape_));
  if (!dtype_is_implied(dtype_) || n == 0) extras.push_back("dtype=" + std::string(dtype_name(dtype_)));
  if (extras.empty()) return prefix + lst + ")";
  const std::string arr = prefix + lst + ",";
  std::string extra;
  for (std::size_t i = 0; i < extras.size(); ++i) extra += (i ? ", " : "") + extras[i];
  extra += ")";
  const auto nl = arr.rfind('\n');
  const std::size_t last_len = arr.size() - (nl == std::string::npos ? 0 : nl + 1);
  const std::string spacer =
      static_cast<int>(last_len + extra.size() + 1) > kLineWidth ? "\n" + std::string(prefix.size(), ' ') : " ";
  return arr + spacer + extra;
}

}  // namespace theano
