// Random streams on the GPU (issue 17): uniform, normal, binomial and
// integers drawn one element a thread from the same Philox streams as the
// CPU, through the host-emulated device: for the same state and shape the
// numbers are the CPU's (bit for bit; normal to the last ulp of sin / cos /
// log), with broadcast parameters, and a bad parameter is perform's error
// naming the element. A RandomStream's draws in a compiled function advance
// its state across calls as on the CPU. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;

namespace {

Var state_var() { return tensor::tensor(DType::UInt64, {std::nullopt}, "state"); }

NDArray state(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

}  // namespace

TEST_SUITE("cuda random (emulated device)") {
  TEST_CASE("cuda emulated: uniform, normal, binomial and integers are the CPU's numbers for the same state") {
    Var st = state_var(), lo = vector("lo"), hi = scalar("hi"), n = scalar("n", DType::Int64);
    Var il = scalar("il", DType::Int64), ih = vector("ih", DType::Int64);
    using S = std::vector<std::int64_t>;
    struct Case {
      Distribution dist;
      Var a, b;
      DType dtype;
      double rtol;
    };
    const std::vector<Case> cases = {{Distribution::Uniform, lo, hi, DType::Float64, 0},
                                     {Distribution::Uniform, lo, hi, DType::Float32, 0},
                                     {Distribution::Normal, lo, hi, DType::Float64, 1e-14},
                                     {Distribution::Normal, lo, hi, DType::Float32, 1e-6},
                                     {Distribution::Binomial, n, lo, DType::Int64, 0},
                                     {Distribution::Integers, il, ih, DType::Int32, 0}};
    const NDArray LO = NDArray::from_vector<double>({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, {7});
    const NDArray IH = NDArray::from_vector<std::int64_t>({5, 10, 100, 1000, 3, 2, 7}, {7});
    for (std::size_t c = 0; c < cases.size(); ++c) {
      CAPTURE(c);
      const Case& k = cases[c];
      std::vector<Var> outs;
      for (const S& size : {S{7}, S{3, 7}, S{1001, 7}}) {
        auto [ns, x] = random_function(k.dist, st, RandomSize(size), k.a, k.b, k.dtype);
        outs.push_back(x);
        outs.push_back(ns);
      }
      std::vector<Var> ins{st, k.a, k.b};
      std::vector<NDArray> args{state(12345, 3), LO, NDArray::scalar(2.5)};
      if (k.dist == Distribution::Binomial) args = {state(7, 0x1FFFFFFFFULL), NDArray::scalar<std::int64_t>(40), LO};
      if (k.dist == Distribution::Integers) args = {state(99, 1), NDArray::scalar<std::int64_t>(-3), IH};
      Function f = check_on_gpu(ins, outs, args, {"RandomFunction"}, k.rtol);
      if (c == 0 || c == 4) check_nvrtc(f);
    }
  }

  TEST_CASE("cuda emulated: a bad parameter is perform's ValueError naming the element") {
    Var st = state_var(), a = vector("a"), b = vector("b");
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    auto [ns, x] = random_function(Distribution::Normal, st, RandomSize(std::vector<std::int64_t>{2, 3}), a, b,
                                   DType::Float64);
    Function f = function({In(st), In(a), In(b)}, {Out(x)}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(f, "GpuRandomFunction") == 1);
    const NDArray A = NDArray::from_vector<double>({0, 0, 0}, {3});
    CHECK_THROWS_WITH_AS(f({state(1, 0), A, NDArray::from_vector<double>({1, -2, -3}, {3})}),
                         doctest::Contains("std must be >= 0; element 1 is negative"), ValueError);
  }

  TEST_CASE("cuda emulated: a RandomStream's draws advance its state across calls as on the CPU") {
    // The draws meet a GPU value (x, an input), so they move to the GPU.
    auto draws = [](const std::string& device) {
      ConfigGuard guard(gpu_test::with_device(device));
      RandomStream rs(2024);
      Var x = vector("x");
      Var u = rs.uniform({4, 5}) * x + 1.0;
      Var k = rs.integers({5}, 0, 1000) * cast(x, DType::Int64);
      Function f = function({In(x)}, {Out(u), Out(k)}, {.mode = "fast_run"});
      const NDArray X = NDArray::from_vector<double>({1, 2, 3, 4, 5}, {5});
      std::vector<NDArray> all;
      for (int c = 0; c < 3; ++c)
        for (const NDArray& a : f({X})) all.push_back(a.to_host());
      return std::make_pair(all, gpu_test::count_ops(f, "GpuRandomFunction"));
    };
    const auto [cpu, cpu_gpu_nodes] = draws("cpu");
    const auto [gpu, gpu_nodes] = draws("emulated");
    CHECK(cpu_gpu_nodes == 0);
    CHECK(gpu_nodes >= 1);
    REQUIRE(cpu.size() == gpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) CHECK(array_equal(cpu[i], gpu[i]));
  }
}
