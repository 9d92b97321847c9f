/// \file
/// Inputs of the anchor workloads (docs/workloads.md), reproduced bit for
/// bit: `U(seed; lo, hi)` is SplitMix64 on the element counter, mapped to
/// [lo, hi) in double, then cast to the dtype. Plus the timing helpers every
/// benchmark uses (median of repeated calls, a single-thread STREAM triad).
#pragma once

#include <theano/runtime/ndarray.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace theano::bench {

/// Element i of U(seed; 0, 1) before scaling.
inline double splitmix_unit(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z = z ^ (z >> 31);
  return static_cast<double>(z >> 11) * 0x1p-53;
}

/// U(seed; lo, hi) of `shape` in `dtype` (float64 or float32).
inline NDArray uniform(std::uint64_t seed, double lo, double hi, std::vector<std::int64_t> shape,
                       DType dtype = DType::Float64) {
  NDArray a = NDArray::empty(std::move(shape), DType::Float64);
  double* p = a.data_as<double>();
  for (std::int64_t i = 0; i < a.size(); ++i)
    p[i] = lo + (hi - lo) * splitmix_unit(seed, static_cast<std::uint64_t>(i));
  return dtype == DType::Float64 ? a : a.astype(dtype);
}

/// Sum of all elements accumulated in float64 (the workloads' checksum).
inline double checksum(const NDArray& a) {
  const NDArray d = a.astype(DType::Float64).contiguous();
  const double* p = d.data_as<double>();
  double s = 0;
  for (std::int64_t i = 0; i < d.size(); ++i) s += p[i];
  return s;
}

struct Timing {
  double median = 0, min = 0, max = 0;  // seconds per call
};

/// Median, min and max of samples (at least one).
inline Timing timing_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

/// `reps` timed runs of `f` (each run calls it `inner` times) after `warmup`
/// calls; per-call seconds.
inline Timing time_calls(const std::function<void()>& f, int reps, int inner = 1, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < inner; ++k) f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / inner);
  }
  return timing_of(std::move(t));
}

/// `reps` samples of `a` beside each of `others` (after `warmup` calls of
/// each): each sample times one call of every callable, in turn a first and
/// a last, so a neighbour's load in that moment falls on all of them.
/// `ratios[k]`: the median over samples of a's time / others[k]'s (more
/// robust on a shared machine than the ratio of two medians taken minutes
/// apart).
struct BesideTiming {
  Timing a;
  std::vector<Timing> others;
  std::vector<double> ratios;
};
inline BesideTiming time_beside(const std::function<void()>& a, const std::vector<std::function<void()>>& others,
                                int reps, int warmup = 2) {
  for (int i = 0; i < warmup; ++i) {
    a();
    for (const auto& b : others) b();
  }
  auto seconds = [](const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> ta;
  std::vector<std::vector<double>> tb(others.size()), ratios(others.size());
  for (int r = 0; r < reps; ++r) {
    double sa = 0;
    if (r % 2 == 0) sa = seconds(a);
    for (std::size_t k = 0; k < others.size(); ++k) tb[k].push_back(seconds(others[k]));
    if (r % 2 == 1) sa = seconds(a);
    ta.push_back(sa);
    for (std::size_t k = 0; k < others.size(); ++k) ratios[k].push_back(sa / tb[k].back());
  }
  BesideTiming out{timing_of(std::move(ta)), {}, {}};
  for (std::size_t k = 0; k < others.size(); ++k) {
    out.others.push_back(timing_of(std::move(tb[k])));
    out.ratios.push_back(timing_of(std::move(ratios[k])).median);
  }
  return out;
}

/// Single-thread STREAM triad a = b + s*c over n doubles: GB/s counting 24
/// bytes per element (STREAM's convention), best of `reps`.
inline double triad_gbs(std::int64_t n = 20'000'000, int reps = 7) {
  std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n), 1.0),
      c(static_cast<std::size_t>(n), 2.0);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i] + 3.0 * pc[i];
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  volatile double sink = a[static_cast<std::size_t>(n / 2)];
  (void)sink;
  return 24.0 * static_cast<double>(n) / best / 1e9;
}

}  // namespace theano::bench
