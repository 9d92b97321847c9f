/// \file
/// The host's gemm in row blocks, or in parts across the loop threads
/// (blas_split.h).
#include "blas_split.h"

#include <theano/runtime/kernels/blas_split.h>
#include <theano/runtime/thread_pool.h>

#include <cblas.h>

#include <algorithm>

namespace theano::codegen::detail {

namespace {

/// Products of more multiply-adds than this run on OpenBLAS's threads
/// (blas_split.h): above W10's 64x800 by 800x500, below W3's 256x784 by
/// 784x512.
constexpr double kPartsMax = 3e7;
/// OpenBLAS 0.3.21 runs a gemm of at most this many multiply-adds on the
/// calling thread (interface/gemm.c: SMP_THRESHOLD_MIN 65536 times
/// GEMM_MULTITHREAD_THRESHOLD 4); above, on its threads unless its
/// small-matrix kernel takes the product, which it does not for every
/// transposition (64x10 by 10x500 with B transposed wakes its thread).
constexpr double kOneThreadMax = 262144;

/// One product cut into `parts` slices of C's rows (or, when C has more
/// columns than rows, of its columns), each run by blas_gemm_blocks.
struct Parts {
  GemmFn gemm;
  std::int64_t item, m, n, k;
  double alpha;
  const char* a;
  std::int64_t as0, as1;
  const char* b;
  std::int64_t bs0, bs1;
  double beta;
  char* c;
  std::int64_t cs0, cs1;
  std::int64_t parts;
  bool rows;
};

// parallel_for cuts its range at multiples of 64 indices (thread_pool.h):
// 64 indices a part, and the part's slice is the even share of its index.
void run_part(void* closure, std::int64_t lo, std::int64_t, std::int64_t) {
  const Parts& p = *static_cast<const Parts*>(closure);
  const std::int64_t part = lo / 64, size = p.rows ? p.m : p.n;
  const std::int64_t s0 = size * part / p.parts, s1 = size * (part + 1) / p.parts;
  if (p.rows)
    blas_gemm_blocks(p.gemm, p.item, s1 - s0, p.n, p.k, p.alpha, p.a + s0 * p.as0, p.as0, p.as1, p.b, p.bs0, p.bs1,
                     p.beta, p.c + s0 * p.cs0, p.cs0, p.cs1);
  else
    blas_gemm_blocks(p.gemm, p.item, p.m, s1 - s0, p.k, p.alpha, p.a, p.as0, p.as1, p.b + s0 * p.bs1, p.bs0, p.bs1,
                     p.beta, p.c + s0 * p.cs1, p.cs0, p.cs1);
}

}  // namespace

void blas_gemm_blocks(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const char* a, std::int64_t as0, std::int64_t as1, const char* b,
                      std::int64_t bs0, std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1) {
  const std::int64_t rows = theano_blas_split_rows(m, n, k, item);
  if (rows == 0) {
    gemm(m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1);
    return;
  }
  for (std::int64_t r0 = 0; r0 < m; r0 += rows) {
    const std::int64_t r = m - r0 < rows ? m - r0 : rows;
    gemm(r, n, k, alpha, a + r0 * as0, as0, as1, b, bs0, bs1, beta, c + r0 * cs0, cs0, cs1);
  }
}

void blas_gemm_host(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                    const char* a, std::int64_t as0, std::int64_t as1, const char* b, std::int64_t bs0,
                    std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1) {
  const double mnk = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int threads = mnk > kOneThreadMax && mnk <= kPartsMax ? openblas_get_num_threads() : 1;
  const std::int64_t size = m >= n ? m : n;
  // At least 8 rows or columns a part, and no more parts than the pool cuts a range into.
  const std::int64_t parts = std::min<std::int64_t>({threads, size / 8, kMaxParallelParts});
  if (parts < 2) {
    blas_gemm_blocks(gemm, item, m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1);
    return;
  }
  Parts p{gemm, item, m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1, parts, m >= n};
  openblas_set_num_threads(1);  // each part's gemm on the thread that runs it
  parallel_for(parts, parts * 64, 64, &run_part, &p);
  openblas_set_num_threads(threads);
}

}  // namespace theano::codegen::detail
