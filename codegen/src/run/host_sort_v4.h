/// \file
/// sort.h's line kernels compiled a second time, for x86-64-v4 (AVX-512 F,
/// BW, CD, DQ, VL over x86-64-v3), which the host's table (host_kernels.cpp)
/// takes where the CPU runs that level. The host is otherwise built for the
/// baseline x86-64, and g++ -O3's radix sort of a line of 2000 doubles took
/// 30-36 us there against 26-29 us for x86-64-v4 (float32: 14-16 against
/// 13-15; x86-64-v3 alone gained nothing), a stand-alone copy of the kernel
/// alternating the builds on the 2-core Intel VM. The sort moves keys and
/// counts digits, no floating-point arithmetic, so both builds order every
/// line the same, bit for bit (as perform does).
#pragma once

#include <cstdint>

namespace theano::codegen::detail {

/// One line kernel: (x, x's byte stride, out, out's byte stride, n).
using SortLineKernel = void (*)(const char*, std::int64_t, char*, std::int64_t, std::int64_t);

/// The sort and argsort kernels of every dtype sort.h has.
struct SortKernels {
  SortLineKernel sort_f64, argsort_f64, sort_f32, argsort_f32, sort_i64, argsort_i64, sort_i32, argsort_i32,
      sort_i16, argsort_i16, sort_i8, argsort_i8, sort_u64, argsort_u64, sort_u32, argsort_u32, sort_u16,
      argsort_u16, sort_u8, argsort_u8;
};

/// The x86-64-v4 build's kernels, or null where this library has none (not
/// x86-64, or a compiler without -march=x86-64-v4). Data only: reading it
/// runs no instruction of that build, so the caller checks the CPU first.
extern const SortKernels* const kSortKernelsV4;

}  // namespace theano::codegen::detail
