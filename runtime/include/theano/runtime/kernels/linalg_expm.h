/* The matrix exponential's kernel (linalg::expm, docs/linalg.md), written
 * once from Higham 2005, "The scaling and squaring method for the matrix
 * exponential revisited" (SIAM J. Matrix Anal. Appl. 26(4)): the diagonal
 * Padé approximant r_m = q_m(A)^-1 p_m(A) of degree m in {3, 5, 7, 9, 13},
 * the smallest m whose bound theta_m (Table 2.3, double precision) is at least
 * ||A||_1; past theta_13, A scaled by 2^-s (s the least with
 * ||A||_1 / 2^s <= theta_13) and r_13 squared s times.
 *
 * The degree rule, the Padé coefficients and the elementwise steps are
 * kernels/linalg_expm_rules.h's, which the GPU form runs too.
 *
 * The computation runs in double for both float32 and float64 inputs (the
 * caller converts), on column-major n x n buffers, the products through
 * cblas_dgemm and the solve q X = p through LAPACK's dgetrf / dgetrs (the
 * declarations are kernels/linalg_call.h's). Plain C; the caller owns every
 * buffer. */
#ifndef THEANO_RUNTIME_LINALG_EXPM_H
#define THEANO_RUNTIME_LINALG_EXPM_H

#ifndef THEANO_GENERATED_CODE
#include <cblas.h>
#include <stdint.h>
#include "linalg_call.h"
#include "linalg_expm_rules.h"
#endif

/* The doubles expm's workspace takes for an n x n matrix: A, A^2, A^4, A^6,
 * U, V, a product's buffer (7 n^2); the pivots are separate ints. */
#define THEANO_LA_EXPM_BUFFERS 7

/* c <- a b for column-major n x n matrices. */
static inline void theano_la_mm(int n, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
}

/* dst <- a polynomial part of U or V (kernels/linalg_expm_rules.h's poly_at), every element. */
static inline void theano_la_expm_poly(int64_t n, int m, int odd, int high, const double* a2, const double* a4,
                                       const double* a6, const double* a8, const double* plus, double* dst) {
  int64_t e;
  for (e = 0; e < n * n; ++e) dst[e] = theano_la_expm_poly_at(e, n, m, odd, high, a2, a4, a6, a8, plus);
}

/* exp(A) of the column-major n x n `a` (overwritten with the result), `work`
 * holding THEANO_LA_EXPM_BUFFERS n^2 doubles and `piv` n ints. Returns 0, or
 * LAPACK's info (> 0: q_m(A) singular, which the degree choice rules out for
 * finite A; < 0: an argument rejected). The steps are the GPU form's
 * (codegen/src/emit/lower/gpu_expm.cpp), through the same rules. */
static inline int theano_la_expm(int n, double* a, double* work, int* piv) {
  const int64_t nn = (int64_t)n * n;
  double *a2 = work, *a4 = work + nn, *a6 = work + 2 * nn, *u = work + 3 * nn, *v = work + 4 * nn,
         *t = work + 5 * nn, *t2 = work + 6 * nn;
  double norm = 0, scale = 1;
  int m, s = 0, k, info = 0;
  int64_t i;
  if (n == 0) return 0;
  for (i = 0; i < n; ++i) {
    const double c = theano_la_expm_colsum(i, n, a);
    if (c > norm) norm = c;
  }
  m = theano_la_expm_degree(norm, &s, &scale);
  if (s > 0)
    for (i = 0; i < nn; ++i) a[i] *= scale; /* a power of two: exact */
  theano_la_mm(n, a, a, a2);
  if (m >= 5) theano_la_mm(n, a2, a2, a4);
  if (m >= 7) theano_la_mm(n, a4, a2, a6);
  if (m < 13) {
    /* U = A (b_m A^(m-1) + ... + b_3 A^2 + b_1 I), V = b_(m-1) A^(m-1) + ... + b_0 I; A^8 in t2. */
    if (m == 9) theano_la_mm(n, a6, a2, t2);
    theano_la_expm_poly(n, m, 1, 0, a2, a4, a6, t2, 0, t);
    theano_la_mm(n, a, t, u);
    theano_la_expm_poly(n, m, 0, 0, a2, a4, a6, t2, 0, v);
  } else {
    /* Higham 2005 (2.3)-(2.4): U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I],
     * V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I. */
    theano_la_expm_poly(n, 13, 1, 1, a2, a4, a6, 0, 0, t);
    theano_la_mm(n, a6, t, t2);
    theano_la_expm_poly(n, 13, 1, 0, a2, a4, a6, 0, t2, t);
    theano_la_mm(n, a, t, u);
    theano_la_expm_poly(n, 13, 0, 1, a2, a4, a6, 0, 0, t);
    theano_la_mm(n, a6, t, t2);
    theano_la_expm_poly(n, 13, 0, 0, a2, a4, a6, 0, t2, v);
  }
  /* (V - U) X = (V + U): t = q, a = p. */
  for (i = 0; i < nn; ++i) theano_la_expm_pq_at(i, u, v, t, a);
  dgetrf_(&n, &n, t, &n, piv, &info);
  if (info != 0) return info;
  dgetrs_("N", &n, &n, t, &n, piv, a, &n, &info, 1);
  if (info != 0) return info;
  for (k = 0; k < s; ++k) {
    theano_la_mm(n, a, a, t);
    for (i = 0; i < nn; ++i) a[i] = t[i];
  }
  return 0;
}

/* The typed workspace and run of EXPM over the batch: T the element type, S
 * the suffix. Workspace: the loaded matrix (T), its double copy and the
 * buffers (doubles), the pivots. */
#define THEANO_LA_EXPM_KERNELS(T, S)                                                                                  \
  static inline int theano_la_expm_work_##S(TheanoLaCall* c, int64_t* bytes) {                                         \
    int64_t n, rs, cs, nn, nb;                                                                                         \
    int ni = 0, rc;                                                                                                    \
    theano_la_core(c, 0, &n, &n, &rs, &cs);                                                                            \
    *bytes = 0;                                                                                                        \
    if (theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                                              \
    if (theano_checked_mul(n, n, &nn) != THEANO_RULE_OK ||                                                             \
        theano_checked_mul(nn, THEANO_LA_EXPM_BUFFERS + 1, &nb) != THEANO_RULE_OK)                                     \
      return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");                 \
    if ((rc = theano_la_work_add(c, bytes, nn, (int64_t)sizeof(T))) != THEANO_LA_OK) return rc;                        \
    if ((rc = theano_la_work_add(c, bytes, nb, 8)) != THEANO_LA_OK) return rc;                                         \
    return theano_la_work_add(c, bytes, n, 4);                                                                         \
  }                                                                                                                    \
  static inline int theano_la_expm_run_##S(TheanoLaCall* c) {                                                          \
    int64_t n, rs, cs, b, i, nn;                                                                                       \
    int ni = 0, rc, info;                                                                                              \
    char* at = c->work;                                                                                                \
    T *a, *o;                                                                                                          \
    double *d, *work;                                                                                                  \
    int* piv;                                                                                                          \
    theano_la_core(c, 0, &n, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                                              \
    nn = n * n;                                                                                                        \
    a = (T*)theano_la_take(&at, nn, (int64_t)sizeof(T));                                                               \
    d = (double*)theano_la_take(&at, nn * (THEANO_LA_EXPM_BUFFERS + 1), 8);                                            \
    work = d + nn;                                                                                                     \
    piv = (int*)theano_la_take(&at, n, 4);                                                                             \
    for (b = 0; b < c->nbatch; ++b) {                                                                                  \
      c->at = b;                                                                                                       \
      o = (T*)c->out[0] + b * nn;                                                                                      \
      if ((rc = theano_la_get_##S(c, 0, b, a, n > 1 ? n : 1)) != THEANO_LA_OK) return rc;                              \
      for (i = 0; i < nn; ++i) d[i] = (double)a[i];                                                                    \
      info = theano_la_expm(ni, d, work, piv);                                                                         \
      if (info < 0) return theano_la_arg_error(c, "dgetrf / dgetrs", info);                                            \
      if (info > 0)                                                                                                    \
        return theano_la_fail(c, THEANO_LA_VALUE, 1, "the Pade denominator q(A) is singular: U[", info - 1,           \
                              "] of its LU factorization is exactly zero", 0, "");                                     \
      for (i = 0; i < nn; ++i) a[i] = (T)d[i];                                                                         \
      theano_la_store_##S(n, n, a, n, o, 0);                                                                           \
    }                                                                                                                  \
    c->at = -1;                                                                                                        \
    return THEANO_LA_OK;                                                                                               \
  }

THEANO_LA_EXPM_KERNELS(double, f64)
THEANO_LA_EXPM_KERNELS(float, f32)

#endif /* THEANO_RUNTIME_LINALG_EXPM_H */
