// numpy's float repr rules, ported from numpy/_core/arrayprint.py (FloatingFormat) with
// Dragon4's "unique" digits replaced by std::to_chars shortest round-trip output.
#include "float_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace theano::detail {
namespace {

// Decimal digits d0 d1 ... and exponent e with |v| = d0.d1d2... * 10^e.
struct Digits {
  std::string d;
  int e = 0;
};

Digits parse_sci(const char* s, const char* end) {
  Digits r;
  const char* p = s;
  for (; p < end && *p != 'e'; ++p)
    if (*p >= '0' && *p <= '9') r.d += *p;
  if (p < end) r.e = std::atoi(std::string(p + 1, end).c_str());
  while (r.d.size() > 1 && r.d.back() == '0') r.d.pop_back();
  return r;
}

// Shortest digits that round-trip in `type`, of |v| (v finite).
Digits shortest(double v, DType type) {
  v = std::fabs(v);
  char buf[64];
  if (type == DType::Float16) {
    const uint16_t bits = half(v).bits;
    for (int p = 0; p < 6; ++p) {
      const int n = std::snprintf(buf, sizeof buf, "%.*e", p, v);
      if (half(std::strtod(buf, nullptr)).bits == bits || p == 5) return parse_sci(buf, buf + n);
    }
  }
  std::to_chars_result r = type == DType::Float32
                               ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific)
                               : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return parse_sci(buf, r.ptr);
}

// Digits of |v| correctly rounded to `frac` fractional digits in scientific form.
Digits rounded_sci(double v, int frac) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific, frac);
  return parse_sci(buf, r.ptr);
}

std::string sign_of(double v, bool plus) { return std::signbit(v) ? "-" : plus ? "+" : ""; }

// Positional: integer part (with sign) and fraction digits, at most `precision` of them.
void positional(double v, DType type, int precision, std::string& ip, std::string& fp) {
  Digits d = shortest(v, type);
  if (static_cast<int>(d.d.size()) - 1 - d.e > precision) {
    char buf[512];
    auto r = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::fixed, precision);
    std::string s(buf, r.ptr);
    const auto dot = s.find('.');
    ip = s.substr(0, dot);
    fp = dot == std::string::npos ? "" : s.substr(dot + 1);
    while (!fp.empty() && fp.back() == '0') fp.pop_back();
    return;
  }
  if (d.d == "0") d.e = 0;
  if (d.e >= 0) {
    std::string digits = d.d;
    if (static_cast<int>(digits.size()) < d.e + 1) digits.append(static_cast<std::size_t>(d.e + 1) - digits.size(), '0');
    ip = digits.substr(0, static_cast<std::size_t>(d.e + 1));
    fp = digits.substr(static_cast<std::size_t>(d.e + 1));
  } else {
    ip.assign(1, '0');  // (not ip = "0": GCC 12 -Wrestrict false positive)
    fp.assign(static_cast<std::size_t>(-d.e - 1), '0');
    fp.append(d.d);  // (append, not operator+: GCC 12 -Wrestrict false positive)
  }
}

// Scientific: mantissa integer digit, fraction digits (at most `precision`), exponent.
void scientific(double v, DType type, int precision, std::string& ip, std::string& fp, int& e) {
  Digits d = shortest(v, type);
  if (static_cast<int>(d.d.size()) - 1 > precision) d = rounded_sci(v, precision);
  if (d.d == "0") d.e = 0;
  ip = d.d.substr(0, 1);
  fp = d.d.substr(1);
  e = d.e;
}

std::string exp_string(int e, int min_digits) {
  std::string digits = std::to_string(std::abs(e));
  if (static_cast<int>(digits.size()) < min_digits) digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
  return std::string(e < 0 ? "e-" : "e+") + digits;
}

}  // namespace

void FloatFormat::fill(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values)
    if (std::isfinite(v)) finite.push_back(v);
  double max_val = -1, min_val = -1;
  for (double v : finite) {
    if (v == 0) continue;
    const double a = std::fabs(v);
    max_val = max_val < 0 ? a : std::max(max_val, a);
    min_val = min_val < 0 ? a : std::min(min_val, a);
  }
  if (max_val >= 0 && (max_val >= 1e8 || min_val < 0.0001 || max_val / min_val > 1000.)) exp_format_ = true;

  if (finite.empty()) {
    pad_left_ = pad_right_ = 0;
    trim_k_ = false;
    exp_size_ = -1;
    min_digits_ = 0;
  } else if (exp_format_) {
    int max_frac = 0, max_int = 0, max_exp = 0;
    for (double v : finite) {
      std::string ip, fp;
      int e;
      scientific(v, type_, precision_, ip, fp, e);
      max_frac = std::max(max_frac, static_cast<int>(fp.size()));
      max_int = std::max(max_int, static_cast<int>((sign_of(v, plus_) + ip).size()));
      max_exp = std::max(max_exp, static_cast<int>(exp_string(e, 2).size()) - 2);
    }
    exp_size_ = max_exp;
    trim_k_ = true;
    precision_ = min_digits_ = max_frac;
    pad_left_ = max_int;
    pad_right_ = exp_size_ + 2 + precision_;
  } else {
    int max_frac = 0, max_int = 0;
    for (double v : finite) {
      std::string ip, fp;
      positional(v, type_, precision_, ip, fp);
      max_frac = std::max(max_frac, static_cast<int>(fp.size()));
      max_int = std::max(max_int, static_cast<int>((sign_of(v, plus_) + ip).size()));
    }
    pad_left_ = max_int;
    pad_right_ = max_frac;
    exp_size_ = -1;
    trim_k_ = false;
    min_digits_ = 0;
  }
  if (finite.size() != values.size()) {
    bool neginf = plus_;
    for (double v : values)
      if (std::isinf(v) && v < 0) neginf = true;
    const int offset = pad_right_ + 1;
    pad_left_ = std::max({pad_left_, 3 - offset, 3 + (neginf ? 1 : 0) - offset});
  }
}

std::string FloatFormat::format(double v) const {
  if (!std::isfinite(v)) {
    std::string r = std::isnan(v) ? (plus_ ? "+nan" : "nan") : (v < 0 ? "-inf" : plus_ ? "+inf" : "inf");
    const int width = pad_left_ + pad_right_ + 1;
    if (static_cast<int>(r.size()) < width) r.insert(0, static_cast<std::size_t>(width) - r.size(), ' ');
    return r;
  }
  std::string ip, fp, tail;
  if (exp_format_) {
    int e;
    scientific(v, type_, precision_, ip, fp, e);
    tail = exp_string(e, std::max(exp_size_, 2));
  } else {
    positional(v, type_, precision_, ip, fp);
  }
  if (trim_k_ && static_cast<int>(fp.size()) < min_digits_) fp.append(static_cast<std::size_t>(min_digits_) - fp.size(), '0');
  std::string left = sign_of(v, plus_) + ip;
  if (static_cast<int>(left.size()) < pad_left_) left.insert(0, static_cast<std::size_t>(pad_left_) - left.size(), ' ');
  std::string out = left + "." + fp + tail;
  if (!exp_format_ && static_cast<int>(fp.size()) < pad_right_) out.append(static_cast<std::size_t>(pad_right_) - fp.size(), ' ');
  return out;
}

}  // namespace theano::detail
