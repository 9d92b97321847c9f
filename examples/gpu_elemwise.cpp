// The CUDA back end on docs/workloads.md's W1, out = exp(x)*y + tanh(z) - x*x/(1+y):
// the graph the GPU transfer rewrite makes (transfers in, one fused GPU
// kernel, transfer out), where its code came from (NVRTC, or the emulated
// device), call times, and the largest difference from the CPU back end.
//
//   gpu_elemwise [--device cuda|cuda<N>|auto|emulated] [--n N]
//
// --device: as THEANO_FLAGS device (default auto: the GPU when one is usable;
// without one this example then takes the emulated device, so it always shows
// the GPU path). --n: the vectors' length (default 10^6).
#include <ostream>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include <theano/gpu/context.h>
#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

using namespace theano;
using example::Clock;
using example::ms_since;

struct Options {
  std::string device = "auto";
  std::int64_t n = 1'000'000;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view flag, value;
    example::next_flag(argc, argv, i, {"--device", "--n"}, flag, value);
    if (flag == "--help" || flag == "-h") return false;
    if (flag == "--device") o.device = std::string(value);
    else if (flag == "--n") o.n = example::parse_count(flag, value, 0, std::int64_t{1} << 28);
    else throw example::UsageError{"unknown argument '" + std::string(flag) + "'"};
  }
  return true;
}

void usage(std::ostream& os) {
  os << "usage: gpu_elemwise [--device cuda|cuda<N>|auto|emulated] [--n N]\n"
        "W1 (exp(x)*y + tanh(z) - x*x/(1+y)) compiled for a GPU, compared with the CPU.\n";
}

NDArray uniform(std::int64_t n, double lo, double hi, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& e : v) e = u(rng);
  return NDArray::from_vector(v, {n});
}

double median_call_ms(const Function& f, const std::vector<NDArray>& args, int calls) {
  std::vector<double> ms;
  for (int k = 0; k < calls; ++k) {
    const auto t0 = Clock::now();
    f(args);
    ms.push_back(ms_since(t0));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int run(const Options& o) {
  Var x = tensor::dvector("x"), y = tensor::dvector("y"), z = tensor::dvector("z");
  Var out = tensor::exp(x) * y + tensor::tanh(z) - x * x / (1.0 + y);
  const std::vector<NDArray> args = {uniform(o.n, -1, 1, 101), uniform(o.n, 0, 1, 102), uniform(o.n, -1, 1, 103)};

  Function cpu = function({x, y, z}, {out});
  std::string device = o.device;
  if (device == "auto" && !gpu::context_for_device("auto")) device = "emulated";
  Config c = config();
  c.flags["device"] = device;
  ConfigGuard guard(c);
  const auto t0 = Clock::now();
  Function f = function({x, y, z}, {out});
  const double compile_ms = ms_since(t0);

  std::cout << "device: " << device << " (THEANO_FLAGS device=" << device << ")\n";
  std::cout << "\n== the optimized graph: transfers in, one GPU kernel, transfer out\n" << debugprint(f);
  const ThunkStats& build = f.profile().build;
  std::cout << "\n== compile: " << compile_ms << " ms; GPU code: " << build.gpu << "\n";
  const NDArray got = f(args)[0], want = cpu(args)[0];
  double diff = 0;
  for (std::int64_t k = 0; k < o.n; ++k)
    diff = std::max(diff, std::fabs(got.data_as<double>()[k] - want.data_as<double>()[k]));
  std::cout << "n = " << o.n << ": median call " << median_call_ms(f, args, 7) << " ms on " << device << ", "
            << median_call_ms(cpu, args, 7) << " ms on the CPU back end\n";
  std::cout << "max difference from the CPU back end: " << diff << "\n";
  return diff <= 1e-12 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>("gpu_elemwise", argc, argv, parse, usage, run);
}
