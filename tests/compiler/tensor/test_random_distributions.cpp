// RandomFunction's distributions after uniform / normal / binomial / integers
// through perform (docs/random.md): each sampled at fixed seeds (20000
// draws) and tested against Boost.Math's CDF (Kolmogorov-Smirnov, continuous)
// or PMF (Pearson chi-square, discrete), and its mean and variance against
// Boost's; each test also checks that a wrongly parameterised reference is
// rejected, so the sample size detects a parameterisation slip. Then
// broadcasting, dtypes and the parameter errors. Boost.Math is the reference
// only: it shares no code with the kernels.
#include <doctest/doctest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/cauchy.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/geometric.hpp>
#include <boost/math/distributions/hypergeometric.hpp>
#include <boost/math/distributions/laplace.hpp>
#include <boost/math/distributions/logistic.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/negative_binomial.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/poisson.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/bessel.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <optional>

#include "random_stats.h"
#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/config.h"
#include "theano/tensor/random.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::tensor;
namespace bm = boost::math;
using namespace theano::random_stats;

namespace {

constexpr std::int64_t kDraws = 20000;

std::vector<double> draw(Distribution d, const std::vector<TensorLike>& params, std::uint64_t seed = 2026,
                         DType dtype = DType::Float64, std::int64_t n = kDraws) {
  return values(run(random_function(d, state_var(), RandomSize({n}), params, dtype).second, seed));
}

template <class D>
std::function<double(double)> cdf_of(const D& dist) {
  return [dist](double x) {
    try {
      return bm::cdf(dist, x);
    } catch (const std::exception&) {
      return std::nan("");
    }
  };
}

/// One continuous case: draws of `d` with `params` pass KS against `right`
/// and fail against `wrong` (a slipped parameter).
void check_continuous(Distribution d, const std::vector<TensorLike>& params, const std::function<double(double)>& right,
                      const std::function<double(double)>& wrong, std::optional<Moments> m = {}) {
  const std::vector<double> v = draw(d, params);
  const double ok = ks(v, right), bad = ks(v, wrong);
  CAPTURE(ok);
  CAPTURE(bad);
  CHECK(ok < ks_bound(v.size()));
  CHECK(bad > ks_bound(v.size()));
  if (m) check_moments(v, *m);
}

template <class D>
void check_boost(Distribution d, const std::vector<TensorLike>& params, const D& right, const D& wrong,
                 bool moments = true) {
  std::optional<Moments> m;
  if (moments) m = Moments{bm::mean(right), bm::variance(right), bm::kurtosis_excess(right)};
  check_continuous(d, params, cdf_of(right), cdf_of(wrong), m);
}

/// One discrete case: chi-square against `right` passes, against `wrong` fails.
void check_discrete(Distribution d, const std::vector<TensorLike>& params,
                    const std::function<double(std::int64_t)>& right, const std::function<double(std::int64_t)>& wrong,
                    std::int64_t lo, std::int64_t hi, std::optional<Moments> m = {}) {
  const std::vector<double> v = draw(d, params);
  double ok = 0, bad = 0;
  const bool passes = chi_square_ok(v, right, lo, hi, &ok);
  const bool wrong_passes = chi_square_ok(v, wrong, lo, hi, &bad);
  CAPTURE(ok);
  CAPTURE(bad);
  CHECK(passes);
  CHECK(!wrong_passes);
  if (m) check_moments(v, *m);
}

template <class D>
std::function<double(std::int64_t)> pmf_of(const D& dist, std::int64_t shift = 0) {
  return [dist, shift](std::int64_t k) {
    try {
      return bm::pdf(dist, static_cast<double>(k - shift));
    } catch (const std::exception&) {
      return 0.0;
    }
  };
}

template <class D>
Moments moments_of(const D& dist, double shift = 0) {
  return {bm::mean(dist) + shift, bm::variance(dist), bm::kurtosis_excess(dist)};
}

/// The standard normal truncated to [a, b] mapped by loc + scale z: its CDF.
std::function<double(double)> truncnorm_cdf(double loc, double scale, double lo, double hi) {
  const bm::normal n;
  const double a = (lo - loc) / scale, b = (hi - loc) / scale;
  // Through the upper tail when both bounds are far right (cdf rounds to 1 there).
  const bool upper = a > 0;
  const double fa = upper ? bm::cdf(bm::complement(n, a)) : bm::cdf(n, a);
  const double fb = upper ? bm::cdf(bm::complement(n, b)) : bm::cdf(n, b);
  return [=](double x) {
    const double z = (x - loc) / scale;
    if (z <= a) return 0.0;
    if (z >= b) return 1.0;
    const double fz = upper ? bm::cdf(bm::complement(n, z)) : bm::cdf(n, z);
    return upper ? (fa - fz) / (fa - fb) : (fz - fa) / (fb - fa);
  };
}

/// The von Mises CDF on [-pi, pi) by Simpson's rule over the density
/// exp(kappa (cos(t - mu) - 1)) / (2 pi I0e(kappa)) on a fine grid; checks the
/// total mass against Boost's Bessel I0.
std::function<double(double)> vonmises_cdf(double mu, double kappa) {
  constexpr int kCells = 200000;
  const double pi = std::numbers::pi, h = 2 * pi / kCells;
  auto f = [&](double t) { return std::exp(kappa * (std::cos(t - mu) - 1)); };
  auto table = std::make_shared<std::vector<double>>(kCells + 1, 0.0);
  for (int i = 0; i < kCells; ++i) {
    const double t0 = -pi + i * h;
    (*table)[static_cast<std::size_t>(i) + 1] =
        (*table)[static_cast<std::size_t>(i)] + h / 6 * (f(t0) + 4 * f(t0 + h / 2) + f(t0 + h));
  }
  const double total = (*table)[kCells];
  const double norm = 2 * pi * bm::cyl_bessel_i(0, kappa) * std::exp(-kappa);
  CHECK(std::fabs(total / norm - 1) < 1e-9);
  return [=](double x) {
    if (x < -pi || x >= pi) return std::nan("");
    const double pos = (x + pi) / h;
    const auto i = std::min(static_cast<std::size_t>(pos), static_cast<std::size_t>(kCells - 1));
    const double frac = pos - static_cast<double>(i);
    return ((*table)[i] + frac * ((*table)[i + 1] - (*table)[i])) / total;
  };
}

}  // namespace

TEST_SUITE("tensor_tests") {

TEST_CASE("random distributions: exponential, laplace, logistic, lognormal, cauchy against Boost") {
  check_boost(Distribution::Exponential, {2.0}, bm::exponential(0.5), bm::exponential(1 / 2.2));
  check_boost(Distribution::Exponential, {1e-3}, bm::exponential(1e3), bm::exponential(1 / 1.1e-3));
  check_boost(Distribution::Laplace, {-1.0, 3.0}, bm::laplace(-1, 3), bm::laplace(-1, 3.3));
  check_boost(Distribution::Laplace, {5.0, 0.5}, bm::laplace(5, 0.5), bm::laplace(5.05, 0.5));
  check_boost(Distribution::Logistic, {2.0, 0.7}, bm::logistic(2, 0.7), bm::logistic(2, 0.77));
  check_boost(Distribution::Lognormal, {0.5, 0.4}, bm::lognormal(0.5, 0.4), bm::lognormal(0.5, 0.44));
  check_boost(Distribution::Lognormal, {-2.0, 1.5}, bm::lognormal(-2, 1.5), bm::lognormal(-1.9, 1.5), false);
  // (no moments)
  check_continuous(Distribution::Cauchy, {1.0, 2.0}, cdf_of(bm::cauchy(1, 2)), cdf_of(bm::cauchy(1, 2.2)));
}

TEST_CASE("random distributions: gamma (both Marsaglia-Tsang branches), beta, chisquare, standard_t against Boost") {
  for (double shape : {0.05, 0.3, 1.0, 2.5, 40.0}) {
    CAPTURE(shape);
    check_boost(Distribution::Gamma, {shape, 1.5}, bm::gamma_distribution(shape, 1.5),
                bm::gamma_distribution(shape * 1.1, 1.5));
  }
  check_boost(Distribution::Gamma, {3.0, 0.01}, bm::gamma_distribution(3.0, 0.01),
              bm::gamma_distribution(3.0, 0.0106));
  for (auto [a, b] : std::vector<std::pair<double, double>>{{0.2, 0.5}, {2, 3}, {50, 0.7}, {1, 1}, {0.01, 0.02}}) {
    CAPTURE(a);
    CAPTURE(b);
    // (the tiny shapes: mass at 0 and 1 up to rounding, so no moments)
    check_boost(Distribution::Beta, {a, b}, bm::beta_distribution(a, b), bm::beta_distribution(a * 1.15, b), a > 0.1);
  }
  for (double df : {0.5, 3.0, 30.0}) {
    CAPTURE(df);
    check_boost(Distribution::Chisquare, {df}, bm::chi_squared(df), bm::chi_squared(df * 1.1));
  }
  for (double df : {1.5, 5.0, 100.0}) {
    CAPTURE(df);
    // Student's t: moments only where the fourth exists.
    check_boost(Distribution::StandardT, {df}, bm::students_t(df), bm::students_t(df < 10 ? df * 0.4 : 3), df > 4);
  }
}

TEST_CASE("random distributions: vonmises (Best-Fisher) against the numerically integrated density") {
  const double pi = std::numbers::pi;
  for (auto [mu, kappa] : std::vector<std::pair<double, double>>{{0, 0.5}, {1, 4}, {-3, 50}, {3, 1e-6}, {0.5, 0}}) {
    CAPTURE(mu);
    CAPTURE(kappa);
    const double wrong_kappa = kappa == 0 ? 0.1 : kappa < 1e-3 ? 0.1 : kappa * 1.2;
    check_continuous(Distribution::Vonmises, {mu, kappa}, vonmises_cdf(mu, kappa), vonmises_cdf(mu, wrong_kappa));
  }
  // mu outside [-pi, pi): the samples still wrap into it.
  const std::vector<double> v = draw(Distribution::Vonmises, {7.0, 2.0});
  CHECK(*std::min_element(v.begin(), v.end()) >= -pi);
  CHECK(*std::max_element(v.begin(), v.end()) < pi);
  CHECK(ks(v, vonmises_cdf(7.0 - 2 * pi, 2.0)) < ks_bound(v.size()));
}

TEST_CASE("random distributions: truncated_normal in every regime of Robert's samplers against Boost's normal") {
  const double inf = std::numeric_limits<double>::infinity();
  struct C {
    double loc, scale, lo, hi;
  };
  // around 0 narrow (uniform proposal) and wide (normal draws), a right tail
  // (exponential proposal), a narrow tail interval (uniform), the left side,
  // a far tail, one-sided.
  for (const C& c : {C{0, 1, -0.3, 0.5}, C{1, 2, -5, 7}, C{0, 1, 3, inf}, C{10, 2, 14, 14.3}, C{0, 1, -inf, -5},
                     C{0, 1, 30, 31}, C{2, 0.5, -inf, 2.2}, C{-1, 3, -2, inf}}) {
    CAPTURE(c.loc);
    CAPTURE(c.lo);
    CAPTURE(c.hi);
    const std::vector<double> v = draw(Distribution::TruncatedNormal, {c.loc, c.scale, c.lo, c.hi});
    CHECK(*std::min_element(v.begin(), v.end()) >= c.lo);
    CHECK(*std::max_element(v.begin(), v.end()) <= c.hi);
    CHECK(ks(v, truncnorm_cdf(c.loc, c.scale, c.lo, c.hi)) < ks_bound(v.size()));
    // A wrong scale (or loc where the interval is narrow) is rejected.
    CHECK(ks(v, truncnorm_cdf(c.loc + 0.3 * c.scale, c.scale * 1.3, c.lo, c.hi)) > ks_bound(v.size()));
  }
}

TEST_CASE("random distributions: poisson (inversion and PTRS), geometric, negative_binomial against Boost's pmf") {
  for (double lam : {0.5, 5.0, 9.99, 10.0, 30.0, 1000.0}) {
    CAPTURE(lam);
    const bm::poisson_distribution<> right(lam), wrong(lam * 1.05);
    const auto hi = static_cast<std::int64_t>(lam + 12 * std::sqrt(lam) + 20);
    check_discrete(Distribution::Poisson, {lam}, pmf_of(right), pmf_of(wrong), 0, hi, moments_of(right));
  }
  CHECK(values(run(random_function(Distribution::Poisson, state_var(), RandomSize({5}), {0.0}, DType::Int64).second,
                   1)) == std::vector<double>(5, 0.0));
  for (double p : {0.02, 0.5, 0.9}) {
    CAPTURE(p);
    // Boost counts the failures (0, 1, ...), numpy the trials (1, 2, ...).
    const bm::geometric right(p), wrong(p * 1.1 > 1 ? 0.97 : p * 1.1);
    check_discrete(Distribution::Geometric, {p}, pmf_of(right, 1), pmf_of(wrong, 1), 1,
                   static_cast<std::int64_t>(40 / p), moments_of(right, 1));
  }
  CHECK(draw(Distribution::Geometric, {1.0}, 3, DType::Int64, 10) == std::vector<double>(10, 1.0));
  for (auto [n, p] : std::vector<std::pair<double, double>>{{3, 0.4}, {0.5, 0.1}, {20.5, 0.8}, {200, 0.3}}) {
    CAPTURE(n);
    CAPTURE(p);
    const bm::negative_binomial right(n, p), wrong(n * 1.1, p);
    const auto hi = static_cast<std::int64_t>(bm::quantile(right, 1 - 1e-7)) + 1;
    check_discrete(Distribution::NegativeBinomial, {n, p}, pmf_of(right), pmf_of(wrong), 0, hi, moments_of(right));
  }
}

TEST_CASE("random distributions: hypergeometric (the urn and HRUA) against Boost's pmf") {
  using I = std::int64_t;
  struct C {
    I good, bad, sample;
  };
  // urn: nsample < 10, nsample within 10 of the population; HRUA otherwise,
  // with good > bad and a sample past half the population.
  for (const C& c : {C{20, 30, 5}, C{500, 50, 545}, C{100, 200, 50}, C{1000, 300, 900}, C{5000, 5000, 120}}) {
    CAPTURE(c.good);
    CAPTURE(c.bad);
    CAPTURE(c.sample);
    const I total = c.good + c.bad;
    const bm::hypergeometric right(static_cast<unsigned>(c.good), static_cast<unsigned>(c.sample),
                                   static_cast<unsigned>(total));
    const bm::hypergeometric wrong(static_cast<unsigned>(c.good * 11 / 10), static_cast<unsigned>(c.sample),
                                   static_cast<unsigned>(total + c.good / 10));
    auto pmf = [](const bm::hypergeometric& h) {
      return [h](std::int64_t k) {
        if (k < static_cast<I>(range(h).first) || k > static_cast<I>(range(h).second)) return 0.0;
        return bm::pdf(h, static_cast<unsigned>(k));
      };
    };
    const std::vector<TensorLike> params{c.good, c.bad, c.sample};
    check_discrete(Distribution::Hypergeometric, params, pmf(right), pmf(wrong), 0, std::min(c.good, c.sample),
                   Moments{bm::mean(right), bm::variance(right), bm::kurtosis_excess(right)});
  }
  // Edges: nothing drawn, everything drawn, no good items.
  CHECK(draw(Distribution::Hypergeometric, {I{5}, I{7}, I{0}}, 1, DType::Int64, 20) == std::vector<double>(20, 0.0));
  CHECK(draw(Distribution::Hypergeometric, {I{5}, I{7}, I{12}}, 1, DType::Int64, 20) == std::vector<double>(20, 5.0));
  CHECK(draw(Distribution::Hypergeometric, {I{0}, I{70}, I{30}}, 1, DType::Int64, 20) == std::vector<double>(20, 0.0));
}

TEST_CASE("random distributions: categorical over p's last axis against the normalised weights") {
  // Unnormalised weights with zeros, one row per column of a (n, 3) sample.
  const std::vector<std::vector<double>> rows = {{1, 0, 3, 0.5, 5.5}, {0, 0, 2, 0, 0}, {0.25, 0.25, 0.25, 0.125, 0.125}};
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  for (DType pd : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(pd));
    const NDArray p = NDArray::from_vector(flat, {3, 5}).astype(pd);
    const Var x = random_function(Distribution::Categorical, state_var(), RandomSize({kDraws, 3}), {p}, DType::Int64)
                      .second;
    CHECK(tensor_type(x)->shape() == StaticShape{kDraws, 3});
    const std::vector<double> v = values(run(x, 11));
    for (std::size_t j = 0; j < 3; ++j) {
      CAPTURE(j);
      std::vector<double> col;
      for (std::size_t i = j; i < v.size(); i += 3) col.push_back(v[i]);
      double sum = 0;
      for (double w : rows[j]) sum += w;
      auto pmf = [&](const std::vector<double>& w) {
        return [w, sum](std::int64_t k) { return k >= 0 && k < 5 ? w[static_cast<std::size_t>(k)] / sum : 0.0; };
      };
      CHECK(chi_square_ok(col, pmf(rows[j]), 0, 4));
      // Two categories swapped (where they differ) is rejected.
      std::vector<double> wrong = rows[j];
      std::swap(wrong[0], wrong[j == 1 ? 2 : 3]);
      CHECK(!chi_square_ok(col, pmf(wrong), 0, 4));
    }
  }
  // No size: the sample has p's leading axes.
  const Var y = random_function(Distribution::Categorical, state_var(), RandomSize(),
                                {NDArray::full({2, 3, 4}, 1.0, DType::Float32)}, DType::Float64).second;
  CHECK(tensor_type(y)->shape() == StaticShape{2, 3});
  CHECK(run(y, 2).shape() == std::vector<std::int64_t>{2, 3});
  RandomStream rs(3);
  CHECK(tensor_type(rs.categorical({7}, NDArray::full({4}, 0.25, DType::Float64)))->shape() == StaticShape{7});
  // Errors: a bad weight (row and category), a row summing to 0, types.
  const NDArray bad = NDArray::from_vector<double>({1, 2, 3, 4, 5, -0.5}, {2, 3});
  auto draw_p = [](const NDArray& p) {
    return run(random_function(Distribution::Categorical, state_var(), RandomSize({2, 2}), {p}, DType::Int64).second, 1);
  };
  CHECK_THROWS_WITH_AS(draw_p(bad), doctest::Contains("RandomFunction{categorical}: p[1][2] = -0.5 must be >= 0 and finite"),
                       ValueError);
  CHECK_THROWS_WITH_AS(draw_p(NDArray::from_vector<double>({1, 0, 0, 0}, {2, 2})),
                       doctest::Contains("p[1] = 0 (the sum of the row) must be > 0 and finite"), ValueError);
  CHECK_THROWS_WITH_AS(draw_p(NDArray::full({2, 0}, 1.0, DType::Float64)),
                       doctest::Contains("p[0] = 0 (the sum of the row) must be > 0"), ValueError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Categorical, state_var(), RandomSize({2}),
                                       {NDArray::full({3}, 1, DType::Int64)}, DType::Int64),
                       doctest::Contains("must be float32 or float64"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Categorical, state_var(), RandomSize({2}), {0.5}, DType::Int64),
                       doctest::Contains("its last axis holds the categories"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Categorical, state_var(), RandomSize({2}),
                                       {NDArray::full({3, 4}, 1.0, DType::Float64)}, DType::Int64),
                       doctest::Contains("does not broadcast to the size"), ShapeError);
}

TEST_CASE("random distributions: parameters broadcast against the size, size from the parameters") {
  // Column j of a (n, 3) sample with shape parameter (3,) is gamma(shape[j]):
  // the same numbers as the explicitly broadcast parameters, and each column
  // follows its own law.
  const NDArray shapes = NDArray::from_vector<double>({0.5, 2.0, 9.0}, {3});
  const Var a = random_function(Distribution::Gamma, state_var(), RandomSize({4000, 3}), {shapes, 2.0},
                                DType::Float64).second;
  const Var b = random_function(Distribution::Gamma, state_var(), RandomSize({4000, 3}),
                                {shapes.broadcast_to({4000, 3}).contiguous(), NDArray::full({4000, 3}, 2.0, DType::Float64)},
                                DType::Float64).second;
  const NDArray A = run(a, 5), B = run(b, 5);
  CHECK(array_equal(A, B));
  const std::vector<double> v = values(A);
  for (int j = 0; j < 3; ++j) {
    std::vector<double> col;
    for (std::size_t i = static_cast<std::size_t>(j); i < v.size(); i += 3) col.push_back(v[i]);
    const double s = shapes.data_as<double>()[j];
    CHECK(ks(col, cdf_of(bm::gamma_distribution(s, 2.0))) < ks_bound(col.size()));
  }
  // No size: the broadcast shape of (2, 1) and (3,) parameters.
  const NDArray lo = NDArray::from_vector<double>({-1, 0}, {2, 1});
  const NDArray hi = NDArray::from_vector<double>({1, 2, 3}, {3});
  const Var t = random_function(Distribution::TruncatedNormal, state_var(), RandomSize(), {0.0, 1.0, lo, hi},
                                DType::Float32).second;
  CHECK(tensor_type(t)->shape() == StaticShape{2, 3});
  const NDArray T = run(t, 9);
  CHECK(T.shape() == std::vector<std::int64_t>{2, 3});
  CHECK(T.dtype() == DType::Float32);
  const std::vector<double> tv = values(T);
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(tv[i] >= lo.data_as<double>()[i / 3]);
    CHECK(tv[i] <= hi.data_as<double>()[i % 3]);
  }
  // float32 samples are the float64 draws rounded.
  const std::vector<double> d64 = draw(Distribution::Laplace, {1.0, 2.0}, 3, DType::Float64, 50);
  const std::vector<double> d32 = draw(Distribution::Laplace, {1.0, 2.0}, 3, DType::Float32, 50);
  for (std::size_t i = 0; i < d64.size(); ++i) CHECK(d32[i] == static_cast<double>(static_cast<float>(d64[i])));
}

TEST_CASE("random distributions: RandomStream methods draw, advance and reseed") {
  RandomStream rs(77);
  const Var g = rs.gamma({3}, 2.0, 0.5);
  const Var p = rs.poisson({2, 2}, 4.0);
  const Var t = rs.truncated_normal({4}, 0.0, 1.0, -1.0, 1.0);
  CHECK(g.owner()->op()->name() == "RandomFunction{gamma}");
  CHECK(tensor_type(p)->dtype() == DType::Int64);
  CHECK(tensor_type(t)->dtype() == config().floatX);
  CHECK(distribution_spec(Distribution::TruncatedNormal).nparams == 4);
  CHECK(distribution_spec(Distribution::Hypergeometric).params[2] == "nsample");
  Function f = function({}, {g, p, t});
  const auto first = f({}), second = f({});
  CHECK(!array_equal(first[0], second[0]));
  rs.seed(77);
  const auto again = f({});
  for (std::size_t k = 0; k < 3; ++k) CHECK(array_equal(first[k], again[k]));
}

TEST_CASE("random distributions: a bad parameter is a ValueError naming it, the element and the value") {
  auto bad = [](Distribution d, const std::vector<TensorLike>& params, const std::string& what,
                DType dtype = DType::Float64) {
    const Var x = random_function(d, state_var(), RandomSize({4}), params, dtype).second;
    CHECK_THROWS_WITH_AS(run(x, 1), doctest::Contains(what.c_str()), ValueError);
  };
  const NDArray shapes = NDArray::from_vector<double>({1, 2, 3, -1}, {4});
  bad(Distribution::Gamma, {shapes, 1.0}, "RandomFunction{gamma}: shape[3] = -1 must be >= 0");
  bad(Distribution::Gamma, {1.0, std::nan("")}, "RandomFunction{gamma}: scale[0] = nan must be >= 0");
  bad(Distribution::Beta, {0.0, 1.0}, "a[0] = 0 must be > 0");
  bad(Distribution::Exponential, {-0.25}, "scale[0] = -0.25 must be >= 0");
  bad(Distribution::Chisquare, {-1e-7}, "df[0] = -1e-07 must be > 0");
  bad(Distribution::Vonmises, {std::numeric_limits<double>::infinity(), 1.0}, "mu[0] = inf must be finite");
  bad(Distribution::TruncatedNormal, {0.0, 1.0, 2.0, 1.5}, "lower[0] = 2 must be < upper");
  bad(Distribution::TruncatedNormal, {0.0, 0.0, 0.0, 1.0}, "scale[0] = 0 must be > 0 and finite");
  bad(Distribution::Poisson, {1e19}, "lam[0] = 1e+19 must be in [0, 1e18]", DType::Int64);
  bad(Distribution::Geometric, {NDArray::from_vector<double>({0.5, 0, 1, 1}, {4})}, "p[1] = 0 must be in (0, 1]",
      DType::Int64);
  bad(Distribution::NegativeBinomial, {2.0, 1.5}, "p[0] = 1.5 must be in (0, 1]", DType::Int64);
  bad(Distribution::Hypergeometric, {std::int64_t{3}, std::int64_t{4}, std::int64_t{8}},
      "nsample[0] = 8 must be in [0, ngood + nbad]", DType::Int64);
  bad(Distribution::Laplace, {0.0, -3.5}, "scale[0] = -3.5 must be >= 0");
  // Types: a count into int32, an integer parameter given as a float, arity.
  CHECK_THROWS_WITH_AS(random_function(Distribution::Poisson, state_var(), RandomSize({2}), {1.0}, DType::Int32),
                       doctest::Contains("RandomFunction{poisson}: dtype int32 cannot hold its counts"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Gamma, state_var(), RandomSize({2}), {1.0, 1.0}, DType::Int64),
                       doctest::Contains("is not a floating-point type"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Hypergeometric, state_var(), RandomSize({2}),
                                       {1.5, std::int64_t{2}, std::int64_t{1}}, DType::Int64),
                       doctest::Contains("parameter ngood"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Gamma, state_var(), RandomSize({2}), {1.0}, DType::Float64),
                       doctest::Contains("takes 4 inputs (state, size, shape, scale)"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::TruncatedNormal, state_var(), RandomSize(),
                                       {NDArray::full({2}, 0.0, DType::Float64), 1.0,
                                        NDArray::full({3}, 0.0, DType::Float64), 1.0},
                                       DType::Float64),
                       doctest::Contains("parameters loc (2,), scale (), lower (3,) and upper () do not broadcast"),
                       ShapeError);
}

}  // TEST_SUITE
