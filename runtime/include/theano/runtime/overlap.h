/// \file
/// Whether an array's own elements overlap in memory.
///
/// Why: in-place code (a mutable input, a shared variable updated in place)
/// writes each element once through its index; an array whose distinct
/// indices reach the same bytes (a broadcast view, a DLPack import with
/// stride 0, strides that fold the array onto itself) would see its writes
/// feed back into later reads. Callers copy such an array first.
#pragma once

#include "theano/runtime/ndarray.h"

namespace theano {

/// True when two distinct indices of `a` may reach overlapping bytes: a
/// stride 0 on an axis longer than 1, or strides that fold the array onto
/// itself. Conservative: false only when the strides prove every element
/// distinct (sorted by |stride|, each stride steps past all the smaller axes
/// span). A C-contiguous array costs one is_c_contiguous() and no allocation.
bool elements_may_overlap(const NDArray& a);

}  // namespace theano
