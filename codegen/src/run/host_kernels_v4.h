/// \file
/// sort.h's line kernels and conv.h's convolution kernels compiled a second
/// time, for x86-64-v4 (AVX-512 F, BW, CD, DQ, VL over x86-64-v3), which the
/// host's table (host_kernels.cpp) takes where the CPU runs that level. The
/// host is otherwise built for the baseline x86-64 (SSE2):
///  - g++ -O3's radix sort of a line of 2000 doubles took 30-36 us there
///    against 26-29 us for x86-64-v4 (float32: 14-16 against 13-15;
///    x86-64-v3 alone gained nothing), a stand-alone copy of the kernel
///    alternating the builds on the 2-core Intel VM;
///  - the convolutions' im2col and col2im loops (their gemm is OpenBLAS's)
///    were a third of a LeNet-5 training step (W10, perf).
/// Neither changes a bit of any result: the sort moves keys and counts
/// digits, im2col copies and col2im adds element by element in the same
/// order (no multiply to fuse: the file is also built -ffp-contract=off), so
/// both builds give what perform's gives.
#pragma once

#include <theano/runtime/kernels/host_kernels.h>

/// X(suffix) for every dtype sort.h has kernels for (TheanoHostKernels'
/// sort entries, in its order).
#define THEANO_HOST_SORT_DTYPES(X) X(f64) X(f32) X(i64) X(i32) X(i16) X(i8) X(u64) X(u32) X(u16) X(u8)
/// X(type, suffix) for every dtype conv.h has kernels for.
#define THEANO_HOST_CONV_DTYPES(X) X(float, f32) X(double, f64)

namespace theano::codegen::detail {

/// The sort, argsort and convolution entries, as TheanoHostKernels declares them.
struct KernelsV4 {
  THEANO_HOST_SORT_DTYPES(THEANO_HOST_SORT_ENTRIES)
  THEANO_HOST_CONV_DTYPES(THEANO_HOST_CONV_ENTRIES)
};

/// The x86-64-v4 build's kernels, or null where this library has none (not
/// x86-64, or a compiler without -march=x86-64-v4). Data only: reading it
/// runs no instruction of that build, so the caller checks the CPU first.
extern const KernelsV4* const kKernelsV4;

}  // namespace theano::codegen::detail
