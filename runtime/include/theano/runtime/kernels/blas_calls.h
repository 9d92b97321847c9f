/* \file
 * The BLAS calls of the C++ lowerings of Dot, Dot22, Gemm, Gemv, Ger and
 * BatchedDot (codegen/src/emit/lower/blas.cpp), per float type: OpenBLAS
 * when blas_layout.h's rule says it reads every operand in place, else plain
 * loops with a double accumulator (generated code has no scratch allocator
 * for a contiguous copy); they agree with perform
 * (compiler/src/tensor/blas/) within rounding. Special cases as in perform:
 * alpha == 0 or an empty inner dimension only scales by beta, and beta == 0
 * never reads the old values; a column-major output is computed as the
 * transposed product.
 *
 * Compiled once, into the host (codegen/src/run/host_kernels.cpp), and
 * reached through TheanoHostKernels (host_kernels.h): the same text for
 * every graph, a BLAS call's work behind each call, and 3-7% of the Clang
 * work of every unit that embedded it (docs/jit-and-cache.md, "Host
 * kernels").
 *
 * Operands are byte addresses with byte strides, of the function's element
 * type; sizes are element counts.
 */
#ifndef THEANO_RUNTIME_BLAS_CALLS_H
#define THEANO_RUNTIME_BLAS_CALLS_H

#include <cblas.h>
#include <stdint.h>

#include "blas_layout.h"

/* CBLAS's transpose enum from blas_layout.h's flag. */
static inline enum CBLAS_TRANSPOSE theano_blas_calls_trans(int t) { return (enum CBLAS_TRANSPOSE)t; }

/* T: the element type, S: its suffix (f32, f64), P: the CBLAS prefix (s, d). */
#define THEANO_BLAS_CALLS(T, S, P)                                                                                   \
  /* c (n elements, byte stride s) <- beta * c; beta == 0 clears without reading. */                                 \
  static void theano_blas_scale_##S(int64_t n, char* c, int64_t s, double beta) {                                    \
    if (beta == 1) return;                                                                                           \
    const T b = (T)beta;                                                                                             \
    for (int64_t i = 0; i < n; ++i, c += s) *(T*)c = beta == 0 ? (T)0 : *(T*)c * b;                                  \
  }                                                                                                                  \
  /* C (m x n) <- alpha * A (m x k) . B (k x n) + beta * C (beta == 0: C not read). */                               \
  static void theano_blas_gemm_##S(int64_t m, int64_t n, int64_t k, double alpha, const char* a, int64_t as0,        \
                                   int64_t as1, const char* b, int64_t bs0, int64_t bs1, double beta, char* c,       \
                                   int64_t cs0, int64_t cs1) {                                                       \
    const int64_t item = (int64_t)sizeof(T);                                                                         \
    int ta, tb, tc, lda, ldb, ldc;                                                                                   \
    if (m == 0 || n == 0) return;                                                                                    \
    if (k == 0 || alpha == 0) {                                                                                      \
      for (int64_t i = 0; i < m; ++i) theano_blas_scale_##S(n, c + i * cs0, cs1, beta);                              \
      return;                                                                                                        \
    }                                                                                                                \
    if (theano_blas_matrix(m, k, as0, as1, item, &ta, &lda) &&                                                       \
        theano_blas_matrix(k, n, bs0, bs1, item, &tb, &ldb) &&                                                       \
        theano_blas_matrix(m, n, cs0, cs1, item, &tc, &ldc)) {                                                       \
      if (tc == THEANO_BLAS_NO_TRANS)                                                                                \
        cblas_##P##gemm(CblasRowMajor, theano_blas_calls_trans(ta), theano_blas_calls_trans(tb), (int)m, (int)n,     \
                        (int)k, (T)alpha, (const T*)a, lda, (const T*)b, ldb, (T)beta, (T*)c, ldc);                  \
      else /* a column-major C: compute C^T = B^T . A^T */                                                           \
        cblas_##P##gemm(CblasRowMajor, theano_blas_calls_trans(theano_blas_flip(tb)),                                \
                        theano_blas_calls_trans(theano_blas_flip(ta)), (int)n, (int)m, (int)k, (T)alpha,             \
                        (const T*)b, ldb, (const T*)a, lda, (T)beta, (T*)c, ldc);                                    \
      return;                                                                                                        \
    }                                                                                                                \
    for (int64_t i = 0; i < m; ++i) {                                                                                \
      for (int64_t j = 0; j < n; ++j) {                                                                              \
        double acc = 0;                                                                                              \
        const char* pa = a + i * as0;                                                                                \
        const char* pb = b + j * bs1;                                                                                \
        for (int64_t p = 0; p < k; ++p, pa += as1, pb += bs0) acc += (double)*(const T*)pa * (double)*(const T*)pb;  \
        T* pc = (T*)(c + i * cs0 + j * cs1);                                                                         \
        double r = alpha * acc;                                                                                      \
        if (beta != 0) r += beta * (double)*pc;                                                                      \
        *pc = (T)r;                                                                                                  \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* y (m) <- alpha * A (m x n) . x (n) + beta * y (beta == 0: y not read). */                                       \
  static void theano_blas_gemv_##S(int64_t m, int64_t n, double alpha, const char* a, int64_t as0, int64_t as1,      \
                                   const char* x, int64_t xs, double beta, char* y, int64_t ys) {                    \
    const int64_t item = (int64_t)sizeof(T);                                                                         \
    int ta, lda, incx, incy;                                                                                         \
    if (m == 0) return;                                                                                              \
    if (n == 0 || alpha == 0) {                                                                                      \
      theano_blas_scale_##S(m, y, ys, beta);                                                                         \
      return;                                                                                                        \
    }                                                                                                                \
    if (theano_blas_matrix(m, n, as0, as1, item, &ta, &lda) && theano_blas_vector(n, xs, item, &incx) &&             \
        theano_blas_vector(m, ys, item, &incy)) {                                                                    \
      /* The stored (row-major) dimensions of A: a transposed layout swaps them. */                                  \
      const int sm = (int)(ta == THEANO_BLAS_NO_TRANS ? m : n), sn = (int)(ta == THEANO_BLAS_NO_TRANS ? n : m);      \
      cblas_##P##gemv(CblasRowMajor, theano_blas_calls_trans(ta), sm, sn, (T)alpha, (const T*)a, lda,                \
                      (const T*)x, incx, (T)beta, (T*)y, incy);                                                      \
      return;                                                                                                        \
    }                                                                                                                \
    for (int64_t i = 0; i < m; ++i) {                                                                                \
      double acc = 0;                                                                                                \
      const char* pa = a + i * as0;                                                                                  \
      const char* px = x;                                                                                            \
      for (int64_t p = 0; p < n; ++p, pa += as1, px += xs) acc += (double)*(const T*)pa * (double)*(const T*)px;     \
      T* py = (T*)(y + i * ys);                                                                                      \
      double r = alpha * acc;                                                                                        \
      if (beta != 0) r += beta * (double)*py;                                                                        \
      *py = (T)r;                                                                                                    \
    }                                                                                                                \
  }                                                                                                                  \
  /* A (m x n) <- A + alpha * outer(x (m), y (n)). */                                                                \
  static void theano_blas_ger_##S(int64_t m, int64_t n, double alpha, const char* x, int64_t xs, const char* y,      \
                                  int64_t ys, char* a, int64_t as0, int64_t as1) {                                   \
    const int64_t item = (int64_t)sizeof(T);                                                                         \
    int ta, lda, incx, incy;                                                                                         \
    if (m == 0 || n == 0 || alpha == 0) return;                                                                      \
    if (theano_blas_vector(m, xs, item, &incx) && theano_blas_vector(n, ys, item, &incy) &&                          \
        theano_blas_matrix(m, n, as0, as1, item, &ta, &lda)) {                                                       \
      if (ta == THEANO_BLAS_NO_TRANS)                                                                                \
        cblas_##P##ger(CblasRowMajor, (int)m, (int)n, (T)alpha, (const T*)x, incx, (const T*)y, incy, (T*)a, lda);   \
      else /* a column-major A: A^T += alpha * outer(y, x) */                                                        \
        cblas_##P##ger(CblasRowMajor, (int)n, (int)m, (T)alpha, (const T*)y, incy, (const T*)x, incx, (T*)a, lda);   \
      return;                                                                                                        \
    }                                                                                                                \
    {                                                                                                                \
      const T al = (T)alpha;                                                                                         \
      for (int64_t i = 0; i < m; ++i) {                                                                              \
        const T xi = *(const T*)(x + i * xs);                                                                        \
        for (int64_t j = 0; j < n; ++j) {                                                                            \
          T* pa = (T*)(a + i * as0 + j * as1);                                                                       \
          *pa = *pa + al * (xi * *(const T*)(y + j * ys));                                                           \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* The inner product of x and y (n elements each). */                                                              \
  static double theano_blas_dot_##S(int64_t n, const char* x, int64_t xs, const char* y, int64_t ys) {               \
    const int64_t item = (int64_t)sizeof(T);                                                                         \
    int incx, incy;                                                                                                  \
    double acc = 0;                                                                                                  \
    if (n > 0 && theano_blas_vector(n, xs, item, &incx) && theano_blas_vector(n, ys, item, &incy))                   \
      return (double)cblas_##P##dot((int)n, (const T*)x, incx, (const T*)y, incy);                                   \
    for (int64_t i = 0; i < n; ++i, x += xs, y += ys) acc += (double)*(const T*)x * (double)*(const T*)y;            \
    return acc;                                                                                                      \
  }

THEANO_BLAS_CALLS(float, f32, s)
THEANO_BLAS_CALLS(double, f64, d)

#endif /* THEANO_RUNTIME_BLAS_CALLS_H */
