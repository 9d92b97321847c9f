/// \file
/// The host's gemm for generated code (TheanoHostKernels::blas_gemm_f32 /
/// _f64: Dot, Dot22, Gemm, BatchedDot), by the product's size in
/// multiply-adds:
/// - up to 262144 (OpenBLAS's own one-thread range): whole;
/// - up to kPartsMax (3 * 10^7): in parts across the loop threads
///   (runtime/thread_pool.h), one part per OpenBLAS thread the process is
///   set to, each part's gemm on one BLAS thread and in the row blocks of
///   OpenBLAS's small-matrix kernels where theano/runtime/kernels/
///   blas_split.h says so;
/// - above: whole, on OpenBLAS's threads.
/// A part's "one BLAS thread" is OpenBLAS's thread count set to 1 for the
/// call (and restored): a count for the whole process, so a BLAS call that
/// another thread of the user's makes meanwhile runs on one thread too.
/// Where OpenBLAS is set to one thread (THEANO_FLAGS threads=1), every
/// product runs on the calling thread, in row blocks where the rule says so.
///
/// Why the parts: OpenBLAS's threads, once woken, spin for about 0.1 s
/// after each call (2^28 cycles, sched_yield in a loop) and take one of the
/// two cores from the loop threads. In W10 (LeNet-5), whose fully connected
/// layers' products woke them every step, OpenBLAS's idle thread ran 2-6 ms
/// of each 10-14 ms float32 step (the threads' schedstat), beside the loop
/// thread it starved; in W9 float32 it ran 12.5 ms of each 13 ms step. In
/// parts, those products never wake OpenBLAS's threads, and alone they take
/// about as long or less (best of 7-9 loops, alternating processes, float32
/// / float64 us, OpenBLAS's 2 threads -> 2 parts):
/// - W10's 64x800 by 800x500: 238 -> 213-265 / 524 -> 484-581; its weights'
///   gradient (800x64 by 64x500) 314 -> 210-287 / 534 -> 481-488; its
///   inputs' gradient (64x500 by 500x800) 266 -> 265-270 / 512 -> 530-542;
/// - W9's 32x256 by 256x256 in float32 (in row blocks before, on one
///   thread): 53-67 -> 39; with B transposed 92-96 -> 44-50; 256x32 by
///   32x256 29 -> 29-30; a block of 11 rows with B transposed 31-33 -> 27-29;
/// - 128x256 by 256x512: 158 -> 142 / 290 -> 314-321; 50x200 by 200x64 in
///   float32 (OpenBLAS's small-matrix kernel whole) 10.5 -> 11.3-12.4.
/// Above kPartsMax, OpenBLAS's shared packing wins: W3's 784x256 by 256x512
/// in float64 1627-1666 against 1776-1810, 2000^3 in float64 104 ms against
/// 109.
#pragma once

#include <cstdint>

namespace theano::codegen::detail {

/// blas_calls.h's gemm of one element type: C (m x n) <- alpha * A (m x k)
/// . B (k x n) + beta * C, byte strides.
using GemmFn = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const char* a,
                        std::int64_t as0, std::int64_t as1, const char* b, std::int64_t bs0, std::int64_t bs1,
                        double beta, char* c, std::int64_t cs0, std::int64_t cs1);

/// `gemm`'s product (elements of `item` bytes) on the calling thread, in row
/// blocks where theano_blas_split_rows says so.
void blas_gemm_blocks(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const char* a, std::int64_t as0, std::int64_t as1, const char* b,
                      std::int64_t bs0, std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1);

/// `gemm`'s product as the list above says: whole, in row blocks, or in
/// parts across the loop threads.
void blas_gemm_host(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                    const char* a, std::int64_t as0, std::int64_t as1, const char* b, std::int64_t bs0,
                    std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1);

}  // namespace theano::codegen::detail
