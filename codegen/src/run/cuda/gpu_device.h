/// \file
/// The GPU side of compiled functions at run time (internal to codegen/): one
/// GpuDevice per GPU context of the process, and the GpuProgram of each
/// function (its CUDA translation unit, compiled, cached and loaded).
///
/// Two kinds of device stand behind one interface:
/// * "cuda0": the CUDA driver (dlopened, cuda_driver.h). Memory from
///   cuMemAlloc through the caching allocator (device_allocator.h: no
///   cuMemAlloc per call), copies by cuMemcpy, kernels from the CUBIN NVRTC
///   compiled for the device's exact architecture, or PTX for a device newer
///   than NVRTC (cuda_cache.h: cached in the compiledir).
/// * "emulated": host memory through the same caching allocator, kernels
///   compiled by the in-process Clang from the same CUDA source behind the
///   emulation shim (theano/codegen/cuda_emulation.h), cached as CPU objects,
///   and run block by block, thread by thread.
/// "cuda<N>" is the driver's device N, each in its primary context.
/// A GpuDevice is the runtime's DeviceMemory of its device (runtime/device.h):
/// device arrays users hold (shared variables, function results, DLPack)
/// live in the same caching allocator as the compiled functions' memory.
#pragma once

#include <theano/codegen/clang_compiler.h>
#include <theano/runtime/device.h>
#include <theano/runtime/device_allocator.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../../emit/cuda_unit.h"

namespace theano::codegen::cuda {

class GpuDevice final : public DeviceMemory {
 public:
  /// The device of `context` ("cuda0", "emulated"), created on first use
  /// (THEANO_FLAGS gpu_preallocate=<fraction> reserves that much memory
  /// then); ValueError naming why when it cannot be used.
  static GpuDevice& get(const std::string& context);
  /// Why `context` cannot be used ("" when it can): the probe behind
  /// THEANO_FLAGS device (gpu/context.h).
  static std::string unusable_reason(const std::string& context);
  /// The device of `context` when this process opened it, else nullptr.
  static GpuDevice* find(const std::string& context);

  const std::string& context() const { return context_; }
  bool emulated() const { return emulated_; }
  /// The driver's device number (-1 for the emulated device).
  int index() const { return index_; }
  /// major*10+minor of the device (0 for the emulated device).
  int compute_capability() const { return cc_; }

  /// The runtime Device this context is.
  Device device() const;

  // DeviceMemory (runtime/device.h). allocate: a block of at least `bytes`
  // bytes from the caching allocator (the stored pointer is the device
  // address; the deleter gives it back to the pool).
  std::shared_ptr<void> allocate(std::size_t bytes) override;
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override;
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override;
  void synchronize() override;
  /// C (m x n, ldc) <- alpha op(A) op(B) + beta C with row-major CBLAS
  /// semantics (cblas_?gemm(CblasRowMajor, ...)) on arrays of this device,
  /// float32 or float64: cuBLAS (cublas.h) on a GPU, OpenBLAS on the
  /// emulated device's host memory (the BLAS ops' emulation path).
  void gemm(DType dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
            const void* a, std::int64_t lda, const void* b, std::int64_t ldb, double beta, void* c, std::int64_t ldc);
  /// `batch` gemms as gemm's, item i at a + i * stride_a, b + i * stride_b,
  /// c + i * stride_c (elements; 0 repeats an operand): cuBLAS's
  /// ?gemmStridedBatched on a GPU, a loop of gemm on the emulated device.
  void gemm_batched(DType dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                    double alpha, const void* a, std::int64_t lda, std::int64_t stride_a, const void* b,
                    std::int64_t ldb, std::int64_t stride_b, double beta, void* c, std::int64_t ldc,
                    std::int64_t stride_c, std::int64_t batch);
  /// One routine of the linear algebra ops' GPU forms (thunk_abi.h,
  /// TheanoContext::gpu_lapack: THEANO_GPU_LA_*, column-major) on arrays of
  /// this device: cuSOLVER / cuBLAS on a GPU (cusolver.h; its workspace from
  /// this device's allocator, its info left in device memory), the LAPACK
  /// routines the CPU form calls on the emulated device (gpu_lapack.cpp).
  void lapack(int routine, DType dtype, std::int64_t flags, std::int64_t n, std::int64_t nrhs, void* a,
              std::int64_t lda, void* b, std::int64_t ldb, void* ipiv, void* info);
  DeviceAllocatorStats memory_stats() const { return allocator_->stats(); }
  std::size_t release_cached() { return allocator_->release_cached(); }

 private:
  explicit GpuDevice(std::string context);
  std::string context_;
  bool emulated_ = false;
  int index_ = 0;
  int cc_ = 0;
  std::unique_ptr<DeviceAllocator> allocator_;
};

/// What compiling a program cost and where it came from.
struct GpuProgramStats {
  std::string image;      // "cubin sm_90", "ptx compute_90" or "emulated (host object)"
  std::string cache;      // "hit", "miss" or "off"
  double compile_ms = 0;  // NVRTC or Clang time (the recorded time on a hit)
};

/// The kernels of one function's CUDA unit, loaded on one device.
class GpuProgram {
 public:
  /// Compiles `unit` for `device` (cached in the current compiledir), loads it.
  /// `copts`: the CPU compile options (the emulated device compiles with them).
  GpuProgram(GpuDevice& device, const CudaUnit& unit, const CompileOptions& copts, const std::string& origin);
  ~GpuProgram();
  GpuProgram(const GpuProgram&) = delete;
  GpuProgram& operator=(const GpuProgram&) = delete;

  GpuDevice& device() const { return device_; }
  const GpuProgramStats& stats() const { return stats_; }
  const std::string& source() const { return source_; }
  /// Runs kernel `kernel` over `n` elements with its parameter block.
  /// Throws Error naming the kernel's node on a bad kernel number, a wrong
  /// parameter count or a failed launch.
  void launch(std::int64_t kernel, std::int64_t n, const std::int64_t* params, std::int64_t nparams) const;
  /// The (block, grid) of a launch over n elements: 256 threads a block, at
  /// most 1024 blocks (threads then loop: the kernels are grid-stride loops).
  static std::pair<unsigned, unsigned> launch_shape(std::int64_t n);

 private:
  struct Loaded;
  GpuDevice& device_;
  std::vector<KernelInfo> kernels_;
  std::string source_;
  GpuProgramStats stats_;
  std::unique_ptr<Loaded> loaded_;
};

}  // namespace theano::codegen::cuda
