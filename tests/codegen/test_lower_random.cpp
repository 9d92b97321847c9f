// Lowering of RandomFunction: generated code draws the same stream as perform
// (uniform, integers, binomial bit for bit; normal within 1e-12 relative).
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>
#include <theano/compile/function.h>
#include <theano/config.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
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

/// The stream state {seed, counter} (length unknown statically, so a bad
/// length reaches the op's run-time check).
Var state_var() { return tensor::tensor(DType::UInt64, {std::nullopt}, "state"); }

NDArray state(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

/// Draws agree bit for bit, or within `rtol` relative (no absolute tolerance)
/// when `rtol` > 0; integer outputs always exactly.
test::Agreement draws(double rtol) {
  if (rtol > 0) return {.rtol = rtol, .atol = 0};
  return {.bitwise = true};
}

const std::vector<Dims> kSizes = {{}, {1}, {5}, {0}, {1001}, {3, 4}, {4, 0}, {2, 3, 5}, {2, 1, 7, 3}};

/// The stream states the tests draw from (a 64-bit seed, counters crossing 2^32).
std::vector<NDArray> states() {
  return {state(12345, 0), state(0, 1), state(0xDEADBEEFCAFEF00DULL, 0x1FFFFFFFFULL), state(7, 3)};
}

/// Draws of `dist` for every size in kSizes, scalar parameters p0 / p1 as
/// graph inputs of dtype pd0 / pd1; each output dtype in `dtypes`.
void check_scalar_params(Distribution dist, const std::vector<DType>& dtypes, DType pd0, DType pd1,
                         const std::vector<std::pair<double, double>>& params, double rtol) {
  for (DType dt : dtypes) {
    CAPTURE(dtype_name(dt));
    Var st = state_var(), a = any_tensor(pd0, 0, "a"), b = any_tensor(pd1, 0, "b");
    std::vector<Var> outs;
    for (const Dims& s : kSizes) {
      auto [ns, x] = random_function(dist, st, RandomSize(s), a, b, dt);
      outs.push_back(x);
      outs.push_back(ns);
    }
    std::vector<std::vector<NDArray>> sets;
    for (const NDArray& stv : states())
      for (const auto& [p0, p1] : params)
        sets.push_back({stv, NDArray::full({}, p0, pd0), NDArray::full({}, p1, pd1)});
    check_sets({st, a, b}, outs, sets, draws(rtol));
  }
}

}  // namespace

TEST_SUITE("lower random") {
  TEST_CASE("uniform: bit for bit, float64 and float32, every size, parameter dtypes") {
    check_scalar_params(Distribution::Uniform, {DType::Float64, DType::Float32}, DType::Float64, DType::Float64,
                        {{0, 1}, {-3.5, 10.25}, {2, 2}}, 0);
    check_scalar_params(Distribution::Uniform, {DType::Float64}, DType::Int32, DType::Float32, {{-4, 3.5}}, 0);
  }

  TEST_CASE("normal: within 1e-12 relative (float64), float32, every size") {
    check_scalar_params(Distribution::Normal, {DType::Float64}, DType::Float64, DType::Float64,
                        {{0, 1}, {5, 0.5}, {-1, 0}}, 1e-12);
    check_scalar_params(Distribution::Normal, {DType::Float32}, DType::Float64, DType::Float32, {{0, 1}, {3, 2}},
                        1e-6);
  }

  TEST_CASE("binomial: bit for bit, inversion and BTRS regimes, p = 0, 1, > 1/2, output dtypes") {
    // (n, p): n p < 10 (inversion), n p >= 10 (BTRS), p > 1/2 (mirrored), edges.
    const std::vector<std::pair<double, double>> params = {{1, 0.5}, {10, 0.3}, {1000, 0.3}, {50, 0.9},
                                                           {0, 0.5}, {7, 0},    {7, 1},      {100000, 0.01}};
    check_scalar_params(Distribution::Binomial, {DType::Int64, DType::Float64}, DType::Int64, DType::Float64, params, 0);
    check_scalar_params(Distribution::Binomial, {DType::Int32, DType::Float32, DType::Bool, DType::UInt8},
                        DType::Int32, DType::Float32, {{20, 0.25}, {3, 0.75}}, 0);
  }

  TEST_CASE("integers: bit for bit, small / huge / negative ranges, output dtypes") {
    const std::vector<std::pair<double, double>> params = {
        {0, 10}, {-5, 5}, {0, 1}, {-4611686018427387904.0, 4611686018427387904.0}, {100, 1e15}};
    check_scalar_params(Distribution::Integers, {DType::Int64}, DType::Int64, DType::Int64, params, 0);
    check_scalar_params(Distribution::Integers, {DType::Int8, DType::Int16, DType::Int32, DType::UInt8, DType::UInt64},
                        DType::Int32, DType::Int16, {{0, 100}, {1, 2}, {0, 128}}, 0);
  }

  TEST_CASE("broadcast array parameters, size_from_params and a symbolic size") {
    std::mt19937_64 rng(61);
    Var st = state_var();
    Var lo = any_tensor(DType::Float64, 1, "lo"), hi = any_tensor(DType::Float32, 2, "hi");
    Var nt = any_tensor(DType::Int64, 2, "nt"), pp = any_tensor(DType::Float64, 1, "pp");
    Var il = any_tensor(DType::Int32, 1, "il"), ih = any_tensor(DType::Int64, 0, "ih");
    Var size = tensor::tensor(DType::Int32, {3}, "size");
    std::vector<Var> outs;
    auto add = [&](std::pair<Var, Var> r) {
      outs.push_back(r.second);
      outs.push_back(r.first);
    };
    add(random_function(Distribution::Uniform, st, RandomSize(Dims{2, 3, 4}), lo, hi, DType::Float64));
    add(random_function(Distribution::Uniform, st, RandomSize(), lo, hi, DType::Float32));
    add(random_function(Distribution::Normal, st, RandomSize(Dims{2, 3, 4}), lo, hi, DType::Float64));
    add(random_function(Distribution::Normal, st, RandomSize(), lo, hi, DType::Float64));
    add(random_function(Distribution::Binomial, st, RandomSize(Dims{2, 3, 4}), nt, pp, DType::Int64));
    add(random_function(Distribution::Binomial, st, RandomSize(), nt, pp, DType::Int16));
    add(random_function(Distribution::Integers, st, RandomSize(size), il, ih, DType::Int64));
    add(random_function(Distribution::Integers, st, RandomSize(), il, ih, DType::Int32));
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{st, lo, hi, nt, pp, il, ih, size}, outs);
    // Normal outputs: within 1e-12; the rest exactly. Compare with 1e-12 (exact
    // outputs are integers or uniforms, checked bit for bit below).
    std::vector<std::vector<NDArray>> sets;
    for (const auto& [h0, h1] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 4}, {1, 4}, {3, 1}}) {
      for (const NDArray& stv : states()) {
        sets.push_back({stv, random_array(rng, {4}, DType::Float64, -2, 0),
                        random_array(rng, {h0, h1}, DType::Float32, 0.5, 3),
                        random_array(rng, {h0, 4}, DType::Int64, 0, 300), random_array(rng, {4}, DType::Float64, 0, 1),
                        random_array(rng, {4}, DType::Int32, -50, 0), NDArray::scalar<std::int64_t>(1000),
                        NDArray::from_vector(std::vector<std::int32_t>{2, 3, 4}, {3})});
      }
    }
    check_sets({st, lo, hi, nt, pp, il, ih, size}, outs, sets, draws(1e-12));
    // The exact ones, bit for bit.
    std::vector<Var> exact;
    for (std::size_t k = 0; k < outs.size(); k += 2)
      if (k != 4 && k != 6) exact.push_back(outs[k]);
    check_sets({st, lo, hi, nt, pp, il, ih, size}, exact, {sets[0], sets[5], sets[10]}, draws(0));
  }

  TEST_CASE("errors: state, size, broadcasting and parameter values, as perform") {
    Var st = state_var(), a = any_tensor(DType::Float64, 1, "a"), b = any_tensor(DType::Float64, 1, "b");
    Var ia = any_tensor(DType::Int64, 1, "ia"), ib = any_tensor(DType::Int64, 1, "ib");
    Var size = tensor::tensor(DType::Int64, {2}, "size");
    auto one = [&](Distribution d, const Var& p0, const Var& p1, const RandomSize& s, DType dt) {
      auto [ns, x] = random_function(d, st, s, p0, p1, dt);
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{st, p0, p1, size}, std::vector<Var>{x, ns});
      return std::pair{fg, lowered_thunk(fg)};
    };
    auto vec = [](std::vector<double> v, DType dt = DType::Float64) {
      return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())}).astype(dt);
    };
    const NDArray s0 = state(1, 2);
    const NDArray sz = NDArray::from_vector(std::vector<std::int64_t>{2, 3}, {2});
    {
      auto [u_fg, u] = one(Distribution::Uniform, a, b, RandomSize(size), DType::Float64);
      const std::string op = "RandomFunction{uniform}";
      check_error<ValueError>(u_fg, *u, {vec({1, 2, 3}, DType::UInt64), vec({0}), vec({1}), sz}, op, "{seed, counter}");
      check_error<ValueError>(u_fg, *u,
                              {s0, vec({0}), vec({1}), NDArray::from_vector(std::vector<std::int64_t>{2, -3}, {2})}, op,
                              "negative entry -3");
      check_error<ShapeError>(u_fg, *u, {s0, vec({0, 1}), vec({1}), sz}, op, "parameter low (input 2) cannot be broadcast to the target shape");
      check_error<ShapeError>(u_fg, *u, {s0, vec({0}), vec({1, 2}), sz}, op, "parameter high (input 3) cannot be broadcast to the target shape");
      auto [uf_fg, uf] = one(Distribution::Uniform, a, b, RandomSize(), DType::Float64);
      check_error<ShapeError>(uf_fg, *uf, {s0, vec({0, 1}), vec({1, 2, 3}), sz}, op, "do not broadcast together");
    }
    {
      auto [nrm_fg, nrm] = one(Distribution::Normal, a, b, RandomSize(size), DType::Float64);
      check_error<ValueError>(nrm_fg, *nrm, {s0, vec({0}), vec({1, 2, -1}), sz}, "RandomFunction{normal}",
                              "element 2 is negative or NaN");
      check_error<ValueError>(nrm_fg, *nrm, {s0, vec({0}), vec({std::nan("")}), sz}, "RandomFunction{normal}", "std");
    }
    {
      auto [bin_fg, bin] = one(Distribution::Binomial, ia, b, RandomSize(size), DType::Int64);
      const std::string op = "RandomFunction{binomial}";
      check_error<ValueError>(bin_fg, *bin, {s0, vec({3, -2, 1}, DType::Int64), vec({0.5}), sz}, op,
                              "n must be >= 0, got -2");
      check_error<ValueError>(bin_fg, *bin, {s0, vec({3}, DType::Int64), vec({0.5, 1.5, 0}), sz}, op, "element 1");
    }
    {
      auto [ints_fg, ints] = one(Distribution::Integers, ia, ib, RandomSize(size), DType::Int8);
      const std::string op = "RandomFunction{integers}";
      check_error<ValueError>(ints_fg, *ints, {s0, vec({0, 5, 0}, DType::Int64), vec({5}, DType::Int64), sz}, op,
                              "low must be < high; element 1");
      check_error<ValueError>(ints_fg, *ints, {s0, vec({0}, DType::Int64), vec({200}, DType::Int64), sz}, op,
                              "does not fit dtype int8");
      // The largest range int8 holds is fine.
      std::vector<NDArray> out(2);
      const std::vector<NDArray> ok{s0, vec({-128}, DType::Int64), vec({128}, DType::Int64), sz};
      ints->run(ok, out);
      CHECK(out[0].shape() == Dims{2, 3});
      CHECK(array_equal(out[1], NDArray::from_vector(std::vector<std::uint64_t>{1, 3}, {2})));
    }
  }
}

TEST_SUITE("lowering: random") {
  TEST_CASE("inplace form: the generated code advances a stream's state in place, draws unchanged") {
    // Through function(): fast_run makes the draws inplace on the stream's
    // updated state (inplace_random); o3 does not; py runs perform.
    auto draws = [](const std::string& mode, const std::string& linker) {
      RandomStream rs(11);
      Var u = rs.uniform({5});
      Var k = rs.integers({3}, 0, 1000);
      FunctionOptions o;
      o.mode = mode;
      Config cfg = config();
      cfg.flags["linker"] = linker;
      ConfigGuard guard(cfg);
      Function f = function({}, {u, k}, o);
      bool inplace = false;
      for (Apply* node : f.fgraph().apply_nodes())
        if (const auto* op = dynamic_cast<const RandomFunction*>(node->op().get())) inplace = inplace || op->inplace();
      CHECK(inplace == (mode == "fast_run"));
      std::vector<NDArray> all;
      for (int c = 0; c < 3; ++c)
        for (const NDArray& a : f({})) all.push_back(a);
      return all;
    };
    const auto jit_inplace = draws("fast_run", "cpp");
    const auto jit_copy = draws("o3", "cpp");
    const auto reference = draws("fast_run", "py");
    REQUIRE(jit_inplace.size() == reference.size());
    for (std::size_t i = 0; i < reference.size(); ++i) {
      CHECK(array_equal(jit_inplace[i], reference[i]));
      CHECK(array_equal(jit_copy[i], reference[i]));
    }
  }
}
