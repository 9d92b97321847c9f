/// \file
/// A minimal CUDA driver API, opened with dlopen("libcuda.so.1") and never linked:
/// enough to load NVRTC output (CUBIN or PTX) into a device's primary context,
/// move buffers and launch a kernel.
///
/// Why dlopen: a binary linked against libcuda fails to start on machines without
/// the NVIDIA driver; theano-cpp must run everywhere and use a GPU only when one is
/// there (docs/jit-and-cache.md, "CUDA: NVRTC and the emulated device"). The toolkit's stub libcuda (cuInit returns 34,
/// CUDA_ERROR_STUB_LIBRARY) counts as "no driver".
///
/// Users: the GPU devices of compiled functions (codegen/src/run/cuda/gpu_device.cpp),
/// NVRTC's GPU probe (nvrtc_compiler.cpp) and the GPU execution tests.
#pragma once

#include <theano/runtime/error.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace theano::codegen {

/// The dlopen'ed CUDA driver of the process. All functions except `instance()`,
/// `available()` and `unavailable_reason()` throw Error when unavailable or when a
/// driver call fails (the message names the call and the CUresult name).
class CudaDriver {
 public:
  using DevicePtr = std::uint64_t;

  /// Opens the driver on first use (dlopen, cuInit(0), cuDeviceGetCount); never closed.
  static CudaDriver& instance();

  /// True when libcuda.so.1 opened, cuInit succeeded and there is at least one device.
  bool available() const noexcept { return available_; }
  /// Why not available ("" when available).
  const std::string& unavailable_reason() const noexcept { return reason_; }
  int device_count() const noexcept { return device_count_; }

  /// Compute capability of `device` as major*10+minor (e.g. 90 for sm_90).
  int compute_capability(int device = 0) const;
  /// The CUDA version the driver supports, e.g. 13000 for 13.0 (cuDriverGetVersion).
  int driver_version() const;
  /// Bytes of memory on `device`.
  std::size_t total_memory(int device = 0) const;
  /// Makes `device`'s primary context (retained on first use) current on the
  /// calling thread; what follows (alloc, copies, modules, launches) uses it.
  void make_current(int device = 0) const;

  /// Loads a CUBIN or PTX image; returns the module handle.
  void* load_module(std::string_view image) const;
  void unload_module(void* module) const;
  void* get_function(void* module, const char* name) const;

  DevicePtr alloc(std::size_t bytes) const;
  void free(DevicePtr p) const;
  void copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) const;
  void copy_to_host(void* dst, DevicePtr src, std::size_t bytes) const;
  /// cuMemcpyDtoD: ordered after earlier work on the default stream.
  void copy_on_device(DevicePtr dst, DevicePtr src, std::size_t bytes) const;
  /// cuCtxSynchronize of the current context.
  void synchronize() const;
  /// cuLaunchKernel with a 1-D grid and block on the default stream, then
  /// (with `synchronize`) cuCtxSynchronize. Without it the launch is
  /// asynchronous: later copies and launches on the default stream are
  /// ordered after it, and a fault surfaces at the next synchronizing call.
  void launch(void* function, unsigned grid, unsigned block, void** args, unsigned shared_bytes = 0,
              bool synchronize = true) const;

  struct Api;

 private:
  CudaDriver();
  void check(int result, const char* call) const;

  std::unique_ptr<Api> api_;
  bool available_ = false;
  int device_count_ = 0;
  std::string reason_;
};

}  // namespace theano::codegen
