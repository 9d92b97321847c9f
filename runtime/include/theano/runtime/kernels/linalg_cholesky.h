/* The blocked Cholesky and the blocked reverse that is its gradient (CHOLESKY_GRAD), for kernels/linalg.h's
 * runs: cholesky (and solve's assume_a="pos") factor a matrix wider than one block column by column, and
 * CholeskyGrad walks the same block columns backwards (docs/linalg.md, "cholesky"). Host only: LAPACK's potrf on
 * the diagonal blocks, BLAS's trsm, syrk, trmm, trtri and gemm on the rest (kernels/linalg_call.h's
 * declarations); the per-element mirror is linalg_gpu.h's, shared with the GPU form. Plain C. */
#ifndef THEANO_RUNTIME_LINALG_CHOLESKY_H
#define THEANO_RUNTIME_LINALG_CHOLESKY_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#include "linalg_call.h"
#include "linalg_gpu.h"
#endif

/* The block width of the blocked Cholesky and of CHOLESKY_GRAD's blocked reverse (their panels' gemms, syrks and
 * trsms are this wide). Measured for the reverse with n = 200, 500 and 1000 in double on 2 threads: 32, 48-64 and
 * 96-128 were the fastest; the factorization was within 8 % of its best width at n = 500 and 1000. */
static inline int64_t theano_la_block_width(int64_t n) {
  const int64_t b = (n / 8 + 8) / 16 * 16;
  return b < 32 ? 32 : b > 128 ? 128 : b;
}

/* CHOLESKY_GRAD's scratch in elements beside its two n x n buffers: one diagonal block's u and x. */
static inline int64_t theano_la_chol_grad_scratch(int64_t n) {
  const int64_t bk = n < theano_la_block_width(n) ? n : theano_la_block_width(n);
  return 2 * bk * bk;
}

/* T the element type, S the suffix (f64 / f32), P LAPACK's prefix (d / s). */
#define THEANO_LA_CHOLESKY_KERNELS(T, S, P)                                                                           \
  /* Cholesky of the ni x ni column-major a (ld), the triangle `lower` names (A = L L^T, or A = U^T U), right-         \
   * looking in block columns bk wide: the diagonal block by LAPACK's potrf, the panel beside it by one trsm, the      \
   * trailing matrix by one syrk. info as potrf's (the leading minor that is not positive, 1-based). OpenBLAS          \
   * 0.3.21's own potrf, on both cores: n = 500 1.01 ms in double, 0.64 in float, this 0.79 and 0.55; n = 1000 5.0     \
   * and 2.7 ms, this 4.0 and 2.3. */                                                                                  \
  static inline void theano_la_potrf_##S(int lower, int ni, T* a, int ld, int* info) {                                 \
    const int bk = (int)theano_la_block_width(ni);                                                                     \
    const T one = 1, minus_one = -1;                                                                                   \
    int j0;                                                                                                            \
    *info = 0;                                                                                                         \
    if (ni <= bk) {                                                                                                    \
      P##potrf_(lower ? "L" : "U", &ni, a, &ld, info, 1);                                                              \
      return;                                                                                                          \
    }                                                                                                                  \
    for (j0 = 0; j0 < ni; j0 += bk) {                                                                                  \
      const int jb = ni - j0 < bk ? ni - j0 : bk, m = ni - j0 - jb;                                                    \
      T* d = a + j0 + (int64_t)j0 * ld;                                                                                \
      P##potrf_(lower ? "L" : "U", &jb, d, &ld, info, 1);                                                              \
      if (*info != 0) {                                                                                                \
        if (*info > 0) *info += j0;                                                                                    \
        return;                                                                                                        \
      }                                                                                                                \
      if (m == 0) break;                                                                                               \
      if (lower) {                                                                                                     \
        T* p = d + jb; /* the panel below */                                                                           \
        P##trsm_("R", "L", "T", "N", &m, &jb, &one, d, &ld, p, &ld, 1, 1, 1, 1);                                       \
        P##syrk_("L", "N", &m, &jb, &minus_one, p, &ld, &one, p + (int64_t)jb * ld, &ld, 1, 1);                        \
      } else {                                                                                                         \
        T* p = d + (int64_t)jb * ld; /* the panel to the right */                                                      \
        P##trsm_("L", "U", "T", "N", &jb, &m, &one, d, &ld, p, &ld, 1, 1, 1, 1);                                       \
        P##syrk_("U", "T", &m, &jb, &minus_one, p, &ld, &one, p + jb, &ld, 1, 1);                                      \
      }                                                                                                                \
    }                                                                                                                  \
  }                                                                                                                    \
  /* CHOLESKY_GRAD on one diagonal block (jb x jb) of the blocked reverse below, Murray's formula: ljj (the            \
   * factor's block, lower) and gjj (its gradient's, lower triangle read) in, both column-major with leading           \
   * dimension ld; u = L^T and x = tril(G)^T, column-major jb x jb. x U^T = (L^T tril(G))^T, whose upper triangle is   \
   * P's lower one (Phi of the lower triangle of L^T G needs only tril(G): L^T is upper); M = P + P^T is that upper    \
   * triangle mirrored (its diagonal P's doubled); S = L^-T M L^-1 = U^-1 M U^-T (symmetric) is left in x and Phi(S)   \
   * written over gjj's lower triangle, read from S's upper one as the GPU form reads it (linalg_gpu.h: where a zero   \
   * pivot makes S not finite, the two triangles' infinities and NaNs differ). U^-1 is formed once (trtri) and         \
   * applied by two triangular products: OpenBLAS's trsm runs at about half its trmm's rate. A zero on U's diagonal    \
   * (trtri's info > 0, U untouched) takes the solves, whose infinities and NaNs propagate. */                         \
  static inline void theano_la_chol_grad_diag_##S(int jb, const T* ljj, T* gjj, int64_t ld, T* u, T* x) {              \
    int64_t i, j;                                                                                                      \
    int info = 0;                                                                                                      \
    const T one = 1;                                                                                                   \
    for (j = 0; j < jb; ++j) {                                                                                         \
      for (i = 0; i <= j; ++i) {                                                                                       \
        u[i + j * jb] = ljj[j + i * ld];                                                                               \
        x[i + j * jb] = gjj[j + i * ld];                                                                               \
      }                                                                                                                \
      for (; i < jb; ++i) u[i + j * jb] = x[i + j * jb] = 0;                                                           \
    }                                                                                                                  \
    P##trmm_("R", "U", "T", "N", &jb, &jb, &one, u, &jb, x, &jb, 1, 1, 1, 1);                                          \
    for (j = 0; j < jb; ++j)                                                                                           \
      for (i = j + 1; i < jb; ++i) theano_la_gpu_mirror_ij_##S(i, j, jb, x);                                           \
    P##trtri_("U", "N", &jb, u, &jb, &info, 1, 1);                                                                     \
    if (info == 0) {                                                                                                   \
      P##trmm_("L", "U", "N", "N", &jb, &jb, &one, u, &jb, x, &jb, 1, 1, 1, 1);                                        \
      P##trmm_("R", "U", "T", "N", &jb, &jb, &one, u, &jb, x, &jb, 1, 1, 1, 1);                                        \
    } else {                                                                                                           \
      P##trsm_("L", "U", "N", "N", &jb, &jb, &one, u, &jb, x, &jb, 1, 1, 1, 1);                                        \
      P##trsm_("R", "U", "T", "N", &jb, &jb, &one, u, &jb, x, &jb, 1, 1, 1, 1);                                        \
    }                                                                                                                  \
    for (j = 0; j < jb; ++j)                                                                                           \
      for (i = j; i < jb; ++i) gjj[i + j * ld] = i == j ? x[i + i * jb] / 2 : x[j + i * jb];                           \
  }                                                                                                                    \
  /* CHOLESKY_GRAD at batch entry b: the reverse of the blocked left-looking Cholesky (docs/linalg.md), which for      \
   * each block column J (rows J, the rows below it B, the columns before it E) computes                               \
   *   L_JJ = chol(A_JJ - L_JE L_JE^T),   L_BJ = (A_BJ - L_BE L_JE^T) L_JJ^-T                                          \
   * and reads A's lower triangle only; its reverse, J from the last block to the first, turns G (the factor's         \
   * gradient, lower triangle, column-major in g) into A's (the same triangle, Phi(S) of the formula above):           \
   *   G_BJ <- G_BJ L_JJ^-1 (trsm; then A_BJ's),   G_JJ -= G_BJ^T L_BJ (lower triangle read),                          \
   *   G_JJ <- Phi(S_JJ) by the formula on the block (A_JJ's),                                                         \
   *   G_JE -= S_JJ L_JE + G_BJ^T L_BE,   G_BE -= G_BJ L_JE   (gemms).                                                 \
   * About n^3 / 3 multiply-adds, most in the gemms, against 5 n^3 / 3 for the formula on the whole matrix (one trmm,  \
   * trtri and two trmm): n = 500 in double 1.7 ms instead of 4.2, within 6e-15 of it relative to the largest entry.   \
   * The factor l (lower) and g are column-major n x n, only their lower triangles read; the block's u and x (w) are   \
   * bk x bk. The lower op's row-major inputs are read as they lie, the upper op's (U = L^T, Ubar = G^T)               \
   * transposed; the result is A's gradient in the op's triangle (the upper op's transposed), zeros elsewhere. */      \
  static inline void theano_la_cholesky_grad_##S(TheanoLaCall* c, int64_t b, int64_t n, int ni, T* l, T* g, T* w,      \
                                                 T* out) {                                                             \
    int64_t i, j, r, k, rs0, cs0, rs1, cs1;                                                                           \
    const int lower = (int)c->opt[0];                                                                                 \
    const int bk = (int)theano_la_block_width(n);                                                                      \
    const T one = 1, minus_one = -1;                                                                                   \
    const char* lp = theano_la_in_at(c, 0, b);                                                                        \
    const char* gp = theano_la_in_at(c, 1, b);                                                                        \
    int j0;                                                                                                            \
    theano_la_core(c, 0, &r, &k, &rs0, &cs0);                                                                         \
    theano_la_core(c, 1, &r, &k, &rs1, &cs1);                                                                         \
    if (!lower) { /* L[i][j] = U[j][i] */                                                                              \
      int64_t t = rs0;                                                                                                \
      rs0 = cs0;                                                                                                      \
      cs0 = t;                                                                                                        \
      t = rs1;                                                                                                        \
      rs1 = cs1;                                                                                                      \
      cs1 = t;                                                                                                        \
    }                                                                                                                  \
    for (j = 0; j < n; ++j)                                                                                            \
      for (i = j; i < n; ++i) {                                                                                        \
        l[i + j * n] = *(const T*)(lp + i * rs0 + j * cs0);                                                            \
        g[i + j * n] = *(const T*)(gp + i * rs1 + j * cs1);                                                            \
      }                                                                                                                \
    for (j0 = (ni - 1) / bk * bk; j0 >= 0; j0 -= bk) {                                                                 \
      const int jb = ni - j0 < bk ? ni - j0 : bk, below = j0 + jb, m = ni - below;                                     \
      const T* ljj = l + j0 + (int64_t)j0 * n;                                                                         \
      const T* lbj = l + below + (int64_t)j0 * n;                                                                      \
      T* gjj = g + j0 + (int64_t)j0 * n;                                                                               \
      T* gbj = g + below + (int64_t)j0 * n;                                                                            \
      if (m > 0) {                                                                                                     \
        P##trsm_("R", "L", "N", "N", &m, &jb, &one, ljj, &ni, gbj, &ni, 1, 1, 1, 1);                                   \
        P##gemm_("T", "N", &jb, &jb, &m, &minus_one, gbj, &ni, lbj, &ni, &one, gjj, &ni, 1, 1);                        \
      }                                                                                                                \
      theano_la_chol_grad_diag_##S(jb, ljj, gjj, n, w, w + (int64_t)jb * jb);                                          \
      if (j0 > 0) {                                                                                                    \
        P##gemm_("N", "N", &jb, &j0, &jb, &minus_one, w + (int64_t)jb * jb, &jb, l + j0, &ni, &one, g + j0, &ni, 1, 1); \
        if (m > 0) {                                                                                                   \
          P##gemm_("N", "N", &m, &j0, &jb, &minus_one, gbj, &ni, l + j0, &ni, &one, g + below, &ni, 1, 1);             \
          P##gemm_("T", "N", &jb, &j0, &m, &minus_one, gbj, &ni, l + below, &ni, &one, g + j0, &ni, 1, 1);             \
        }                                                                                                              \
      }                                                                                                                \
    }                                                                                                                  \
    for (i = 0; i < n; ++i)                                                                                           \
      for (j = 0; j < n; ++j)                                                                                          \
        out[i * n + j] = lower ? (j <= i ? g[i + j * n] : (T)0) : (j >= i ? g[j + i * n] : (T)0);                      \
  }

THEANO_LA_CHOLESKY_KERNELS(double, f64, d)
THEANO_LA_CHOLESKY_KERNELS(float, f32, s)
#undef THEANO_LA_CHOLESKY_KERNELS

#endif /* THEANO_RUNTIME_LINALG_CHOLESKY_H */
