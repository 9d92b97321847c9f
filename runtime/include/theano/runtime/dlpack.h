/// \file
/// Zero-copy exchange with other array libraries through DLPack (dlpack/dlpack.h,
/// DLPack 0.6 ABI: DLManagedTensor).
///
/// Why: users hand us PyTorch/JAX/numpy buffers and take results back without copies.
///
/// Ownership: `to_dlpack` returns a tensor whose deleter drops one reference to the
/// NDArray's buffer (call it exactly once). `from_dlpack` always takes ownership, even
/// when it throws: the producer's deleter runs exactly once, when the last NDArray view
/// dies (or immediately on error).
///
/// Bool: exported as type code 6 / 8 bits (kDLBool, DLPack >= 0.8; 0.6 has no bool
/// code). On import code 6 / 8 bits is Bool; kDLUInt / 8 bits is always UInt8 (it
/// cannot be told apart from bool). Lanes must be 1; NULL strides mean compact C order.
///
/// Devices: host arrays travel as kDLCPU, CUDA arrays as kDLCUDA with their
/// device number (GPU values stay on the GPU: no copy either way). Export of a
/// device array first waits for the device's queued work (device.h), so a
/// consumer on any stream reads finished values. Import takes kDLCPU and
/// kDLCUDAHost (pinned host memory) as host arrays and kDLCUDA as device
/// arrays on cuda<device_id>. The emulated GPU's arrays travel as kDLExtDev,
/// which is read back only from theano-cpp's own exports. Anything else is a
/// ValueError.
#pragma once

#include <dlpack/dlpack.h>

#include "theano/runtime/ndarray.h"

namespace theano {

/// kDLBool of DLPack >= 0.8 (not in the 0.6 header Debian ships).
inline constexpr uint8_t kDLPackBoolCode = 6;

DLManagedTensor* to_dlpack(const NDArray& a);
NDArray from_dlpack(DLManagedTensor* tensor);

/// DLPack data type of a DType, and back (ValueError for types we do not have).
DLDataType to_dlpack_dtype(DType dtype);
DType from_dlpack_dtype(DLDataType type);

}  // namespace theano
