// The forwarders of blas_library.h: every CBLAS, LAPACK and openblas_*
// function theano-cpp calls, defined here with OpenBLAS's signature (cblas.h
// and kernels/linalg_call.h are included, so a definition that disagrees with
// its declaration does not compile) and calling the function of that name in
// libopenblas, opened on the first call.
#include "theano/runtime/blas_library.h"

#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg_call.h"

#include <cblas.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

// Every function the forwarders below define, in one list.
#define THEANO_BLAS_FUNCTIONS(X)                                                                            \
  X(cblas_sgemm) X(cblas_dgemm) X(cblas_sgemv) X(cblas_dgemv) X(cblas_sger) X(cblas_dger) X(cblas_sdot)     \
  X(cblas_ddot) X(openblas_get_num_threads) X(openblas_set_num_threads) X(openblas_get_config)              \
  X(openblas_get_corename) X(spotrf_) X(dpotrf_) X(spotrs_) X(dpotrs_) X(strtrs_) X(dtrtrs_) X(sgetrf_)     \
  X(dgetrf_) X(sgetrs_) X(dgetrs_) X(ssyevd_) X(dsyevd_) X(sgesdd_) X(dgesdd_) X(sgeqrf_) X(dgeqrf_)        \
  X(sorgqr_) X(dorgqr_) X(sgeev_) X(dgeev_) X(strmm_) X(dtrmm_) X(strsm_) X(dtrsm_)     \
  X(strtri_) X(dtrtri_) X(sgemm_) X(dgemm_) X(ssyrk_) X(dsyrk_)

namespace theano::runtime {
namespace {

enum Slot : int {
#define THEANO_BLAS_SLOT(name) k_##name,
  THEANO_BLAS_FUNCTIONS(THEANO_BLAS_SLOT)
#undef THEANO_BLAS_SLOT
      kSlots
};

constexpr const char* kNames[kSlots] = {
#define THEANO_BLAS_NAME(name) #name,
    THEANO_BLAS_FUNCTIONS(THEANO_BLAS_NAME)
#undef THEANO_BLAS_NAME
};

struct Library {
  std::mutex mu;
  std::atomic<bool> ready{false};  // slots filled (release), read without mu (acquire)
  void* slots[kSlots] = {};
  int pending_threads = 0;  // openblas_set_num_threads before the load (0: none)
};

Library& library() {
  static Library* lib = new Library;  // never destroyed: forwarders may run during exit
  return *lib;
}

// The OpenBLAS kernel set for this CPU, by what it can run (the OS saving
// the vector registers included: __builtin_cpu_supports checks that), or
// null: for the CPU whose model OpenBLAS does not know (blas_library.h).
const char* kernels_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512cd");
  if (avx512) return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return nullptr;
}

// Opens the library under mu; returns the empty string or what failed.
std::string open_locked(Library& lib) {
  void* h = ::dlopen(kBlasLibrary, RTLD_NOW | RTLD_LOCAL);
  if (h && !std::getenv("OPENBLAS_CORETYPE")) {
    // OpenBLAS picks its kernels by the CPU's model, in its constructor; a
    // model it does not know gets the Prescott (SSE3) kernels, whatever the
    // CPU can run: Debian 12's 0.3.21 on Intel's Emerald Rapids, where its
    // dgemm then runs 5x slower (bench/README.md). Only then, and only where
    // the user has not chosen (OPENBLAS_CORETYPE), it is opened again with
    // the kernels the CPU's features allow, through OpenBLAS's own
    // OPENBLAS_CORETYPE, set for that dlopen alone.
    auto corename = reinterpret_cast<char* (*)()>(::dlsym(h, "openblas_get_corename"));
    const char* better = kernels_for_this_cpu();
    if (corename && better && std::strcmp(corename(), "Prescott") == 0) {
      ::dlclose(h);  // its destructor stops its threads; nothing of it was called
      ::setenv("OPENBLAS_CORETYPE", better, 1);
      h = ::dlopen(kBlasLibrary, RTLD_NOW | RTLD_LOCAL);
      ::unsetenv("OPENBLAS_CORETYPE");
    }
  }
  if (!h) {
    const char* why = ::dlerror();
    return std::string("cannot open the BLAS library ") + kBlasLibrary + " (" + (why ? why : "dlopen failed") +
           "); install Debian's libopenblas0";
  }
  void* found[kSlots];
  for (int i = 0; i < kSlots; ++i) {
    found[i] = ::dlsym(h, kNames[i]);
    if (!found[i]) {
      ::dlclose(h);
      return std::string("the BLAS library ") + kBlasLibrary + " has no function " + kNames[i] +
             "; theano-cpp needs OpenBLAS with its LAPACK (Debian's libopenblas0)";
    }
  }
  for (int i = 0; i < kSlots; ++i) lib.slots[i] = found[i];
  if (lib.pending_threads > 0)
    reinterpret_cast<void (*)(int)>(lib.slots[k_openblas_set_num_threads])(lib.pending_threads);
  lib.ready.store(true, std::memory_order_release);
  return {};
}

// The slots, the library opened if it is not yet; "" or the failure.
std::string try_load() {
  Library& lib = library();
  if (lib.ready.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(lib.mu);
  if (lib.ready.load(std::memory_order_relaxed)) return {};
  return open_locked(lib);
}

// A forwarder's function. Plain C kernels call the forwarders and cannot take
// an exception, so a library that cannot be opened ends the process with the
// message; C++ callers run load_blas() first, which throws it instead.
template <typename F>
F fn(Slot s) {
  Library& lib = library();
  if (!lib.ready.load(std::memory_order_acquire)) [[unlikely]] {
    const std::string why = try_load();
    if (!why.empty()) {
      std::fprintf(stderr, "theano-cpp: %s (called %s)\n", why.c_str(), kNames[s]);
      std::abort();
    }
  }
  return reinterpret_cast<F>(lib.slots[s]);
}

}  // namespace

void load_blas() {
  const std::string why = try_load();
  if (!why.empty()) throw IOError(why);
}

bool blas_loaded() noexcept { return library().ready.load(std::memory_order_acquire); }

std::span<const BlasFunction> blas_functions() noexcept {
  static const BlasFunction table[kSlots] = {
#define THEANO_BLAS_ENTRY(name) {#name, reinterpret_cast<void*>(&::name)},
      THEANO_BLAS_FUNCTIONS(THEANO_BLAS_ENTRY)
#undef THEANO_BLAS_ENTRY
  };
  return table;
}

}  // namespace theano::runtime

using theano::runtime::fn;

#define THEANO_BLAS_FN(name) fn<decltype(&::name)>(theano::runtime::k_##name)

extern "C" {

void cblas_sgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha,
                 const float* a, blasint lda, const float* b, blasint ldb, float beta, float* c, blasint ldc) {
  THEANO_BLAS_FN(cblas_sgemm)(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_dgemm(CBLAS_ORDER o, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, double alpha,
                 const double* a, blasint lda, const double* b, blasint ldb, double beta, double* c, blasint ldc) {
  THEANO_BLAS_FN(cblas_dgemm)(o, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void cblas_sgemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blasint m, blasint n, float alpha, const float* a, blasint lda,
                 const float* x, blasint incx, float beta, float* y, blasint incy) {
  THEANO_BLAS_FN(cblas_sgemv)(o, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void cblas_dgemv(CBLAS_ORDER o, CBLAS_TRANSPOSE t, blasint m, blasint n, double alpha, const double* a, blasint lda,
                 const double* x, blasint incx, double beta, double* y, blasint incy) {
  THEANO_BLAS_FN(cblas_dgemv)(o, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void cblas_sger(CBLAS_ORDER o, blasint m, blasint n, float alpha, const float* x, blasint incx, const float* y,
                blasint incy, float* a, blasint lda) {
  THEANO_BLAS_FN(cblas_sger)(o, m, n, alpha, x, incx, y, incy, a, lda);
}
void cblas_dger(CBLAS_ORDER o, blasint m, blasint n, double alpha, const double* x, blasint incx, const double* y,
                blasint incy, double* a, blasint lda) {
  THEANO_BLAS_FN(cblas_dger)(o, m, n, alpha, x, incx, y, incy, a, lda);
}
float cblas_sdot(blasint n, const float* x, blasint incx, const float* y, blasint incy) {
  return THEANO_BLAS_FN(cblas_sdot)(n, x, incx, y, incy);
}
double cblas_ddot(blasint n, const double* x, blasint incx, const double* y, blasint incy) {
  return THEANO_BLAS_FN(cblas_ddot)(n, x, incx, y, incy);
}

// The thread count asked for before the library is open is kept and set when
// it opens: setting it must not open the library (c_linker.cpp sets it for
// every function when THEANO_FLAGS names a thread count).
int openblas_get_num_threads(void) {
  auto& lib = theano::runtime::library();
  if (!lib.ready.load(std::memory_order_acquire)) {
    std::lock_guard lock(lib.mu);
    if (!lib.ready.load(std::memory_order_relaxed) && lib.pending_threads > 0) return lib.pending_threads;
  }
  return THEANO_BLAS_FN(openblas_get_num_threads)();
}
void openblas_set_num_threads(int n) {
  auto& lib = theano::runtime::library();
  if (!lib.ready.load(std::memory_order_acquire)) {
    std::lock_guard lock(lib.mu);
    if (!lib.ready.load(std::memory_order_relaxed)) {
      lib.pending_threads = n;
      return;
    }
  }
  THEANO_BLAS_FN(openblas_set_num_threads)(n);
}
char* openblas_get_config(void) { return THEANO_BLAS_FN(openblas_get_config)(); }
char* openblas_get_corename(void) { return THEANO_BLAS_FN(openblas_get_corename)(); }

// LAPACK (kernels/linalg_call.h's declarations), per type.
#define THEANO_BLAS_LAPACK(T, P)                                                                                    \
  void P##potrf_(const char* u, const int* n, T* a, const int* lda, int* info, unsigned long lu) {                  \
    THEANO_BLAS_FN(P##potrf_)(u, n, a, lda, info, lu);                                                             \
  }                                                                                                                 \
  void P##potrs_(const char* u, const int* n, const int* nrhs, const T* a, const int* lda, T* b, const int* ldb,   \
                 int* info, unsigned long lu) {                                                                     \
    THEANO_BLAS_FN(P##potrs_)(u, n, nrhs, a, lda, b, ldb, info, lu);                                               \
  }                                                                                                                 \
  void P##trtrs_(const char* u, const char* t, const char* d, const int* n, const int* nrhs, const T* a,           \
                 const int* lda, T* b, const int* ldb, int* info, unsigned long lu, unsigned long lt,              \
                 unsigned long ld) {                                                                                \
    THEANO_BLAS_FN(P##trtrs_)(u, t, d, n, nrhs, a, lda, b, ldb, info, lu, lt, ld);                                 \
  }                                                                                                                 \
  void P##getrf_(const int* m, const int* n, T* a, const int* lda, int* ipiv, int* info) {                         \
    THEANO_BLAS_FN(P##getrf_)(m, n, a, lda, ipiv, info);                                                           \
  }                                                                                                                 \
  void P##getrs_(const char* t, const int* n, const int* nrhs, const T* a, const int* lda, const int* ipiv, T* b,   \
                 const int* ldb, int* info, unsigned long lt) {                                                     \
    THEANO_BLAS_FN(P##getrs_)(t, n, nrhs, a, lda, ipiv, b, ldb, info, lt);                                         \
  }                                                                                                                 \
  void P##syevd_(const char* jz, const char* u, const int* n, T* a, const int* lda, T* w, T* work,                  \
                 const int* lwork, int* iwork, const int* liwork, int* info, unsigned long ljz, unsigned long lu) { \
    THEANO_BLAS_FN(P##syevd_)(jz, u, n, a, lda, w, work, lwork, iwork, liwork, info, ljz, lu);                     \
  }                                                                                                                 \
  void P##gesdd_(const char* jz, const int* m, const int* n, T* a, const int* lda, T* s, T* u, const int* ldu,     \
                 T* vt, const int* ldvt, T* work, const int* lwork, int* iwork, int* info, unsigned long ljz) {     \
    THEANO_BLAS_FN(P##gesdd_)(jz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, ljz);               \
  }                                                                                                                 \
  void P##geqrf_(const int* m, const int* n, T* a, const int* lda, T* tau, T* work, const int* lwork, int* info) { \
    THEANO_BLAS_FN(P##geqrf_)(m, n, a, lda, tau, work, lwork, info);                                               \
  }                                                                                                                 \
  void P##orgqr_(const int* m, const int* n, const int* k, T* a, const int* lda, const T* tau, T* work,            \
                 const int* lwork, int* info) {                                                                     \
    THEANO_BLAS_FN(P##orgqr_)(m, n, k, a, lda, tau, work, lwork, info);                                            \
  }                                                                                                                 \
  void P##geev_(const char* jl, const char* jr, const int* n, T* a, const int* lda, T* wr, T* wi, T* vl,           \
                const int* ldvl, T* vr, const int* ldvr, T* work, const int* lwork, int* info, unsigned long ljl,  \
                unsigned long ljr) {                                                                                \
    THEANO_BLAS_FN(P##geev_)(jl, jr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork, info, ljl, ljr);          \
  }                                                                                                                 \
  void P##trmm_(const char* s, const char* u, const char* t, const char* d, const int* m, const int* n,            \
                const T* alpha, const T* a, const int* lda, T* b, const int* ldb, unsigned long ls,                \
                unsigned long lu, unsigned long lt, unsigned long ld) {                                            \
    THEANO_BLAS_FN(P##trmm_)(s, u, t, d, m, n, alpha, a, lda, b, ldb, ls, lu, lt, ld);                             \
  }                                                                                                                 \
  void P##trsm_(const char* s, const char* u, const char* t, const char* d, const int* m, const int* n,            \
                const T* alpha, const T* a, const int* lda, T* b, const int* ldb, unsigned long ls,                \
                unsigned long lu, unsigned long lt, unsigned long ld) {                                            \
    THEANO_BLAS_FN(P##trsm_)(s, u, t, d, m, n, alpha, a, lda, b, ldb, ls, lu, lt, ld);                             \
  }                                                                                                                 \
  void P##trtri_(const char* u, const char* d, const int* n, T* a, const int* lda, int* info, unsigned long lu,     \
                 unsigned long ld) {                                                                                \
    THEANO_BLAS_FN(P##trtri_)(u, d, n, a, lda, info, lu, ld);                                                      \
  }                                                                                                                 \
  void P##gemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const T* alpha,           \
                const T* a, const int* lda, const T* b, const int* ldb, const T* beta, T* c, const int* ldc,       \
                unsigned long lta, unsigned long ltb) {                                                            \
    THEANO_BLAS_FN(P##gemm_)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, lta, ltb);                      \
  }                                                                                                                 \
  void P##syrk_(const char* u, const char* t, const int* n, const int* k, const T* alpha, const T* a,              \
                const int* lda, const T* beta, T* c, const int* ldc, unsigned long lu, unsigned long lt) {        \
    THEANO_BLAS_FN(P##syrk_)(u, t, n, k, alpha, a, lda, beta, c, ldc, lu, lt);                                     \
  }
THEANO_BLAS_LAPACK(float, s)
THEANO_BLAS_LAPACK(double, d)
#undef THEANO_BLAS_LAPACK

}  // extern "C"
