/// \file
/// The structured CUDA kernel builder (internal to codegen/): a kernel's
/// parameter block declared once, by name and C type, and kernels written
/// through CodeWriter against it.
///
/// Why: a kernel takes one by-value struct of int64 slots (cuda_unit.h,
/// "Kernel ABI") that the node's host function packs and the kernel reads.
/// Written by hand, each slot number appears twice (the host's `p[7] = ...`,
/// the kernel's `p.v[7]`) and the two drift apart silently. Here a parameter
/// is declared once (`int64`, `real` for a double passed as its bits,
/// `pointer`, `array` of int64 values) with the host expression that fills
/// it; ParamBlock writes both the host packing (declare) and the kernel-side
/// reads (named locals, or at() for an array element), so lowering code never
/// names a slot. Several kernels of a node share one block (they are launched
/// with the same `p`).
///
/// The shared kernel shapes are written here once: the grid-stride loop
/// (grid_stride_loop) and the __syncthreads tree reduction of a block
/// (block_tree_reduce).
#pragma once

#include <theano/codegen/code_writer.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace theano::codegen::cuda {

/// A parameter of a ParamBlock (its index there).
struct Param {
  int index = -1;
};

class ParamBlock {
 public:
  /// int64: the kernel reads `const int64_t <name> = ...;`; the host stores `host`.
  Param int64(const std::string& name, const std::string& host);
  /// A double passed as its bits: `const double <name> = theano_bits_double(...)`;
  /// `host` is a double expression.
  Param real(const std::string& name, const std::string& host);
  /// A device address: `<ptr_type> <name> = (<ptr_type>)...;` (ptr_type e.g.
  /// "const char*", "float*"); `host` is an address expression.
  Param pointer(const std::string& name, const std::string& ptr_type, const std::string& host);
  /// `count` int64 values; the host stores `host(i)` into element i. The
  /// kernel reads element `index` as at(a, index).
  Param array(const std::string& name, int count, const std::function<std::string(int)>& host);
  /// The same, filled by a host loop `for (int64_t d = 0; d < count; ++d) ... = <host_of_d>;`.
  Param array_loop(const std::string& name, int count, const std::string& host_of_d);

  std::int64_t size() const { return next_; }
  /// The parameter struct's name, theano_params_<size> (CudaUnit::need_params).
  std::string struct_name() const;

  // ---- host side (the node function): the block is the array `p`.
  /// Declares `int64_t p[size]` and stores every parameter's host value.
  void declare(CodeWriter& w) const;
  /// The host statement storing `expr` into parameter `a` (element `i` of an array).
  std::string set(Param a, const std::string& expr, int i = 0) const;
  /// The host lvalue of parameter `a` (element `i` of an array).
  std::string host(Param a, int i = 0) const;
  /// The host expression launching kernel number `kernel` over `count` work
  /// items (threads, or blocks: KernelInfo::block) with this block.
  std::string launch(int kernel, const std::string& count) const;

  // ---- kernel side: the block is the argument `p`.
  /// The name of `a` (the kernel local that read() declares).
  const std::string& name(Param a) const;
  /// The kernel statement declaring `a`'s local (not for arrays).
  std::string read(Param a) const;
  /// The kernel expression of the int64 parameter `a` (where no local is declared).
  std::string value(Param a) const;
  /// The kernel expression of element `index` (a C int64 expression) of array `a`.
  std::string at(Param a, const std::string& index) const;
  std::string at(Param a, int index) const;

 private:
  enum class Kind { Int64, Real, Pointer, Array };
  struct Entry {
    Kind kind;
    std::string name, type;
    std::int64_t slot = 0;
    int count = 1;
    std::vector<std::string> host;  // per element, or one loop expression of d
    bool loop = false;
  };
  Param add(Entry e);
  const Entry& entry(Param a) const;
  std::vector<Entry> entries_;
  std::int64_t next_ = 0;
};

/// One kernel: `extern "C" __global__ void <name>(const theano_params_<N> p)`
/// with the locals of `reads` declared first; the body goes to `w`.
class Kernel {
 public:
  Kernel(const ParamBlock& params, std::string name, const std::vector<Param>& reads = {});
  const std::string& name() const { return name_; }
  const ParamBlock& params() const { return params_; }
  CodeWriter w;
  /// The kernel's text (closes the function).
  std::string text();

 private:
  const ParamBlock& params_;
  std::string name_;
};

/// Opens `for (int64_t <var> = <global thread index>; <var> < <count>; <var> += step)`
/// after declaring `step` (the grid's thread count): every thread walks the
/// items it owns, so any grid covers any count. Close it with w.close().
void grid_stride_loop(CodeWriter& w, const std::string& var, const std::string& count);

/// Opens `for (int64_t <var> = blockIdx.x; <var> < <count>; <var> += gridDim.x)`:
/// one work item a block (a "blocks" kernel, KernelInfo::block), the grid's
/// blocks walking the rest. Close it with w.close().
void block_stride_loop(CodeWriter& w, const std::string& var, const std::string& count);

/// The tree reduction of a block of threads (kLaneBlock, a power of two):
/// thread `t` stores `value` into the shared array `sh` (one slot a thread),
/// then halvings combine them: sh[t] = combine("sh[t]", "sh[t + w]") for the
/// lower half, a barrier after each; sh[0] then holds the block's result.
void block_tree_reduce(CodeWriter& w, const std::string& value,
                       const std::function<std::string(const std::string&, const std::string&)>& combine);

}  // namespace theano::codegen::cuda
