/// \file
/// The indexing ops' shared code (emit/lower/subtensor.cpp), used by their CPU
/// lowerings and their GPU ones (emit/lower/gpu_subtensor.cpp): the view of a
/// basic index, the value's broadcast check and strides, and the update.
#pragma once

#include <functional>
#include <string>

#include "lowering.h"

namespace theano::tensor {
struct IdxEntry;
}

namespace theano::codegen::lower {

/// Emits code computing the view `src[idx]` as `char* <p>` with shape and
/// strides in `int64_t <p>_shape[]`, `<p>_strides[]` (at least one element
/// each), by the rules perform runs (shape_rules.h). Metadata only: `src`
/// may be a GPU array. Symbolic bounds are node inputs sym0, sym0 + 1, ... in
/// idx_list order (host scalars). Returns the view's ndim.
int emit_index(NodeLowering& L, const std::vector<tensor::IdxEntry>& idx, int xnd, const std::string& src, int sym0,
               const std::string& p);
/// ShapeError unless y (input 1) broadcasts to the shape `target(j)`
/// (right-aligned; only a dimension whose type says 1 broadcasts), by the rule
/// perform applies (theano_broadcast_to_rule).
void emit_value_check(NodeLowering& L, int tnd, const std::function<std::string(int)>& target);
/// Declares `ys<j>`: the byte stride of y (input 1) along dimension j of the
/// `tnd`-d target it broadcasts to (0 for missing and size-1 dimensions).
void emit_value_strides(NodeLowering& L, int tnd);
/// The new value of an element of x (dtype xd, value `old`) updated by y
/// (value `y`, any dtype): y converted to xd first (perform's astype), then
/// set or added in xd (bool: or).
std::string update_expr(DType xd, bool set, const std::string& old, const std::string& y);
/// AdvancedSubtensor1's output: declares n (x's rows), k (indices) and row
/// (elements a row), sets o0's shape (k, x.shape[1:]) and allocates it.
void emit_gather_output(NodeLowering& L);
/// The tail of AdvancedSubtensor1's / AdvancedIncSubtensor1's index error:
/// "index <i>" + this.
std::string index_error_text();

}  // namespace theano::codegen::lower
