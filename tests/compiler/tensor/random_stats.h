// Statistical checks shared by the random distribution tests
// (test_random_distributions.cpp, test_random_multivariate.cpp):
// Kolmogorov-Smirnov against a CDF, Pearson's chi-square against a PMF, and
// mean / variance within 5 standard errors (Boost.Math gives the
// quantiles); and perform's sample of a RandomFunction of constants.
#pragma once

#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/type.h"

namespace theano::random_stats {

inline Var state_var() { return tensor::tensor(DType::UInt64, {2}, "rng"); }

inline NDArray state_value(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

/// perform's sample of `sample` (its node's other inputs constants) at state {seed, 0}.
inline NDArray run(const Var& sample, std::uint64_t seed) {
  const Apply& node = *sample.owner();
  std::vector<NDArray> ins{state_value(seed, 0)};
  for (int k = 1; k < node.nin(); ++k) {
    REQUIRE(node.input(k).is_constant());
    ins.push_back(node.input(k).as_constant()->data());
  }
  std::vector<NDArray> outs(2);
  node.op()->perform(node, ins, outs);
  return outs[1];
}

/// The values of `a` as doubles, in C order.
inline std::vector<double> values(const NDArray& a) {
  const NDArray d = a.astype(DType::Float64).contiguous();
  return std::vector<double>(d.data_as<double>(), d.data_as<double>() + d.size());
}

/// The Kolmogorov-Smirnov statistic of `v` against the CDF `F`. Ties (draws
/// that rounded to the same double, e.g. beta draws at 1) are one step of the
/// empirical CDF, compared below with F at the previous double.
inline double ks(std::vector<double> v, const std::function<double(double)>& F) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    const double f = F(v[i]), below = F(std::nextafter(v[i], -std::numeric_limits<double>::infinity()));
    if (!(f >= 0 && f <= 1)) return 1.0;  // a sample outside the support
    d = std::max({d, static_cast<double>(j) / n - f, below - static_cast<double>(i) / n});
    i = j;
  }
  return d;
}
/// KS rejection at level 1e-4 (asymptotic: sqrt(-log(alpha / 2) / 2) / sqrt(n)).
inline double ks_bound(std::size_t n) { return std::sqrt(-std::log(0.5e-4) / 2) / std::sqrt(static_cast<double>(n)); }

/// Pearson's sum over the cells lo..hi: observed `count[k]` against the
/// expected n pmf(k); cells expected below 5 are pooled into pooled_obs /
/// pooled_exp (pooled_obs may start with draws outside [lo, hi]).
struct Pearson {
  double chi = 0, pooled_obs = 0, pooled_exp = 0, inside = 0;  ///< inside: the pmf's mass on [lo, hi]
  int cells = 0;                                                ///< the cells not pooled
};
inline Pearson pearson(const std::map<std::int64_t, double>& count, double n,
                       const std::function<double(std::int64_t)>& pmf, std::int64_t lo, std::int64_t hi,
                       double pooled_obs = 0) {
  Pearson r;
  r.pooled_obs = pooled_obs;
  for (std::int64_t k = lo; k <= hi; ++k) {
    const double pk = pmf(k);
    r.inside += pk;
    const auto it = count.find(k);
    const double e = n * pk, o = it == count.end() ? 0.0 : it->second;
    if (e < 5) {
      r.pooled_obs += o;
      r.pooled_exp += e;
      continue;
    }
    r.chi += (o - e) * (o - e) / e;
    ++r.cells;
  }
  return r;
}

/// Pearson's chi-square of integer samples against `pmf` on [lo, hi] (cells
/// with an expected count below 5 pooled, the mass outside [lo, hi] one more
/// cell), and whether it is below the 1 - 1e-4 quantile.
inline bool chi_square_ok(const std::vector<double>& v, const std::function<double(std::int64_t)>& pmf,
                          std::int64_t lo, std::int64_t hi, double* stat = nullptr) {
  std::map<std::int64_t, double> count;
  double outside = 0;
  for (double x : v) {
    if (x != std::floor(x)) return false;
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi))
      outside += 1;
    else
      count[static_cast<std::int64_t>(x)] += 1;
  }
  const double n = static_cast<double>(v.size());
  Pearson r = pearson(count, n, pmf, lo, hi, outside);
  r.pooled_exp += n * std::max(0.0, 1 - r.inside);
  if (r.pooled_exp > 0) {
    r.chi += (r.pooled_obs - r.pooled_exp) * (r.pooled_obs - r.pooled_exp) / r.pooled_exp;
    ++r.cells;
  } else if (r.pooled_obs > 0) {
    return false;  // draws where the pmf has no mass
  }
  if (stat) *stat = r.chi;
  return r.cells < 2 || r.chi < boost::math::quantile(boost::math::chi_squared(r.cells - 1), 1 - 1e-4);
}

struct Moments {
  double mean, var, kurt_excess;
};

/// The sample mean within 5 standard errors, the variance within 5 of its
/// standard errors (through the excess kurtosis).
inline void check_moments(const std::vector<double>& v, const Moments& m) {
  const double n = static_cast<double>(v.size());
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= n;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= n - 1;
  CHECK(std::fabs(mean - m.mean) < 5 * std::sqrt(m.var / n));
  CHECK(std::fabs(var - m.var) < 5 * m.var * std::sqrt((m.kurt_excess + 2) / n));
}


}  // namespace theano::random_stats
