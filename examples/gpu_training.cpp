// Training with the parameters on the GPU (Theano's gpuarray shared
// variables): a logistic regression whose float32 weights are shared
// variables living in GPU memory. Each step reads them there and writes their
// updates there; only the minibatch goes up and the cost comes back. Prints
// the optimized training graph (the updates are GpuElemwise nodes writing the
// shared variables), where the weights live, time per step, the difference
// from the same training on the CPU back end, and a DLPack export of the
// device weights.
//
//   gpu_training [--device cuda|cuda<N>|auto|emulated] [--steps N] [--feats N] [--samples N]
//
// --device: as THEANO_FLAGS device (default auto: the GPU when one is usable,
// else the emulated device, so it always shows the GPU path).
#include <ostream>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include <theano/codegen/gpu_memory.h>
#include <theano/gpu/context.h>
#include <theano/gpu/type.h>
#include <theano/runtime/dlpack.h>
#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

using namespace theano;
namespace T = theano::tensor;
using example::Clock;
using example::ms_since;

struct Options {
  std::string device = "auto";
  std::int64_t steps = 200, feats = 256, samples = 512;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view flag, value;
    example::next_flag(argc, argv, i, {"--device", "--steps", "--feats", "--samples"}, flag, value);
    if (flag == "--help" || flag == "-h") return false;
    if (flag == "--device") o.device = std::string(value);
    else if (flag == "--steps") o.steps = example::parse_count(flag, value, 1, 1'000'000);
    else if (flag == "--feats") o.feats = example::parse_count(flag, value, 1, 1 << 16);
    else if (flag == "--samples") o.samples = example::parse_count(flag, value, 2, 1 << 20);
    else throw example::UsageError{"unknown argument '" + std::string(flag) + "'"};
  }
  return true;
}

void usage(std::ostream& os) {
  os << "usage: gpu_training [--device cuda|cuda<N>|auto|emulated] [--steps N] [--feats N] [--samples N]\n"
        "Logistic regression whose weights live on the GPU, compared with the CPU.\n";
}

/// Two Gaussian clouds, labels 0/1 (float32).
std::pair<NDArray, NDArray> draw(std::int64_t n, std::int64_t feats) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> g(0.0f, 1.0f);
  NDArray x = NDArray::empty({n, feats}, DType::Float32), y = NDArray::empty({n}, DType::Float32);
  for (std::int64_t i = 0; i < n; ++i) {
    const float label = static_cast<float>(i % 2);
    y.data_as<float>()[i] = label;
    for (std::int64_t j = 0; j < feats; ++j) x.data_as<float>()[i * feats + j] = g(rng) + (label - 0.5f) * 0.4f;
  }
  return {x, y};
}

struct Trained {
  Function train;
  Var w, b;
  double ms_per_step = 0;
  float cost = 0;
};

Trained train(const Options& o, const NDArray& x, const NDArray& y) {
  Var w = shared(NDArray::zeros({o.feats}, DType::Float32), "w");
  Var b = shared(NDArray::scalar(0.0f), "b");
  Var X = T::fmatrix("X"), t = T::fvector("t");
  Var p = T::nnet::sigmoid(T::dot(X, w) + b);
  Var cost = T::mean(T::nnet::binary_crossentropy(p, t)) + 0.01f * T::sum(T::sqr(w));
  std::vector<Var> g = grad(cost, {w, b});
  Trained r{function({X, t}, {cost}, {.updates = {{w, w - 0.1f * g[0]}, {b, b - 0.1f * g[1]}}}), w, b};
  const auto t0 = Clock::now();
  for (std::int64_t s = 0; s < o.steps; ++s) r.cost = r.train({x, y})[0].item<float>();
  r.ms_per_step = ms_since(t0) / static_cast<double>(o.steps);
  return r;
}

int run(const Options& o) {
  const auto [x, y] = draw(o.samples, o.feats);
  const Trained cpu = train(o, x, y);

  std::string device = o.device;
  if (device == "auto" && !gpu::context_for_device("auto")) device = "emulated";
  Config c = config();
  c.flags["device"] = device;
  ConfigGuard guard(c);
  const Trained gpu = train(o, x, y);

  std::cout << "device: " << device << " (THEANO_FLAGS device=" << device << ")\n";
  std::cout << "w: " << gpu.w.type()->str() << ", its value "
            << get_value(gpu.w, /*borrow=*/true, /*return_internal_type=*/true).str() << "\n";
  std::cout << "\n== the optimized training graph (outputs 1 and 2 are the new w and b, computed on the GPU)\n"
            << debugprint(gpu.train);
  std::cout << "\n== GPU code: " << gpu.train.profile().build.gpu << "\n";
  std::cout << o.steps << " steps: " << gpu.ms_per_step << " ms per step on " << device << ", " << cpu.ms_per_step
            << " ms on the CPU back end; final cost " << gpu.cost << " (CPU " << cpu.cost << ")\n";
  const NDArray wg = get_value(gpu.w), wc = get_value(cpu.w);
  double diff = 0;
  for (std::int64_t k = 0; k < o.feats; ++k)
    diff = std::max(diff, static_cast<double>(std::fabs(wg.data_as<float>()[k] - wc.data_as<float>()[k])));
  std::cout << "max difference of w from the CPU back end: " << diff << "\n";
  if (const auto stats = codegen::gpu_memory_stats(gpu::gpu_type(gpu.w)->context()))
    std::cout << "GPU allocator: " << stats->requests << " requests, " << stats->raw_allocs
              << " raw allocations, " << stats->bytes_in_use << " bytes in use\n";
  DLManagedTensor* exported = to_dlpack(get_value(gpu.w, true, true));
  std::cout << "DLPack export of w: device type " << static_cast<int>(exported->dl_tensor.device.device_type)
            << " (2 = kDLCUDA; 12 = kDLExtDev, the emulated GPU), no copy\n";
  exported->deleter(exported);
  return diff <= 1e-4 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>("gpu_training", argc, argv, parse, usage, run);
}
