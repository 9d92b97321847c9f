/* The per-element rules of the LAPACK-backed ops' GPU forms (docs/linalg.md,
 * "On the GPU"; codegen/src/emit/lower/gpu_linalg.cpp), which the function's
 * CUDA unit embeds: the library routines (cuSOLVER / cuBLAS, or LAPACK on the
 * emulated device: TheanoContext::gpu_lapack) work on column-major copies, and
 * these rules are what the GPU does around them, each the GPU twin of a step
 * of the CPU kernel (kernels/linalg.h, whose text stays the one source of the
 * error messages: a GPU form that finds a problem lets the host rerun that
 * kernel on the downloaded inputs to word it):
 *   gather   the column-major copy of a core matrix (linalg.h's load), with
 *            the symmetric fill of solve(assume_a="sym"), flagging a NaN or
 *            an infinity the way load finds one; or its upper triangle alone
 *            (CholeskyGrad's U and X);
 *   store    a column-major result back row-major, keeping one triangle
 *            (linalg.h's store);
 *   lu_det   det and slogdet from an LU factorization and its pivots;
 *   zero_diag  the first exactly-zero diagonal element (trtrs's check, which
 *            cuBLAS's trsm does not make);
 *   mirror, chol_grad_out  CholeskyGrad's steps between and after its BLAS
 *            calls;
 *   pinv     the pseudo-inverse from an SVD, one element.
 * lu_det, mirror, chol_grad_out and pinv are the CPU kernel's own steps too:
 * kernels/linalg.h calls them, so each is written once.
 * Plain C over the element type T with suffix S (f64 / f32), as the folder's
 * README asks. */
#ifndef THEANO_RUNTIME_LINALG_GPU_H
#define THEANO_RUNTIME_LINALG_GPU_H

#ifndef THEANO_GENERATED_CODE
#include <math.h> /* log; generated code has the prelude's */
#include <stdint.h>
#endif
#ifndef THEANO_INF
#define THEANO_INF __builtin_inf()
#endif

/* Gather modes. */
#define THEANO_LA_GPU_PLAIN 0
#define THEANO_LA_GPU_SYM_LOWER 1 /* the lower triangle read, mirrored above */
#define THEANO_LA_GPU_SYM_UPPER 2 /* the upper triangle read, mirrored below */
#define THEANO_LA_GPU_UPPER 3     /* the upper triangle read, zeros below; no flag (NaNs propagate) */

#define THEANO_LA_GPU_RULES(T, S)                                                                                    \
  /* dst[e] (column-major, r rows: e = i + j * r) <- element (i, j) of the matrix at src (byte strides rs, cs), or   \
   * its mirror in `mode`; 1 when element (i, j) itself is not finite (load's check reads every element). */         \
  static inline int theano_la_gpu_gather_##S(int64_t e, int64_t r, const char* src, int64_t rs, int64_t cs,          \
                                             int64_t mode, T* dst) {                                                 \
    const int64_t i = e % r, j = e / r;                                                                              \
    const T v = *(const T*)(src + i * rs + j * cs);                                                                  \
    T x = v;                                                                                                         \
    if ((mode == THEANO_LA_GPU_SYM_LOWER && i < j) || (mode == THEANO_LA_GPU_SYM_UPPER && i > j))                    \
      x = *(const T*)(src + j * rs + i * cs);                                                                        \
    if (mode == THEANO_LA_GPU_UPPER) {                                                                               \
      dst[e] = i > j ? (T)0 : v;                                                                                     \
      return 0;                                                                                                      \
    }                                                                                                                \
    dst[e] = x;                                                                                                      \
    return !(v - v == 0);                                                                                            \
  }                                                                                                                  \
  /* dst[e] (column-major n x n, or row-major, n columns) <- the identity's element: inv's right-hand side. */     \
  static inline void theano_la_gpu_eye_##S(int64_t e, int64_t n, T* dst) { dst[e] = (T)(e % n == e / n); }         \
  /* out[e] (row-major, k columns: e = i * k + j) <- src (column-major, leading dimension r); tri 1 / 2 keeps only \
   * the lower / upper triangle, zeros elsewhere; tri 3 copies src[e] (the column-major transpose as it lies). */    \
  static inline void theano_la_gpu_store_##S(int64_t e, int64_t r, int64_t k, const T* src, T* out, int64_t tri) {  \
    const int64_t i = e / k, j = e % k;                                                                              \
    out[e] = tri == 3 ? src[e] : (tri == 1 && j > i) || (tri == 2 && j < i) ? (T)0 : src[i + j * r];               \
  }                                                                                                                  \
  /* From getrf's lu (column-major n x n) and 1-based pivots: det (o0) or, with slog, the sign (o0) and log|det|    \
   * (o1). */                                                                                                        \
  static inline void theano_la_gpu_lu_det_##S(const T* lu, const int* piv, int64_t n, int slog, T* o0, T* o1) {     \
    T d = 1, sign = 1, logabs = 0;                                                                                   \
    int64_t i;                                                                                                       \
    for (i = 0; i < n; ++i) {                                                                                        \
      const T e = lu[i + i * n];                                                                                     \
      if (piv[i] != i + 1) {                                                                                         \
        d = -d;                                                                                                      \
        sign = -sign;                                                                                                \
      }                                                                                                              \
      d *= e;                                                                                                        \
      if (e < 0) sign = -sign;                                                                                       \
      if (e == 0) sign = 0;                                                                                          \
      logabs += (T)(e == 0 ? 0.0 : log((double)(e < 0 ? -e : e)));                                                  \
    }                                                                                                                \
    if (!slog) {                                                                                                     \
      o0[0] = d;                                                                                                     \
    } else {                                                                                                         \
      o0[0] = sign;                                                                                                  \
      o1[0] = sign == 0 ? (T)(-THEANO_INF) : logabs;                                                                 \
    }                                                                                                                \
  }                                                                                                                  \
  /* CholeskyGrad between its trmm and its trsm: x (column-major n x n) below the diagonal <- its mirror above   \
   * (reads only the upper triangle, writes only the lower: no two elements race). */                              \
  static inline void theano_la_gpu_mirror_ij_##S(int64_t i, int64_t j, int64_t n, T* x) {                          \
    if (i > j) x[i + j * n] = x[j + i * n];                                                                          \
  }                                                                                                                  \
  /* The same by element e = i + j * n (a GPU thread's; the CPU loops over i and j: no division). */               \
  static inline void theano_la_gpu_mirror_##S(int64_t e, int64_t n, T* x) {                                        \
    theano_la_gpu_mirror_ij_##S(e % n, e / n, n, x);                                                                 \
  }                                                                                                                  \
  /* CholeskyGrad's result out[e] (row-major n x n: e = i * n + j) <- Phi(S) from S (column-major, symmetric): the \
   * diagonal halved, the op's triangle (`lower` or upper) kept, zeros elsewhere. */                                \
  static inline void theano_la_gpu_chol_grad_out_ij_##S(int64_t i, int64_t j, int64_t n, const T* x, T* out,        \
                                                       int64_t lower) {                                              \
    out[i * n + j] = i == j ? x[i + i * n] / 2 : (lower ? j < i : j > i) ? x[j + i * n] : (T)0;                     \
  }                                                                                                                  \
  static inline void theano_la_gpu_chol_grad_out_##S(int64_t e, int64_t n, const T* x, T* out, int64_t lower) {      \
    theano_la_gpu_chol_grad_out_ij_##S(e / n, e % n, n, x, out, lower);                                              \
  }                                                                                                                  \
  /* pinv's out[e] (row-major n x m: e = i * m + j) = (V diag(s+) U^T)[i][j] from the SVD of the m x n matrix (s     \
   * its min(m, n) = kk singular values, descending; s+ their inverses above 1e-15 s[0], zeros below): tr 0, u   \
   * m x kk (ld m) and vt kk x n (ld kk); tr 1 (the transpose factored, a^T = U' S V'^T), u U' (n x kk, ld n) and \
   * vt V'^T (kk x m, ld kk). The CPU kernel's fold, t ascending. */                                               \
  static inline void theano_la_gpu_pinv_ij_##S(int64_t i, int64_t j, int64_t m, int64_t n, const T* s, const T* u,  \
                                               const T* vt, int64_t tr, T* out) {                                    \
    const int64_t kk = m < n ? m : n, e = i * m + j;                                                                 \
    const T cut = kk > 0 ? (T)1e-15 * s[0] : (T)0;                                                                   \
    T acc = 0;                                                                                                       \
    int64_t t;                                                                                                       \
    for (t = 0; t < kk; ++t) {                                                                                       \
      const T si = s[t] > cut ? (T)1 / s[t] : (T)0;                                                                  \
      if (si == 0) continue;                                                                                         \
      acc += (tr ? u[i + t * n] : vt[t + i * kk]) * si * (tr ? vt[t + j * kk] : u[j + t * m]);                       \
    }                                                                                                                \
    out[e] = acc;                                                                                                    \
  }                                                                                                                  \
  static inline void theano_la_gpu_pinv_##S(int64_t e, int64_t m, int64_t n, const T* s, const T* u, const T* vt, \
                                            int64_t tr, T* out) {                                                    \
    theano_la_gpu_pinv_ij_##S(e / m, e % m, m, n, s, u, vt, tr, out);                                                \
  }                                                                                                                  \
  /* 1 + the index of a's (column-major n x n) first exactly-zero diagonal element, or 0. */                        \
  static inline int64_t theano_la_gpu_zero_diag_##S(const T* a, int64_t n) {                                        \
    int64_t i;                                                                                                       \
    for (i = 0; i < n; ++i)                                                                                          \
      if (a[i + i * n] == 0) return i + 1;                                                                           \
    return 0;                                                                                                        \
  }

THEANO_LA_GPU_RULES(double, f64)
THEANO_LA_GPU_RULES(float, f32)

#endif /* THEANO_RUNTIME_LINALG_GPU_H */
