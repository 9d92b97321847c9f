/// \file
/// cuSOLVER's dense routines, opened with dlopen (internal to codegen/): the
/// GPU forms of cholesky, cho_solve, solve, inv, det, slogdet, lu_factor,
/// eigh, qr and svd (codegen/src/emit/lower/gpu_linalg.cpp) call its potrf / potrs /
/// getrf / getrs / syevd / geqrf / orgqr / gesvd through TheanoContext::gpu_lapack (gpu_lapack.cpp).
///
/// Why dlopen, as for cuBLAS (cublas.h): executables must start on machines
/// without a GPU or without cuSOLVER; only a function that runs one of these
/// ops on a real GPU needs the library, and then a missing one is a clear
/// error naming the file and what needs it. The host-emulated device never
/// loads it (LAPACK stands in, gpu_lapack.cpp).
///
/// Each routine takes column-major device matrices of the current context,
/// sizes checked against cuSOLVER's 32-bit int, runs asynchronously on the
/// default stream (like the kernels) and leaves its info in the device int
/// `info`: the caller reads it back with its other checks, once per call.
/// The workspace (the routine's bufferSize query) comes from `workspace`,
/// the device's caching allocator, so stream order keeps it alive. The
/// loading and the per-device handles are dl_library.h's, shared with cuBLAS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace theano::codegen::cuda {

class Cusolver {
 public:
  /// Device memory of at least `bytes` bytes, given back when the pointer is released.
  using Workspace = std::function<std::shared_ptr<void>(std::size_t bytes)>;

  /// The process's cuSOLVER; Error naming the library and dlerror when it
  /// cannot be loaded.
  static const Cusolver& instance();
  /// Why cuSOLVER cannot be loaded here ("" when it can); loads it to find out.
  static std::string unavailable_reason();

  void potrf(int device, bool single, bool lower, std::int64_t n, void* a, std::int64_t lda, void* info,
             const Workspace& workspace) const;
  void potrs(int device, bool single, bool lower, std::int64_t n, std::int64_t nrhs, const void* a, std::int64_t lda,
             void* b, std::int64_t ldb, void* info) const;
  void getrf(int device, bool single, std::int64_t n, void* a, std::int64_t lda, void* ipiv, void* info,
             const Workspace& workspace) const;
  void getrs(int device, bool single, bool trans, std::int64_t n, std::int64_t nrhs, const void* a, std::int64_t lda,
             const void* ipiv, void* b, std::int64_t ldb, void* info) const;
  /// w (n) <- the eigenvalues of the symmetric a (its `lower` triangle read), ascending; a <- the eigenvectors
  /// when `vectors`.
  void syevd(int device, bool single, bool vectors, bool lower, std::int64_t n, void* a, std::int64_t lda, void* w,
             void* info, const Workspace& workspace) const;
  /// a (m x n) <- its QR factorization, tau (min(m, n)) <- the reflectors' scales.
  void geqrf(int device, bool single, std::int64_t m, std::int64_t n, void* a, std::int64_t lda, void* tau, void* info,
             const Workspace& workspace) const;
  /// a (m x n) <- the first n columns of Q from the k reflectors geqrf left in a and tau.
  void orgqr(int device, bool single, std::int64_t m, std::int64_t n, std::int64_t k, void* a, std::int64_t lda,
             const void* tau, void* info, const Workspace& workspace) const;
  /// m >= n (cuSOLVER's gesvd needs it), a destroyed: s (n) <- the singular values, descending; with `vectors`
  /// u (m x m when `full`, else m x n; ldu m) and vt (n x n; ldvt n).
  void gesvd(int device, bool single, bool vectors, bool full, std::int64_t m, std::int64_t n, void* a,
             std::int64_t lda, void* s, void* u, void* vt, void* info, const Workspace& workspace) const;

 private:
  Cusolver();
  void* handle(int device) const;
  struct Api;
  std::unique_ptr<Api> api_;
  std::string reason_;  // why the library is unusable ("" when it is)
};

}  // namespace theano::codegen::cuda
