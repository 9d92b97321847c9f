// cuBLAS through dlopen (cublas.h).
#include "cublas.h"

#include <dlfcn.h>
#include <theano/runtime/error.h>

#include <climits>

#include "dl_library.h"

namespace theano::codegen::cuda {

namespace {
// The cuBLAS v2 API, declared here by its ABI (no cuBLAS header is needed to build).
using Handle = void*;
using Status = int;
constexpr int kOpN = 0, kOpT = 1;  // cublasOperation_t
using CreateFn = Status (*)(Handle*);
using SgemmFn = Status (*)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int,
                           const float*, float*, int);
using DgemmFn = Status (*)(Handle, int, int, int, int, int, const double*, const double*, int, const double*, int,
                           const double*, double*, int);
template <class T>  // ?gemmStridedBatched: strides are long long, the batch an int
using GemmBatchedFn = Status (*)(Handle, int, int, int, int, int, const T*, const T*, int, long long, const T*, int,
                                 long long, const T*, T*, int, long long, int);
template <class T>
using TrsmFn = Status (*)(Handle, int, int, int, int, int, int, const T*, const T*, int, T*, int);
template <class T>  // the v2 trmm: C <- alpha op(A) B, out of place (C may be B)
using TrmmFn = Status (*)(Handle, int, int, int, int, int, int, const T*, const T*, int, const T*, int, T*, int);
constexpr int kSideLeft = 0, kSideRight = 1, kFillLower = 0, kFillUpper = 1, kDiagNonUnit = 0, kDiagUnit = 1;
}  // namespace

struct Cublas::Api {
  void* lib = nullptr;
  CreateFn create = nullptr;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  GemmBatchedFn<float> sgemm_batched = nullptr;  // optional: a loop of gemm without them
  GemmBatchedFn<double> dgemm_batched = nullptr;
  TrsmFn<float> strsm = nullptr;
  TrsmFn<double> dtrsm = nullptr;
  TrmmFn<float> strmm = nullptr;
  TrmmFn<double> dtrmm = nullptr;
  mutable DeviceHandles handles;
};

const Cublas& Cublas::instance() {
  static const Cublas* c = new Cublas();  // never closed, never destroyed
  if (!c->reason_.empty())
    throw Error(
        "cuBLAS is needed for the BLAS ops (Dot, Gemm, Gemv, Ger), solve_triangular and CholeskyGrad on the GPU: " +
        c->reason_);
  return *c;
}

Cublas::Cublas() : api_(std::make_unique<Api>()) {
  // The names tried, newest first (the toolkit under /usr/local/cuda is CUDA 13).
  api_->lib = dlopen_first({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, "cuBLAS",
                           "install the CUDA toolkit's libcublas", reason_);
  if (!api_->lib) return;
  auto sym = [&](const char* name) { return ::dlsym(api_->lib, name); };
  api_->create = reinterpret_cast<CreateFn>(sym("cublasCreate_v2"));
  api_->sgemm = reinterpret_cast<SgemmFn>(sym("cublasSgemm_v2"));
  api_->dgemm = reinterpret_cast<DgemmFn>(sym("cublasDgemm_v2"));
  api_->sgemm_batched = reinterpret_cast<GemmBatchedFn<float>>(sym("cublasSgemmStridedBatched"));
  api_->dgemm_batched = reinterpret_cast<GemmBatchedFn<double>>(sym("cublasDgemmStridedBatched"));
  api_->strsm = reinterpret_cast<TrsmFn<float>>(sym("cublasStrsm_v2"));
  api_->dtrsm = reinterpret_cast<TrsmFn<double>>(sym("cublasDtrsm_v2"));
  api_->strmm = reinterpret_cast<TrmmFn<float>>(sym("cublasStrmm_v2"));
  api_->dtrmm = reinterpret_cast<TrmmFn<double>>(sym("cublasDtrmm_v2"));
  if (!api_->create || !api_->sgemm || !api_->dgemm || !api_->strsm || !api_->dtrsm || !api_->strmm || !api_->dtrmm)
    reason_ = "the loaded libcublas lacks cublasCreate_v2 or one of cublas[SD]{gemm,trsm,trmm}_v2";
}

void* Cublas::handle(int device) const { return api_->handles.get(device, api_->create, "cublasCreate"); }

void Cublas::trsm(int device, bool single, bool right, bool lower, bool trans, bool unit, std::int64_t n,
                  std::int64_t nrhs, const void* a, std::int64_t lda, void* b, std::int64_t ldb) const {
  triangular(true, device, single, right, lower, trans, unit, n, nrhs, a, lda, b, ldb);
}

void Cublas::trmm(int device, bool single, bool right, bool lower, bool trans, bool unit, std::int64_t n,
                  std::int64_t nrhs, const void* a, std::int64_t lda, void* b, std::int64_t ldb) const {
  triangular(false, device, single, right, lower, trans, unit, n, nrhs, a, lda, b, ldb);
}

namespace {
template <class T>
Status run_triangular(TrsmFn<T> trsm, TrmmFn<T> trmm, bool solve, Handle h, int side, int uplo, int op, int diag,
                      int rows, int cols, const void* a, int lda, void* b, int ldb) {
  const T one = 1;
  const T* A = static_cast<const T*>(a);
  T* B = static_cast<T*>(b);
  return solve ? trsm(h, side, uplo, op, diag, rows, cols, &one, A, lda, B, ldb)
               : trmm(h, side, uplo, op, diag, rows, cols, &one, A, lda, B, ldb, B, ldb);
}
}  // namespace

void Cublas::triangular(bool solve, int device, bool single, bool right, bool lower, bool trans, bool unit,
                        std::int64_t n, std::int64_t nrhs, const void* a, std::int64_t lda, void* b,
                        std::int64_t ldb) const {
  const char* what = solve ? "trsm" : "trmm";
  for (std::int64_t v : {n, nrhs, lda, ldb})
    THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
        << "cuBLAS " << what << ": a size or leading dimension of " << v << " does not fit cuBLAS's 32-bit int";
  Handle h = handle(device);
  const int side = right ? kSideRight : kSideLeft, uplo = lower ? kFillLower : kFillUpper, op = trans ? kOpT : kOpN,
            diag = unit ? kDiagUnit : kDiagNonUnit;
  // B is n x nrhs (left) or nrhs x n (right): cuBLAS's m x n.
  const int N = static_cast<int>(n), R = static_cast<int>(nrhs), LA = static_cast<int>(lda), LB = static_cast<int>(ldb);
  const int rows = right ? R : N, cols = right ? N : R;
  const Status s =
      single
          ? run_triangular<float>(api_->strsm, api_->strmm, solve, h, side, uplo, op, diag, rows, cols, a, LA, b, LB)
          : run_triangular<double>(api_->dtrsm, api_->dtrmm, solve, h, side, uplo, op, diag, rows, cols, a, LA, b, LB);
  THEANO_USER_CHECK(s == 0, Error) << "cuBLAS " << (single ? "S" : "D") << what << " failed with status " << s;
}

void Cublas::gemm(int device, bool single, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                  double alpha, const void* a, std::int64_t lda, const void* b, std::int64_t ldb, double beta, void* c,
                  std::int64_t ldc) const {
  for (std::int64_t v : {m, n, k, lda, ldb, ldc})
    THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
        << "cuBLAS gemm: a size or leading dimension of " << v << " does not fit cuBLAS's 32-bit int";
  Handle h = handle(device);
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the
  // operands swap, the transpose flags stay with them.
  const int ta = trans_b ? kOpT : kOpN, tb = trans_a ? kOpT : kOpN;
  const int M = static_cast<int>(n), N = static_cast<int>(m), K = static_cast<int>(k);
  Status s = 0;
  if (single) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    s = api_->sgemm(h, ta, tb, M, N, K, &al, static_cast<const float*>(b), static_cast<int>(ldb),
                    static_cast<const float*>(a), static_cast<int>(lda), &be, static_cast<float*>(c),
                    static_cast<int>(ldc));
  } else {
    s = api_->dgemm(h, ta, tb, M, N, K, &alpha, static_cast<const double*>(b), static_cast<int>(ldb),
                    static_cast<const double*>(a), static_cast<int>(lda), &beta, static_cast<double*>(c),
                    static_cast<int>(ldc));
  }
  THEANO_USER_CHECK(s == 0, Error) << "cuBLAS " << (single ? "Sgemm" : "Dgemm") << " failed with status " << s;
}

void Cublas::gemm_strided_batched(int device, bool single, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
                                  std::int64_t k, double alpha, const void* a, std::int64_t lda, std::int64_t stride_a,
                                  const void* b, std::int64_t ldb, std::int64_t stride_b, double beta, void* c,
                                  std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) const {
  const std::int64_t item = single ? 4 : 8;
  if ((single ? api_->sgemm_batched == nullptr : api_->dgemm_batched == nullptr) || batch > INT_MAX) {
    for (std::int64_t i = 0; i < batch; ++i)
      gemm(device, single, trans_a, trans_b, m, n, k, alpha, static_cast<const char*>(a) + i * stride_a * item, lda,
           static_cast<const char*>(b) + i * stride_b * item, ldb, beta, static_cast<char*>(c) + i * stride_c * item,
           ldc);
    return;
  }
  for (std::int64_t v : {m, n, k, lda, ldb, ldc})
    THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
        << "cuBLAS gemmStridedBatched: a size or leading dimension of " << v << " does not fit cuBLAS's 32-bit int";
  Handle h = handle(device);
  // As gemm: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const int ta = trans_b ? kOpT : kOpN, tb = trans_a ? kOpT : kOpN;
  const int M = static_cast<int>(n), N = static_cast<int>(m), K = static_cast<int>(k), nb = static_cast<int>(batch);
  Status s = 0;
  if (single) {
    const float al = static_cast<float>(alpha), be = static_cast<float>(beta);
    s = api_->sgemm_batched(h, ta, tb, M, N, K, &al, static_cast<const float*>(b), static_cast<int>(ldb), stride_b,
                            static_cast<const float*>(a), static_cast<int>(lda), stride_a, &be,
                            static_cast<float*>(c), static_cast<int>(ldc), stride_c, nb);
  } else {
    s = api_->dgemm_batched(h, ta, tb, M, N, K, &alpha, static_cast<const double*>(b), static_cast<int>(ldb),
                            stride_b, static_cast<const double*>(a), static_cast<int>(lda), stride_a, &beta,
                            static_cast<double*>(c), static_cast<int>(ldc), stride_c, nb);
  }
  THEANO_USER_CHECK(s == 0, Error) << "cuBLAS " << (single ? "Sgemm" : "Dgemm") << "StridedBatched failed with status "
                                   << s;
}

}  // namespace theano::codegen::cuda
