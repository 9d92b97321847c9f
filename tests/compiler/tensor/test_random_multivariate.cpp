// RandomStream's samples with a core axis (docs/random.md): multinomial and
// permutation (RandomFunction draws with a sample core axis) through
// perform, loggamma, and the graphs dirichlet, choice, permutation / shuffle
// of a tensor and multivariate_normal through compiled functions. Each is
// tested at fixed seeds against its law (chi-square against the exact PMF,
// Kolmogorov-Smirnov against Boost.Math's CDF of a marginal, moments), and
// each test also checks a wrong reference is rejected, so it can fail.
#include <doctest/doctest.h>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "random_stats.h"
#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/config.h"
#include "theano/testing.h"
#include "theano/theano.hpp"
#include "theano/tensor/random.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::random_stats;
namespace bm = boost::math;

namespace {

/// Column j of a row-major (rows, k) sample.
std::vector<double> column(const std::vector<double>& v, std::size_t k, std::size_t j) {
  std::vector<double> c;
  for (std::size_t i = j; i < v.size(); i += k) c.push_back(v[i]);
  return c;
}

double covariance(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double c = 0;
  for (std::size_t i = 0; i < a.size(); ++i) c += (a[i] - ma) * (b[i] - mb);
  return c / (n - 1);
}

template <class D>
std::function<double(double)> cdf_of(const D& dist) {
  return [dist](double x) { return bm::cdf(dist, x); };
}

/// The rank of a permutation of 0..k-1 among the k! (Lehmer code).
std::int64_t lehmer(const double* p, std::size_t k) {
  std::int64_t r = 0;
  for (std::size_t i = 0; i < k; ++i) {
    std::int64_t smaller = 0;
    for (std::size_t j = i + 1; j < k; ++j) smaller += p[j] < p[i];
    r = r * static_cast<std::int64_t>(k - i) + smaller;
  }
  return r;
}

const NDArray& P3() {
  static const NDArray p = NDArray::from_vector<double>({0.2, 0.5, 0.3}, {3});
  return p;
}

}  // namespace

TEST_SUITE("random multivariate") {

TEST_CASE("multinomial: rows sum to n, binomial marginals, the negative covariance, both samplers") {
  for (std::int64_t n : {10, 1000}) {  // inversion (n p < 10) and BTRS binomials
    CAPTURE(n);
    const Var x = random_function(Distribution::Multinomial, state_var(), RandomSize({20000}),
                                  {n, P3()}, DType::Int64).second;
    CHECK(tensor_type(x)->shape() == StaticShape{20000, 3});
    const std::vector<double> v = values(run(x, 11));
    for (std::size_t i = 0; i < v.size(); i += 3) REQUIRE(v[i] + v[i + 1] + v[i + 2] == static_cast<double>(n));
    const double* p = P3().data_as<double>();
    for (std::size_t j = 0; j < 3; ++j) {
      CAPTURE(j);
      const std::vector<double> c = column(v, 3, j);
      auto pmf = [&](double q) {
        return [n, q](std::int64_t k) { return bm::pdf(bm::binomial_distribution<>(static_cast<double>(n), q), k); };
      };
      CHECK(chi_square_ok(c, pmf(p[j]), 0, n));
      CHECK(!chi_square_ok(c, pmf(p[j] * 1.15), 0, n));
      check_moments(c, {static_cast<double>(n) * p[j], static_cast<double>(n) * p[j] * (1 - p[j]),
                        (1 - 6 * p[j] * (1 - p[j])) / (static_cast<double>(n) * p[j] * (1 - p[j]))});
    }
    // cov(c0, c1) = -n p0 p1, within 5 standard errors (sqrt((v0 v1 + c^2) / N)).
    const double nn = static_cast<double>(n), c01 = -nn * p[0] * p[1];
    const double v0 = nn * p[0] * (1 - p[0]), v1 = nn * p[1] * (1 - p[1]);
    CHECK(std::fabs(covariance(column(v, 3, 0), column(v, 3, 1)) - c01) < 5 * std::sqrt((v0 * v1 + c01 * c01) / 20000));
  }
}

TEST_CASE("multinomial: zero weights, unnormalised and float32 weights, broadcast n and p, float samples") {
  // A zero weight gets nothing; weights are normalised by their sum.
  const Var z = random_function(Distribution::Multinomial, state_var(), RandomSize({500}),
                                {std::int64_t{7}, NDArray::from_vector<double>({2, 0, 2}, {3})}, DType::Int64).second;
  const std::vector<double> zv = values(run(z, 3));
  for (std::size_t i = 0; i < zv.size(); i += 3) CHECK(zv[i + 1] == 0);
  const std::vector<double> c0 = column(zv, 3, 0);
  CHECK(std::fabs(std::accumulate(c0.begin(), c0.end(), 0.0) / 500 - 3.5) < 5 * std::sqrt(7 * 0.25 / 500));
  // float32 weights exactly representable draw as float64 ones; a float64 sample holds the same counts.
  const NDArray w64 = NDArray::from_vector<double>({0.5, 0.25, 0.25}, {3});
  auto draw = [](const NDArray& w, DType dt) {
    return values(run(random_function(Distribution::Multinomial, state_var(), RandomSize({50}), {std::int64_t{9}, w},
                                      dt).second, 8));
  };
  CHECK(draw(w64, DType::Int64) == draw(w64.astype(DType::Float32), DType::Int64));
  CHECK(draw(w64, DType::Int64) == draw(w64, DType::Float64));
  // n (2,) and p (2, 3) broadcast against the size (4, 2): row (i, j) draws n[j] over p[j].
  const NDArray ns = NDArray::from_vector<std::int64_t>({3, 40}, {2});
  const NDArray ps = NDArray::from_vector<double>({1, 1, 1, 0, 0, 1}, {2, 3});
  const Var b = random_function(Distribution::Multinomial, state_var(), RandomSize({4, 2}), {ns, ps}, DType::Int64).second;
  CHECK(tensor_type(b)->shape() == StaticShape{4, 2, 3});
  const NDArray bv = run(b, 1);
  for (std::int64_t i = 0; i < 4; ++i) {
    CHECK(bv.at<std::int64_t>({i, 0, 0}) + bv.at<std::int64_t>({i, 0, 1}) + bv.at<std::int64_t>({i, 0, 2}) == 3);
    CHECK(bv.at<std::int64_t>({i, 1, 2}) == 40);
  }
  // No size: the broadcast batch shape of n and p's leading axes.
  const Var nb = random_function(Distribution::Multinomial, state_var(), RandomSize(), {ns, ps}, DType::Int64).second;
  CHECK(tensor_type(nb)->shape() == StaticShape{2, 3});
  CHECK(run(nb, 2).shape() == std::vector<std::int64_t>{2, 3});
}

TEST_CASE("multinomial: errors name the row, the category and the value, and infer_shape") {
  auto bad = [](const TensorLike& n, const NDArray& p, const std::string& what) {
    const Var x = random_function(Distribution::Multinomial, state_var(), RandomSize({2}), {n, p}, DType::Int64).second;
    CHECK_THROWS_WITH_AS(run(x, 1), doctest::Contains(what.c_str()), ValueError);
  };
  bad(NDArray::from_vector<std::int64_t>({4, -1}, {2}), P3(), "RandomFunction{multinomial}: n[1] = -1 must be in [0, 2^53]");
  bad(std::int64_t{4}, NDArray::from_vector<double>({1, 2, 3, 4, -0.5, 1}, {2, 3}),
      "RandomFunction{multinomial}: p[1][1] = -0.5 must be >= 0 and finite");
  bad(std::int64_t{4}, NDArray::from_vector<double>({0, 0}, {2}), "p[0] = 0 (the sum of the row) must be > 0");
  CHECK_THROWS_WITH_AS(random_function(Distribution::Multinomial, state_var(), RandomSize({2}), {1.5, P3()},
                                       DType::Int64),
                       doctest::Contains("parameter n"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Multinomial, state_var(), RandomSize({2}),
                                       {std::int64_t{3}, P3()}, DType::Int32),
                       doctest::Contains("cannot hold its counts"), TypeError);
  // infer_shape: symbolic n and p, with a size and without.
  Var st = state_var(), n = lvector("n"), p = dmatrix("p");
  const Var a = random_function(Distribution::Multinomial, st, RandomSize({5, 2}), {n, p}, DType::Int64).second;
  const Var b = random_function(Distribution::Multinomial, st, RandomSize(), {n, p}, DType::Int64).second;
  theano::testing::check_infer_shape(
      {st, n, p}, {a, b},
      {NDArray::from_vector(std::vector<std::uint64_t>{1, 0}, {2}), NDArray::from_vector<std::int64_t>({3, 4}, {2}),
       NDArray::full({2, 4}, 0.25, DType::Float64)});
}

TEST_CASE("permutation: every row a permutation, the 4! orders uniform (chi-square), rows independent") {
  const Var x = random_function(Distribution::Permutation, state_var(), RandomSize({24000}),
                                {NDArray::from_vector<std::int64_t>({0, 0, 0, 0}, {4})}, DType::Int64).second;
  CHECK(tensor_type(x)->shape() == StaticShape{24000, 4});
  const std::vector<double> v = values(run(x, 21));
  std::vector<double> ranks;
  for (std::size_t i = 0; i < v.size(); i += 4) {
    std::vector<double> row(v.begin() + static_cast<std::ptrdiff_t>(i), v.begin() + static_cast<std::ptrdiff_t>(i + 4));
    std::sort(row.begin(), row.end());
    REQUIRE(row == std::vector<double>{0, 1, 2, 3});
    ranks.push_back(static_cast<double>(lehmer(v.data() + i, 4)));
  }
  CHECK(chi_square_ok(ranks, [](std::int64_t) { return 1.0 / 24; }, 0, 23));
  // The naive shuffle (swap with any position) gives 4^4 equally likely paths: rejected.
  std::vector<double> naive(24, 0);
  for (int path = 0; path < 256; ++path) {
    double p[4] = {0, 1, 2, 3};
    for (int j = 0, c = path; j < 4; ++j, c /= 4) std::swap(p[j], p[c % 4]);
    naive[static_cast<std::size_t>(lehmer(p, 4))] += 1.0 / 256;
  }
  CHECK(!chi_square_ok(ranks, [&](std::int64_t r) { return naive[static_cast<std::size_t>(r)]; }, 0, 23));
  // Successive positions: P(first = a, second = b) = 1/12 for a != b.
  std::vector<double> pairs;
  for (std::size_t i = 0; i < v.size(); i += 4) pairs.push_back(v[i] * 4 + v[i + 1]);
  CHECK(chi_square_ok(pairs, [](std::int64_t c) { return c / 4 == c % 4 ? 0.0 : 1.0 / 12; }, 0, 15));
  // Errors and types: only int64 indices; a scalar x has no axis to order.
  CHECK_THROWS_WITH_AS(random_function(Distribution::Permutation, state_var(), RandomSize({2}),
                                       {NDArray::full({3}, 1.0, DType::Float64)}, DType::Int32),
                       doctest::Contains("cannot hold its indices"), TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Permutation, state_var(), RandomSize({2}), {1.0}, DType::Int64),
                       doctest::Contains("must have at least 1 axis"), TypeError);
  // infer_shape and an empty row.
  Var st = state_var(), xs = dvector("xs");
  const Var a = random_function(Distribution::Permutation, st, RandomSize({3}), {xs}, DType::Int64).second;
  const Var b = random_function(Distribution::Permutation, st, RandomSize(), {xs}, DType::Int64).second;
  const NDArray s0 = NDArray::from_vector(std::vector<std::uint64_t>{1, 0}, {2});
  theano::testing::check_infer_shape({st, xs}, {a, b}, {s0, NDArray::full({5}, 0.0, DType::Float64)});
  theano::testing::check_infer_shape({st, xs}, {a, b}, {s0, NDArray::full({0}, 0.0, DType::Float64)});
}

TEST_CASE("loggamma: exp of it is gamma(alpha) (KS), tiny alpha in logs") {
  for (double a : {0.3, 4.5, 1e-3}) {
    CAPTURE(a);
    const Var x = random_function(Distribution::Loggamma, state_var(), RandomSize({20000}), {a}, DType::Float64).second;
    const std::vector<double> v = values(run(x, 4));
    for (double y : v) REQUIRE(std::isfinite(y));
    // P(log G <= y) = P(a, e^y), the regularised lower incomplete gamma; where
    // e^y underflows, its leading term e^(a y) / Gamma(a + 1) (relative error
    // below a e^y / (a + 1) < 1e-260).
    auto F = [](double s) {
      return [s](double y) { return y < -600 ? std::exp(s * y - std::lgamma(s + 1)) : bm::gamma_p(s, std::exp(y)); };
    };
    CHECK(ks(v, F(a)) < ks_bound(v.size()));
    CHECK(ks(v, F(a * 1.15)) > ks_bound(v.size()));
  }
  const Var x = random_function(Distribution::Loggamma, state_var(), RandomSize({3}),
                                {NDArray::from_vector<double>({1, 0, 2}, {3})}, DType::Float64).second;
  CHECK_THROWS_WITH_AS(run(x, 1), doctest::Contains("RandomFunction{loggamma}: alpha[1] = 0 must be > 0 and finite"),
                       ValueError);
}

TEST_CASE("dirichlet: rows on the simplex, beta marginals (KS), tiny alphas, shapes, the alpha rule") {
  RandomStream rs(5);
  const NDArray alpha = NDArray::from_vector<double>({0.5, 2.0, 3.5}, {3});
  const Var d = rs.dirichlet({20000}, alpha);
  CHECK(tensor_type(d)->shape() == StaticShape{20000, 3});
  Function f = function({}, {d});
  const std::vector<double> v = values(f({})[0]);
  for (std::size_t i = 0; i < v.size(); i += 3) REQUIRE(std::fabs(v[i] + v[i + 1] + v[i + 2] - 1) < 1e-12);
  const double* a = alpha.data_as<double>();
  for (std::size_t j = 0; j < 3; ++j) {
    CAPTURE(j);
    const std::vector<double> c = column(v, 3, j);
    CHECK(ks(c, cdf_of(bm::beta_distribution<>(a[j], 6.0 - a[j]))) < ks_bound(c.size()));
    CHECK(ks(c, cdf_of(bm::beta_distribution<>(a[j] * 1.15, 6.0 - a[j]))) > ks_bound(c.size()));
  }
  // Tiny alphas: no 0 / 0, the rows still sum to 1 (one component near 1).
  const std::vector<double> t = values(function({}, {rs.dirichlet({200}, NDArray::full({4}, 1e-3, DType::Float64))})({})[0]);
  for (std::size_t i = 0; i < t.size(); i += 4) {
    REQUIRE(std::fabs(t[i] + t[i + 1] + t[i + 2] + t[i + 3] - 1) < 1e-12);
    CHECK(*std::max_element(t.begin() + static_cast<std::ptrdiff_t>(i), t.begin() + static_cast<std::ptrdiff_t>(i + 4)) > 0.5);
  }
  // Shapes: batch alphas broadcast against the size; no size: alpha's shape; a symbolic size.
  const NDArray a2 = NDArray::full({2, 3}, 1.0, DType::Float64);
  CHECK(tensor_type(rs.dirichlet({5, 2}, a2))->shape() == StaticShape{5, 2, 3});
  CHECK(tensor_type(rs.dirichlet({}, a2))->shape() == StaticShape{2, 3});
  Var sz = lvector("sz");
  const Var ds = rs.dirichlet(RandomSize(specify_shape(sz, StaticShape{Dim(2)})), dmatrix("al"));
  CHECK(ds.ndim() == 3);
  Var al = dmatrix("al2");
  const Var dal = rs.dirichlet({4, 2}, al);
  theano::testing::check_infer_shape({al}, {dal}, {a2});
  // alpha <= 0: the loggamma rule names the element (of the (4, 3) draw).
  const Var bad = rs.dirichlet({4}, NDArray::from_vector<double>({1, 0, 2}, {3}));
  CHECK_THROWS_WITH_AS(function({}, {bad})({}), doctest::Contains("alpha[1] = 0 must be > 0"),
                       ValueError);
  CHECK_THROWS_WITH_AS(rs.dirichlet({4}, 1.0), doctest::Contains("must have at least one axis"), ValueError);
}

TEST_CASE("choice: with replacement (uniform, weighted), without (distinct, uniform pairs, Gumbel-top-k pairs)") {
  RandomStream rs(9);
  // With replacement from range(5): uniform.
  const std::vector<double> u = values(function({}, {rs.choice({20000}, 5)})({})[0]);
  CHECK(chi_square_ok(u, [](std::int64_t) { return 0.2; }, 0, 4));
  CHECK(!chi_square_ok(u, [](std::int64_t k) { return k == 0 ? 0.24 : 0.19; }, 0, 4));
  // With replacement from a vector with weights p.
  const NDArray a = NDArray::from_vector<double>({10, 20, 30, 40}, {4});
  const NDArray p = NDArray::from_vector<double>({0.1, 0.2, 0.3, 0.4}, {4});
  const Var wc = rs.choice({100, 200}, a, true, p);
  CHECK(tensor_type(wc)->shape() == StaticShape{100, 200});
  std::vector<double> w = values(function({}, {wc})({})[0]);
  for (double& x : w) x = x / 10 - 1;
  CHECK(chi_square_ok(w, [&](std::int64_t k) { return p.data_as<double>()[k]; }, 0, 3));
  CHECK(!chi_square_ok(w, [](std::int64_t) { return 0.25; }, 0, 3));
  // Without replacement, no weights: 2 of 5, the 20 ordered pairs uniform, always distinct.
  Function f = function({}, {rs.choice({2}, 5, false)});
  std::vector<double> pairs;
  for (int i = 0; i < 10000; ++i) {
    const std::vector<double> r = values(f({})[0]);
    REQUIRE(r[0] != r[1]);
    pairs.push_back(r[0] * 5 + r[1]);
  }
  CHECK(chi_square_ok(pairs, [](std::int64_t c) { return c / 5 == c % 5 ? 0.0 : 0.05; }, 0, 24));
  // The whole population without replacement is a permutation.
  std::vector<double> all_of = values(function({}, {rs.choice({3, 2}, 6, false)})({})[0]);
  std::sort(all_of.begin(), all_of.end());
  CHECK(all_of == std::vector<double>{0, 1, 2, 3, 4, 5});
  // Without replacement with weights: P(i then j) = p_i p_j / (1 - p_i).
  Function g = function({}, {rs.choice({2}, 4, false, p)});
  std::vector<double> wp;
  for (int i = 0; i < 10000; ++i) {
    const std::vector<double> r = values(g({})[0]);
    REQUIRE(r[0] != r[1]);
    wp.push_back(r[0] * 4 + r[1]);
  }
  const double* pw = p.data_as<double>();
  CHECK(chi_square_ok(wp, [&](std::int64_t c) { return c / 4 == c % 4 ? 0.0 : pw[c / 4] * pw[c % 4] / (1 - pw[c / 4]); },
                      0, 15));
  CHECK(!chi_square_ok(wp, [](std::int64_t c) { return c / 4 == c % 4 ? 0.0 : 1.0 / 12; }, 0, 15));
  // Shapes and errors.
  CHECK(tensor_type(rs.choice({}, 5))->ndim() == 0);
  CHECK_THROWS_WITH_AS(function({}, {rs.choice({7}, 5, false)})({}),
                       doctest::Contains("cannot take a sample of 7 from a population of 5 when replace is false"),
                       AssertionError);
  CHECK_THROWS_WITH_AS(function({}, {rs.choice({3}, 3, false, NDArray::from_vector<double>({0.5, 0, 0.5}, {3}))})({}),
                       doctest::Contains("p has 2 positive weights, fewer than the sample's size 3"), AssertionError);
  CHECK_THROWS_WITH_AS(function({}, {rs.choice({3}, 4, false, NDArray::from_vector<double>({0.1, -0.2, 0.3, 0.4}, {4}))})({}),
                       doctest::Contains(": p[0][1] = -0.2 must be >= 0 and finite"),
                       ValueError);
  CHECK_THROWS_WITH_AS(function({}, {rs.choice({2}, 3, false, NDArray::from_vector<double>({0, 0, 0}, {3}))})({}),
                       doctest::Contains("p[0] = 0 (the sum of the row) must be > 0 and finite"), ValueError);
  CHECK_THROWS_WITH_AS(function({}, {rs.choice({3}, 3, true, p)})({}),
                       doctest::Contains("p must have one weight per element of a, got 4 weights for 3 elements"),
                       AssertionError);
  CHECK_THROWS_WITH_AS(rs.choice({3}, 2.5), doctest::Contains("must be an integer"), TypeError);
}

TEST_CASE("permutation and shuffle of a tensor: a permuted copy along axis 0") {
  RandomStream rs(4);
  const std::vector<double> p = values(function({}, {rs.permutation(6)})({})[0]);
  std::vector<double> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<double>{0, 1, 2, 3, 4, 5});
  Var x = dmatrix("x");
  const Var px = rs.permutation(x), sx = rs.shuffle(x);
  Function f = function({x}, {px, sx});
  const NDArray X = NDArray::from_vector<double>({0, 1, 10, 11, 20, 21, 30, 31, 40, 41}, {5, 2});
  for (const NDArray& r : f({X})) {
    std::set<double> firsts;
    for (std::int64_t i = 0; i < 5; ++i) {
      const double a0 = r.at<double>({i, 0});
      CHECK(r.at<double>({i, 1}) == a0 + 1);  // rows move whole
      firsts.insert(a0);
    }
    CHECK(firsts.size() == 5);
  }
  theano::testing::check_infer_shape({x}, {px}, {X});
  CHECK_THROWS_WITH_AS(rs.shuffle(dscalar("s")), doctest::Contains("must have at least one axis"), TypeError);
  CHECK_THROWS_WITH_AS(rs.permutation(dscalar("s")), doctest::Contains("must be an integer"), TypeError);
}

/// 20000 draws `x` (20000 x 2) of N(mean (1, -2), cov ((2, 0.6), (0.6, 1))): the
/// marginals and x0 - x1 ~ N(3, 2 + 1 - 2 * 0.6) by KS (the correlation
/// matters: N(3, 3) is rejected), cov(x0, x1) = 0.6 within 5 standard errors.
static void check_law_2d(const NDArray& x) {
  const std::vector<double> v = values(x);
  const std::vector<double> x0 = column(v, 2, 0), x1 = column(v, 2, 1);
  CHECK(ks(x0, cdf_of(bm::normal_distribution<>(1, std::sqrt(2.0)))) < ks_bound(x0.size()));
  CHECK(ks(x1, cdf_of(bm::normal_distribution<>(-2, 1))) < ks_bound(x1.size()));
  std::vector<double> d(x0.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = x0[i] - x1[i];
  CHECK(ks(d, cdf_of(bm::normal_distribution<>(3, std::sqrt(1.8)))) < ks_bound(d.size()));
  CHECK(ks(d, cdf_of(bm::normal_distribution<>(3, std::sqrt(3.0)))) > ks_bound(d.size()));
  CHECK(std::fabs(covariance(x0, x1) - 0.6) < 5 * std::sqrt((2.0 * 1.0 + 0.36) / 20000));
}

TEST_CASE("multivariate_normal: marginals and a projection (KS), the covariance, batches, errors") {
  RandomStream rs(13);
  const NDArray mean = NDArray::from_vector<double>({1, -2}, {2});
  const NDArray cov = NDArray::from_vector<double>({2, 0.6, 0.6, 1}, {2, 2});
  const Var x = rs.multivariate_normal({20000}, mean, cov);
  CHECK(tensor_type(x)->shape() == StaticShape{20000, 2});
  check_law_2d(function({}, {x})({})[0]);
  // Batches: cov (3, 2, 2) against mean (2,), with and without a size.
  const NDArray covs = NDArray::from_vector<double>({1, 0, 0, 1, 4, 0, 0, 4, 9, 0, 0, 9}, {3, 2, 2});
  const Var b = rs.multivariate_normal({}, mean, covs);
  CHECK(tensor_type(b)->shape() == StaticShape{3, 2});
  const Var bs = rs.multivariate_normal({4000, 3}, mean, covs);
  CHECK(tensor_type(bs)->shape() == StaticShape{4000, 3, 2});
  const NDArray B = function({}, {bs})({})[0];
  for (std::int64_t k = 0; k < 3; ++k) {
    std::vector<double> col;
    for (std::int64_t i = 0; i < 4000; ++i) col.push_back(B.at<double>({i, k, 1}));
    const double sd = static_cast<double>(k + 1);
    CHECK(ks(col, cdf_of(bm::normal_distribution<>(-2, sd))) < ks_bound(col.size()));
  }
  Var m = dvector("m"), c = dtensor3("c");
  const Var bm_ = rs.multivariate_normal({5, 3}, m, c);
  theano::testing::check_infer_shape({m, c}, {bm_}, {mean, covs});
  // Errors.
  CHECK_THROWS_WITH_AS(rs.multivariate_normal({2}, mean, cov, "qr"),
                       doctest::Contains("method \"qr\" is not one of \"cholesky\", \"eigh\", \"svd\""), ValueError);
  CHECK_THROWS_WITH_AS(rs.multivariate_normal({2}, NDArray::full({3}, 0.0, DType::Float64), cov),
                       doctest::Contains("mean has 3 components but cov is 2 x 2"), ValueError);
  const NDArray not_pd = NDArray::from_vector<double>({1, 2, 2, 1}, {2, 2});
  CHECK_THROWS(function({}, {rs.multivariate_normal({2}, mean, not_pd)})({}));
}

TEST_CASE("multivariate_normal methods eigh and svd: the law, a semi-definite cov, batches") {
  const NDArray mean = NDArray::from_vector<double>({1, -2}, {2});
  const NDArray cov = NDArray::from_vector<double>({2, 0.6, 0.6, 1}, {2, 2});
  // Rank 1: x0 - x1 = mean0 - mean1 = 3 exactly; x0 ~ N(1, 1). Cholesky refuses it.
  const NDArray semi = NDArray::from_vector<double>({1, 1, 1, 1}, {2, 2});
  const NDArray covs = NDArray::from_vector<double>({1, 0, 0, 1, 4, 0, 0, 4, 9, 0, 0, 9}, {3, 2, 2});
  for (const char* method : {"eigh", "svd"}) {
    CAPTURE(method);
    RandomStream rs(17);
    const Var x = rs.multivariate_normal({20000}, mean, cov, method);
    const Var xs = rs.multivariate_normal({20000}, mean, semi, method);
    const Var bs = rs.multivariate_normal({4000, 3}, mean, covs, method);
    const std::vector<NDArray> got = function({}, {x, xs, bs})({});
    check_law_2d(got[0]);
    const std::vector<double> sv = values(got[1]);
    const std::vector<double> s0 = column(sv, 2, 0), s1 = column(sv, 2, 1);
    double worst = 0;
    for (std::size_t i = 0; i < s0.size(); ++i) worst = std::max(worst, std::fabs(s0[i] - s1[i] - 3.0));
    // The zero eigenvalue (singular value) comes out of LAPACK as a rounding
    // error of the largest, |w| <= a few eps * 2, and sqrt(max(w, 0)) turns it
    // into up to ~3e-8 along the null direction (times |z| <= ~4.5 here):
    // exact 0 or not depends on the BLAS kernels (OpenBLAS's Prescott kernels
    // gave 0, its SkylakeX ones 3.8e-8). NumPy's method keeps the same term.
    CHECK(worst < 1e-6);
    CHECK(ks(s0, cdf_of(bm::normal_distribution<>(1, 1))) < ks_bound(s0.size()));
    for (std::int64_t k = 0; k < 3; ++k) {
      std::vector<double> col;
      for (std::int64_t i = 0; i < 4000; ++i) col.push_back(got[2].at<double>({i, k, 1}));
      CHECK(ks(col, cdf_of(bm::normal_distribution<>(-2, static_cast<double>(k + 1)))) < ks_bound(col.size()));
    }
    Var m = dvector("m"), c = dtensor3("c");
    theano::testing::check_infer_shape({m, c}, {rs.multivariate_normal({5, 3}, m, c, method)}, {mean, covs});
  }
  RandomStream rs(17);
  CHECK_THROWS(function({}, {rs.multivariate_normal({2}, mean, semi)})({}));
}

}  // TEST_SUITE
