// GpuDevice and GpuProgram (gpu_device.h): the driver and emulated devices,
// their memory, and loading and launching a function's kernels.
#include "gpu_device.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>
#include <climits>

#include "cublas.h"

#include <theano/codegen/compiledir.h>
#include <theano/codegen/cuda_cache.h>
#include <theano/codegen/cuda_driver.h>
#include <theano/codegen/cuda_emulation.h>
#include <theano/codegen/gpu_memory.h>
#include <theano/codegen/jit_loader.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/config_flags.h>
#include <theano/gpu/type.h>
#include <theano/runtime/blas_library.h>
#include <theano/runtime/error.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

namespace theano::codegen::cuda {

namespace {

/// NVRTC's version as major*1000 + minor*10 (the driver's encoding), 0 if unknown.
int nvrtc_cuda_version() {
  const std::string v = nvrtc_version();
  const auto dot = v.find('.');
  if (dot == std::string::npos) return 0;
  return std::atoi(v.substr(0, dot).c_str()) * 1000 + std::atoi(v.substr(dot + 1).c_str()) * 10;
}

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

/// THEANO_FLAGS gpu_preallocate: a fraction of the device's memory, 0 = none.
double preallocate_fraction() {
  return flag_number("gpu_preallocate").value_or(0);  // 0..1 (flag_table.cpp)
}

/// THEANO_FLAGS nvrtc_fast_compile: NVRTC's --Ofast-compile level (nvrtc_compiler.h).
std::string nvrtc_fast_compile() {
  const std::optional<std::string> v = flag_value("nvrtc_fast_compile");  // 0, min, mid or max (flag_table.cpp)
  return v && !v->empty() ? *v : NvrtcOptions{}.fast_compile;
}

}  // namespace

std::string GpuDevice::unusable_reason(const std::string& context) {
  int index = 0;
  if (!gpu::parse_context(context, &index)) return "'" + context + "' is not a GPU context";
  if (index < 0) return {};  // the emulated device is always there
  if (!nvrtc_available()) return nvrtc_unavailable_reason();
  const CudaDriver& d = CudaDriver::instance();
  if (!d.available()) return d.unavailable_reason();
  if (index >= d.device_count())
    return "there is no CUDA device " + std::to_string(index) + " (the driver sees " +
           std::to_string(d.device_count()) + ")";
  try {
    const int driver = d.driver_version(), toolkit = nvrtc_cuda_version();
    if (toolkit > 0 && driver / 1000 < toolkit / 1000)
      return "the NVIDIA driver supports CUDA " + version_text(driver) + ", older than the toolkit's NVRTC " +
             version_text(toolkit) + " (the code it compiles would not load); update the driver";
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

namespace {
std::mutex g_devices_mutex;
// Never destroyed: blocks handed out may outlive static destruction.
auto* const g_devices = new std::map<std::string, GpuDevice*>();
}  // namespace

GpuDevice* GpuDevice::find(const std::string& context) {
  std::lock_guard<std::mutex> lock(g_devices_mutex);
  auto it = g_devices->find(context);
  return it == g_devices->end() ? nullptr : it->second;
}

GpuDevice& GpuDevice::get(const std::string& context) {
  std::lock_guard<std::mutex> lock(g_devices_mutex);
  auto* devices = g_devices;
  if (auto it = devices->find(context); it != devices->end()) return *it->second;
  const std::string why = unusable_reason(context);
  THEANO_USER_CHECK(why.empty(), ValueError) << "the GPU " << context << " cannot be used: " << why;
  auto* dev = new GpuDevice(context);
  devices->emplace(context, dev);
  return *dev;
}

GpuDevice::GpuDevice(std::string context) : context_(std::move(context)) {
  int index = 0;
  gpu::parse_context(context_, &index);
  emulated_ = index < 0;
  index_ = index;
  RawDeviceMemory raw;
  if (emulated_) {
    raw.alloc = [](std::size_t bytes) -> std::uint64_t {
      const std::size_t rounded = (bytes + 255) / 256 * 256;  // the allocator's chunks: no overflow near 2 MiB
      return reinterpret_cast<std::uint64_t>(std::aligned_alloc(256, rounded));
    };
    raw.free = [](std::uint64_t p) { std::free(reinterpret_cast<void*>(p)); };
  } else {
    const CudaDriver& d = CudaDriver::instance();
    d.make_current(index);
    cc_ = d.compute_capability(index);
    raw.total_bytes = d.total_memory(index);
    raw.alloc = [index](std::size_t bytes) -> std::uint64_t {
      const CudaDriver& drv = CudaDriver::instance();
      drv.make_current(index);
      return drv.alloc(bytes);
    };
    raw.free = [index](std::uint64_t p) {
      const CudaDriver& drv = CudaDriver::instance();
      drv.make_current(index);
      drv.free(p);
    };
  }
  allocator_ = std::make_unique<DeviceAllocator>(std::move(raw));
  if (const double f = preallocate_fraction(); f > 0 && !emulated_) allocator_->preallocate(f);
}

std::shared_ptr<void> GpuDevice::allocate(std::size_t bytes) { return allocator_->allocate(bytes); }

}  // namespace theano::codegen::cuda

namespace theano::codegen {

std::optional<DeviceAllocatorStats> gpu_memory_stats(const std::string& context) {
  const cuda::GpuDevice* d = cuda::GpuDevice::find(context);
  if (!d) return std::nullopt;
  return d->memory_stats();
}

std::size_t gpu_release_cached(const std::string& context) {
  cuda::GpuDevice* d = cuda::GpuDevice::find(context);
  return d ? d->release_cached() : 0;
}

}  // namespace theano::codegen

namespace theano::codegen::cuda {

Device GpuDevice::device() const { return emulated_ ? Device::emulated() : Device::cuda(index_); }

namespace {
CudaDriver::DevicePtr dptr(const void* p) { return reinterpret_cast<CudaDriver::DevicePtr>(p); }

/// One copy of `bytes` bytes: `host` for the emulated device (its memory is
/// host memory), else `driver` with the device's context current.
template <class Host, class Driver>
void copy_bytes(bool emulated, int index, std::size_t bytes, Host host, Driver driver) {
  if (bytes == 0) return;
  if (emulated) {
    host();
    return;
  }
  const CudaDriver& d = CudaDriver::instance();
  d.make_current(index);
  driver(d);
}
}  // namespace

void GpuDevice::copy_to_device(void* dst, const void* src, std::size_t bytes) {
  copy_bytes(
      emulated_, index_, bytes, [&] { std::memcpy(dst, src, bytes); },
      [&](const CudaDriver& d) { d.copy_to_device(dptr(dst), src, bytes); });
}

void GpuDevice::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  copy_bytes(
      emulated_, index_, bytes, [&] { std::memcpy(dst, src, bytes); },
      [&](const CudaDriver& d) { d.copy_to_host(dst, dptr(src), bytes); });
}

void GpuDevice::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  copy_bytes(
      emulated_, index_, bytes, [&] { std::memmove(dst, src, bytes); },
      [&](const CudaDriver& d) { d.copy_on_device(dptr(dst), dptr(src), bytes); });
}

void GpuDevice::synchronize() {
  if (emulated_) return;  // emulated kernels run to completion in their launch
  const CudaDriver& d = CudaDriver::instance();
  d.make_current(index_);
  d.synchronize();
}

void GpuDevice::gemm(DType dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                     double alpha, const void* a, std::int64_t lda, const void* b, std::int64_t ldb, double beta,
                     void* c, std::int64_t ldc) {
  THEANO_INTERNAL_CHECK(dtype == DType::Float32 || dtype == DType::Float64) << "GPU gemm of " << dtype_name(dtype);
  const bool single = dtype == DType::Float32;
  if (m == 0 || n == 0) return;
  if (!emulated_) {
    const CudaDriver& d = CudaDriver::instance();
    d.make_current(index_);
    Cublas::instance().gemm(index_, single, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  for (std::int64_t v : {m, n, k, lda, ldb, ldc})
    THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
        << "gemm: a size or leading dimension of " << v << " does not fit BLAS's 32-bit int";
  runtime::load_blas();
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if (single)
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                static_cast<float>(alpha), static_cast<const float*>(a), static_cast<int>(lda),
                static_cast<const float*>(b), static_cast<int>(ldb), static_cast<float>(beta), static_cast<float*>(c),
                static_cast<int>(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha,
                static_cast<const double*>(a), static_cast<int>(lda), static_cast<const double*>(b),
                static_cast<int>(ldb), beta, static_cast<double*>(c), static_cast<int>(ldc));
}

void GpuDevice::gemm_batched(DType dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                             double alpha, const void* a, std::int64_t lda, std::int64_t stride_a, const void* b,
                             std::int64_t ldb, std::int64_t stride_b, double beta, void* c, std::int64_t ldc,
                             std::int64_t stride_c, std::int64_t batch) {
  THEANO_INTERNAL_CHECK(dtype == DType::Float32 || dtype == DType::Float64) << "GPU gemm of " << dtype_name(dtype);
  if (m == 0 || n == 0 || batch == 0) return;
  const std::int64_t item = dtype == DType::Float32 ? 4 : 8;
  if (!emulated_) {
    const CudaDriver& d = CudaDriver::instance();
    d.make_current(index_);
    Cublas::instance().gemm_strided_batched(index_, dtype == DType::Float32, trans_a, trans_b, m, n, k, alpha, a, lda,
                                            stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
    return;
  }
  for (std::int64_t i = 0; i < batch; ++i)
    gemm(dtype, trans_a, trans_b, m, n, k, alpha, static_cast<const char*>(a) + i * stride_a * item, lda,
         static_cast<const char*>(b) + i * stride_b * item, ldb, beta, static_cast<char*>(c) + i * stride_c * item,
         ldc);
}

struct GpuProgram::Loaded {
  std::unique_ptr<EmulatedKernels> emulated;  // the emulated device's kernels
  void* module = nullptr;                     // the driver's CUmodule
  std::vector<void*> functions;               // CUfunction by kernel number
};

GpuProgram::GpuProgram(GpuDevice& device, const CudaUnit& unit, const CompileOptions& copts, const std::string& origin)
    : device_(device), kernels_(unit.kernels()), source_(unit.source()), loaded_(std::make_unique<Loaded>()) {
  if (kernels_.empty()) {  // transfers only: nothing to compile
    stats_.image = "none";
    stats_.cache = "off";
    return;
  }
  cache::CompileCache* cache = current_cache();
  if (device_.emulated()) {
    // The same CUDA text, compiled for the CPU behind the emulation shim.
    std::vector<EmulatedKernelInfo> infos;
    for (const KernelInfo& k : kernels_) infos.push_back({k.name, k.nparams, k.barriers});
    loaded_->emulated = std::make_unique<EmulatedKernels>(source_, std::move(infos), copts, cache, origin);
    stats_.image = "emulated (host object)";
    stats_.cache = loaded_->emulated->cache_state();
    stats_.compile_ms = loaded_->emulated->cache_hit() ? 0 : loaded_->emulated->compile_ms();
    return;
  }
  NvrtcOptions nvrtc;
  nvrtc.fast_compile = nvrtc_fast_compile();
  if (unit.exact_fp()) nvrtc.extra.push_back("--fmad=false");
  const CudaImage image = compile_cuda_cached(source_, device_.compute_capability(), nvrtc, cache, origin);
  stats_.image = std::string(image.cubin ? "cubin " : "ptx ") + image.arch;
  stats_.cache = !cache ? "off" : image.cache_hit ? "hit" : "miss";
  stats_.compile_ms = image.cache_hit ? 0 : image.compile_ms;  // this process's compile time
  const CudaDriver& d = CudaDriver::instance();
  d.make_current(device_.index());
  loaded_->module = d.load_module(image.bytes);
  for (const KernelInfo& k : kernels_) loaded_->functions.push_back(d.get_function(loaded_->module, k.name.c_str()));
}

GpuProgram::~GpuProgram() {
  if (loaded_ && loaded_->module) {
    try {
      const CudaDriver& d = CudaDriver::instance();
      d.make_current(device_.index());
      d.unload_module(loaded_->module);
    } catch (...) {  // the context may be gone at exit: nothing to free then
    }
  }
}

std::pair<unsigned, unsigned> GpuProgram::launch_shape(std::int64_t n) {
  constexpr std::int64_t kBlock = 256, kMaxGrid = 1024;
  const std::int64_t blocks = n / kBlock + (n % kBlock != 0);
  return {static_cast<unsigned>(kBlock), static_cast<unsigned>(std::min(std::max<std::int64_t>(blocks, 1), kMaxGrid))};
}

void GpuProgram::launch(std::int64_t kernel, std::int64_t n, const std::int64_t* params, std::int64_t nparams) const {
  THEANO_INTERNAL_CHECK(kernel >= 0 && kernel < static_cast<std::int64_t>(kernels_.size()))
      << "generated code launched kernel " << kernel << " of " << kernels_.size();
  const KernelInfo& k = kernels_[static_cast<std::size_t>(kernel)];
  THEANO_INTERNAL_CHECK(nparams == k.nparams)
      << k.label << ": kernel " << k.name << " takes " << k.nparams << " parameters, got " << nparams;
  if (n <= 0) return;
  auto [block, grid] = launch_shape(n);
  if (k.block > 0) {  // one work item a block (cuda_unit.h)
    block = static_cast<unsigned>(k.block);
    grid = static_cast<unsigned>(std::min(n, kMaxLaneGrid));
  }
  if (device_.emulated()) {
    loaded_->emulated->launch(static_cast<std::size_t>(kernel), grid, block, params);
    return;
  }
  try {
    const CudaDriver& d = CudaDriver::instance();
    d.make_current(device_.index());
    void* args[] = {const_cast<std::int64_t*>(params)};
    // Asynchronous: the transfers back (cuMemcpyDtoH on the default stream)
    // wait for it; a fault in the kernel is reported there.
    d.launch(loaded_->functions[static_cast<std::size_t>(kernel)], grid, block, args, 0, /*synchronize=*/false);
  } catch (const Error& e) {
    throw Error(k.label + ": kernel " + k.name + ": " + e.what());
  }
}

}  // namespace theano::codegen::cuda
