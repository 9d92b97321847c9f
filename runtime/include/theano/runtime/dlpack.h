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
/// cannot be told apart from bool). Only CPU tensors (kDLCPU) with lanes == 1 are
/// accepted (ValueError otherwise); NULL strides mean compact C order.
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
