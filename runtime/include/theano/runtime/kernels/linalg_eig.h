/* The general real eigenproblem's kernel (linalg::eig / eigvals,
 * docs/linalg.md): LAPACK's geev on each batch entry, its real pairs
 * (wr, wi) and packed real eigenvector columns turned into numpy.linalg.eig's
 * complex outputs. geev returns a complex-conjugate pair as two consecutive
 * eigenvalues, the one with the positive imaginary part first, and their
 * eigenvectors as the columns j (real part) and j + 1 (imaginary part): v_j =
 * vr_j + i vr_(j+1), v_(j+1) = conj(v_j). Each vector has unit 2-norm with
 * its largest component real (geev's normalization, NumPy's result).
 *
 * The outputs are complex (interleaved real, imaginary parts of T: complex128
 * for float64, complex64 for float32), C-contiguous, row-major. Plain C; the
 * caller owns every buffer. */
#ifndef THEANO_RUNTIME_LINALG_EIG_H
#define THEANO_RUNTIME_LINALG_EIG_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#include "linalg_call.h"
#endif

/* T the element type, S the suffix, P LAPACK's prefix. Workspace: the
 * matrix, wr, wi, vr (n x n, with compute_v) and geev's work (its query). */
#define THEANO_LA_EIG_KERNELS(T, S, P)                                                                                \
  static inline int theano_la_eig_query_##S(TheanoLaCall* c, int ni, int64_t* lwork) {                              \
    const int ld = ni > 1 ? ni : 1, one = 1, lw = -1;                                                                  \
    int info = 0;                                                                                                      \
    T q = 0, dummy[2] = {0, 0};                                                                                        \
    P##geev_("N", c->opt[0] ? "V" : "N", &ni, dummy, &ld, dummy, dummy, dummy, &one, dummy, &ld, &q, &lw, &info, 1,   \
             1);                                                                                                       \
    if (info < 0) return theano_la_arg_error(c, #P "geev", info);                                                      \
    /* the size comes back in a T: a margin covers float's rounding */                                                \
    *lwork = (int64_t)((double)q * (1.0 + 1e-6)) + 1;                                                                  \
    return THEANO_LA_OK;                                                                                               \
  }                                                                                                                    \
  static inline int theano_la_eig_work_##S(TheanoLaCall* c, int64_t* bytes) {                                          \
    int64_t n, rs, cs, nn, lw = 0;                                                                                     \
    int ni = 0, rc;                                                                                                    \
    const int64_t ts = (int64_t)sizeof(T);                                                                             \
    theano_la_core(c, 0, &n, &n, &rs, &cs);                                                                            \
    *bytes = 0;                                                                                                        \
    if (theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                                              \
    if (theano_checked_mul(n, n, &nn) != THEANO_RULE_OK)                                                               \
      return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");                 \
    if ((rc = theano_la_eig_query_##S(c, ni, &lw)) != THEANO_LA_OK) return rc;                                         \
    if ((rc = theano_la_work_add(c, bytes, nn, ts)) != THEANO_LA_OK) return rc;                /* A */                  \
    if ((rc = theano_la_work_add(c, bytes, n, ts)) != THEANO_LA_OK) return rc;                 /* wr */                 \
    if ((rc = theano_la_work_add(c, bytes, n, ts)) != THEANO_LA_OK) return rc;                 /* wi */                 \
    if ((rc = theano_la_work_add(c, bytes, c->opt[0] ? nn : 1, ts)) != THEANO_LA_OK) return rc; /* vr */                \
    return theano_la_work_add(c, bytes, lw, ts);                                                                       \
  }                                                                                                                    \
  static inline int theano_la_eig_run_##S(TheanoLaCall* c) {                                                           \
    int64_t n, rs, cs, b, i, j, lw = 0;                                                                                \
    int ni = 0, lwi = 0, info = 0, rc, one = 1;                                                                        \
    char* at = c->work;                                                                                                \
    T *a, *wr, *wi, *vr, *wk;                                                                                          \
    const int vec = (int)c->opt[0];                                                                                    \
    theano_la_core(c, 0, &n, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                                              \
    if ((rc = theano_la_eig_query_##S(c, ni, &lw)) != THEANO_LA_OK) return rc;                                         \
    if (theano_la_int(c, lw, &lwi)) return THEANO_LA_VALUE;                                                            \
    const int ld = ni > 1 ? ni : 1;                                                                                    \
    a = (T*)theano_la_take(&at, n * n, (int64_t)sizeof(T));                                                            \
    wr = (T*)theano_la_take(&at, n, (int64_t)sizeof(T));                                                               \
    wi = (T*)theano_la_take(&at, n, (int64_t)sizeof(T));                                                               \
    vr = (T*)theano_la_take(&at, vec ? n * n : 1, (int64_t)sizeof(T));                                                 \
    wk = (T*)theano_la_take(&at, lw, (int64_t)sizeof(T));                                                              \
    for (b = 0; b < c->nbatch; ++b) {                                                                                  \
      T* w = (T*)c->out[0] + 2 * b * n;                                                                                \
      T* v = vec ? (T*)c->out[1] + 2 * b * n * n : (T*)0;                                                              \
      c->at = b;                                                                                                       \
      if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                         \
      if (n == 0) continue;                                                                                            \
      P##geev_("N", vec ? "V" : "N", &ni, a, &ld, wr, wi, vr, &one, vr, &ld, wk, &lwi, &info, 1, 1);                   \
      if (info < 0) return theano_la_arg_error(c, #P "geev", info);                                                    \
      if (info > 0)                                                                                                    \
        return theano_la_fail(c, THEANO_LA_VALUE, 1,                                                                   \
                              "the eigenvalue algorithm (geev's QR iteration) did not converge on the matrix (input "  \
                              "0): info ",                                                                             \
                              info, "", 0, "");                                                                        \
      for (i = 0; i < n; ++i) {                                                                                        \
        w[2 * i] = wr[i];                                                                                              \
        w[2 * i + 1] = wi[i];                                                                                          \
      }                                                                                                                \
      if (!vec) continue;                                                                                              \
      for (j = 0; j < n; ++j) {                                                                                        \
        const int pair = wi[j] != 0 && j + 1 < n;                                                                      \
        for (i = 0; i < n; ++i) {                                                                                      \
          const T re = vr[i + j * n], im = pair ? vr[i + (j + 1) * n] : (T)0;                                          \
          v[2 * (i * n + j)] = re;                                                                                     \
          v[2 * (i * n + j) + 1] = im;                                                                                 \
          if (pair) {                                                                                                  \
            v[2 * (i * n + j + 1)] = re;                                                                               \
            v[2 * (i * n + j + 1) + 1] = -im;                                                                          \
          }                                                                                                            \
        }                                                                                                              \
        if (pair) ++j;                                                                                                 \
      }                                                                                                                \
    }                                                                                                                  \
    c->at = -1;                                                                                                        \
    return THEANO_LA_OK;                                                                                               \
  }

THEANO_LA_EIG_KERNELS(double, f64, d)
THEANO_LA_EIG_KERNELS(float, f32, s)

#endif /* THEANO_RUNTIME_LINALG_EIG_H */
