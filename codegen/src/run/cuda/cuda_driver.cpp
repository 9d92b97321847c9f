/// \file
/// The dlopen'ed CUDA driver: a table of the dozen driver entry points theano-cpp
/// uses, resolved with dlsym from libcuda.so.1 (docs/jit-and-cache.md, "CUDA:
/// NVRTC and the emulated device").
///
/// Why hand-declared types instead of <cuda.h>: the library must build and run
/// without the CUDA toolkit; the driver ABI of these calls is stable.
#include <theano/codegen/cuda_driver.h>

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

namespace theano::codegen {

namespace {
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUdeviceptr = unsigned long long;
constexpr int kAttrCcMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCcMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
constexpr int kStubLibrary = 34;  // CUDA_ERROR_STUB_LIBRARY
}  // namespace

struct CudaDriver::Api {
  void* handle = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void*, void**, void**) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceTotalMem)(std::size_t*, CUdevice) = nullptr;
  std::mutex contexts_mutex;
  std::vector<CUcontext> contexts;  // the primary context of each device, retained on first use
};

namespace {
template <class F>
bool bind(void* handle, F& fn, const char* name) {
  fn = reinterpret_cast<F>(::dlsym(handle, name));
  return fn != nullptr;
}
}  // namespace

CudaDriver& CudaDriver::instance() {
  static CudaDriver* driver = new CudaDriver();  // never closed, never destroyed
  return *driver;
}

CudaDriver::CudaDriver() : api_(std::make_unique<Api>()) {
  Api& a = *api_;
  a.handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a.handle) {
    const char* e = ::dlerror();
    reason_ = std::string("cannot dlopen libcuda.so.1 (no NVIDIA driver): ") + (e ? e : "unknown error");
    return;
  }
  bool ok = bind(a.handle, a.cuInit, "cuInit") && bind(a.handle, a.cuDeviceGetCount, "cuDeviceGetCount") &&
            bind(a.handle, a.cuDeviceGet, "cuDeviceGet") &&
            bind(a.handle, a.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
            bind(a.handle, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            bind(a.handle, a.cuCtxSetCurrent, "cuCtxSetCurrent") &&
            bind(a.handle, a.cuCtxSynchronize, "cuCtxSynchronize") &&
            bind(a.handle, a.cuModuleLoadData, "cuModuleLoadData") &&
            bind(a.handle, a.cuModuleUnload, "cuModuleUnload") &&
            bind(a.handle, a.cuModuleGetFunction, "cuModuleGetFunction") &&
            bind(a.handle, a.cuMemAlloc, "cuMemAlloc_v2") && bind(a.handle, a.cuMemFree, "cuMemFree_v2") &&
            bind(a.handle, a.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
            bind(a.handle, a.cuMemcpyDtoH, "cuMemcpyDtoH_v2") &&
            bind(a.handle, a.cuMemcpyDtoD, "cuMemcpyDtoD_v2") &&
            bind(a.handle, a.cuLaunchKernel, "cuLaunchKernel") &&
            bind(a.handle, a.cuGetErrorName, "cuGetErrorName") &&
            bind(a.handle, a.cuDriverGetVersion, "cuDriverGetVersion") &&
            bind(a.handle, a.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  if (!ok) {
    reason_ = "libcuda.so.1 lacks a required driver entry point (driver too old?)";
    return;
  }
  if (CUresult r = a.cuInit(0); r != 0) {
    reason_ = r == kStubLibrary ? "libcuda.so.1 is the CUDA toolkit's stub library (no real driver)"
                                : "cuInit failed with CUresult " + std::to_string(r);
    return;
  }
  if (CUresult r = a.cuDeviceGetCount(&device_count_); r != 0 || device_count_ <= 0) {
    reason_ = r != 0 ? "cuDeviceGetCount failed with CUresult " + std::to_string(r) : "no CUDA device";
    device_count_ = 0;
    return;
  }
  available_ = true;
}

void CudaDriver::check(int result, const char* call) const {
  if (result == 0) return;
  const char* name = nullptr;
  if (api_->cuGetErrorName) api_->cuGetErrorName(result, &name);
  throw Error(std::string("CUDA driver call ") + call + " failed: " + (name ? name : "CUresult") + " (" +
              std::to_string(result) + ")");
}

#define THEANO_CU(call, ...)                                                               \
  do {                                                                                     \
    if (!available_) throw Error("CUDA driver unavailable: " + reason_);                  \
    check(api_->call(__VA_ARGS__), #call);                                                 \
  } while (0)

int CudaDriver::compute_capability(int device) const {
  CUdevice dev = 0;
  int major = 0, minor = 0;
  THEANO_CU(cuDeviceGet, &dev, device);
  THEANO_CU(cuDeviceGetAttribute, &major, kAttrCcMajor, dev);
  THEANO_CU(cuDeviceGetAttribute, &minor, kAttrCcMinor, dev);
  return major * 10 + minor;
}

int CudaDriver::driver_version() const {
  int v = 0;
  THEANO_CU(cuDriverGetVersion, &v);
  return v;
}

std::size_t CudaDriver::total_memory(int device) const {
  CUdevice dev = 0;
  std::size_t bytes = 0;
  THEANO_CU(cuDeviceGet, &dev, device);
  THEANO_CU(cuDeviceTotalMem, &bytes, dev);
  return bytes;
}

void CudaDriver::make_current(int device) const {
  if (device < 0 || device >= device_count_)
    throw Error("CUDA device " + std::to_string(device) + " does not exist (the driver sees " +
                std::to_string(device_count_) + ")");
  CUcontext ctx = nullptr;
  {
    std::lock_guard<std::mutex> lock(api_->contexts_mutex);
    if (api_->contexts.empty()) api_->contexts.assign(static_cast<std::size_t>(device_count_), nullptr);
    CUcontext& slot = api_->contexts[static_cast<std::size_t>(device)];
    if (!slot) {
      CUdevice dev = 0;
      THEANO_CU(cuDeviceGet, &dev, device);
      THEANO_CU(cuDevicePrimaryCtxRetain, &slot, dev);
    }
    ctx = slot;
  }
  THEANO_CU(cuCtxSetCurrent, ctx);
}

void* CudaDriver::load_module(std::string_view image) const {
  std::string copy(image);  // PTX must be NUL-terminated
  CUmodule m = nullptr;
  THEANO_CU(cuModuleLoadData, &m, copy.c_str());
  return m;
}

void CudaDriver::unload_module(void* module) const { THEANO_CU(cuModuleUnload, module); }

void* CudaDriver::get_function(void* module, const char* name) const {
  CUfunction f = nullptr;
  THEANO_CU(cuModuleGetFunction, &f, module, name);
  return f;
}

CudaDriver::DevicePtr CudaDriver::alloc(std::size_t bytes) const {
  CUdeviceptr p = 0;
  THEANO_CU(cuMemAlloc, &p, bytes);
  return p;
}

void CudaDriver::free(DevicePtr p) const { THEANO_CU(cuMemFree, p); }

void CudaDriver::copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) const {
  THEANO_CU(cuMemcpyHtoD, dst, src, bytes);
}

void CudaDriver::copy_to_host(void* dst, DevicePtr src, std::size_t bytes) const {
  THEANO_CU(cuMemcpyDtoH, dst, src, bytes);
}

void CudaDriver::copy_on_device(DevicePtr dst, DevicePtr src, std::size_t bytes) const {
  THEANO_CU(cuMemcpyDtoD, dst, src, bytes);
}

void CudaDriver::synchronize() const { THEANO_CU(cuCtxSynchronize); }

void CudaDriver::launch(void* function, unsigned grid, unsigned block, void** args, unsigned shared_bytes,
                        bool synchronize) const {
  THEANO_CU(cuLaunchKernel, function, grid, 1, 1, block, 1, 1, shared_bytes, nullptr, args, nullptr);
  if (synchronize) THEANO_CU(cuCtxSynchronize);
}

#undef THEANO_CU

}  // namespace theano::codegen
