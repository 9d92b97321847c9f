/// \file
/// Kernels of the host's table compiled a second time, for x86-64-v4 (AVX-512
/// F, BW, CD, DQ, VL over x86-64-v3), which the table (host_kernels.cpp)
/// takes where the CPU runs that level. The host is otherwise built for the
/// baseline x86-64.
///
/// - sort.h's line kernels: g++ -O3's radix sort of a line of 2000 doubles
///   took 30-36 us for the baseline against 26-29 us for x86-64-v4 (float32:
///   14-16 against 13-15; x86-64-v3 alone gained nothing), a stand-alone copy
///   of the kernel alternating the builds on the 2-core Intel VM. The sort
///   moves keys and counts digits, no floating-point arithmetic, so both
///   builds order every line the same, bit for bit (as perform does).
/// - sparse_kernels.h's typed kernels: the baseline build ran W8's CSR
///   product 1.3-1.5x slower than the units' own AVX-512 copies did. Compiled
///   with -ffp-contract=off, so no product and sum fuse: each output element
///   still sums in stored order, rounding each step as the baseline build
///   (perform's) does, bit for bit.
#pragma once

#include <theano/runtime/kernels/host_kernels.h>

/// X(suffix) for every dtype sort.h has kernels for (TheanoHostKernels'
/// sort entries, in its order).
#define THEANO_HOST_SORT_DTYPES(X) X(f64) X(f32) X(i64) X(i32) X(i16) X(i8) X(u64) X(u32) X(u16) X(u8)

/// The designated initializers of every typed sparse entry, each from
/// sparse_kernels.h's function as the translation unit using it compiles it
/// (the baseline table's and the x86-64-v4 build's).
#define THEANO_HOST_SPARSE_INIT_ENTRY(E, S) .E##_##S = &theano_##E##_##S,
#define THEANO_HOST_SPARSE_INIT_TYPE(T, S) THEANO_HOST_SPARSE_NAMES(THEANO_HOST_SPARSE_INIT_ENTRY, S)
#define THEANO_HOST_SPARSE_INITS THEANO_HOST_SPARSE_TYPES(THEANO_HOST_SPARSE_INIT_TYPE)

namespace theano::codegen::detail {

/// The sort and argsort entries, as TheanoHostKernels declares them.
struct SortKernels {
  THEANO_HOST_SORT_DTYPES(THEANO_HOST_SORT_ENTRIES)
};

/// The typed sparse entries, as TheanoHostKernels declares them.
struct SparseKernels {
  THEANO_HOST_SPARSE_TYPES(THEANO_HOST_SPARSE_ENTRIES)
};

/// The x86-64-v4 build's kernels, or null where this library has none (not
/// x86-64, or a compiler without -march=x86-64-v4). Data only: reading them
/// runs no instruction of that build, so the caller checks the CPU first.
extern const SortKernels* const kSortKernelsV4;
extern const SparseKernels* const kSparseKernelsV4;

}  // namespace theano::codegen::detail
