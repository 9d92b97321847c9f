/// \file
/// The host's gemm for generated code (TheanoHostKernels::blas_gemm_f32 /
/// _f64: Dot, Dot22, Gemm, BatchedDot): a product that OpenBLAS's
/// small-matrix kernels take once cut into row blocks runs as those blocks,
/// one after another on the calling thread; any other goes to blas_calls.h's
/// gemm whole, on OpenBLAS's threads.
///
/// Why: OpenBLAS's AVX-512 cores (SkylakeX, Cooperlake, SapphireRapids)
/// take an unpacked kernel while M N K <= 10^6 and the packing path above
/// it, whose cost dominates products of one or two million multiply-adds.
/// Alone on this repository's 2-core Intel VM (best of seven loops of 200
/// calls): 32x256 by 256x256 (W9's step) in float32 took 35 us on OpenBLAS's
/// 2 threads and 26 us as four blocks of 8 rows on one; 256x512 by 512x10
/// (W3's output layer) in float64 113 us whole, 45 us as two blocks. Above
/// about 2 million the packed kernel's two threads win (128^3 in float32:
/// 27 us against 36), and the blocks on both cores did not pay: beside
/// OpenBLAS's spinning thread, W9 ran 1-2 % slower with them.
#pragma once

#include <cstdint>

namespace theano::codegen::detail {

/// blas_calls.h's gemm of one element type: C (m x n) <- alpha * A (m x k)
/// . B (k x n) + beta * C, byte strides.
using GemmFn = void (*)(std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const char* a,
                        std::int64_t as0, std::int64_t as1, const char* b, std::int64_t bs0, std::int64_t bs1,
                        double beta, char* c, std::int64_t cs0, std::int64_t cs1);

/// `gemm`'s product (elements of `item` bytes), in row blocks where
/// blas_split_rows says so.
void blas_gemm_blocks(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const char* a, std::int64_t as0, std::int64_t as1, const char* b,
                      std::int64_t bs0, std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1);

/// The rows of a block, or 0 to run the product whole: it has more than 10^6
/// and at most kBlocksMax (of its element size) multiply-adds, the BLAS core
/// the small-matrix kernels, and the fewest blocks of at most 10^6 share the
/// rows evenly.
std::int64_t blas_split_rows(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t item);

}  // namespace theano::codegen::detail
