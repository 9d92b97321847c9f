/// \file
/// The host's gemm in row blocks (blas_split.h).
#include "blas_split.h"

#include <strings.h>

#include <initializer_list>

extern "C" char* openblas_get_corename(void);

namespace theano::codegen::detail {

namespace {

/// OpenBLAS's small-matrix limit (its gemm_small_kernel_permit on the
/// AVX-512 cores): M N K at most this takes the unpacked kernel.
constexpr double kSmallMax = 1e6;
/// Above this many multiply-adds the product runs whole (blas_split.h):
/// float32 / float64. In float64, W9's 32x256 by 256x256 ran as fast whole
/// on two threads as in four blocks on one alone, and 7 % slower in blocks
/// in W9.
constexpr double kBlocksMax[2] = {2.2e6, 1.5e6};

/// Whether OpenBLAS's core (asked once: the library is open by the first
/// product) has the small-matrix kernels.
bool small_kernels() {
  static const bool has = [] {
    const char* name = openblas_get_corename();
    if (name == nullptr) return false;
    for (const char* core : {"SkylakeX", "Cooperlake", "SapphireRapids"})
      if (::strcasecmp(name, core) == 0) return true;
    return false;
  }();
  return has;
}

}  // namespace

std::int64_t blas_split_rows(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t item) {
  if (m < 2 || n <= 0 || k <= 0) return 0;
  const double nk = static_cast<double>(n) * static_cast<double>(k);
  const double mnk = static_cast<double>(m) * nk;
  if (mnk <= kSmallMax || mnk > kBlocksMax[item == 8] || nk > kSmallMax || !small_kernels()) return 0;
  // The fewest blocks of at most kSmallMax, the rows shared evenly (W9's 32
  // rows of 256x256: four blocks of 8, each 524288 multiply-adds).
  const auto blocks = static_cast<std::int64_t>(mnk / kSmallMax) + 1;
  const auto most = static_cast<std::int64_t>(kSmallMax / nk);  // >= 1: nk <= kSmallMax
  const std::int64_t even = (m + blocks - 1) / blocks, rows = even < most ? even : most;
  return rows < m ? rows : 0;
}

void blas_gemm_blocks(GemmFn gemm, std::int64_t item, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const char* a, std::int64_t as0, std::int64_t as1, const char* b,
                      std::int64_t bs0, std::int64_t bs1, double beta, char* c, std::int64_t cs0, std::int64_t cs1) {
  const std::int64_t rows = blas_split_rows(m, n, k, item);
  if (rows == 0) {
    gemm(m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1);
    return;
  }
  for (std::int64_t r0 = 0; r0 < m; r0 += rows) {
    const std::int64_t r = m - r0 < rows ? m - r0 : rows;
    gemm(r, n, k, alpha, a + r0 * as0, as0, as1, b, bs0, bs1, beta, c + r0 * cs0, cs0, cs1);
  }
}

}  // namespace theano::codegen::detail
