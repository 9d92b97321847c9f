// Lowering of RandomFunction's distributions after integers (docs/random.md):
// the generated code runs the kernels of random_distributions.h and
// random_discrete.h, the text
// perform runs, so every sample is perform's bit for bit (every size, stream
// states, scalar and broadcast array parameters of several dtypes, size from
// the parameters, float32 / float64 / int64 samples), and a bad parameter is
// perform's ValueError with the same message (the element and the value).
#include <doctest/doctest.h>

#include <theano/compile/shared.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

using Dims = std::vector<std::int64_t>;

Var state_var() { return tensor::tensor(DType::UInt64, {std::nullopt}, "state"); }

NDArray state(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

std::vector<NDArray> states() { return {state(12345, 0), state(0xDEADBEEFCAFEF00DULL, 0x1FFFFFFFFULL)}; }

struct Case {
  Distribution dist;
  std::vector<std::vector<double>> params;  ///< sets of scalar parameter values
  DType dtype;
};

/// The parameters' dtypes: int64 for integer parameters, else float64.
std::vector<DType> param_dtypes(Distribution d) {
  const DistributionSpec& s = distribution_spec(d);
  std::vector<DType> r;
  for (int k = 0; k < s.nparams; ++k)
    r.push_back(s.kinds[static_cast<std::size_t>(k)] == RandomKind::Integer ? DType::Int64 : DType::Float64);
  return r;
}

/// Every generic distribution in regimes that take each branch of its sampler.
std::vector<Case> cases() {
  const double inf = std::numeric_limits<double>::infinity();
  return {
      {Distribution::Exponential, {{1.0}, {0.0}}, DType::Float64},
      {Distribution::Laplace, {{-1, 3}}, DType::Float32},
      {Distribution::Logistic, {{2, 0.5}}, DType::Float64},
      {Distribution::Lognormal, {{0.5, 1.2}}, DType::Float64},
      {Distribution::Cauchy, {{0, 2}}, DType::Float64},
      {Distribution::Gamma, {{0.3, 2}, {4.5, 1}, {0, 1}}, DType::Float64},
      {Distribution::Beta, {{0.2, 0.5}, {3, 7}}, DType::Float32},
      {Distribution::Chisquare, {{3}}, DType::Float64},
      {Distribution::StandardT, {{2.5}}, DType::Float64},
      {Distribution::Vonmises, {{1, 4}, {0, 1e-9}, {2, 2e6}, {-1, 1e-6}}, DType::Float64},
      {Distribution::TruncatedNormal, {{0, 1, -0.5, 0.5}, {0, 1, -3, 4}, {1, 2, 9, inf}, {0, 1, -inf, -2}},
       DType::Float64},
      {Distribution::Poisson, {{3.5}, {250}, {0}}, DType::Int64},
      {Distribution::Geometric, {{0.3}, {1}}, DType::Int64},
      {Distribution::NegativeBinomial, {{2.5, 0.3}, {40, 0.9}}, DType::Float64},
      {Distribution::Hypergeometric, {{20, 30, 5}, {300, 200, 120}, {50, 60, 105}}, DType::Int64},
      {Distribution::Loggamma, {{0.3}, {4.5}, {1e-3}}, DType::Float64},
  };
}

}  // namespace

TEST_SUITE("lower random distributions") {
  TEST_CASE("every distribution: generated draws are perform's bit for bit, every size and regime") {
    const std::vector<Dims> sizes = {{}, {1}, {7}, {0}, {3, 5}, {2, 1, 4}};
    for (const Case& c : cases()) {
      CAPTURE(distribution_name(c.dist));
      const std::vector<DType> pd = param_dtypes(c.dist);
      Var st = state_var();
      std::vector<Var> ins{st};
      std::vector<TensorLike> params;
      for (std::size_t k = 0; k < pd.size(); ++k) {
        Var p = any_tensor(pd[k], 0, "p" + std::to_string(k));
        ins.push_back(p);
        params.push_back(p);
      }
      std::vector<Var> outs;
      for (const Dims& s : sizes) {
        auto [ns, x] = random_function(c.dist, st, RandomSize(s), params, c.dtype);
        outs.push_back(x);
        outs.push_back(ns);
      }
      std::vector<std::vector<NDArray>> sets;
      for (const NDArray& sv : states())
        for (const std::vector<double>& ps : c.params) {
          std::vector<NDArray> set{sv};
          for (std::size_t k = 0; k < pd.size(); ++k) set.push_back(NDArray::full({}, ps[k], pd[k]));
          sets.push_back(set);
        }
      check_sets(ins, outs, sets, {.bitwise = true});
    }
  }

  TEST_CASE("broadcast array parameters of mixed dtypes, size from the parameters, a symbolic size") {
    std::mt19937_64 rng(37);
    Var st = state_var();
    Var loc = any_tensor(DType::Float32, 1, "loc"), scale = any_tensor(DType::Float64, 2, "scale");
    Var lower = any_tensor(DType::Int32, 0, "lower"), upper = any_tensor(DType::Float64, 1, "upper");
    Var shape = any_tensor(DType::Float32, 2, "shape"), lam = any_tensor(DType::Float64, 1, "lam");
    Var good = any_tensor(DType::Int32, 1, "good"), bad = any_tensor(DType::Int64, 0, "bad");
    Var nsample = any_tensor(DType::Int16, 2, "nsample");
    Var size = tensor::tensor(DType::Int32, {3}, "size");
    std::vector<Var> outs;
    auto add = [&](std::pair<Var, Var> r) {
      outs.push_back(r.second);
      outs.push_back(r.first);
    };
    add(random_function(Distribution::TruncatedNormal, st, RandomSize(Dims{2, 3, 4}), {loc, scale, lower, upper},
                        DType::Float64));
    add(random_function(Distribution::TruncatedNormal, st, RandomSize(), {loc, scale, lower, upper}, DType::Float32));
    add(random_function(Distribution::Gamma, st, RandomSize(size), {shape, lam}, DType::Float64));
    add(random_function(Distribution::Poisson, st, RandomSize(), {lam}, DType::Int64));
    add(random_function(Distribution::Hypergeometric, st, RandomSize(), {good, bad, nsample}, DType::Int64));
    std::vector<Var> ins{st, loc, scale, lower, upper, shape, lam, good, bad, nsample, size};
    std::vector<std::vector<NDArray>> sets;
    for (const NDArray& sv : states())
      for (std::int64_t h : {3, 1}) {
        sets.push_back({sv, random_array(rng, {4}, DType::Float32, -1, 1), random_array(rng, {h, 4}, DType::Float64, 0.5, 2),
                        NDArray::scalar<std::int32_t>(-2), random_array(rng, {4}, DType::Float64, 0, 3),
                        random_array(rng, {h, 4}, DType::Float32, 0.1, 5), random_array(rng, {4}, DType::Float64, 0, 40),
                        random_array(rng, {4}, DType::Int32, 0, 50), NDArray::scalar<std::int64_t>(40),
                        random_array(rng, {h, 1}, DType::Int16, 0, 40),
                        NDArray::from_vector(std::vector<std::int32_t>{2, 3, 4}, {3})});
      }
    check_sets(ins, outs, sets, {.bitwise = true});
  }

  TEST_CASE("categorical: generated draws are perform's bit for bit, float32 and float64 weights, broadcast rows") {
    std::mt19937_64 rng(5);
    Var st = state_var();
    Var p64 = any_tensor(DType::Float64, 2, "p64"), p32 = any_tensor(DType::Float32, 3, "p32");
    std::vector<Var> outs;
    auto add = [&](std::pair<Var, Var> r) {
      outs.push_back(r.second);
      outs.push_back(r.first);
    };
    add(random_function(Distribution::Categorical, st, RandomSize(Dims{5, 3}), {p64}, DType::Int64));
    add(random_function(Distribution::Categorical, st, RandomSize(), {p64}, DType::Float32));
    add(random_function(Distribution::Categorical, st, RandomSize(Dims{2, 4, 3}), {p32}, DType::Int64));
    add(random_function(Distribution::Categorical, st, RandomSize(), {p32}, DType::Int64));
    std::vector<std::vector<NDArray>> sets;
    for (const NDArray& sv : states())
      for (std::int64_t rows : {3, 1})
        sets.push_back({sv, random_array(rng, {rows, 6}, DType::Float64, 0, 2),
                        random_array(rng, {4, rows, 7}, DType::Float32, 0, 1)});
    check_sets({st, p64, p32}, outs, sets, {.bitwise = true});
    // A bad weight: perform's message.
    auto [ns, x] = random_function(Distribution::Categorical, st, RandomSize(Dims{3, 2}), {p64}, DType::Int64);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{st, p64}, std::vector<Var>{x, ns});
    auto cpp = lowered_thunk(fg);
    check_error<ValueError>(fg, *cpp, {state(1, 0), NDArray::from_vector<double>({1, 2, 3, 4, -2, 5}, {2, 3})},
                            "RandomFunction{categorical}", "p[1][1] = -2 must be >= 0 and finite");
    check_error<ValueError>(fg, *cpp, {state(1, 0), NDArray::from_vector<double>({0, 0, 0}, {1, 3})},
                            "RandomFunction{categorical}", "p[0] = 0 (the sum of the row) must be > 0 and finite");
  }

  TEST_CASE("multinomial and permutation: generated rows are perform's bit for bit, and their errors") {
    std::mt19937_64 rng(6);
    Var st = state_var();
    Var n = any_tensor(DType::Int32, 1, "n"), p64 = any_tensor(DType::Float64, 2, "p64");
    Var p32 = any_tensor(DType::Float32, 1, "p32"), x = any_tensor(DType::Float32, 2, "x");
    std::vector<Var> outs;
    auto add = [&](std::pair<Var, Var> r) {
      outs.push_back(r.second);
      outs.push_back(r.first);
    };
    add(random_function(Distribution::Multinomial, st, RandomSize(Dims{5, 3}), {n, p64}, DType::Int64));
    add(random_function(Distribution::Multinomial, st, RandomSize(), {n, p64}, DType::Float32));
    add(random_function(Distribution::Multinomial, st, RandomSize(Dims{2, 4}), {700, p32}, DType::Float64));
    add(random_function(Distribution::Permutation, st, RandomSize(Dims{6, 3}), {x}, DType::Int64));
    add(random_function(Distribution::Permutation, st, RandomSize(), {x}, DType::Int64));
    std::vector<std::vector<NDArray>> sets;
    for (const NDArray& sv : states())
      for (std::int64_t rows : {3, 1})
        for (std::int64_t k : {7, 1, 0})
          sets.push_back({sv, random_array(rng, {rows}, DType::Int32, 0, 60), random_array(rng, {rows, 6}, DType::Float64, 0, 2),
                          random_array(rng, {5}, DType::Float32, 0, 1), random_array(rng, {rows, k}, DType::Float32, 0, 1)});
    check_sets({st, n, p64, p32, x}, outs, sets, {.bitwise = true});
    // Errors: n's rule, then the row rule.
    auto [ns, m] = random_function(Distribution::Multinomial, st, RandomSize(Dims{3}), {n, p64}, DType::Int64);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{st, n, p64}, std::vector<Var>{m, ns});
    auto cpp = lowered_thunk(fg);
    check_error<ValueError>(fg, *cpp,
                            {state(1, 0), NDArray::from_vector<std::int32_t>({2, 3, -4}, {3}),
                             NDArray::from_vector<double>({1, 2, 3}, {1, 3})},
                            "RandomFunction{multinomial}", "n[2] = -4 must be in [0, 2^53]");
    check_error<ValueError>(fg, *cpp,
                            {state(1, 0), NDArray::from_vector<std::int32_t>({2}, {1}),
                             NDArray::from_vector<double>({1, 2, 3, 1, std::nan(""), 1, 1, 1, 1}, {3, 3})},
                            "RandomFunction{multinomial}", "p[1][1] = nan must be >= 0 and finite");
  }

  TEST_CASE("graph samples (dirichlet, choice, permutation, shuffle, multivariate_normal): generated = perform") {
    // Their ops' generated code (loggamma, categorical, integers, permutation,
    // uniform, normal draws; softmax, argsort, gathers, asserts, cholesky,
    // matmul) against perform, the states as inputs.
    RandomStream rs(3);
    Var x = dmatrix("x");
    const NDArray a = NDArray::from_vector<double>({1, 2, 3, 4, 5}, {5});
    const NDArray p = NDArray::from_vector<double>({0.1, 0.2, 0.3, 0.15, 0.25}, {5});
    const NDArray mean = NDArray::from_vector<double>({1, -2}, {2});
    const NDArray cov = NDArray::from_vector<double>({2, 0.6, 0.6, 1}, {2, 2});
    const NDArray covs = NDArray::from_vector<double>({1, 0, 0, 1, 4, 1, 1, 4}, {2, 2, 2});
    const std::vector<Var> outs = {rs.dirichlet({6}, NDArray::from_vector<double>({0.5, 2, 1e-3}, {3})),
                                   rs.choice({4}, 9),
                                   rs.choice({2, 3}, a, true, p),
                                   rs.choice({5}, 9, false),
                                   rs.choice({3}, a, false, p),
                                   rs.permutation(7),
                                   rs.shuffle(x),
                                   rs.multivariate_normal({5}, mean, cov),
                                   rs.multivariate_normal({}, mean, covs)};
    std::vector<Var> ins{x};
    std::vector<NDArray> first{NDArray::from_vector<double>({0, 1, 2, 3, 4, 5}, {3, 2})}, later = first;
    for (const auto& [st, next] : rs.updates()) {
      ins.push_back(st);
      const NDArray v = get_value(st);
      first.push_back(v);
      later.push_back(state(v.at<std::uint64_t>({0}), 5));
    }
    check_sets(ins, outs, {first, later});
  }

  TEST_CASE("errors: a bad parameter is perform's ValueError, the same element and value") {
    Var st = state_var(), a = any_tensor(DType::Float64, 1, "a"), b = any_tensor(DType::Float64, 0, "b");
    Var a2 = any_tensor(DType::Float64, 1, "a2"), b2 = any_tensor(DType::Float64, 0, "b2");
    Var g = any_tensor(DType::Int64, 0, "g"), g2 = any_tensor(DType::Int64, 0, "g2");
    Var n = any_tensor(DType::Int64, 1, "n");
    const NDArray s0 = state(1, 2);
    auto vec = [](std::vector<double> v, DType dt = DType::Float64) {
      return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())}).astype(dt);
    };
    // Both back ends' messages contain `what`.
    auto both = [&](Distribution d, const std::vector<Var>& ps, DType dt, const std::vector<NDArray>& values,
                    const std::string& what) {
      std::vector<TensorLike> params(ps.begin(), ps.end());
      auto [ns, x] = random_function(d, st, RandomSize(Dims{2, 3}), params, dt);
      std::vector<Var> ins{st};
      ins.insert(ins.end(), ps.begin(), ps.end());
      auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{x, ns});
      auto cpp = lowered_thunk(fg);
      const std::string op = "RandomFunction{" + std::string(distribution_name(d)) + "}";
      check_error<ValueError>(fg, *cpp, values, op, what);
      std::vector<NDArray> out(2);
      const std::string ref = error_of([&] { make_perform_linker()->make_thunk(fg)->run(values, out); });
      CHECK(ref.find(op + ": " + what) != std::string::npos);
    };
    both(Distribution::Gamma, {a, b}, DType::Float64, {s0, vec({1, 2, -1}), NDArray::scalar(1.0)},
         "shape[2] = -1 must be >= 0");
    both(Distribution::Gamma, {a, b}, DType::Float64, {s0, vec({1}), NDArray::scalar(std::nan(""))},
         "scale[0] = nan must be >= 0");
    both(Distribution::Beta, {a, b}, DType::Float32, {s0, vec({1, 0.5, 2}), NDArray::scalar(-0.125)},
         "b[0] = -0.125 must be > 0");
    both(Distribution::TruncatedNormal, {a2, b, a, b2}, DType::Float64,
         {s0, vec({0}), NDArray::scalar(1.0), vec({0, 1, 2}), NDArray::scalar(1.5)},
         "lower[2] = 2 must be < upper");
    both(Distribution::Poisson, {a}, DType::Int64, {s0, vec({1, 3e18, 2})}, "lam[1] = 3e+18 must be in [0, 1e18]");
    both(Distribution::Hypergeometric, {g, g2, n}, DType::Int64,
         {s0, NDArray::scalar<std::int64_t>(3), NDArray::scalar<std::int64_t>(3), vec({1, 2, 7}, DType::Int64)},
         "nsample[2] = 7 must be in [0, ngood + nbad]");
    both(Distribution::Vonmises, {a, b}, DType::Float64, {s0, vec({0, 1, 2}), NDArray::scalar(-2e-5)},
         "kappa[0] = -2e-05 must be >= 0");
    both(Distribution::Geometric, {a}, DType::Int64, {s0, vec({0.5, 0.25, 1.0625})}, "p[2] = 1.0625 must be in (0, 1]");
  }
}
