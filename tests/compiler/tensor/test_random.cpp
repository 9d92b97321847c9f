// Philox4x32 known answers, the stream layout documented in random.h, and the
// RandomFunction op through perform(): distributions (10^5 draws, fixed seed),
// parameter broadcasting, static shapes, errors.
#include <doctest/doctest.h>

#include <functional>
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "random_stats.h"
#include "test_util.h"
#include "theano/theano.hpp"
#include "theano/tensor/random.h"

using namespace theano;
using namespace theano::tensor;

namespace {

Var state_var() { return tensor::tensor(DType::UInt64, {2}, "rng"); }

NDArray state_value(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

/// Runs the node's perform with `state` and the constants it was built with.
std::pair<NDArray, NDArray> run(const Var& sample, const NDArray& state) {
  const Apply& node = *sample.owner();
  std::vector<NDArray> ins{state};
  for (int k = 1; k < node.nin(); ++k) {
    REQUIRE(node.input(k).is_constant());
    ins.push_back(node.input(k).as_constant()->data());
  }
  std::vector<NDArray> outs(2);
  node.op()->perform(node, ins, outs);
  return {outs[0], outs[1]};
}

NDArray draw(Distribution dist, const RandomSize& size, const TensorLike& a, const TensorLike& b, DType dtype,
             std::uint64_t seed = 42, std::uint64_t counter = 0) {
  auto [st, sample] = random_function(dist, state_var(), size, a, b, dtype);
  return run(sample, state_value(seed, counter)).second;
}

std::vector<double> values(const NDArray& a) {
  const NDArray d = a.astype(DType::Float64).contiguous();
  return std::vector<double>(d.data_as<double>(), d.data_as<double>() + d.size());
}

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size());
  return m;
}

/// Pearson's chi-square of integer samples against `pmf` (cells with an
/// expected count below 5 are pooled), and its degrees of freedom.
std::pair<double, int> chi_square(const std::vector<double>& v, const std::function<double(std::int64_t)>& pmf,
                                  std::int64_t lo, std::int64_t hi) {
  std::map<std::int64_t, double> count;
  for (double x : v) count[static_cast<std::int64_t>(x)] += 1;
  random_stats::Pearson r = random_stats::pearson(count, static_cast<double>(v.size()), pmf, lo, hi);
  if (r.pooled_exp > 0) {
    r.chi += (r.pooled_obs - r.pooled_exp) * (r.pooled_obs - r.pooled_exp) / r.pooled_exp;
    ++r.cells;
  }
  return {r.chi, r.cells - 1};
}

double binomial_pmf(std::int64_t n, double p, std::int64_t k) {
  if (k < 0 || k > n) return 0;
  const double dn = static_cast<double>(n), dk = static_cast<double>(k);
  return std::exp(std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) + dk * std::log(p) +
                  (dn - dk) * std::log1p(-p));
}

/// A chi-square bound that a correct generator exceeds with probability < 1e-6.
bool chi_ok(std::pair<double, int> c) {
  const double df = c.second;
  return c.first < df + 7 * std::sqrt(2 * df) + 10;
}

}  // namespace

TEST_SUITE("tensor_tests") {

TEST_CASE("philox4x32 matches Random123's known-answer vectors") {
  // tests/kat_vectors of github.com/DEShawResearch/random123: counter, key -> output.
  struct Kat {
    int rounds;
    PhiloxCounter ctr;
    PhiloxKey key;
    PhiloxCounter out;
  };
  const Kat kats[] = {
      {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
      {7, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
       {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
      {7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
      {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {10, {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    CAPTURE(k.rounds);
    const PhiloxCounter got = philox4x32(k.ctr, k.key, k.rounds);
    CHECK(std::vector<std::uint32_t>(got.begin(), got.end()) == std::vector<std::uint32_t>(k.out.begin(), k.out.end()));
  }
  // 10 rounds is the default.
  CHECK(philox4x32({0, 0, 0, 0}, {0, 0}) == PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
}

TEST_CASE("the stream layout is the one documented in random.h") {
  const std::uint64_t seed = 0x0123456789abcdefULL, counter = 7;
  const PhiloxCounter k4 = philox4x32({7, 0, 0, 0}, {0x89abcdef, 0x01234567});
  const PhiloxKey key = philox_call_key(seed, counter);
  CHECK(key == PhiloxKey{k4[0], k4[1]});
  const PhiloxCounter b0 = philox4x32({0, 0, 0, 0}, key), b1 = philox4x32({1, 0, 0, 0}, key);

  // float32 uniform: element i is word i, (w >> 8) * 2^-24.
  const NDArray f32 = draw(Distribution::Uniform, {6}, 0.0, 1.0, DType::Float32, seed, counter);
  CHECK(f32.at<float>({0}) == static_cast<float>((b0[0] >> 8) * 0x1p-24));
  CHECK(f32.at<float>({3}) == static_cast<float>((b0[3] >> 8) * 0x1p-24));
  CHECK(f32.at<float>({5}) == static_cast<float>((b1[1] >> 8) * 0x1p-24));
  // float64 uniform: element i is words 2i, 2i+1, ((w0 << 32 | w1) >> 11) * 2^-53.
  const NDArray f64 = draw(Distribution::Uniform, {3}, 0.0, 1.0, DType::Float64, seed, counter);
  auto u53 = [](std::uint32_t a, std::uint32_t b) {
    return static_cast<double>(((static_cast<std::uint64_t>(a) << 32) | b) >> 11) * 0x1p-53;
  };
  CHECK(f64.at<double>({0}) == u53(b0[0], b0[1]));
  CHECK(f64.at<double>({1}) == u53(b0[2], b0[3]));
  CHECK(f64.at<double>({2}) == u53(b1[0], b1[1]));
  // normal: Box-Muller on uniforms 2j, 2j+1.
  const NDArray nrm = draw(Distribution::Normal, {2}, 0.0, 1.0, DType::Float64, seed, counter);
  const double r = std::sqrt(-2 * std::log(1 - u53(b0[0], b0[1])));
  const double t = 2 * std::numbers::pi * u53(b0[2], b0[3]);
  CHECK(nrm.at<double>({0}) == doctest::Approx(r * std::cos(t)).epsilon(1e-15));
  CHECK(nrm.at<double>({1}) == doctest::Approx(r * std::sin(t)).epsilon(1e-15));
  // integers: element i's substream philox({j, lo(i), hi(i), 1}, key).
  const NDArray ints = draw(Distribution::Integers, {2}, 0, 10, DType::Int64, seed, counter);
  for (std::uint32_t i = 0; i < 2; ++i) {
    const PhiloxCounter s = philox4x32({0, i, 0, 1}, key);
    const std::uint64_t x = (static_cast<std::uint64_t>(s[0]) << 32) | s[1];
    CHECK(ints.at<std::int64_t>({i}) == static_cast<std::int64_t>((static_cast<unsigned __int128>(x) * 10) >> 64));
  }
  // A range near 2^63 exercises the full 64x64-bit product.
  const std::int64_t lo = -(std::int64_t{1} << 62), hi = (std::int64_t{1} << 62) + 12345;
  const NDArray wide = draw(Distribution::Integers, {1}, lo, hi, DType::Int64, seed, counter);
  const PhiloxCounter s0 = philox4x32({0, 0, 0, 1}, key);
  const std::uint64_t x0 = (static_cast<std::uint64_t>(s0[0]) << 32) | s0[1];
  const auto range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  CHECK(wide.at<std::int64_t>({0}) ==
        static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) +
                                  static_cast<std::uint64_t>((static_cast<unsigned __int128>(x0) * range) >> 64)));
}

TEST_CASE("RandomFunction: state, reproducibility and static types") {
  auto [st, sample] = random_function(Distribution::Uniform, state_var(), {2, 3}, 0.0, 1.0, DType::Float64);
  CHECK(sample.owner()->op()->name() == "RandomFunction{uniform}");
  CHECK(sample.owner()->out() == sample);  // the sample is the default output
  CHECK(tensor_type(sample)->str() == "TensorType(float64, (2, 3))");
  CHECK(*st.type() == *state_var().type());

  auto [s1, a] = run(sample, state_value(5, 0));
  CHECK(a.shape() == std::vector<std::int64_t>{2, 3});
  CHECK(s1.at<std::uint64_t>({0}) == 5);
  CHECK(s1.at<std::uint64_t>({1}) == 1);
  auto [s2, b] = run(sample, s1);
  CHECK(s2.at<std::uint64_t>({1}) == 2);
  CHECK_FALSE(array_equal(a, b));
  // Same state, same numbers; another seed, other numbers.
  CHECK(array_equal(run(sample, state_value(5, 0)).second, a));
  CHECK(array_equal(run(sample, state_value(5, 1)).second, b));
  CHECK_FALSE(array_equal(run(sample, state_value(6, 0)).second, a));
  // The input state is not written.
  const NDArray keep = state_value(5, 0);
  run(sample, keep);
  CHECK(keep.at<std::uint64_t>({1}) == 0);
  // A longer draw starts with the shorter one (element i depends only on i).
  const NDArray longer = draw(Distribution::Normal, {11}, 0.0, 1.0, DType::Float64, 9, 3);
  const NDArray shorter = draw(Distribution::Normal, {4}, 0.0, 1.0, DType::Float64, 9, 3);
  for (int i = 0; i < 4; ++i) CHECK(longer.at<double>({i}) == shorter.at<double>({i}));

  // Symbolic size of known length: rank known, sizes not.
  const Var sz = tensor::tensor(DType::Int64, {2}, "sz");
  auto [st2, s2sample] = random_function(Distribution::Normal, state_var(), RandomSize(sz), 0.0, 1.0, DType::Float32);
  CHECK(tensor_type(s2sample)->str() == "TensorType(float32, matrix)");
  // No size: the parameters' broadcast shape.
  const Var avg = constant(NDArray::zeros({2, 1}));
  const Var sd = constant(NDArray::ones({1, 3}));
  auto [st3, s3] = random_function(Distribution::Normal, state_var(), {}, avg, sd, DType::Float64);
  CHECK(tensor_type(s3)->str() == "TensorType(float64, (2, 3))");
  CHECK(run(s3, state_value(1, 0)).second.shape() == std::vector<std::int64_t>{2, 3});
  // Size {} (scalar) is not "no size".
  auto [st4, s4] = random_function(Distribution::Uniform, state_var(), std::vector<std::int64_t>{}, 0.0, 1.0,
                                   DType::Float64);
  CHECK(tensor_type(s4)->ndim() == 0);
  CHECK(run(s4, state_value(1, 0)).second.ndim() == 0);
  // Empty sizes work.
  CHECK(draw(Distribution::Binomial, {0, 3}, 1, 0.5, DType::Int64).size() == 0);
}

TEST_CASE("uniform: moments and range over 10^5 draws") {
  for (DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    const NDArray a = draw(Distribution::Uniform, {100000}, 2.0, 5.0, dt, 1234);
    CHECK(a.dtype() == dt);
    const std::vector<double> v = values(a);
    CHECK(*std::min_element(v.begin(), v.end()) >= 2.0);
    CHECK(*std::max_element(v.begin(), v.end()) < 5.0);
    const Moments m = moments(v);
    CHECK(m.mean == doctest::Approx(3.5).epsilon(0.005));
    CHECK(m.var == doctest::Approx(0.75).epsilon(0.02));
    // Ten equal cells.
    const auto c = chi_square(
        [&] {
          std::vector<double> cells;
          for (double x : v) cells.push_back(std::floor((x - 2.0) / 0.3));
          return cells;
        }(),
        [](std::int64_t) { return 0.1; }, 0, 9);
    CHECK(chi_ok(c));
  }
  // float16 goes through the float32 path.
  CHECK(draw(Distribution::Uniform, {10}, 0.0, 1.0, DType::Float16).dtype() == DType::Float16);
}

TEST_CASE("normal: moments over 10^5 draws") {
  for (DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    const std::vector<double> v = values(draw(Distribution::Normal, {100001}, 1.0, 2.0, dt, 77));
    const Moments m = moments(v);
    CHECK(m.mean == doctest::Approx(1.0).epsilon(0.03));
    CHECK(m.var == doctest::Approx(4.0).epsilon(0.03));
    double within = 0, skew = 0, kurt = 0;
    for (double x : v) {
      const double z = (x - m.mean) / std::sqrt(m.var);
      within += std::abs(z) < 1;
      skew += z * z * z;
      kurt += z * z * z * z;
    }
    const double n = static_cast<double>(v.size());
    CHECK(within / n == doctest::Approx(0.6827).epsilon(0.015));
    CHECK(std::abs(skew / n) < 0.05);
    CHECK(kurt / n == doctest::Approx(3.0).epsilon(0.04));
  }
}

TEST_CASE("binomial: Bernoulli, inversion and BTRS regimes against the exact pmf") {
  const std::vector<double> bern = values(draw(Distribution::Binomial, {100000}, 1, 0.3, DType::Int64, 3));
  CHECK(std::all_of(bern.begin(), bern.end(), [](double x) { return x == 0 || x == 1; }));
  CHECK(moments(bern).mean == doctest::Approx(0.3).epsilon(0.02));

  struct Case {
    std::int64_t n;
    double p;
  };
  // n p < 10: inversion; n p >= 10: BTRS; p > 1/2 by symmetry.
  for (const Case c : {Case{20, 0.3}, Case{1000, 0.4}, Case{100, 0.9}, Case{50, 0.95}, Case{200000, 0.02}}) {
    CAPTURE(c.n);
    CAPTURE(c.p);
    const std::vector<double> v = values(draw(Distribution::Binomial, {100000}, c.n, c.p, DType::Int64, 11));
    CHECK(*std::min_element(v.begin(), v.end()) >= 0);
    CHECK(*std::max_element(v.begin(), v.end()) <= static_cast<double>(c.n));
    const Moments m = moments(v);
    const double mean = static_cast<double>(c.n) * c.p, var = mean * (1 - c.p);
    CHECK(std::abs(m.mean - mean) < 6 * std::sqrt(var / 1e5));
    CHECK(m.var == doctest::Approx(var).epsilon(0.04));
    const auto chi = chi_square(v, [&](std::int64_t k) { return binomial_pmf(c.n, c.p, k); }, 0, c.n);
    CAPTURE(chi.first);
    CAPTURE(chi.second);
    CHECK(chi_ok(chi));
  }
  // Edge probabilities, a float dtype (Theano's dropout masks) and per-element n.
  CHECK(values(draw(Distribution::Binomial, {5}, 7, 0.0, DType::Int64)) == std::vector<double>(5, 0.0));
  CHECK(values(draw(Distribution::Binomial, {5}, 7, 1.0, DType::Int64)) == std::vector<double>(5, 7.0));
  CHECK(draw(Distribution::Binomial, {5}, 1, 0.5, DType::Float32).dtype() == DType::Float32);
  const NDArray ns = NDArray::from_vector(std::vector<std::int64_t>{0, 1, 1000}, {3});
  const std::vector<double> per = values(draw(Distribution::Binomial, {4, 3}, constant(ns), 0.5, DType::Int64));
  for (int r = 0; r < 4; ++r) {
    CHECK(per[static_cast<std::size_t>(3 * r)] == 0);
    CHECK(per[static_cast<std::size_t>(3 * r + 1)] <= 1);
    CHECK(std::abs(per[static_cast<std::size_t>(3 * r + 2)] - 500) < 100);
  }
}

TEST_CASE("integers: range, uniformity, dtypes") {
  const NDArray a = draw(Distribution::Integers, {100000}, -3, 7, DType::Int64, 5);
  CHECK(a.dtype() == DType::Int64);
  const std::vector<double> v = values(a);
  CHECK(*std::min_element(v.begin(), v.end()) == -3);
  CHECK(*std::max_element(v.begin(), v.end()) == 6);
  CHECK(chi_ok(chi_square(v, [](std::int64_t) { return 0.1; }, -3, 6)));
  // A huge range: the mean is near the middle.
  const NDArray big = draw(Distribution::Integers, {20000}, std::int64_t{0}, std::int64_t{1} << 62, DType::Int64, 5);
  CHECK(moments(values(big)).mean / std::ldexp(1.0, 61) == doctest::Approx(1.0).epsilon(0.03));
  // Small dtypes and a one-value range.
  const NDArray i8 = draw(Distribution::Integers, {1000}, -128, 128, DType::Int8);
  CHECK(i8.dtype() == DType::Int8);
  CHECK(values(draw(Distribution::Integers, {4}, 9, 10, DType::UInt8)) == std::vector<double>(4, 9.0));
}

TEST_CASE("parameters broadcast against the size") {
  const NDArray lows = NDArray::from_vector(std::vector<double>{0, 10, 100}, {3});
  const NDArray highs = NDArray::from_vector(std::vector<double>{1, 11, 101}, {3});
  const NDArray u = draw(Distribution::Uniform, {2000, 3}, constant(lows), constant(highs), DType::Float64);
  for (int r = 0; r < 2000; ++r)
    for (int c = 0; c < 3; ++c) {
      const double x = u.at<double>({r, c});
      CHECK((x >= lows.at<double>({c}) && x < lows.at<double>({c}) + 1));
    }
  const NDArray col = NDArray::from_vector(std::vector<double>{-100, 100}, {2, 1});
  const NDArray n = draw(Distribution::Normal, {2, 500}, constant(col), 1.0, DType::Float64);
  for (int c = 0; c < 500; ++c) {
    CHECK(n.at<double>({0, c}) < -90);
    CHECK(n.at<double>({1, c}) > 90);
  }
}

TEST_CASE("RandomFunction errors name the op, the variable and what was expected") {
  CHECK_THROWS_WITH_AS(RandomFunction(Distribution::Uniform, DType::Int32),
                       "RandomFunction{uniform}: dtype int32 is not a floating-point type (use float16, float32 or float64)",
                       TypeError);
  CHECK_THROWS_WITH_AS(RandomFunction(Distribution::Integers, DType::Float64),
                       "RandomFunction{integers}: dtype float64 is not an integer type", TypeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Uniform, dvector("s"), {3}, 0.0, 1.0, DType::Float64),
                       "RandomFunction{uniform}: the state s must be a uint64 vector {seed, counter} (a RandomStream "
                       "state), got TensorType(float64, vector)",
                       TypeError);
  CHECK_THROWS_WITH_AS(
      random_function(Distribution::Uniform, state_var(), RandomSize(lvector("sz")), 0.0, 1.0, DType::Float64),
      doctest::Contains("the size sz must have a statically known length"), ValueError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Normal, state_var(), {3}, dmatrix("m"), 1.0, DType::Float64),
                       "RandomFunction{normal}: parameter avg (m) has rank 2, more than the sample's 1; give a size "
                       "of rank >= 2",
                       ShapeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Normal, state_var(), {3},
                                       constant(NDArray::zeros({4})), 1.0, DType::Float64),
                       "RandomFunction{normal}: parameter avg of static shape (4,) does not broadcast to the size (3,)",
                       ShapeError);
  CHECK_THROWS_WITH_AS(random_function(Distribution::Binomial, state_var(), {3}, 1.5, 0.5, DType::Int64),
                       doctest::Contains("parameter n (Constant{1.5}) must be an integer tensor, got float32"),
                       TypeError);
  CHECK_THROWS_WITH_AS(draw(Distribution::Normal, {3}, 0.0, -1.0, DType::Float64),
                       "RandomFunction{normal}: std (Constant{-1.0}) must be >= 0, got -1 at element 0", ValueError);
  CHECK_THROWS_WITH_AS(draw(Distribution::Binomial, {3}, 4, 1.5, DType::Int64),
                       doctest::Contains("p (Constant{1.5}) must be in [0, 1], got 1.5"), ValueError);
  CHECK_THROWS_WITH_AS(draw(Distribution::Integers, {3}, 5, 5, DType::Int64),
                       doctest::Contains("low (Constant{5}) must be < high (Constant{5})"), ValueError);
  CHECK_THROWS_WITH_AS(draw(Distribution::Integers, {3}, 0, 300, DType::Int8),
                       "RandomFunction{integers}: the range [0, 300) does not fit dtype int8", ValueError);
  // Run-time checks on the state and on symbolic sizes.
  auto [st, sample] = random_function(Distribution::Uniform, state_var(), {3}, 0.0, 1.0, DType::Float64);
  CHECK_THROWS_WITH_AS(run(sample, NDArray::from_vector(std::vector<std::uint64_t>{1, 2, 3}, {3})),
                       "RandomFunction{uniform}: the state rng must hold {seed, counter} (2 uint64 values), got shape (3,)",
                       ValueError);
}

}  // TEST_SUITE
