/// \file
/// The host's gemm for generated code (TheanoHostKernels::blas_gemm_f32 /
/// _f64: Dot, Dot22, Gemm, BatchedDot): a product that OpenBLAS's
/// small-matrix kernels take once cut into row blocks
/// (theano/runtime/kernels/blas_split.h says when, and why) runs as those
/// blocks, one after another on the calling thread; any other goes to
/// blas_calls.h's gemm whole, on OpenBLAS's threads. The blocks on both
/// cores did not pay: beside OpenBLAS's spinning thread, W9 ran 1-2 % slower
/// with them.
#pragma once

#include <cstdint>

namespace theano::codegen::detail {

/// blas_calls.h's gemm of one element type: C (m x n) <- alpha * A (m x k)
/// . B (k x n) + beta * C, byte strides.
using GemmFn = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const char* a,
                        std::int64_t as0, std::int64_t as1, const char* b, std::int64_t bs0, std::int64_t bs1,
                        double beta, char* c, std::int64_t cs0, std::int64_t cs1);

/// `gemm`'s product (elements of `item` bytes), in row blocks where
/// theano_blas_split_rows says so.
void blas_gemm_blocks(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const char* a, std::int64_t as0, std::int64_t as1, const char* b,
                      std::int64_t bs0, std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1);

}  // namespace theano::codegen::detail
