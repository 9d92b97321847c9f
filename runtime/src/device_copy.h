// Copies of arrays between the host and GPU devices, and on a device
// (internal to runtime/): what NDArray::copy and NDArray::to do for device
// arrays, through the registered DeviceMemory (device.h); and the byte span
// of an array's elements.
#pragma once

#include "theano/runtime/ndarray.h"

namespace theano::detail {

/// The byte offsets, relative to element [0,...,0], of the lowest byte and one
/// past the highest byte that non-empty `a`'s elements span (checked
/// arithmetic: ValueError past 2^63). NDArray::shares_buffer and the
/// downloads of strided views use it.
void byte_span(const NDArray& a, int64_t* lo, int64_t* hi);

/// A C-contiguous copy of `a` on `to` (either may be the host or a GPU).
/// A non-contiguous device array is read as the byte range its elements span
/// and compacted on the host (the back end has no strided copy outside a
/// compiled function's kernels).
NDArray copy_device_array(const NDArray& a, const Device& to);

}  // namespace theano::detail
