/// \file
/// Contiguous scratch copies of the operands generated code hands a loop
/// that needs another layout (docs/jit-and-cache.md, "Loop variants"),
/// compiled once into this library and reached through
/// TheanoContext::kernels: a unit compiles one call instead of an
/// allocation, a copy and a check per operand.
#pragma once

#include "../thunk_abi.h"

namespace theano::codegen::detail {

/// `tmp` <- a C-contiguous copy of `src` (elements of `item` bytes) in memory
/// from the context's allocator, alive for the call: 0, or 1 when the
/// allocation failed.
int theano_scratch_copy(TheanoContext* c, TheanoArray* tmp, const TheanoArray* src, int64_t item);

/// For each of the `n` arrays in[i] outside the layout modes[i] asks (0: any;
/// 1: C-contiguous, size-1 dimensions ignored; 2: the last dimension's
/// elements adjacent), a theano_scratch_copy into tmp[i], and in[i] pointed
/// at it. 0, or i + 1 for the first array whose copy could not be allocated.
int theano_scratch_inputs(TheanoContext* c, const TheanoArray** in, TheanoArray* tmp, int n,
                          const unsigned char* modes, const int64_t* items);

}  // namespace theano::codegen::detail
