/// \file
/// cuBLAS, opened with dlopen (internal to codegen/): the GPU BLAS ops (Dot,
/// Dot22, Gemm, Gemv, Ger on GPU arrays) call its Sgemm / Dgemm, the GPU forms
/// of solve_triangular and CholeskyGrad its ?trsm and ?trmm.
///
/// Why dlopen, as for the driver (cuda_driver.h): executables must start on
/// machines without a GPU or without cuBLAS; only a function that runs a BLAS
/// op on a real GPU needs the library, and then a missing one is a clear
/// error naming the file and what needs it. The host-emulated device never
/// loads it (its gemm is OpenBLAS's, gpu_device.cpp). The loading and the
/// per-device handles are dl_library.h's, shared with cuSOLVER.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace theano::codegen::cuda {

class Cublas {
 public:
  /// The process's cuBLAS; Error naming the library and dlerror when it
  /// cannot be loaded.
  static const Cublas& instance();
  /// Row-major CBLAS semantics (as cblas_?gemm(CblasRowMajor, ...)) on device
  /// pointers of the current context of device `device`: C (m x n, ldc) <-
  /// alpha op(A) op(B) + beta C. float32 when `single`, else float64. Every
  /// size must fit cuBLAS's int (ValueError otherwise). Asynchronous on the
  /// default stream, like the kernels.
  void gemm(int device, bool single, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
            double alpha, const void* a, std::int64_t lda, const void* b, std::int64_t ldb, double beta, void* c,
            std::int64_t ldc) const;
  /// `batch` gemms as gemm's, item i at a + i * stride_a, b + i * stride_b,
  /// c + i * stride_c (elements; 0 repeats an operand): ?gemmStridedBatched,
  /// or a loop of gemm where the library lacks it.
  void gemm_strided_batched(int device, bool single, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
                            std::int64_t k, double alpha, const void* a, std::int64_t lda, std::int64_t stride_a,
                            const void* b, std::int64_t ldb, std::int64_t stride_b, double beta, void* c,
                            std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) const;
  /// Column-major B (n x nrhs, ldb; `right`: nrhs x n) <- op(A)^-1 B (`right`:
  /// B op(A)^-1) for a triangular A (n x n, lda; the `lower` triangle,
  /// `trans`, `unit` diagonal): ?trsm with alpha 1, the GPU form of
  /// solve_triangular and CholeskyGrad's (gpu_lapack.cpp).
  void trsm(int device, bool single, bool right, bool lower, bool trans, bool unit, std::int64_t n, std::int64_t nrhs,
            const void* a, std::int64_t lda, void* b, std::int64_t ldb) const;
  /// As trsm with the product: B <- op(A) B (`right`: B op(A)), ?trmm in place.
  void trmm(int device, bool single, bool right, bool lower, bool trans, bool unit, std::int64_t n, std::int64_t nrhs,
            const void* a, std::int64_t lda, void* b, std::int64_t ldb) const;

 private:
  Cublas();
  void* handle(int device) const;
  /// trsm (`solve`) or trmm.
  void triangular(bool solve, int device, bool single, bool right, bool lower, bool trans, bool unit, std::int64_t n,
                  std::int64_t nrhs, const void* a, std::int64_t lda, void* b, std::int64_t ldb) const;
  struct Api;
  std::unique_ptr<Api> api_;
  std::string reason_;  // why the library is unusable ("" when it is)
};

}  // namespace theano::codegen::cuda
