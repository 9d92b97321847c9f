/// \file
/// The sampling kernels behind RandomFunction::perform: uniform and normal on
/// the dense word layout, binomial and integers on per-element substreams
/// (their rejection loops use a varying number of words). Each kernel is a pure
/// function of the call key and the element index, as a GPU kernel would be.
#include "random_kernels.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace theano::tensor::random_detail {

namespace {

inline std::uint32_t lo32(std::uint64_t v) { return static_cast<std::uint32_t>(v); }
inline std::uint32_t hi32(std::uint64_t v) { return static_cast<std::uint32_t>(v >> 32); }

/// Word w of the call: word w % 4 of block w / 4.
class DenseWords {
 public:
  explicit DenseWords(PhiloxKey key) : key_(key) {}
  std::uint32_t word(std::uint64_t w) {
    const std::uint64_t b = w >> 2;
    if (!valid_ || b != block_) {
      buf_ = philox4x32({lo32(b), hi32(b), 0, 0}, key_);
      block_ = b;
      valid_ = true;
    }
    return buf_[w & 3];
  }
  /// Uniform number k of the call on [0, 1).
  double uniform(std::uint64_t k, bool single) {
    if (single) return static_cast<double>(word(k) >> 8) * 0x1p-24;
    const std::uint64_t x = (static_cast<std::uint64_t>(word(2 * k)) << 32) | word(2 * k + 1);
    return static_cast<double>(x >> 11) * 0x1p-53;
  }

 private:
  PhiloxKey key_;
  PhiloxCounter buf_{};
  std::uint64_t block_ = 0;
  bool valid_ = false;
};

/// Element i's own stream: blocks philox({j, lo(i), hi(i), 1}, key), two
/// 64-bit values each.
class SubStream {
 public:
  SubStream(PhiloxKey key, std::uint64_t i) : key_(key), i_(i) {}
  std::uint64_t next64() {
    if (pos_ == 2) {
      buf_ = philox4x32({j_++, lo32(i_), hi32(i_), 1}, key_);
      pos_ = 0;
    }
    const std::uint64_t v = (static_cast<std::uint64_t>(buf_[2 * pos_]) << 32) | buf_[2 * pos_ + 1];
    ++pos_;
    return v;
  }
  double next_double() { return static_cast<double>(next64() >> 11) * 0x1p-53; }

 private:
  PhiloxKey key_;
  std::uint64_t i_;
  std::uint32_t j_ = 0;
  PhiloxCounter buf_{};
  int pos_ = 2;
};

/// The 128-bit product a * b as (high, low) words, portably (CUDA: __umul64hi).
inline void mul_64x64(std::uint64_t a, std::uint64_t b, std::uint64_t& hi, std::uint64_t& lo) {
  const std::uint64_t a0 = lo32(a), a1 = hi32(a), b0 = lo32(b), b1 = hi32(b);
  const std::uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const std::uint64_t mid = (p00 >> 32) + lo32(p01) + lo32(p10);
  hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  lo = (mid << 32) | lo32(p00);
}

/// Inversion (numpy's random_binomial_inversion), for n p < 10, p <= 1/2.
std::int64_t binomial_inversion(SubStream& s, std::int64_t n, double p) {
  const double q = 1.0 - p;
  const double qn = std::exp(static_cast<double>(n) * std::log(q));
  const double np = static_cast<double>(n) * p;
  const double bound = std::min(static_cast<double>(n), np + 10.0 * std::sqrt(np * q + 1));
  std::int64_t x = 0;
  double px = qn;
  double u = s.next_double();
  while (u > px) {
    ++x;
    if (static_cast<double>(x) > bound) {
      x = 0;
      px = qn;
      u = s.next_double();
    } else {
      u -= px;
      px = (static_cast<double>(n - x + 1) * p * px) / (static_cast<double>(x) * q);
    }
  }
  return x;
}

/// Hörmann's BTRS (transformed rejection with squeeze), for n p >= 10, p <= 1/2.
std::int64_t binomial_btrs(SubStream& s, std::int64_t n, double p) {
  const double dn = static_cast<double>(n);
  const double spq = std::sqrt(dn * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = dn * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = std::floor((dn + 1) * p);
  while (true) {
    const double u = s.next_double() - 0.5;
    double v = s.next_double();
    const double us = 0.5 - std::abs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return static_cast<std::int64_t>(k);
    if (k < 0 || k > dn) continue;
    v = std::log(v * alpha / (a / (us * us) + b));
    const double h = (m + 0.5) * std::log((m + 1) / (r * (dn - m + 1))) + (dn + 1) * std::log((dn - m + 1) / (dn - k + 1)) +
                     (k + 0.5) * std::log(r * (dn - k + 1) / (k + 1)) + stirling_tail(m) + stirling_tail(dn - m) -
                     stirling_tail(k) - stirling_tail(dn - k);
    if (v <= h) return static_cast<std::int64_t>(k);
  }
}

std::int64_t binomial_one(SubStream& s, std::int64_t n, double p) {
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  if (p > 0.5) return n - binomial_one(s, n, 1 - p);
  return static_cast<double>(n) * p < 10 ? binomial_inversion(s, n, p) : binomial_btrs(s, n, p);
}

}  // namespace

double stirling_tail(double k) {
  static constexpr double table[10] = {0.08106146679532726, 0.04134069595540929, 0.02767792568499834,
                                       0.02079067210376509, 0.01664469118982119, 0.01387612882307075,
                                       0.01189670994589177, 0.01041126526197209, 0.009255462182712733,
                                       0.008330563433362871};
  if (k <= 9) return table[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

std::vector<double> sample_uniform(PhiloxKey key, std::int64_t n, bool single, const double* low, const double* high) {
  DenseWords words(key);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = low[i] + (high[i] - low[i]) * words.uniform(static_cast<std::uint64_t>(i), single);
  return out;
}

std::vector<double> sample_normal(PhiloxKey key, std::int64_t n, bool single, const double* avg, const double* std) {
  DenseWords words(key);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; 2 * j < n; ++j) {
    const auto k = static_cast<std::uint64_t>(2 * j);
    const double u1 = 1.0 - words.uniform(k, single);  // (0, 1]: log is finite
    const double u2 = words.uniform(k + 1, single);
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * std::numbers::pi * u2;
    const std::int64_t i0 = 2 * j, i1 = 2 * j + 1;
    out[static_cast<std::size_t>(i0)] = avg[i0] + std[i0] * radius * std::cos(theta);
    if (i1 < n) out[static_cast<std::size_t>(i1)] = avg[i1] + std[i1] * radius * std::sin(theta);
  }
  return out;
}

std::vector<std::int64_t> sample_binomial(PhiloxKey key, std::int64_t n, const std::int64_t* trials, const double* p) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    SubStream s(key, static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = binomial_one(s, trials[i], p[i]);
  }
  return out;
}

std::vector<std::int64_t> sample_integers(PhiloxKey key, std::int64_t n, const std::int64_t* low,
                                         const std::int64_t* high) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    SubStream s(key, static_cast<std::uint64_t>(i));
    // Lemire's multiply-shift with rejection: unbiased on [0, range).
    const std::uint64_t range = static_cast<std::uint64_t>(high[i]) - static_cast<std::uint64_t>(low[i]);
    std::uint64_t h, l;
    mul_64x64(s.next64(), range, h, l);
    if (l < range) {
      const std::uint64_t t = (0 - range) % range;
      while (l < t) mul_64x64(s.next64(), range, h, l);
    }
    out[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(static_cast<std::uint64_t>(low[i]) + h);
  }
  return out;
}

}  // namespace theano::tensor::random_detail
