/// \file
/// NVRTC: PTX and CUBIN output, lowered template names, compile errors with the
/// NVRTC log; and a GPU execution test through the dlopen'ed driver that skips,
/// saying why, on machines without libcuda.so.1 or without a device.
#include <theano/codegen/cuda_driver.h>
#include <theano/codegen/nvrtc_compiler.h>

#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace theano::codegen;

namespace {
const char* kAxpy = R"(extern "C" __global__ void axpy(const double* x, double* y, double a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + tanh(x[i]);
}
template <class T> __global__ void scale_t(T* y, T a, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}
)";
NvrtcOptions arch(const std::string& a) {
  NvrtcOptions o;
  o.arch = a;
  return o;
}
}  // namespace

TEST_CASE("NVRTC: compiles a kernel to PTX and CUBIN") {
  if (!nvrtc_available()) {
    MESSAGE("skipped: " << nvrtc_unavailable_reason());
    CHECK_THROWS_AS(nvrtc_compile(kAxpy), theano::Error);
    return;
  }
  CHECK_FALSE(nvrtc_version().empty());
  auto archs = nvrtc_supported_archs();
  REQUIRE_FALSE(archs.empty());
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());

  NvrtcResult ptx = nvrtc_compile(kAxpy, arch("compute_90"), "axpy.cu", {"scale_t<double>"});
  CHECK(ptx.ptx.find(".entry axpy") != std::string::npos);
  CHECK(ptx.ptx.find(".target sm_90") != std::string::npos);
  CHECK(ptx.cubin.empty());
  REQUIRE(ptx.lowered_names.size() == 1);
  CHECK(ptx.lowered_names[0].find("_Z7scale_tIdEvPT_S0_x") == 0);
  CHECK(ptx.ptx.find(ptx.lowered_names[0]) != std::string::npos);
  MESSAGE("NVRTC " << nvrtc_version() << " PTX compute_90: " << ptx.compile_ms << " ms");

  NvrtcResult bin = nvrtc_compile(kAxpy, arch("sm_90"));
  REQUIRE(bin.cubin.size() > 16);
  CHECK(bin.cubin.compare(0, 4, "\x7f" "ELF") == 0);
  CHECK_FALSE(bin.ptx.empty());
  MESSAGE("NVRTC CUBIN sm_90: " << bin.compile_ms << " ms, " << bin.cubin.size() << " bytes");
}

TEST_CASE("NVRTC: compile errors carry the NVRTC log and the kept source") {
  if (!nvrtc_available()) {
    MESSAGE("skipped: " << nvrtc_unavailable_reason());
    return;
  }
  const std::string src = "extern \"C\" __global__ void k(double* y) {\n  y[0] = not_declared_here;\n}\n";
  try {
    nvrtc_compile(src, {}, "broken.cu");
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics().find("not_declared_here") != std::string::npos);
    CHECK(e.diagnostics().find("broken.cu(2)") != std::string::npos);
    CHECK_FALSE(e.source_path().empty());
    CHECK(std::string(e.what()).find("CUDA compile failed") != std::string::npos);
  }
  CHECK_THROWS_AS(nvrtc_compile(kAxpy, arch("sm_1")), theano::ValueError);
}

TEST_CASE("CUDA driver: probing never fails on machines without a GPU") {
  std::string reason;
  bool ok = cuda_driver_available(&reason);
  if (ok) {
    CHECK(reason.empty());
    CHECK(CudaDriver::instance().device_count() > 0);
  } else {
    CHECK_FALSE(reason.empty());
    CHECK_THROWS_AS(CudaDriver::instance().compute_capability(), theano::Error);
  }
}

TEST_CASE("CUDA: an NVRTC kernel runs on the GPU") {
  std::string reason;
  if (!nvrtc_available()) {
    MESSAGE("skipped GPU execution: " << nvrtc_unavailable_reason());
    return;
  }
  if (!cuda_driver_available(&reason)) {
    MESSAGE("skipped GPU execution: " << reason);
    return;
  }
  const CudaDriver& cu = CudaDriver::instance();
  cu.make_current();
  const int cc = cu.compute_capability();
  auto archs = nvrtc_supported_archs();
  // Exact CUBIN when NVRTC knows the device, else PTX the driver JIT-compiles.
  bool exact = std::find(archs.begin(), archs.end(), cc) != archs.end();
  NvrtcResult r = nvrtc_compile(kAxpy, arch((exact ? "sm_" : "compute_") + std::to_string(exact ? cc : archs.back())));
  void* module = cu.load_module(exact ? r.cubin : r.ptx);
  void* fn = cu.get_function(module, "axpy");
  const long long n = 1000;
  std::vector<double> x(n), y(n), out(n);
  for (long long i = 0; i < n; ++i) {
    x[i] = 0.001 * i - 0.3;
    y[i] = 1.0 + i;
  }
  auto dx = cu.alloc(n * sizeof(double)), dy = cu.alloc(n * sizeof(double));
  cu.copy_to_device(dx, x.data(), n * sizeof(double));
  cu.copy_to_device(dy, y.data(), n * sizeof(double));
  double a = 2.5;
  long long nn = n;
  void* args[] = {&dx, &dy, &a, &nn};
  cu.launch(fn, (n + 255) / 256, 256, args);
  cu.copy_to_host(out.data(), dy, n * sizeof(double));
  cu.free(dx);
  cu.free(dy);
  cu.unload_module(module);
  for (long long i = 0; i < n; ++i)
    CHECK(out[i] == doctest::Approx(a * x[i] + y[i] + std::tanh(x[i])).epsilon(1e-13));
}
