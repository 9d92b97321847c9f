// cuSOLVER's dense routines through dlopen (cusolver.h).
#include "cusolver.h"

#include <dlfcn.h>
#include <theano/runtime/error.h>

#include <climits>

#include "dl_library.h"

namespace theano::codegen::cuda {

namespace {
// The cuSOLVER dense API, declared here by its ABI (no cuSOLVER header is needed to build).
using Handle = void*;
using Status = int;
constexpr int kFillLower = 0, kFillUpper = 1, kOpN = 0, kOpT = 1, kEigNoVector = 0, kEigVector = 1;
using CreateFn = Status (*)(Handle*);
template <class T>
struct Fns {
  using PotrfSize = Status (*)(Handle, int, int, T*, int, int*);
  using Potrf = Status (*)(Handle, int, int, T*, int, T*, int, int*);
  using Potrs = Status (*)(Handle, int, int, int, const T*, int, T*, int, int*);
  using GetrfSize = Status (*)(Handle, int, int, T*, int, int*);
  using Getrf = Status (*)(Handle, int, int, T*, int, T*, int*, int*);
  using Getrs = Status (*)(Handle, int, int, int, const T*, int, const int*, T*, int, int*);
  using SyevdSize = Status (*)(Handle, int, int, int, const T*, int, const T*, int*);
  using Syevd = Status (*)(Handle, int, int, int, T*, int, T*, T*, int, int*);
  using GeqrfSize = Status (*)(Handle, int, int, T*, int, int*);
  using Geqrf = Status (*)(Handle, int, int, T*, int, T*, T*, int, int*);
  using OrgqrSize = Status (*)(Handle, int, int, int, const T*, int, const T*, int*);
  using Orgqr = Status (*)(Handle, int, int, int, T*, int, const T*, T*, int, int*);
  using GesvdSize = Status (*)(Handle, int, int, int*);
  using Gesvd = Status (*)(Handle, signed char, signed char, int, int, T*, int, T*, T*, int, T*, int, T*, int, T*,
                           int*);
  PotrfSize potrf_size = nullptr;
  Potrf potrf = nullptr;
  Potrs potrs = nullptr;
  GetrfSize getrf_size = nullptr;
  Getrf getrf = nullptr;
  Getrs getrs = nullptr;
  SyevdSize syevd_size = nullptr;
  Syevd syevd = nullptr;
  GeqrfSize geqrf_size = nullptr;
  Geqrf geqrf = nullptr;
  OrgqrSize orgqr_size = nullptr;
  Orgqr orgqr = nullptr;
  GesvdSize gesvd_size = nullptr;
  Gesvd gesvd = nullptr;

  // Looks the routines up with prefix P ("S" / "D"); false when one is missing.
  bool load(void* lib, const char* p) {
    auto sym = [&](const char* name) { return ::dlsym(lib, (std::string("cusolverDn") + p + name).c_str()); };
    potrf_size = reinterpret_cast<PotrfSize>(sym("potrf_bufferSize"));
    potrf = reinterpret_cast<Potrf>(sym("potrf"));
    potrs = reinterpret_cast<Potrs>(sym("potrs"));
    getrf_size = reinterpret_cast<GetrfSize>(sym("getrf_bufferSize"));
    getrf = reinterpret_cast<Getrf>(sym("getrf"));
    getrs = reinterpret_cast<Getrs>(sym("getrs"));
    syevd_size = reinterpret_cast<SyevdSize>(sym("syevd_bufferSize"));
    syevd = reinterpret_cast<Syevd>(sym("syevd"));
    geqrf_size = reinterpret_cast<GeqrfSize>(sym("geqrf_bufferSize"));
    geqrf = reinterpret_cast<Geqrf>(sym("geqrf"));
    orgqr_size = reinterpret_cast<OrgqrSize>(sym("orgqr_bufferSize"));
    orgqr = reinterpret_cast<Orgqr>(sym("orgqr"));
    gesvd_size = reinterpret_cast<GesvdSize>(sym("gesvd_bufferSize"));
    gesvd = reinterpret_cast<Gesvd>(sym("gesvd"));
    return potrf_size && potrf && potrs && getrf_size && getrf && getrs && syevd_size && syevd && geqrf_size && geqrf &&
           orgqr_size && orgqr && gesvd_size && gesvd;
  }
};

int as_int(std::int64_t v, const char* routine) {
  THEANO_USER_CHECK(v >= 0 && v <= INT_MAX, ValueError)
      << "cuSOLVER " << routine << ": a size or leading dimension of " << v << " does not fit cuSOLVER's 32-bit int";
  return static_cast<int>(v);
}

void check(Status s, bool single, const char* routine) {
  THEANO_USER_CHECK(s == 0, Error) << "cuSOLVER " << (single ? "S" : "D") << routine << " failed with status " << s;
}

/// The workspace of `lwork` elements of T (at least one).
template <class T>
std::shared_ptr<void> take(const Cusolver::Workspace& workspace, int lwork) {
  return workspace(static_cast<std::size_t>(lwork > 0 ? lwork : 1) * sizeof(T));
}
}  // namespace

struct Cusolver::Api {
  void* lib = nullptr;
  CreateFn create = nullptr;
  Fns<float> s;
  Fns<double> d;
  mutable DeviceHandles handles;
};

const Cusolver& Cusolver::instance() {
  static const Cusolver* c = new Cusolver();  // never closed, never destroyed
  if (!c->reason_.empty())
    throw Error(
        "cuSOLVER is needed for cholesky, cho_solve, solve, inv, det, slogdet, lu_factor, eigh, qr and svd on the "
        "GPU: " +
        c->reason_);
  return *c;
}

std::string Cusolver::unavailable_reason() {
  try {
    instance();
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}

Cusolver::Cusolver() : api_(std::make_unique<Api>()) {
  // The names tried, newest first (CUDA 13's toolkit ships libcusolver.so.12).
  api_->lib = dlopen_first({"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}, "cuSOLVER",
                           "install the CUDA toolkit's libcusolver", reason_);
  if (!api_->lib) return;
  api_->create = reinterpret_cast<CreateFn>(::dlsym(api_->lib, "cusolverDnCreate"));
  if (!api_->create || !api_->s.load(api_->lib, "S") || !api_->d.load(api_->lib, "D"))
    reason_ =
        "the loaded libcusolver lacks cusolverDnCreate or one of "
        "cusolverDn[SD]{potrf,potrs,getrf,getrs,syevd,geqrf,orgqr,gesvd}";
}

void* Cusolver::handle(int device) const { return api_->handles.get(device, api_->create, "cusolverDnCreate"); }

namespace {
template <class T>
void run_potrf(const Fns<T>& f, Handle h, bool single, bool lower, int n, void* a, int lda, void* info,
               const Cusolver::Workspace& workspace) {
  const int uplo = lower ? kFillLower : kFillUpper;
  int lwork = 0;
  check(f.potrf_size(h, uplo, n, static_cast<T*>(a), lda, &lwork), single, "potrf_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(f.potrf(h, uplo, n, static_cast<T*>(a), lda, static_cast<T*>(work.get()), lwork, static_cast<int*>(info)),
        single, "potrf");
}

template <class T>
void run_getrf(const Fns<T>& f, Handle h, bool single, int n, void* a, int lda, void* ipiv, void* info,
               const Cusolver::Workspace& workspace) {
  int lwork = 0;
  check(f.getrf_size(h, n, n, static_cast<T*>(a), lda, &lwork), single, "getrf_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(f.getrf(h, n, n, static_cast<T*>(a), lda, static_cast<T*>(work.get()), static_cast<int*>(ipiv),
                static_cast<int*>(info)),
        single, "getrf");
}

template <class T>
void run_syevd(const Fns<T>& f, Handle h, bool single, bool vectors, bool lower, int n, void* a, int lda, void* w,
               void* info, const Cusolver::Workspace& workspace) {
  const int jobz = vectors ? kEigVector : kEigNoVector, uplo = lower ? kFillLower : kFillUpper;
  int lwork = 0;
  check(f.syevd_size(h, jobz, uplo, n, static_cast<const T*>(a), lda, static_cast<const T*>(w), &lwork), single,
        "syevd_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(f.syevd(h, jobz, uplo, n, static_cast<T*>(a), lda, static_cast<T*>(w), static_cast<T*>(work.get()), lwork,
                static_cast<int*>(info)),
        single, "syevd");
}
template <class T>
void run_geqrf(const Fns<T>& f, Handle h, bool single, int m, int n, void* a, int lda, void* tau, void* info,
               const Cusolver::Workspace& workspace) {
  int lwork = 0;
  check(f.geqrf_size(h, m, n, static_cast<T*>(a), lda, &lwork), single, "geqrf_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(f.geqrf(h, m, n, static_cast<T*>(a), lda, static_cast<T*>(tau), static_cast<T*>(work.get()), lwork,
                static_cast<int*>(info)),
        single, "geqrf");
}

template <class T>
void run_orgqr(const Fns<T>& f, Handle h, bool single, int m, int n, int k, void* a, int lda, const void* tau,
               void* info, const Cusolver::Workspace& workspace) {
  int lwork = 0;
  check(f.orgqr_size(h, m, n, k, static_cast<const T*>(a), lda, static_cast<const T*>(tau), &lwork), single,
        "orgqr_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(f.orgqr(h, m, n, k, static_cast<T*>(a), lda, static_cast<const T*>(tau), static_cast<T*>(work.get()), lwork,
                static_cast<int*>(info)),
        single, "orgqr");
}

template <class T>
void run_gesvd(const Fns<T>& f, Handle h, bool single, bool vectors, bool full, int m, int n, void* a, int lda, void* s,
               void* u, void* vt, void* info, const Cusolver::Workspace& workspace) {
  // m >= n: Vt is n x n whether or not `full` (jobvt 'A'); U m x m ('A') or m x n ('S').
  const signed char jobu = !vectors ? 'N' : full ? 'A' : 'S', jobvt = vectors ? 'A' : 'N';
  int lwork = 0;
  check(f.gesvd_size(h, m, n, &lwork), single, "gesvd_bufferSize");
  const std::shared_ptr<void> work = take<T>(workspace, lwork);
  check(
      f.gesvd(h, jobu, jobvt, m, n, static_cast<T*>(a), lda, static_cast<T*>(s), static_cast<T*>(u), m,
              static_cast<T*>(vt), n > 1 ? n : 1, static_cast<T*>(work.get()), lwork, nullptr, static_cast<int*>(info)),
      single, "gesvd");
}
}  // namespace

void Cusolver::geqrf(int device, bool single, std::int64_t m, std::int64_t n, void* a, std::int64_t lda, void* tau,
                     void* info, const Workspace& workspace) const {
  const int M = as_int(m, "geqrf"), N = as_int(n, "geqrf"), LDA = as_int(lda, "geqrf");
  Handle h = handle(device);
  if (single)
    run_geqrf(api_->s, h, true, M, N, a, LDA, tau, info, workspace);
  else
    run_geqrf(api_->d, h, false, M, N, a, LDA, tau, info, workspace);
}

void Cusolver::orgqr(int device, bool single, std::int64_t m, std::int64_t n, std::int64_t k, void* a, std::int64_t lda,
                     const void* tau, void* info, const Workspace& workspace) const {
  const int M = as_int(m, "orgqr"), N = as_int(n, "orgqr"), K = as_int(k, "orgqr"), LDA = as_int(lda, "orgqr");
  Handle h = handle(device);
  if (single)
    run_orgqr(api_->s, h, true, M, N, K, a, LDA, tau, info, workspace);
  else
    run_orgqr(api_->d, h, false, M, N, K, a, LDA, tau, info, workspace);
}

void Cusolver::gesvd(int device, bool single, bool vectors, bool full, std::int64_t m, std::int64_t n, void* a,
                     std::int64_t lda, void* s, void* u, void* vt, void* info, const Workspace& workspace) const {
  const int M = as_int(m, "gesvd"), N = as_int(n, "gesvd"), LDA = as_int(lda, "gesvd");
  THEANO_INTERNAL_CHECK(M >= N) << "cuSOLVER's gesvd needs m >= n (its caller transposes): " << M << " x " << N;
  Handle h = handle(device);
  if (single)
    run_gesvd(api_->s, h, true, vectors, full, M, N, a, LDA, s, u, vt, info, workspace);
  else
    run_gesvd(api_->d, h, false, vectors, full, M, N, a, LDA, s, u, vt, info, workspace);
}

void Cusolver::potrf(int device, bool single, bool lower, std::int64_t n, void* a, std::int64_t lda, void* info,
                     const Workspace& workspace) const {
  const int N = as_int(n, "potrf"), LDA = as_int(lda, "potrf");
  Handle h = handle(device);
  if (single)
    run_potrf(api_->s, h, true, lower, N, a, LDA, info, workspace);
  else
    run_potrf(api_->d, h, false, lower, N, a, LDA, info, workspace);
}

void Cusolver::potrs(int device, bool single, bool lower, std::int64_t n, std::int64_t nrhs, const void* a,
                     std::int64_t lda, void* b, std::int64_t ldb, void* info) const {
  const int N = as_int(n, "potrs"), R = as_int(nrhs, "potrs"), LDA = as_int(lda, "potrs"), LDB = as_int(ldb, "potrs");
  const int uplo = lower ? kFillLower : kFillUpper;
  Handle h = handle(device);
  if (single)
    check(api_->s.potrs(h, uplo, N, R, static_cast<const float*>(a), LDA, static_cast<float*>(b), LDB,
                        static_cast<int*>(info)),
          true, "potrs");
  else
    check(api_->d.potrs(h, uplo, N, R, static_cast<const double*>(a), LDA, static_cast<double*>(b), LDB,
                        static_cast<int*>(info)),
          false, "potrs");
}

void Cusolver::getrf(int device, bool single, std::int64_t n, void* a, std::int64_t lda, void* ipiv, void* info,
                     const Workspace& workspace) const {
  const int N = as_int(n, "getrf"), LDA = as_int(lda, "getrf");
  Handle h = handle(device);
  if (single)
    run_getrf(api_->s, h, true, N, a, LDA, ipiv, info, workspace);
  else
    run_getrf(api_->d, h, false, N, a, LDA, ipiv, info, workspace);
}

void Cusolver::getrs(int device, bool single, bool trans, std::int64_t n, std::int64_t nrhs, const void* a,
                     std::int64_t lda, const void* ipiv, void* b, std::int64_t ldb, void* info) const {
  const int N = as_int(n, "getrs"), R = as_int(nrhs, "getrs"), LDA = as_int(lda, "getrs"), LDB = as_int(ldb, "getrs");
  const int op = trans ? kOpT : kOpN;
  Handle h = handle(device);
  if (single)
    check(api_->s.getrs(h, op, N, R, static_cast<const float*>(a), LDA, static_cast<const int*>(ipiv),
                        static_cast<float*>(b), LDB, static_cast<int*>(info)),
          true, "getrs");
  else
    check(api_->d.getrs(h, op, N, R, static_cast<const double*>(a), LDA, static_cast<const int*>(ipiv),
                        static_cast<double*>(b), LDB, static_cast<int*>(info)),
          false, "getrs");
}

void Cusolver::syevd(int device, bool single, bool vectors, bool lower, std::int64_t n, void* a, std::int64_t lda,
                     void* w, void* info, const Workspace& workspace) const {
  const int N = as_int(n, "syevd"), LDA = as_int(lda, "syevd");
  Handle h = handle(device);
  if (single)
    run_syevd(api_->s, h, true, vectors, lower, N, a, LDA, w, info, workspace);
  else
    run_syevd(api_->d, h, false, vectors, lower, N, a, LDA, w, info, workspace);
}

}  // namespace theano::codegen::cuda
