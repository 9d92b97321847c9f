/// \file
/// What one call of a generated-code thunk works in (c_thunk.cpp): the
/// per-call Workspace the host callbacks reach through TheanoContext::host,
/// and the conversions between NDArrays and the thunk ABI's TheanoArrays.
#pragma once

#include <theano/runtime/ndarray.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "../thunk_abi.h"

namespace theano {
class Apply;
}

namespace theano::codegen::cuda {
class GpuProgram;
}

namespace theano::codegen::detail {

/// `a` described to generated code, as array `owner` of the call, in `d`
/// (whose entries past a's ndim, never read, keep what they held: a call
/// describes each input in place instead of copying 288 bytes).
inline void describe_into(TheanoArray& d, const NDArray& a, std::int64_t owner) {
  d.data = static_cast<char*>(a.address());  // a device address for a GPU array
  d.ndim = a.ndim();
  d.dtype = static_cast<std::int64_t>(a.dtype());
  d.owner = owner;
  for (int i = 0; i < a.ndim(); ++i) {
    d.shape[i] = a.shape()[static_cast<std::size_t>(i)];
    d.strides[i] = a.strides()[static_cast<std::size_t>(i)];
  }
}

/// `a` described to generated code, as array `owner` of the call.
inline TheanoArray describe(const NDArray& a, std::int64_t owner) {
  TheanoArray d{};
  describe_into(d, a, owner);
  return d;
}

/// What one call needs besides the inputs: the planned slot buffers (kept
/// between calls), the table of arrays the generated code refers to by
/// `owner`, and the descriptor arrays. A thunk keeps a few of these in a pool,
/// so concurrent calls (of copies of a Function) never share one.
struct Workspace {
  std::vector<std::shared_ptr<std::byte[]>> slot_buffers;
  std::vector<std::size_t> slot_bytes;
  // Arrays by `owner` index: inputs and constants (not copied: pointers to the
  // caller's arrays), then the arrays allocated during the call.
  std::vector<const NDArray*> refs;
  std::vector<NDArray> allocs;
  std::vector<NDArray> input_copies;  // protected inputs an op overwrites
  std::size_t peak_allocs = 0;  // the most arrays `allocs` held at once during the call
  std::int64_t next_owner() const { return static_cast<std::int64_t>(refs.size() + allocs.size()); }
  void note_peak() { peak_allocs = std::max(peak_allocs, allocs.size()); }
  const NDArray& owner_array(std::int64_t owner) const {
    const auto o = static_cast<std::size_t>(owner);
    return o < refs.size() ? *refs[o] : allocs[o - refs.size()];
  }
  void clear() {
    note_peak();
    refs.clear();
    allocs.clear();
    input_copies.clear();
  }
  std::vector<TheanoArray> in_desc, out_desc;
  std::vector<TheanoArray> vars;                        // OpWise: node outputs
  const std::vector<const Apply*>* fallback = nullptr;  // the thunk's perform-fallback nodes
  std::exception_ptr host_error;                        // what a fallback perform or a GPU callback threw
  const cuda::GpuProgram* gpu = nullptr;                // the function's kernels (GPU functions)
  std::vector<std::shared_ptr<void>> gpu_slot_blocks;   // planned slots of GPU intermediates
  std::vector<std::size_t> gpu_slot_bytes;
};

/// Whether generated-code array `a` is all of NDArray `base` (same address, dtype, shape and strides).
inline bool is_whole(const NDArray& base, const TheanoArray& a) {
  const auto nd = static_cast<std::size_t>(a.ndim);
  return a.data == static_cast<const char*>(base.address()) && static_cast<DType>(a.dtype) == base.dtype() &&
         std::equal(a.shape, a.shape + nd, base.shape().begin(), base.shape().end()) &&
         std::equal(a.strides, a.strides + nd, base.strides().begin(), base.strides().end());
}

/// The NDArray a generated-code array stands for (a view into its owner's buffer).
inline NDArray as_ndarray(const Workspace& ws, const TheanoArray& a) {
  THEANO_INTERNAL_CHECK(a.owner >= 0 && a.owner < ws.next_owner()) << "generated code passed an array with no owner";
  const NDArray& base = ws.owner_array(a.owner);
  const auto nd = static_cast<std::size_t>(a.ndim);
  if (is_whole(base, a)) return base;
  return NDArray::from_strided(base.owner(), a.data, static_cast<DType>(a.dtype),
                               std::vector<std::int64_t>(a.shape, a.shape + nd),
                               std::vector<std::int64_t>(a.strides, a.strides + nd), base.device());
}

}  // namespace theano::codegen::detail
