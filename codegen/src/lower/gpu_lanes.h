/// \file
/// Lane kernels on the GPU (internal to codegen/): the addressing shared by
/// every GPU op that works lane by lane (reductions, argmax, softmax), and
/// the other pieces the GPU lowerings share: checks done on the device and
/// reported by the host (emit_device_check), element downloads, kernel text
/// indentation.
///
/// A lane is the run of elements an op folds or normalizes: the input's
/// elements with the same "kept" coordinates, walked over the "reduced" axes
/// in C order. The host side (the node function) collects the kept and the
/// reduced extents and every walked array's byte strides, merges the
/// dimensions each array walks as one (a C-contiguous sum over the last axes
/// becomes one kept and one reduced dimension) and drops size-1 ones, then
/// packs a parameter block:
///
///     v[0] lanes   v[1] lane length   v[2] parts   v[3] chunk
///     v[4] kept rank after merging    v[5] reduced rank after merging
///     v[6 ..]      the kept extents (NK), then the reduced extents (NR)
///     per walked array a: its address, NK kept strides, NR reduced strides
///     then the op's extra values (output addresses, ...)
///
/// NK / NR are the node's kept / reduced axis counts (at least 1). The
/// kernels find a lane's first element by unravelling the lane number over
/// the kept extents and an element by its index over the reduced extents,
/// with a one-multiply path for a single merged dimension (the common case).
/// `parts` > 1 splits each lane into parts of `chunk` elements (a long lane
/// with few lanes: one block per part, then a second kernel combines the
/// parts in order), so a sum of 10^8 elements fills the GPU; parts and chunk
/// depend only on the shape, so results are the same bits on every call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lowering.h"

namespace theano::codegen::lower {

struct LaneLayout {
  int nk = 1;      ///< kept extents in the block (at least 1)
  int nr = 1;      ///< reduced extents in the block (at least 1)
  int arrays = 1;  ///< walked arrays
  /// Index in the parameter block of array a's address; its kept strides
  /// follow, then its reduced strides.
  std::int64_t array_base(int a) const { return 6 + nk + nr + static_cast<std::int64_t>(a) * (1 + nk + nr); }
  /// The first index after the walked arrays (the op's extra values).
  std::int64_t extra_base() const { return array_base(arrays); }
};

/// Emits into L.body the lane walk of input 0's axes: `kept` / `reduced`
/// (axes of input 0, each list in C order) over the arrays `walked` (C
/// expressions of `const TheanoArray*`, each with input 0's shape), merged;
/// declares `int64_t lanes, len, p[<np>]` with v[0..5], the extents and the
/// arrays filled in, and `int64_t kst0` / `rst0`: input 0's innermost merged
/// kept / reduced byte stride (to choose a kernel). `np` = extra_base() +
/// `extras`.
LaneLayout emit_lane_params(NodeLowering& L, const std::vector<int>& kept, const std::vector<int>& reduced,
                            const std::vector<std::string>& walked, int extras);

/// The host condition (after emit_lane_params) choosing one thread a lane
/// over one block a lane: short lanes (<= 32 elements), or many lanes whose
/// kept axis is input 0's innermost (neighbouring threads then read
/// neighbouring elements). Depends only on the shape and strides.
std::string lane_per_thread_condition();

/// Kernel code: declares `const char* b<a>` for every walked array, the
/// address of lane `lane`'s first element (`lane`: an int64 expression).
std::string lane_bases(const LaneLayout& l, const std::string& lane);
/// Kernel code: declares `const char* at<a>` for every walked array, the
/// address of element `e` of the lane whose bases lane_bases declared.
std::string lane_element(const LaneLayout& l, const std::string& e);

/// `code` with every non-empty line indented by `spaces` (kernel text built
/// from snippets).
std::string indent_code(const std::string& code, int spaces);

/// The support function theano_lanes_merge (host code), requested once.
void need_lanes_merge(NodeLowering& L);

/// A check done on the device, reported by the host as perform does. The
/// kernels record the smallest bad position (atomicMin) in a one-element
/// int64 GPU buffer `err` that a first kernel sets to p[0] (the count of
/// positions); after `launch` the host downloads it into `int64_t first_bad`
/// and, when first_bad < p[0], runs the statements `report` emits (they fail
/// the call).
/// `declare_p` declares `int64_t p[np]` with p[0] the count and p[err_at]
/// = (int64_t)err.data; `launch` launches the op's kernels.
void emit_device_check(NodeLowering& L, int np, int err_at, const std::string& declare_p, const std::string& launch,
                       const std::function<void(CodeWriter&)>& report);
/// emit_device_check whose report is perform's message about element `first_bad`
/// of input `li` (an integer vector on the GPU, downloaded):
/// "<label>: <head><value><tail>", error `code`.
void emit_device_checked(NodeLowering& L, int li, int np, int err_at, const std::string& declare_p,
                         const std::string& launch, const std::string& tail, ErrorCode code = kErrIndex,
                         const std::string& head = "label ");
/// Statements downloading one element of the GPU array `array` (a C
/// expression of `const TheanoArray*`) at byte offset `offset` into the
/// host variable `var` of C type `ctype` (declared here).
std::string download_element(const std::string& array, const std::string& offset, const std::string& ctype,
                             const std::string& var);

/// The DType whose C type is `c_type_name` (an accumulator's byte size for a
/// scratch buffer); InternalError when there is none.
DType dtype_of_c_type(const std::string& c_type_name);

}  // namespace theano::codegen::lower
