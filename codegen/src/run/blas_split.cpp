/// \file
/// The host's gemm in row blocks (blas_split.h).
#include "blas_split.h"

#include <theano/runtime/kernels/blas_split.h>

namespace theano::codegen::detail {

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

}  // namespace theano::codegen::detail
