// GpuDevice::lapack (gpu_device.h): the routines behind TheanoContext::gpu_lapack
// (thunk_abi.h). On a GPU: cuSOLVER (cusolver.h; gesvd where the CPU calls
// gesdd) and cuBLAS's trsm / trmm
// (cublas.h), their workspaces from the device's caching allocator. On the
// emulated device, whose memory is host memory: the LAPACK routines the CPU
// form calls (kernels/linalg.h declares them), on the same column-major
// buffers, so the GPU lowering's code (gathers, layouts, checks, the
// diagonal reduction) runs unchanged with LAPACK standing in for cuSOLVER.
#include <theano/codegen/cuda_driver.h>
#include <theano/runtime/blas_library.h>
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/linalg.h>

#include <climits>
#include <cstdint>

#include "../../thunk_abi.h"
#include "cublas.h"
#include "cusolver.h"
#include "gpu_device.h"

namespace theano::codegen::cuda {

namespace {

int lapack_int(std::int64_t v) {
  THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
      << "LAPACK: a size or leading dimension of " << v << " does not fit LAPACK's 32-bit int";
  return static_cast<int>(v);
}

/// The emulated device: LAPACK on host memory; `info` gets LAPACK's info.
template <class T>
void emulate(int routine, std::int64_t flags, std::int64_t n, std::int64_t nrhs, T* a, std::int64_t lda, T* b,
             std::int64_t ldb, int* ipiv, int* info) {
  constexpr bool kSingle = sizeof(T) == 4;
  runtime::load_blas();
  const int N = lapack_int(n), R = lapack_int(nrhs), LDA = lapack_int(lda), LDB = lapack_int(ldb);
  const char* uplo = flags & THEANO_GPU_LA_F_LOWER ? "L" : "U";
  int i = 0;
  switch (routine) {
    case THEANO_GPU_LA_POTRF:
      if constexpr (kSingle)
        spotrf_(uplo, &N, a, &LDA, &i, 1);
      else
        dpotrf_(uplo, &N, a, &LDA, &i, 1);
      break;
    case THEANO_GPU_LA_POTRS:
      if constexpr (kSingle)
        spotrs_(uplo, &N, &R, a, &LDA, b, &LDB, &i, 1);
      else
        dpotrs_(uplo, &N, &R, a, &LDA, b, &LDB, &i, 1);
      break;
    case THEANO_GPU_LA_GETRF:
      if constexpr (kSingle)
        sgetrf_(&N, &N, a, &LDA, ipiv, &i);
      else
        dgetrf_(&N, &N, a, &LDA, ipiv, &i);
      break;
    case THEANO_GPU_LA_GETRS: {
      const char* tr = flags & THEANO_GPU_LA_F_TRANS ? "T" : "N";
      if constexpr (kSingle)
        sgetrs_(tr, &N, &R, a, &LDA, ipiv, b, &LDB, &i, 1);
      else
        dgetrs_(tr, &N, &R, a, &LDA, ipiv, b, &LDB, &i, 1);
      break;
    }
    case THEANO_GPU_LA_TRSM:
    case THEANO_GPU_LA_TRMM: {
      // BLAS's trsm / trmm, as cuBLAS: no check of the diagonal (solve_triangular's is its own, as with
      // cuBLAS; CholeskyGrad's CPU form calls trsm too); b is n x nrhs, or nrhs x n from the right.
      const bool right = flags & THEANO_GPU_LA_F_RIGHT;
      const char* side = right ? "R" : "L";
      const char* tr = flags & THEANO_GPU_LA_F_TRANS ? "T" : "N";
      const char* dg = flags & THEANO_GPU_LA_F_UNIT ? "U" : "N";
      const int rows = right ? R : N, cols = right ? N : R;
      const T one = 1;
      if (rows == 0 || cols == 0) return;
      if (routine == THEANO_GPU_LA_TRSM) {
        if constexpr (kSingle)
          strsm_(side, uplo, tr, dg, &rows, &cols, &one, a, &LDA, b, &LDB, 1, 1, 1, 1);
        else
          dtrsm_(side, uplo, tr, dg, &rows, &cols, &one, a, &LDA, b, &LDB, 1, 1, 1, 1);
      } else {
        if constexpr (kSingle)
          strmm_(side, uplo, tr, dg, &rows, &cols, &one, a, &LDA, b, &LDB, 1, 1, 1, 1);
        else
          dtrmm_(side, uplo, tr, dg, &rows, &cols, &one, a, &LDA, b, &LDB, 1, 1, 1, 1);
      }
      return;  // info untouched
    }
    case THEANO_GPU_LA_SYEVD: {
      const char* jobz = flags & THEANO_GPU_LA_F_VECTORS ? "V" : "N";
      int lw = -1, liw = -1, iq = 0;
      T q = 0;
      if constexpr (kSingle)
        ssyevd_(jobz, uplo, &N, a, &LDA, b, &q, &lw, &iq, &liw, &i, 1, 1);
      else
        dsyevd_(jobz, uplo, &N, a, &LDA, b, &q, &lw, &iq, &liw, &i, 1, 1);
      THEANO_INTERNAL_CHECK(i == 0) << "LAPACK's syevd workspace query failed: info " << i;
      lw = static_cast<int>(static_cast<double>(q) * (1.0 + 1e-6)) + 1;  // a float rounds sizes past 2^24
      liw = iq > 1 ? iq : 1;
      std::unique_ptr<T[]> work(new T[static_cast<std::size_t>(lw)]);
      std::unique_ptr<int[]> iwork(new int[static_cast<std::size_t>(liw)]);
      if constexpr (kSingle)
        ssyevd_(jobz, uplo, &N, a, &LDA, b, work.get(), &lw, iwork.get(), &liw, &i, 1, 1);
      else
        dsyevd_(jobz, uplo, &N, a, &LDA, b, work.get(), &lw, iwork.get(), &liw, &i, 1, 1);
      break;
    }
    case THEANO_GPU_LA_GEQRF:
    case THEANO_GPU_LA_ORGQR: {
      // geqrf / orgqr, as the CPU form calls them: m = n rows, nrhs columns, ldb reflectors for orgqr.
      int lw = -1;
      T q = 0;
      const auto call = [&](T* work, int* lwork) {
        if (routine == THEANO_GPU_LA_GEQRF) {
          if constexpr (kSingle)
            sgeqrf_(&N, &R, a, &LDA, b, work, lwork, &i);
          else
            dgeqrf_(&N, &R, a, &LDA, b, work, lwork, &i);
        } else {
          if constexpr (kSingle)
            sorgqr_(&N, &R, &LDB, a, &LDA, b, work, lwork, &i);
          else
            dorgqr_(&N, &R, &LDB, a, &LDA, b, work, lwork, &i);
        }
      };
      call(&q, &lw);
      THEANO_INTERNAL_CHECK(i == 0) << "LAPACK's geqrf / orgqr workspace query failed: info " << i;
      lw = static_cast<int>(static_cast<double>(q) * (1.0 + 1e-6)) + 1;
      std::unique_ptr<T[]> work(new T[static_cast<std::size_t>(lw)]);
      call(work.get(), &lw);
      break;
    }
    case THEANO_GPU_LA_GESVD: {
      // gesdd, the CPU form's routine, where a GPU runs cuSOLVER's gesvd: the same factorization (the
      // singular vectors' signs may differ); U then Vt in the buffer `ipiv` points to.
      const bool vectors = flags & THEANO_GPU_LA_F_VECTORS, full = flags & THEANO_GPU_LA_F_FULL;
      const char* jobz = !vectors ? "N" : full ? "A" : "S";
      T* u = reinterpret_cast<T*>(ipiv);
      T* vt = u + static_cast<std::int64_t>(N) * (full ? N : R);
      const int ldu = N > 1 ? N : 1, ldvt = R > 1 ? R : 1;
      int lw = -1;
      T q = 0;
      std::unique_ptr<int[]> iwork(new int[8 * static_cast<std::size_t>(R) + 1]);
      if constexpr (kSingle)
        sgesdd_(jobz, &N, &R, a, &LDA, b, u, &ldu, vt, &ldvt, &q, &lw, iwork.get(), &i, 1);
      else
        dgesdd_(jobz, &N, &R, a, &LDA, b, u, &ldu, vt, &ldvt, &q, &lw, iwork.get(), &i, 1);
      THEANO_INTERNAL_CHECK(i == 0) << "LAPACK's gesdd workspace query failed: info " << i;
      lw = static_cast<int>(static_cast<double>(q) * (1.0 + 1e-6)) + 1;
      std::unique_ptr<T[]> work(new T[static_cast<std::size_t>(lw)]);
      if constexpr (kSingle)
        sgesdd_(jobz, &N, &R, a, &LDA, b, u, &ldu, vt, &ldvt, work.get(), &lw, iwork.get(), &i, 1);
      else
        dgesdd_(jobz, &N, &R, a, &LDA, b, u, &ldu, vt, &ldvt, work.get(), &lw, iwork.get(), &i, 1);
      break;
    }
    default:
      THEANO_INTERNAL_CHECK(false) << "gpu_lapack: unknown routine " << routine;
  }
  *info = i;
}

}  // namespace

void GpuDevice::lapack(int routine, DType dtype, std::int64_t flags, std::int64_t n, std::int64_t nrhs, void* a,
                       std::int64_t lda, void* b, std::int64_t ldb, void* ipiv, void* info) {
  THEANO_INTERNAL_CHECK(dtype == DType::Float32 || dtype == DType::Float64)
      << "GPU linear algebra of " << dtype_name(dtype);
  const bool single = dtype == DType::Float32;
  if (emulated_) {
    if (n == 0) {
      if (routine != THEANO_GPU_LA_TRSM && routine != THEANO_GPU_LA_TRMM) *static_cast<int*>(info) = 0;
      return;
    }
    if (single)
      emulate<float>(routine, flags, n, nrhs, static_cast<float*>(a), lda, static_cast<float*>(b), ldb,
                     static_cast<int*>(ipiv), static_cast<int*>(info));
    else
      emulate<double>(routine, flags, n, nrhs, static_cast<double*>(a), lda, static_cast<double*>(b), ldb,
                      static_cast<int*>(ipiv), static_cast<int*>(info));
    return;
  }
  THEANO_INTERNAL_CHECK(n > 0) << "gpu_lapack: an empty matrix reaches the library (its callers skip them)";
  const CudaDriver& d = CudaDriver::instance();
  d.make_current(index_);
  const bool lower = flags & THEANO_GPU_LA_F_LOWER, trans = flags & THEANO_GPU_LA_F_TRANS;
  const Cusolver::Workspace workspace = [this](std::size_t bytes) { return allocate(bytes); };
  switch (routine) {
    case THEANO_GPU_LA_POTRF:
      Cusolver::instance().potrf(index_, single, lower, n, a, lda, info, workspace);
      break;
    case THEANO_GPU_LA_POTRS:
      Cusolver::instance().potrs(index_, single, lower, n, nrhs, a, lda, b, ldb, info);
      break;
    case THEANO_GPU_LA_GETRF:
      Cusolver::instance().getrf(index_, single, n, a, lda, ipiv, info, workspace);
      break;
    case THEANO_GPU_LA_GETRS:
      Cusolver::instance().getrs(index_, single, trans, n, nrhs, a, lda, ipiv, b, ldb, info);
      break;
    case THEANO_GPU_LA_TRSM:
    case THEANO_GPU_LA_TRMM: {
      const bool right = flags & THEANO_GPU_LA_F_RIGHT, unit = flags & THEANO_GPU_LA_F_UNIT;
      if (nrhs == 0) break;
      if (routine == THEANO_GPU_LA_TRSM)
        Cublas::instance().trsm(index_, single, right, lower, trans, unit, n, nrhs, a, lda, b, ldb);
      else
        Cublas::instance().trmm(index_, single, right, lower, trans, unit, n, nrhs, a, lda, b, ldb);
      break;
    }
    case THEANO_GPU_LA_SYEVD:
      Cusolver::instance().syevd(index_, single, flags & THEANO_GPU_LA_F_VECTORS, lower, n, a, lda, b, info, workspace);
      break;
    case THEANO_GPU_LA_GEQRF:
      Cusolver::instance().geqrf(index_, single, n, nrhs, a, lda, b, info, workspace);
      break;
    case THEANO_GPU_LA_ORGQR:
      Cusolver::instance().orgqr(index_, single, n, nrhs, ldb, a, lda, b, info, workspace);
      break;
    case THEANO_GPU_LA_GESVD: {
      const bool full = flags & THEANO_GPU_LA_F_FULL;
      char* vt = static_cast<char*>(ipiv) + n * (full ? n : nrhs) * (single ? 4 : 8);
      Cusolver::instance().gesvd(index_, single, flags & THEANO_GPU_LA_F_VECTORS, full, n, nrhs, a, lda, b, ipiv, vt,
                                 info, workspace);
      break;
    }
    default:
      THEANO_INTERNAL_CHECK(false) << "gpu_lapack: unknown routine " << routine;
  }
}

}  // namespace theano::codegen::cuda
