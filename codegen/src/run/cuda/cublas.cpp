// cuBLAS through dlopen (cublas.h).
#include "cublas.h"

#include <dlfcn.h>
#include <theano/runtime/error.h>

#include <climits>
#include <map>
#include <mutex>

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
using StrsmFn = Status (*)(Handle, int, int, int, int, int, int, const float*, const float*, int, float*, int);
using DtrsmFn = Status (*)(Handle, int, int, int, int, int, int, const double*, const double*, int, double*, int);
constexpr int kSideLeft = 0, kFillLower = 0, kFillUpper = 1, kDiagNonUnit = 0, kDiagUnit = 1;  // cuBLAS enums
// The library names tried, newest first (the toolkit under /usr/local/cuda is CUDA 13).
constexpr const char* kNames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
}  // namespace

struct Cublas::Api {
  void* lib = nullptr;
  CreateFn create = nullptr;
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  StrsmFn strsm = nullptr;
  DtrsmFn dtrsm = nullptr;
  std::map<int, Handle> handles;  // one per device, created in its primary context
};

const Cublas& Cublas::instance() {
  static const Cublas* c = new Cublas();  // never closed, never destroyed
  if (!c->reason_.empty())
    throw Error("cuBLAS is needed for the BLAS ops (Dot, Gemm, Gemv, Ger) and solve_triangular on the GPU: " +
                c->reason_);
  return *c;
}

Cublas::Cublas() : api_(std::make_unique<Api>()) {
  std::string tried;
  for (const char* name : kNames) {
    api_->lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (api_->lib) break;
    const char* e = ::dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (e ? e : name);
  }
  if (!api_->lib) {
    reason_ = "cannot dlopen cuBLAS (" + tried + "); install the CUDA toolkit's libcublas";
    return;
  }
  api_->create = reinterpret_cast<CreateFn>(::dlsym(api_->lib, "cublasCreate_v2"));
  api_->sgemm = reinterpret_cast<SgemmFn>(::dlsym(api_->lib, "cublasSgemm_v2"));
  api_->dgemm = reinterpret_cast<DgemmFn>(::dlsym(api_->lib, "cublasDgemm_v2"));
  api_->strsm = reinterpret_cast<StrsmFn>(::dlsym(api_->lib, "cublasStrsm_v2"));
  api_->dtrsm = reinterpret_cast<DtrsmFn>(::dlsym(api_->lib, "cublasDtrsm_v2"));
  if (!api_->create || !api_->sgemm || !api_->dgemm || !api_->strsm || !api_->dtrsm)
    reason_ = "the loaded libcublas lacks cublasCreate_v2 / cublasSgemm_v2 / cublasDgemm_v2 / cublas?trsm_v2";
}

void* Cublas::handle(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = api_->handles.find(device);
  if (it == api_->handles.end()) {
    Handle h = nullptr;
    const Status s = api_->create(&h);
    THEANO_USER_CHECK(s == 0, Error) << "cublasCreate failed with status " << s;
    it = api_->handles.emplace(device, h).first;  // kept for the process's life
  }
  return it->second;
}

void Cublas::trsm(int device, bool single, bool lower, bool trans, bool unit, std::int64_t n, std::int64_t nrhs,
                  const void* a, std::int64_t lda, void* b, std::int64_t ldb) const {
  for (std::int64_t v : {n, nrhs, lda, ldb})
    THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
        << "cuBLAS trsm: a size or leading dimension of " << v << " does not fit cuBLAS's 32-bit int";
  Handle h = handle(device);
  const int uplo = lower ? kFillLower : kFillUpper, op = trans ? kOpT : kOpN, diag = unit ? kDiagUnit : kDiagNonUnit;
  const int N = static_cast<int>(n), R = static_cast<int>(nrhs), LA = static_cast<int>(lda), LB = static_cast<int>(ldb);
  Status s = 0;
  if (single) {
    const float one = 1;
    s = api_->strsm(h, kSideLeft, uplo, op, diag, N, R, &one, static_cast<const float*>(a), LA, static_cast<float*>(b),
                    LB);
  } else {
    const double one = 1;
    s = api_->dtrsm(h, kSideLeft, uplo, op, diag, N, R, &one, static_cast<const double*>(a), LA,
                    static_cast<double*>(b), LB);
  }
  THEANO_USER_CHECK(s == 0, Error) << "cuBLAS " << (single ? "Strsm" : "Dtrsm") << " failed with status " << s;
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

}  // namespace theano::codegen::cuda
