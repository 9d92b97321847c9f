/// \file
/// Lane kernels on the GPU (internal to codegen/): the addressing shared by
/// every GPU op that works lane by lane (reductions, argmax, softmax), and
/// the other pieces the GPU lowerings share: checks done on the device and
/// reported by the host (emit_device_check), element downloads.
///
/// A lane is the run of elements an op folds or normalizes: the input's
/// elements with the same "kept" coordinates, walked over the "reduced" axes
/// in C order. The host side (the node function) collects the kept and the
/// reduced extents and every walked array's byte strides, merges the
/// dimensions each array walks as one (a C-contiguous sum over the last axes
/// becomes one kept and one reduced dimension) and drops size-1 ones, then
/// fills the lane parameters of the kernels' parameter block (LaneLayout):
/// the lane count and length, parts and chunk, the merged kept and reduced
/// ranks, the kept extents (NK), the reduced extents (NR), and per walked
/// array its address, NK kept strides and NR reduced strides; the op adds
/// its own values (output addresses, ...) after them.
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

#include "../kernel_builder.h"
#include "lowering.h"

namespace theano::codegen::lower {

/// The lane parameters of a lane kernel's parameter block (see above).
struct LaneLayout {
  int nk = 1;      ///< kept extents in the block (at least 1)
  int nr = 1;      ///< reduced extents in the block (at least 1)
  int arrays = 1;  ///< walked arrays
  cuda::ParamBlock params;  ///< the lane parameters, then the op's own
  cuda::Param lanes, len, parts, chunk;
  cuda::Param kept_rank, reduced_rank;  ///< after merging
  cuda::Param kept, reduced;            ///< the extents
  std::vector<cuda::Param> base, kept_strides, reduced_strides;  ///< per walked array
};

/// Emits into L.body the lane walk of input 0's axes: `kept` / `reduced`
/// (axes of input 0, each list in C order) over the arrays `walked` (C
/// expressions of `const TheanoArray*`, each with input 0's shape), merged;
/// declares `int64_t lanes, len` and `int64_t kst0` / `rst0`: input 0's
/// innermost merged kept / reduced byte stride (to choose a kernel). Returns
/// the layout whose parameters hold them; the op adds its own to
/// LaneLayout::params, then declares the block (ParamBlock::declare).
LaneLayout emit_lane_params(NodeLowering& L, const std::vector<int>& kept, const std::vector<int>& reduced,
                            const std::vector<std::string>& walked);

/// For an op mapping input 0 to an output of its shape lane by lane along
/// `axis` (softmax, CumOp): copies the shape, allocates output 0 on the GPU
/// and lays out the lanes, one per position of the other axes, walking x0
/// and o0 (emit_lane_params). `out_len` >= 0: the output's length along the
/// axis instead of the input's (a line of another length, the same lanes).
LaneLayout emit_axis_lanes(NodeLowering& L, int axis, std::int64_t out_len = -1);

/// The host condition (after emit_lane_params) choosing one thread a lane
/// over one block a lane: short lanes (<= 32 elements), or many lanes whose
/// kept axis is input 0's innermost (neighbouring threads then read
/// neighbouring elements). Depends only on the shape and strides.
std::string lane_per_thread_condition();

/// Kernel code: declares `const char* b<a>` for every walked array, the
/// address of lane `lane`'s first element (`lane`: an int64 expression).
void lane_bases(CodeWriter& w, const LaneLayout& l, const std::string& lane);
/// Kernel code: declares `const char* at<a>` for every walked array, the
/// address of element `e` of the lane whose bases lane_bases declared.
void lane_element(CodeWriter& w, const LaneLayout& l, const std::string& e);

/// The support function theano_lanes_merge (host code), requested once.
void need_lanes_merge(NodeLowering& L);

/// A check done on the device, reported by the host as perform does. The
/// kernels record the smallest bad position (atomicMin) in a one-element
/// int64 GPU buffer `err` (the pointer parameter `err_at` of `params`, whose
/// host value must be `err.data`) that a first kernel sets to the count of
/// positions (parameter `count`); after `launch` (statements launching the
/// op's kernels with `p`) the host downloads it into `int64_t first_bad` and,
/// when first_bad < the count, runs the statements `report` emits (they fail
/// the call). The block `p` is declared here, after `err`.
void emit_device_check(NodeLowering& L, const cuda::ParamBlock& params, cuda::Param count, cuda::Param err_at,
                       const std::function<void(CodeWriter&)>& launch,
                       const std::function<void(CodeWriter&)>& report);
/// emit_device_check whose report is perform's message about element `first_bad`
/// of input `li` (an integer vector on the GPU, downloaded):
/// "<label>: <head><value><tail>", error `code`.
void emit_device_checked(NodeLowering& L, int li, const cuda::ParamBlock& params, cuda::Param count,
                         cuda::Param err_at, const std::function<void(CodeWriter&)>& launch, const std::string& tail,
                         ErrorCode code = kErrIndex, const std::string& head = "label ");
/// Statements downloading one element of the GPU array `array` (a C
/// expression of `const TheanoArray*`) at byte offset `offset` into the
/// host variable `var` of C type `ctype` (declared here).
void download_element(CodeWriter& w, const std::string& array, const std::string& offset, const std::string& ctype,
                             const std::string& var);

/// The DType whose C type is `c_type_name` (an accumulator's byte size for a
/// scratch buffer); InternalError when there is none.
DType dtype_of_c_type(const std::string& c_type_name);

}  // namespace theano::codegen::lower
