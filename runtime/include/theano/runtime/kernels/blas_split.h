/* \file
 * When one gemm runs faster as row blocks, one after another on the calling
 * thread: the rule the host's gemm entries (codegen/src/run/blas_split.h:
 * Dot, Dot22, Gemm, BatchedDot) and the convolutions' per-image products
 * (conv.h) both follow, defined once in the runtime
 * (runtime/src/blas_split.cpp).
 *
 * Why: OpenBLAS's AVX-512 cores (SkylakeX, Cooperlake, SapphireRapids) take
 * an unpacked kernel while M N K <= 10^6 and the packing path above it,
 * whose cost dominates products of one or two million multiply-adds. Alone
 * on this repository's 2-core Intel VM (best of seven loops of 200 calls):
 * 32x256 by 256x256 (W9's step) in float32 took 35 us on OpenBLAS's 2
 * threads and 26 us as four blocks of 8 rows on one; 256x512 by 512x10 (W3's
 * output layer) in float64 113 us whole, 45 us as two blocks; W10's second
 * convolution, 50x500 filters by a 500x64 column matrix per image, in
 * float32 36-66 us whole and 20 us as two blocks of 25 rows (one thread).
 * Above about 2 million the packed kernel wins (128^3 in float32 on two
 * threads: 27 us against 36).
 */
#ifndef THEANO_RUNTIME_BLAS_SPLIT_H
#define THEANO_RUNTIME_BLAS_SPLIT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rows of a block of C (m x n) <- A (m x k) . B (k x n) with elements
 * of `item` bytes, or 0 to run the product whole: it has more than 10^6 and
 * at most 2.2 * 10^6 (float32) / 1.5 * 10^6 (float64) multiply-adds, the
 * open OpenBLAS core has the small-matrix kernels, and the fewest blocks of
 * at most 10^6 share the rows evenly. */
int64_t theano_blas_split_rows(int64_t m, int64_t n, int64_t k, int64_t item);

#ifdef __cplusplus
}
#endif

#endif /* THEANO_RUNTIME_BLAS_SPLIT_H */
