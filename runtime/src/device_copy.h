// Copies of arrays between the host and GPU devices, and on a device
// (internal to runtime/): what NDArray::copy and NDArray::to do for device
// arrays, through the registered DeviceMemory (device.h).
#pragma once

#include "theano/runtime/ndarray.h"

namespace theano::detail {

/// A C-contiguous copy of `a` on `to` (either may be the host or a GPU).
/// A non-contiguous device array is read as the byte range its elements span
/// and compacted on the host (the back end has no strided copy outside a
/// compiled function's kernels).
NDArray copy_device_array(const NDArray& a, const Device& to);

}  // namespace theano::detail
