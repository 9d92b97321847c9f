/// \file
/// Accuracy of the special functions (runtime/include/theano/runtime/kernels/special_math.h)
/// in ULPs against Boost.Math evaluated in long double (64-bit significand; a test-only
/// reference that shares no code with the kernels): `ulps` measures one value, `worst_ulps`
/// runs a graph over a grid through generated code (float64, and float32 in the prelude's
/// float domain) and returns the largest error and where it occurred. The measured maxima
/// are in docs/special-functions.md.
#pragma once

#include <theano/compile/function.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace special_test {

/// |got - want| in units of the last place of `want` rounded to a type with `digits`
/// significand bits whose smallest subnormal is 2^min_exp; 0 for equal values, equal
/// infinities and NaN against NaN; 1e300 when only one side is NaN or infinite. With a
/// `floor` > 0 the unit is that of max(|want|, floor): for a function with zeros inside its
/// domain (betaln), whose relative error there says nothing of the method.
inline double ulps(double got, long double want, int digits, int min_exp, double floor = 0) {
  const bool want_nan = std::isnan(want), got_nan = std::isnan(got);
  if (want_nan || got_nan) return want_nan && got_nan ? 0 : 1e300;
  const long double rounded = digits == 24 ? static_cast<long double>(static_cast<float>(want))
                                           : static_cast<long double>(static_cast<double>(want));
  if (static_cast<long double>(got) == rounded) return 0;
  if (std::isinf(got) || std::isinf(rounded)) return 1e300;
  int e = 0;
  std::frexp(std::max(std::fabs(want), static_cast<long double>(floor)), &e);
  const long double unit = std::ldexp(1.0L, std::max(e - digits, min_exp));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / unit);
}

struct Worst {
  double ulp = 0;
  double x = 0, y = 0;  ///< the arguments where it occurred
};

/// Runs `f` (one or two arguments) over the grid points `xs` (and `ys`, same length, for
/// two) in `dtype` through the default (generated code) linker, and measures each result
/// against `ref` at the arguments as that dtype holds them (ulps, with `floor`).
inline Worst worst_ulps(theano::DType dtype, const std::function<theano::Var(const std::vector<theano::Var>&)>& f,
                        const std::function<long double(long double, long double)>& ref,
                        const std::vector<double>& xs, const std::vector<double>& ys = {}, double floor = 0) {
  using namespace theano;
  const bool f32 = dtype == DType::Float32;
  const auto n = static_cast<std::int64_t>(xs.size());
  std::vector<Var> ins{tensor::vector("x", dtype)};
  std::vector<NDArray> args{NDArray::from_vector(xs, {n}).astype(dtype)};
  if (!ys.empty()) {
    ins.push_back(tensor::vector("y", dtype));
    args.push_back(NDArray::from_vector(ys, {n}).astype(dtype));
  }
  Function fn = function(std::vector<In>(ins.begin(), ins.end()), {Out(f(ins))});
  const NDArray out = fn(args)[0].astype(DType::Float64).copy();
  const NDArray ax = args[0].astype(DType::Float64).copy();
  const NDArray ay = ys.empty() ? ax : args[1].astype(DType::Float64).copy();
  Worst w;
  for (std::int64_t k = 0; k < n; ++k) {
    const double x = ax.data_as<double>()[k], y = ay.data_as<double>()[k];
    const long double want = ref(x, y);
    const double u = ulps(out.data_as<double>()[k], want, f32 ? 24 : 53, f32 ? -149 : -1074, floor);
    if (u > w.ulp) w = {u, x, y};
  }
  return w;
}

/// n + 1 points from a to b, evenly spaced.
inline std::vector<double> linspace(double a, double b, int n) {
  std::vector<double> v;
  for (int i = 0; i <= n; ++i) v.push_back(a + (b - a) * i / n);
  return v;
}
/// n + 1 points from a to b (both > 0), evenly spaced in log.
inline std::vector<double> logspace(double a, double b, int n) {
  std::vector<double> v;
  for (int i = 0; i <= n; ++i) v.push_back(a * std::pow(b / a, static_cast<double>(i) / n));
  return v;
}
/// The concatenation of grids.
inline std::vector<double> join(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> v;
  for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}
/// Each point mapped through `f`.
inline std::vector<double> mapped(const std::vector<double>& v, const std::function<double(double)>& f) {
  std::vector<double> r;
  for (double x : v) r.push_back(f(x));
  return r;
}

}  // namespace special_test
