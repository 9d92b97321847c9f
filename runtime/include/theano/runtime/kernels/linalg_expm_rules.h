/* The rules of the matrix exponential (linalg::expm, docs/linalg.md) that the
 * CPU kernel (kernels/linalg_expm.h) and the GPU form
 * (codegen/src/emit/lower/gpu_expm.cpp) both run, written once from Higham
 * 2005, "The scaling and squaring method for the matrix exponential
 * revisited" (SIAM J. Matrix Anal. Appl. 26(4)):
 *   degree    the Padé degree m in {3, 5, 7, 9, 13} and the squarings s from
 *             ||A||_1 against theta_m (Table 2.3, double precision);
 *   pade_coef the coefficients b_0..b_m of the diagonal Padé approximant;
 *   colsum    one column's absolute sum (the 1-norm is their largest);
 *   poly_at   one element of a polynomial part of U or V in the even powers;
 *   pq_at     one element of q = V - U and p = V + U.
 * Everything runs in double, on column-major n x n buffers. Plain C with no
 * arrays of constants (the CUDA unit embeds the file, NVRTC compiling it with
 * -default-device; the host of the GPU form calls `degree`). */
#ifndef THEANO_RUNTIME_LINALG_EXPM_RULES_H
#define THEANO_RUNTIME_LINALG_EXPM_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* theta_m of Higham 2005, Table 2.3 (the largest ||A||_1 for which r_m is
 * accurate to double precision). */
#define THEANO_LA_EXPM_THETA3 1.495585217958292e-2
#define THEANO_LA_EXPM_THETA5 2.539398330063230e-1
#define THEANO_LA_EXPM_THETA7 9.504178996162932e-1
#define THEANO_LA_EXPM_THETA9 2.097847961257068e0
#define THEANO_LA_EXPM_THETA13 5.371920351148152e0

/* The degree m for ||A||_1 = norm: the smallest m with norm <= theta_m; past
 * theta_9, m = 13 and *s the least count of halvings with
 * norm / 2^s <= theta_13 (s <= 1022 for any finite norm, so 2^-s stays
 * nonzero; a norm that overflowed to inf stops at 1023; a NaN norm gives 13
 * and 0). *scale = 2^-s, exact. */
static inline int theano_la_expm_degree(double norm, int* s, double* scale) {
  *s = 0;
  *scale = 1;
  if (norm <= THEANO_LA_EXPM_THETA3) return 3;
  if (norm <= THEANO_LA_EXPM_THETA5) return 5;
  if (norm <= THEANO_LA_EXPM_THETA7) return 7;
  if (norm <= THEANO_LA_EXPM_THETA9) return 9;
  while (norm * *scale > THEANO_LA_EXPM_THETA13 && *s < 1023) {
    *scale *= 0.5;
    ++*s;
  }
  return 13;
}

/* The Padé coefficients b_0..b_m of exp, scaled so that b_0 = 1:
 * b_j = (2m - j)! m! / ((2m)! j! (m - j)!), by the ratio b_j / b_{j-1}
 * = (m - j + 1) / ((2m - j + 1) j). */
static inline void theano_la_pade_coef(int m, double* b) {
  int j;
  b[0] = 1.0;
  for (j = 1; j <= m; ++j) b[j] = b[j - 1] * (double)(m - j + 1) / ((double)(2 * m - j + 1) * (double)j);
}

/* The absolute sum of column j of the column-major n x n a. */
static inline double theano_la_expm_colsum(int64_t j, int64_t n, const double* a) {
  int64_t i;
  double s = 0;
  for (i = 0; i < n; ++i) s += a[i + j * n] < 0 ? -a[i + j * n] : a[i + j * n];
  return s;
}

/* Element e of sum_k c_k P_k (+ c_I I) (+ plus), n x n column-major, the
 * parts of U and V (Higham 2005, (2.3)-(2.4) for m = 13):
 *   m < 13:          P_k = A^(2k+2) (pw[k]: a2, a4, a6, a8), k < (m-1)/2,
 *                    c_k = b_(2k+2+odd), c_I = b_odd;
 *   m = 13, high:    P = A2, A4, A6, c = b_(8+odd), b_(10+odd), b_(12+odd), no I;
 *   m = 13, low:     P = A2, A4, A6, c = b_(2+odd), b_(4+odd), b_(6+odd), c_I = b_odd.
 * odd 1 gives U's inner factor (U = A times it), 0 gives V; `plus` (or 0) is
 * A6 times the high part, added to the low part. */
static inline double theano_la_expm_poly_at(int64_t e, int64_t n, int m, int odd, int high, const double* a2,
                                            const double* a4, const double* a6, const double* a8,
                                            const double* plus) {
  double b[14], acc;
  const int base = (m == 13 && high ? 8 : 2) + odd, terms = m == 13 ? 3 : (m - 1) / 2;
  theano_la_pade_coef(m, b);
  acc = b[base] * a2[e];
  if (terms > 1) acc += b[base + 2] * a4[e];
  if (terms > 2) acc += b[base + 4] * a6[e];
  if (terms > 3) acc += b[base + 6] * a8[e];
  if (!(m == 13 && high) && e % n == e / n) acc += b[odd];
  if (plus) acc += plus[e];
  return acc;
}

/* Element e of the denominator q = V - U and the numerator p = V + U. */
static inline void theano_la_expm_pq_at(int64_t e, const double* u, const double* v, double* q, double* p) {
  q[e] = v[e] - u[e];
  p[e] = v[e] + u[e];
}

#endif /* THEANO_RUNTIME_LINALG_EXPM_RULES_H */
