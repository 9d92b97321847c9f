// What the GPU op tests share (tests/codegen/test_cuda_*.cpp): compile a
// graph for the CPU back end and for a GPU device (the host-emulated one by
// default), check that the work moved to the GPU (no host node of the listed
// op types is left) and that every result agrees with the CPU's; and compile
// a function's CUDA unit with NVRTC for real architectures.
#pragma once

#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gpu/context.h>
#include <theano/config.h>
#include <theano/printing.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace gpu_test {

/// The real-GPU test cases' guard: true (after saying why, in the words
/// tools/dev/gpu-check.sh looks for) where cuda0 cannot be used.
inline bool no_usable_gpu() {
  const std::string why = theano::gpu::context_unusable_reason("cuda0");
  if (why.empty()) return false;
  MESSAGE("skipped: no usable GPU: " << why);
  return true;
}

/// The device the op tests compile their GPU functions for: the host-emulated
/// one, or what `THEANO_TEST_GPU_DEVICE` names (`cuda0` on a machine with a
/// GPU: tools/dev/gpu-check.sh runs the op tests on it that way).
inline std::string op_test_device() {
  const char* d = std::getenv("THEANO_TEST_GPU_DEVICE");
  return d != nullptr && *d != '\0' ? d : "emulated";
}

/// Whether the op tests run on a real GPU (THEANO_TEST_GPU_DEVICE set to one).
/// What only the emulated device promises (LAPACK's own signs, glibc's last
/// bits) is checked there alone; a real GPU gets the promise docs/ make for it.
inline bool on_real_gpu() { return op_test_device() != "emulated"; }

inline theano::Config with_device(const std::string& device) {
  theano::Config c = theano::config();
  c.flags["device"] = device;
  return c;
}

/// Uniform values in [-3, 3) (integers: their floor times 1000).
inline theano::NDArray random_array(std::vector<std::int64_t> shape, theano::DType d, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  theano::NDArray a = theano::NDArray::empty(std::move(shape), theano::DType::Float64);
  double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < a.size(); ++k) p[k] = is_float(d) ? u(rng) : std::floor(u(rng) * 1000);
  return a.astype(d);
}

/// An int64 vector of `values` (labels, indices).
inline theano::NDArray int64_vector(const std::vector<std::int64_t>& values) {
  return theano::NDArray::from_vector(values, {static_cast<std::int64_t>(values.size())});
}

inline std::int64_t count_ops(const theano::Function& f, std::string_view type) {
  std::int64_t n = 0;
  for (const theano::Apply* node : f.fgraph().toposort()) n += node->op()->type_name() == type;
  return n;
}

/// Whether a and b agree: NaN with NaN, else within `rtol` relative (at least 1 absolute scale).
inline bool close(double a, double b, double rtol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= rtol * std::max(1.0, std::fabs(a));
}

/// `got` (a GPU function's outputs) agrees with `want` (the CPU's): the same
/// dtypes and shapes, and each output's elements within `rtol` (close; float32
/// outputs within `rtol32`) but for at most `max_fraction` of them (a failure
/// names the first element that differs and both values). A real
/// GPU's libm differs from the host's in the last ulp, and a rejection sampler
/// whose test lands within that ulp of its bound takes the other branch
/// (docs/random.md, "CPU and GPU agreement").
inline void check_outputs_agree(const std::vector<theano::NDArray>& want, const std::vector<theano::NDArray>& got,
                             double rtol, double rtol32, double max_fraction) {
  using namespace theano;
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    REQUIRE(got[k].dtype() == want[k].dtype());
    REQUIRE(got[k].shape() == want[k].shape());
    const NDArray w = want[k].astype(DType::Float64).copy(), g = got[k].to_host().astype(DType::Float64).copy();
    const double tol = want[k].dtype() == DType::Float32 ? rtol32 : rtol;
    std::int64_t bad = 0, first = -1;
    for (std::int64_t e = 0; e < w.size(); ++e)
      if (!close(w.data_as<double>()[e], g.data_as<double>()[e], tol)) {
        ++bad;
        if (first < 0) first = e;
      }
    if (static_cast<double>(bad) <= max_fraction * static_cast<double>(w.size())) continue;
    CAPTURE(bad);
    CAPTURE(first);
    CAPTURE(w.data_as<double>()[first]);
    CAPTURE(g.data_as<double>()[first]);
    CHECK(static_cast<double>(bad) <= max_fraction * static_cast<double>(w.size()));
  }
}

/// `outs` over `ins` compiled for the CPU back end and for `device`: the
/// CPU's outputs on `args`, and the GPU function (not yet called).
struct CpuAndGpu {
  std::vector<theano::NDArray> want;
  theano::Function gpu;
};
inline CpuAndGpu compile_cpu_and_gpu(const std::vector<theano::Var>& ins, const std::vector<theano::Var>& outs,
                                     const std::vector<theano::NDArray>& args, const std::string& device) {
  using namespace theano;
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  Function cpu = function(in, out, {.mode = "fast_run"});
  CpuAndGpu r{cpu(args), {}};
  ConfigGuard guard(with_device(device));
  r.gpu = function(in, out, {.mode = "fast_run"});
  return r;
}

/// `outs` over `ins` compiled for `device` agree with the CPU back end on
/// `args` within `rtol`; no host node of a type in `gone` remains (they
/// moved to the GPU); the GPU function is returned for more checks.
inline theano::Function check_on_gpu(const std::vector<theano::Var>& ins, const std::vector<theano::Var>& outs,
                                     const std::vector<theano::NDArray>& args, const std::vector<std::string>& gone,
                                     double rtol = 1e-12, const std::string& device = op_test_device()) {
  CpuAndGpu c = compile_cpu_and_gpu(ins, outs, args, device);
  CAPTURE(theano::debugprint(c.gpu));
  for (const std::string& type : gone) {
    CAPTURE(type);
    CHECK(count_ops(c.gpu, type) == 0);
    CHECK(count_ops(c.gpu, "Gpu" + type) > 0);
  }
  check_outputs_agree(c.want, c.gpu(args), rtol, rtol, 0);
  return c.gpu;
}

/// The CUDA unit of `f` (compiled for a GPU device) compiles with NVRTC for
/// sm_80 and sm_90 into an image with kernel entries; a skip message when
/// NVRTC is missing.
inline void check_nvrtc(const theano::Function& f) {
  using namespace theano;
  if (!codegen::nvrtc_available()) {
    MESSAGE("NVRTC check skipped: " << codegen::nvrtc_unavailable_reason());
    return;
  }
  const std::string source = codegen::CLinker::generate_cuda_source(f.fgraph());
  REQUIRE(!source.empty());
  for (const char* arch : {"sm_80", "sm_90"}) {
    CAPTURE(arch);
    codegen::NvrtcOptions o;
    o.arch = arch;
    const codegen::NvrtcResult res = codegen::nvrtc_compile(source, o, "theano_test.cu");
    CHECK(!res.cubin.empty());
    CHECK(res.ptx.find(".entry ") != std::string::npos);
  }
}

}  // namespace gpu_test
