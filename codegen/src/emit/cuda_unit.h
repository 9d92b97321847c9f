/// \file
/// The CUDA translation unit of one compiled function (internal to codegen/).
///
/// Why one unit: the host side of a GPU function is the same generated C++
/// as on the CPU (node functions, the memory plan, the thunk ABI; docs/jit-and-cache.md,
/// "CUDA: NVRTC and the emulated device"): a GPU node's host function checks shapes by the shared rules,
/// allocates through ctx->gpu_alloc and launches its kernels through
/// ctx->gpu_launch by number. Those kernels are collected here into ONE CUDA
/// source, compiled by NVRTC for the device (cuda_cache.h), or by Clang for
/// the host-emulated device with the emulation shim in front of the very
/// same text and launch wrappers after it (theano/codegen/cuda_emulation.h).
///
/// Kernel ABI: `extern "C" __global__ void <name>(const theano_params_<P> p)`,
/// a struct of P int64 values passed by value (one kernel parameter; the
/// host packs it). Lowerings declare the values by name through ParamBlock
/// (kernel_builder.h), which writes both the packing and the reads.
/// Elementwise kernels (ElemwiseParams): n (elements), the output shape,
/// then per array (inputs, then outputs) its device address and nd byte
/// strides (0 where broadcast). Each thread walks the elements in a
/// grid-stride loop, so any grid covers any n.
#pragma once

#include <theano/codegen/code_writer.h>
#include <theano/gpu/ops.h>
#include <theano/runtime/dtype.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernel_builder.h"

namespace theano::codegen::lower {
struct ElemwiseExprs;
}

namespace theano::codegen::cuda {

/// The parameter block's size and limit: gpu::elemwise_kernel_params and
/// gpu::kMaxKernelParams (gpu/ops.h; the GPU transfer rewrite checks them).
using gpu::elemwise_kernel_params;
using gpu::kMaxKernelParams;

/// The threads of a block of a "blocks" kernel (CudaUnit::add_kernel): a
/// power of two, so a block's tree reduction halves it to one.
inline constexpr int kLaneBlock = 256;
/// The most blocks of a "blocks" launch; its kernels loop over the rest.
inline constexpr std::int64_t kMaxLaneGrid = 65535;

/// One kernel of the unit, for the host: its symbol and the node it belongs to.
struct KernelInfo {
  std::string name;
  std::string label;  // the node's label (errors name the node)
  std::int64_t nparams = 0;
  /// 0: an elementwise launch over n elements (GpuProgram::launch_shape;
  /// grid-stride loops). kLaneBlock: n is a count of work items, one per
  /// block, launched as min(n, kMaxLaneGrid) blocks of kLaneBlock threads
  /// (the kernel loops `for (item = blockIdx.x; item < n; item += gridDim.x)`).
  int block = 0;
  /// Whether the kernel uses __syncthreads (the emulation then runs its
  /// blocks' threads as fibers; other kernels run their threads in turn).
  bool barriers = false;
};

/// The parameter block of an elementwise kernel (gpu::elemwise_kernel_params
/// counts it): n, shape[nd], then per array its address and strides[nd].
/// The host values (for ParamBlock::declare) are given as functions: n, the
/// extent d, array j's address, array j's stride d; without them (the
/// kernel side) every value is 0.
struct ElemwiseParams {
  struct Host {
    std::string n;
    std::function<std::string(int)> shape;
    std::function<std::string(int)> data;
    std::function<std::string(int, int)> stride;
  };
  ElemwiseParams(int nd, int arrays, const Host& host = {});
  ParamBlock block;
  Param n, shape;
  std::vector<Param> data, strides;
};

class CudaUnit {
 public:
  /// Adds the two kernels of an elementwise node: strided (any strides,
  /// broadcast by stride 0) and contiguous (one flat index). `ex` is the
  /// node's scalar code (lower::elemwise_exprs); `in` / `out` its dtypes.
  /// Returns the strided kernel's number; the contiguous one is the next.
  int add_elemwise(const std::string& base, const std::string& label, int nd, const std::vector<DType>& in,
                   const std::vector<DType>& out, const lower::ElemwiseExprs& ex);

  /// Adds (once per dtype and rank) the strided kernels copying an array of
  /// `dtype` into another of the same shape, element by element: an
  /// elementwise identity (same parameter block; source strides may be 0 to
  /// broadcast). Returns the strided kernel's number.
  int add_copy(DType dtype, int nd);

  /// Adds a kernel written by a lowering (kernel_builder.h: its parameter
  /// block's struct is requested here), in namespace `ns` when not empty
  /// (the prelude's theano_f / theano_i helpers); `label` names the node in
  /// errors. `block`: KernelInfo::block. Returns its number for ctx->gpu_launch.
  int add_kernel(Kernel& kernel, const std::string& label, int block = 0, const std::string& ns = "");
  /// Support code (helper functions, structs) emitted once per `key`, before the kernels.
  void need(const std::string& key, const std::string& code);
  /// The parameter struct theano_params_<nparams>.
  void need_params(std::int64_t nparams);

  /// Asks NVRTC not to contract multiplies and adds into FMAs in this unit
  /// (--fmad=false): the random kernels then round as perform's (the
  /// emulation compiles them with clang's `fp contract(off)` pragma).
  void need_exact_fp() { exact_fp_ = true; }
  bool exact_fp() const { return exact_fp_; }

  /// The number of the kernel named `name`, or -1 (kernels shared by nodes).
  int find_kernel(const std::string& name) const;

  bool empty() const { return kernels_.empty(); }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  /// The whole CUDA source: prelude, support code, kernels.
  std::string source() const;

 private:
  std::vector<KernelInfo> kernels_;
  std::map<std::pair<DType, int>, int> copies_;  // (dtype, rank) -> add_copy's kernel
  std::set<std::string> support_keys_;
  bool exact_fp_ = false;
  CodeWriter support_;
  CodeWriter kernels_code_;
};

}  // namespace theano::codegen::cuda
