// RandomFunction's distributions after integers on the GPU (docs/random.md):
// one thread an element runs the kernel text perform runs, so through the
// host-emulated device every sample is the CPU's bit for bit (broadcast
// parameters, every sampler branch); the unit compiles with NVRTC where it is
// installed; a bad parameter is perform's ValueError naming the element and
// its value. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include <limits>

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

TEST_SUITE("cuda random distributions (emulated device)") {
  TEST_CASE("cuda emulated: every distribution draws the CPU's numbers bit for bit for the same state") {
    const double inf = std::numeric_limits<double>::infinity();
    Var st = state_var();
    Var v = vector("v"), w = vector("w"), s = scalar("s"), t = scalar("t");
    Var gi = vector("gi", DType::Int64), bi = scalar("bi", DType::Int64), ni = vector("ni", DType::Int64);
    using D = Distribution;
    using P = std::vector<TensorLike>;
    struct Case {
      D dist;
      P params;
      DType dtype;
    };
    // v: (0.2 .. 1.4) positive, w: mixed signs, s = 2.5, t = 0.35 (a probability).
    const std::vector<Case> cases = {
        {D::Exponential, {v}, DType::Float64},
        {D::Laplace, {w, s}, DType::Float32},
        {D::Logistic, {w, v}, DType::Float64},
        {D::Lognormal, {w, v}, DType::Float64},
        {D::Cauchy, {s, v}, DType::Float64},
        {D::Gamma, {v, s}, DType::Float64},
        {D::Beta, {v, s}, DType::Float64},
        {D::Chisquare, {v}, DType::Float64},
        {D::StandardT, {v}, DType::Float64},
        {D::Vonmises, {w, v}, DType::Float64},
        {D::TruncatedNormal, {w, v, -0.5, s}, DType::Float64},
        {D::TruncatedNormal, {0.0, 1.0, s, inf}, DType::Float64},
        {D::Poisson, {v}, DType::Int64},
        {D::Poisson, {v * 40.0}, DType::Int64},
        {D::Geometric, {t}, DType::Int64},
        {D::NegativeBinomial, {s, t}, DType::Int64},
        {D::Hypergeometric, {gi, bi, ni}, DType::Int64},
        {D::Loggamma, {v}, DType::Float64},
    };
    std::vector<Var> outs;
    for (const Case& c : cases)
      for (const std::vector<std::int64_t>& size : {std::vector<std::int64_t>{7}, std::vector<std::int64_t>{301, 7}}) {
        auto [ns, x] = random_function(c.dist, st, RandomSize(size), c.params, c.dtype);
        outs.push_back(x);
        outs.push_back(ns);
      }
    const NDArray V = NDArray::from_vector<double>({0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4}, {7});
    const NDArray W = NDArray::from_vector<double>({-3, -1, -0.5, 0, 0.5, 1, 3}, {7});
    const NDArray GI = NDArray::from_vector<std::int64_t>({5, 20, 100, 300, 0, 40, 1000}, {7});
    const NDArray NI = NDArray::from_vector<std::int64_t>({3, 15, 90, 330, 9, 12, 500}, {7});
    const std::vector<Var> ins = {st, v, w, s, t, gi, bi, ni};
    const std::vector<NDArray> args = {state(2026, 0x1FFFFFFFFULL), V, W, NDArray::scalar(2.5), NDArray::scalar(0.35),
                                       GI, NDArray::scalar<std::int64_t>(30), NI};
    if (gpu_test::on_real_gpu()) {
      // A real GPU's libm: inversion samples within a few ulps, a rare rejection sample drawn otherwise.
      const std::vector<In> in(ins.begin(), ins.end());
      const std::vector<Out> out(outs.begin(), outs.end());
      Function cpu = function(in, out, {.mode = "fast_run"});
      ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
      Function gpu = function(in, out, {.mode = "fast_run"});
      CHECK(gpu_test::count_ops(gpu, "RandomFunction") == 0);
      gpu_test::check_outputs_agree(cpu(args), gpu(args), 1e-13, 1e-6, 0.01);
      return;
    }
    Function f = check_on_gpu(ins, outs, args, {"RandomFunction"}, 0);
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: a bad parameter is perform's ValueError naming the element and the value") {
    Var st = state_var(), a = vector("a"), b = vector("b");
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    auto [ns, x] = random_function(Distribution::Gamma, st, RandomSize(std::vector<std::int64_t>{2, 3}), {a, b},
                                   DType::Float64);
    Function f = function({In(st), In(a), In(b)}, {Out(x)}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(f, "GpuRandomFunction") == 1);
    const NDArray A = NDArray::from_vector<double>({1, 2, 3}, {3});
    CHECK_THROWS_WITH_AS(f({state(1, 0), A, NDArray::from_vector<double>({1, -2.5, -3}, {3})}),
                         doctest::Contains("scale[1] = -2.5 must be >= 0"), ValueError);
  }
}
