// The row-block rule of OpenBLAS's small-matrix kernels
// (theano/runtime/kernels/blas_split.h).
#include "theano/runtime/kernels/blas_split.h"

#include <cblas.h>
#include <strings.h>

#include <initializer_list>

namespace {

/// OpenBLAS's small-matrix limit (its gemm_small_kernel_permit on the
/// AVX-512 cores): M N K at most this takes the unpacked kernel.
constexpr double kSmallMax = 1e6;
/// Above this many multiply-adds the product runs whole: float32 / float64.
/// In float64, W9's 32x256 by 256x256 ran as fast whole on two threads as in
/// four blocks on one alone, and 7 % slower in blocks in W9.
constexpr double kBlocksMax[2] = {2.2e6, 1.5e6};

/// Whether OpenBLAS's core (asked once, through blas_library.cpp's
/// forwarder, which opens the library) has the small-matrix kernels.
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

extern "C" int64_t theano_blas_split_rows(int64_t m, int64_t n, int64_t k, int64_t item) {
  if (m < 2 || n <= 0 || k <= 0) return 0;
  const double nk = static_cast<double>(n) * static_cast<double>(k);
  const double mnk = static_cast<double>(m) * nk;
  if (mnk <= kSmallMax || mnk > kBlocksMax[item == 8] || nk > kSmallMax || !small_kernels()) return 0;
  // The fewest blocks of at most kSmallMax, the rows shared evenly (W9's 32
  // rows of 256x256: blocks of 11, 11 and 10 rows, at most 720896
  // multiply-adds each).
  const auto blocks = static_cast<int64_t>(mnk / kSmallMax) + 1;
  const auto most = static_cast<int64_t>(kSmallMax / nk);  // >= 1: nk <= kSmallMax
  const int64_t even = (m + blocks - 1) / blocks, rows = even < most ? even : most;
  return rows < m ? rows : 0;
}
