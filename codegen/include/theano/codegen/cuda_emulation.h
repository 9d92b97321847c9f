/// \file
/// The host-emulated CUDA device: CUDA kernel source compiled for the CPU by
/// the in-process Clang and run block by block, thread by thread.
///
/// Why: most machines here have no GPU, yet the generated CUDA kernels must
/// be tested; the emulation runs the very text NVRTC compiles (the kernels
/// themselves, never a perform fallback), behind a small shim:
/// * `__global__`, `__device__`, `__forceinline__` are plain C++;
///   `threadIdx`, `blockIdx`, `blockDim`, `gridDim` are module globals set by
///   launch wrappers generated here (`theano_emu_<kernel>`), so launches of
///   one module are serialized (EmulatedKernels::launch holds a mutex);
/// * `__syncthreads()` is a barrier between phases: in a kernel that uses it,
///   the threads of a block run as cooperative fibers (ucontext), each
///   running until its next barrier, round after round; in the others the
///   threads of a block simply run one after the other;
/// * `__shared__` variables are `static` (blocks run one at a time, so all
///   fibers of a block share them); `atomicAdd`, `atomicMax`, `atomicMin`,
///   `atomicExch` and `atomicCAS` are plain read-modify-writes (fibers switch
///   only at barriers, so they are atomic);
/// * libm functions are declared (NVRTC provides them without includes).
/// Kernel ABI (emit/cuda_unit.h): `extern "C" __global__ void <name>(const
/// theano_params_<P> p)`, one struct of P int64 values defined by the source.
#pragma once

#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace theano::cache {
class CompileCache;
}

namespace theano::codegen {

/// The shim put in front of a CUDA source to compile it for the CPU.
std::string_view emulation_shim();

/// One kernel of an emulated module: its name, parameter count and whether
/// it uses __syncthreads (its blocks then run as fibers).
struct EmulatedKernelInfo {
  std::string name;
  std::int64_t nparams = 0;
  bool barriers = false;
};

/// A CUDA source compiled for the emulated device, loaded and launchable.
class EmulatedKernels {
 public:
  /// Compiles shim + `source` + the launch wrappers of `kernels` with `copts`
  /// (through `cache` when given: a CPU entry of kind "cuda emulated (host
  /// object)", with `origin`), and loads it. CompileError when the source does
  /// not compile for the emulation (e.g. a CUDA feature the shim lacks).
  EmulatedKernels(std::string_view source, std::vector<EmulatedKernelInfo> kernels, const CompileOptions& copts,
                  cache::CompileCache* cache, const std::string& origin);
  ~EmulatedKernels();
  EmulatedKernels(const EmulatedKernels&) = delete;
  EmulatedKernels& operator=(const EmulatedKernels&) = delete;

  /// Runs kernel number `kernel` on a grid of `grid` blocks of `block`
  /// threads; `params` holds its nparams values. Thread-safe (serialized).
  void launch(std::size_t kernel, unsigned grid, unsigned block, const std::int64_t* params) const;

  /// Whether a kernel uses __syncthreads (its blocks then run as fibers).
  bool barriers() const { return barriers_; }
  bool cache_hit() const { return cache_hit_; }
  const std::string& cache_state() const { return cache_state_; }  // "hit", "miss", "off"
  double compile_ms() const { return compile_ms_; }

 private:
  struct Host;
  std::vector<EmulatedKernelInfo> kernels_;
  bool barriers_ = false;
  bool cache_hit_ = false;
  std::string cache_state_;
  double compile_ms_ = 0;
  LoadedModule module_;
  std::vector<void*> wrappers_;
  std::unique_ptr<Host> host_;
  mutable std::mutex mutex_;
};

}  // namespace theano::codegen
