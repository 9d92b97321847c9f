/// \file
/// Shared pieces of the codegen tests: small header-free C++ translation units of
/// the kind the CLinker will generate (C-ABI entry, error code + message buffer),
/// their entry-point types, and an anonymous-memory probe for the leak tests.
#pragma once

#include <cstddef>
#include <cstdio>
#include <malloc.h>
#include <string>

#include "sanitized.h"
#ifdef THEANO_TESTS_SANITIZED
// From the sanitizer runtime (<sanitizer/allocator_interface.h>, which GCC's
// Debian packages do not ship).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes(void);
#endif

namespace theano_test {

/// An elementwise loop over double arrays; `scale` is baked in so that tests can
/// make many distinct sources. Returns 3 and a message for a negative size.
inline std::string elemwise_source(double scale = 2.0) {
  return R"(// elementwise test kernel: z = x*y + scale*x - y/(1+x*x)
static void set_message(char* msg, int cap, const char* text) {
  int i = 0;
  for (; i + 1 < cap && text[i]; ++i) msg[i] = text[i];
  if (cap > 0) msg[i] = 0;
}
extern "C" int jit_entry(void** inputs, void** outputs, long long n, char* msg, int cap) {
  if (n < 0) { set_message(msg, cap, "jit_entry: negative size"); return 3; }
  const double* x = (const double*)inputs[0];
  const double* y = (const double*)inputs[1];
  double* z = (double*)outputs[0];
  for (long long i = 0; i < n; ++i)
    z[i] = x[i] * y[i] + )" + std::to_string(scale) + R"( * x[i] - y[i] / (1.0 + x[i] * x[i]);
  return 0;
}
)";
}

/// The signature of `jit_entry` in elemwise_source().
using ElemwiseEntry = int (*)(void**, void**, long long, char*, int);

/// Reference for elemwise_source().
inline double elemwise_reference(double x, double y, double scale = 2.0) {
  return x * y + scale * x - y / (1.0 + x * x);
}

/// Calls OpenBLAS through a hand-written CBLAS prototype (no headers), and exposes
/// the address it links `cblas_dgemm` to.
inline const char* gemm_source() {
  return R"(extern "C" void cblas_dgemm(int order, int transa, int transb, int m, int n, int k,
    double alpha, const double* a, int lda, const double* b, int ldb, double beta, double* c, int ldc);
extern "C" int jit_gemm(const double* a, const double* b, double* c, int m, int n, int k) {
  cblas_dgemm(101 /*RowMajor*/, 111 /*NoTrans*/, 111, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
  return 0;
}
extern "C" void* jit_dgemm_address() { return (void*)&cblas_dgemm; }
)";
}

/// An exp loop that LLVM vectorizes into libmvec calls under -fno-math-errno
/// -fveclib=libmvec.
inline const char* exp_source() {
  return R"(extern "C" int jit_exp(const double* x, double* y, long long n) {
  for (long long i = 0; i < n; ++i) y[i] = __builtin_exp(x[i]);
  return 0;
}
)";
}

/// Anonymous resident memory of this process in bytes (RssAnon of
/// /proc/self/status), after handing free heap pages back to the kernel.
/// File-backed pages are left out on purpose: pages of libLLVM's code fault
/// in whenever a path runs for the first time (more often on a loaded
/// machine), which is not memory the process keeps; a leak is anonymous.
/// Under AddressSanitizer this mostly measures ASan's allocator (a quarantine
/// of freed chunks, size-class regions it never trims), so leak tests there
/// give it a wider bound and rely on heap_in_use() for the exact check.
inline long long rss_bytes() {
  ::malloc_trim(0);
  long long kib = 0;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "RssAnon: %lld kB", &kib) == 1) break;
    std::fclose(f);
  }
  return kib * 1024;
}

/// Bytes the program holds in live heap allocations right now, as the
/// allocator counts them: independent of fragmentation, free lists and
/// quarantine, so a leak of n bytes per cycle shows as n bytes per cycle.
/// Memory mapped outside malloc (JIT code pages, dlopen) is not in it:
/// rss_bytes() covers that.
inline long long heap_in_use() {
#ifdef THEANO_TESTS_SANITIZED
  return static_cast<long long>(__sanitizer_get_current_allocated_bytes());
#else
  const struct mallinfo2 m = ::mallinfo2();
  return static_cast<long long>(m.uordblks + m.hblkhd);
#endif
}

/// The bound a leak test puts on RssAnon growth: `bytes` in a plain build,
/// four times that under AddressSanitizer (see rss_bytes()).
inline long long rss_bound(long long bytes) {
#ifdef THEANO_TESTS_SANITIZED
  return 4 * bytes;
#else
  return bytes;
#endif
}

}  // namespace theano_test
