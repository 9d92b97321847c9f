/* The LAPACK-backed linear algebra ops' kernel layer (theano/tensor/linalg.h,
 * docs/linalg.md), written once: perform and the generated C++ run this text.
 *
 * One call record (TheanoLaCall) describes a node's run: the inputs (any
 * strides, in bytes), the op's kind and options, the outputs (C-contiguous).
 * Three steps, each a dispatcher over the kind:
 *   theano_la_rule        the shape rule: core shapes checked, batch dims
 *                         broadcast (PyTensor's Blockwise), output shapes set;
 *   theano_la_work_<s>    the workspace in bytes (LAPACK's workspace queries,
 *                         32-bit sizes checked), which the caller allocates;
 *   theano_la_run_<s>     every batch entry: the core matrices copied into
 *                         column-major work buffers (the one place the row-major
 *                         / column-major question is answered, and where
 *                         strided inputs become contiguous; non-finite values
 *                         are found there; the solves that only read a
 *                         contiguous matrix check it in place, cholesky loads
 *                         into its output), the LAPACK routine called, its
 *                         result copied out row-major.
 * Each returns THEANO_LA_OK or a THEANO_LA_* code with the message in c->msg
 * (LAPACK's `info` turned into words naming the matrix, e.g. "the matrix
 * (input 0) is not positive definite: leading minor 3"); the caller prefixes
 * the op's name (perform) or the node's label (generated code).
 *
 * LAPACK is the Fortran interface OpenBLAS exports (LP64: 32-bit int sizes),
 * declared in kernels/linalg_call.h with gfortran's hidden string lengths
 * passed explicitly. This file holds the typed runs of the factorizations,
 * solvers and spectral ops; the call record, the rule and the loads / stores
 * are kernels/linalg_call.h's, the matrix exponential kernels/linalg_expm.h's,
 * the general eigenproblem kernels/linalg_eig.h's, the blocked Cholesky and its
 * gradient kernels/linalg_cholesky.h's, the per-element steps it
 * shares with the GPU forms kernels/linalg_gpu.h's. Generated C++ embeds
 * linalg_call.h only and calls this file's rule, workspace query and run
 * compiled into the host, through host_kernels.h's table; the GPU forms'
 * CUDA units embed linalg_gpu.h. Plain C as the folder's README asks; the caller
 * owns every buffer. */
#ifndef THEANO_RUNTIME_LINALG_H
#define THEANO_RUNTIME_LINALG_H

#ifndef THEANO_GENERATED_CODE
#include "linalg_call.h"
#include "linalg_eig.h"
#include "linalg_expm.h"
#include "linalg_gpu.h" /* the per-element steps the GPU forms share */
#include "linalg_cholesky.h"
#endif

/* The integer of an element's size and its exponent bits, by suffix (THEANO_LA_IO's U and E). */
#define THEANO_LA_U_f64 uint64_t
#define THEANO_LA_E_f64 0x7ff0000000000000ULL
#define THEANO_LA_U_f32 uint32_t
#define THEANO_LA_E_f32 0x7f800000U

/* The typed half: T the element type, S the suffix (f64 / f32), P LAPACK's
 * prefix (d / s). */
#define THEANO_LA_KERNELS(T, S, P)                                                                                    \
  /* The workspace sizes of syevd / gesdd / geqrf+orgqr (queries). */                                                  \
  static inline int theano_la_query_##S(TheanoLaCall* c, int64_t* lwork, int64_t* liwork) {                            \
    int64_t m = 0, n = 0, k, rs, cs;                                                                                   \
    int mi, ni, ki, info = 0, lw = -1, liw = -1, iq = 0;                                                      \
    T q = 0, q2 = 0, dummy[2] = {0, 0};                                                                                \
    *lwork = 0;                                                                                                        \
    *liwork = 0;                                                                                                       \
    theano_la_core(c, 0, &m, &n, &rs, &cs);                                                                            \
    k = m < n ? m : n;                                                                                                 \
    if (theano_la_int(c, m, &mi) || theano_la_int(c, n, &ni) || theano_la_int(c, k, &ki)) return THEANO_LA_VALUE;      \
    if (c->kind == THEANO_LA_EIGH) {                                                                                   \
      const int ld = ni > 1 ? ni : 1;                                                                                  \
      P##syevd_(c->opt[1] ? "V" : "N", c->opt[0] ? "L" : "U", &ni, dummy, &ld, dummy, &q, &lw, &iq, &liw, &info, 1,  \
                1);                                                                                                    \
      if (info < 0) return theano_la_arg_error(c, #P "syevd", info);                                                   \
      *lwork = (int64_t)q;                                                                                             \
      *liwork = iq;                                                                                                    \
    } else if (c->kind == THEANO_LA_SVD || c->kind == THEANO_LA_PINV) {                                                \
      const int ld = mi > 1 ? mi : 1;                                                                                  \
      const int full = c->kind == THEANO_LA_SVD ? (int)c->opt[0] : 0;                                                  \
      const int ldu = mi > 1 ? mi : 1, ldvt0 = full ? ni : ki, ldvt = ldvt0 > 1 ? ldvt0 : 1;                           \
      int iw[8];                                                                                                       \
      P##gesdd_(c->kind == THEANO_LA_SVD && !c->opt[1] ? "N" : full ? "A" : "S", &mi, &ni, dummy, &ld, dummy, dummy,   \
                &ldu, dummy, &ldvt, &q, &lw,                                                                           \
                iw, &info, 1);                                                                                         \
      if (info < 0) return theano_la_arg_error(c, #P "gesdd", info);                                                   \
      *lwork = (int64_t)q;                                                                                             \
      if (theano_checked_mul(k, 8, liwork) != THEANO_RULE_OK) *liwork = -1;                                            \
    } else if (c->kind == THEANO_LA_QR) {                                                                              \
      const int ld = mi > 1 ? mi : 1;                                                                                  \
      const int qc = c->opt[0] == 1 ? mi : ki;                                                                         \
      P##geqrf_(&mi, &ni, dummy, &ld, dummy, &q, &lw, &info);                                                          \
      if (info < 0) return theano_la_arg_error(c, #P "geqrf", info);                                                   \
      if (c->opt[0] != 2) {                                                                                            \
        P##orgqr_(&mi, &qc, &ki, dummy, &ld, dummy, &q2, &lw, &info);                                                  \
        if (info < 0) return theano_la_arg_error(c, #P "orgqr", info);                                                 \
      }                                                                                                                \
      *lwork = (int64_t)(q > q2 ? q : q2);                                                                             \
    }                                                                                                                  \
    /* LAPACK reports the size in a T: a float rounds sizes past 2^24, maybe down; a margin covers that. */          \
    *lwork = (int64_t)((double)*lwork * (1.0 + 1e-6)) + 1;                                                             \
    return THEANO_LA_OK;                                                                                               \
  }                                                                                                                    \
  /* The workspace in bytes (the layout each run takes in the same order). */                                        \
  static inline int theano_la_work_##S(TheanoLaCall* c, int64_t* bytes) {                                              \
    int64_t n = 0, m = 0, r = 0, k = 0, rs, cs, nn = 0, rk = 0, lw = 0, liw = 0, mm = 0;                               \
    int dummy_i, rc;                                                                                                   \
    const int64_t ts = (int64_t)sizeof(T);                                                                             \
    *bytes = 0;                                                                                                        \
    if (c->kind == THEANO_LA_EXPM) return theano_la_expm_work_##S(c, bytes);                                           \
    if (c->kind == THEANO_LA_EIG) return theano_la_eig_work_##S(c, bytes);                                             \
    theano_la_core(c, 0, &m, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, m, &dummy_i) || theano_la_int(c, n, &dummy_i)) return THEANO_LA_VALUE;                        \
    if (theano_checked_mul(m, n, &nn) != THEANO_RULE_OK)                                                               \
      return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");                 \
    /* the matrix (cholesky factors in its output) */                                                                  \
    if (c->kind != THEANO_LA_CHOLESKY && (rc = theano_la_work_add(c, bytes, nn, ts)) != THEANO_LA_OK) return rc;       \
    switch (c->kind) {                                                                                                 \
      case THEANO_LA_SOLVE_TRIANGULAR:                                                                                 \
      case THEANO_LA_CHO_SOLVE:                                                                                        \
      case THEANO_LA_SOLVE:                                                                                            \
      case THEANO_LA_INV:                                                                                              \
        if (theano_la_rhs(c, n, &r, &k)) return THEANO_LA_VALUE;                                                       \
        if (theano_checked_mul(r, k, &rk) != THEANO_RULE_OK)                                                           \
          return theano_la_fail(c, THEANO_LA_VALUE, 0, "the right-hand side's size overflows int64", 0, "", 0, "");    \
        if ((rc = theano_la_work_add(c, bytes, rk, ts)) != THEANO_LA_OK) return rc;    /* b / x */                      \
        if ((rc = theano_la_work_add(c, bytes, n, 4)) != THEANO_LA_OK) return rc;      /* pivots */                     \
        break;                                                                                                         \
      case THEANO_LA_DET:                                                                                              \
      case THEANO_LA_SLOGDET:                                                                                          \
      case THEANO_LA_LU_FACTOR:                                                                                        \
        if ((rc = theano_la_work_add(c, bytes, n, 4)) != THEANO_LA_OK) return rc;                                      \
        break;                                                                                                         \
      case THEANO_LA_CHOLESKY_GRAD:                                                                                    \
        if ((rc = theano_la_work_add(c, bytes, nn, ts)) != THEANO_LA_OK) return rc; /* the gradient */                 \
        if ((rc = theano_la_work_add(c, bytes, theano_la_chol_grad_scratch(n), ts)) != THEANO_LA_OK) return rc;        \
        break;                                                                                                         \
      case THEANO_LA_PIV_TO_PERM:                                                                                      \
        if ((rc = theano_la_work_add(c, bytes, m, 8)) != THEANO_LA_OK) return rc;                                      \
        break;                                                                                                         \
      case THEANO_LA_EIGH:                                                                                             \
        if ((rc = theano_la_query_##S(c, &lw, &liw)) != THEANO_LA_OK) return rc;                                       \
        if ((rc = theano_la_work_add(c, bytes, n, ts)) != THEANO_LA_OK) return rc;      /* w */                         \
        if ((rc = theano_la_work_add(c, bytes, lw, ts)) != THEANO_LA_OK) return rc;                                    \
        if ((rc = theano_la_work_add(c, bytes, liw, 4)) != THEANO_LA_OK) return rc;                                    \
        break;                                                                                                         \
      case THEANO_LA_SVD:                                                                                              \
      case THEANO_LA_PINV:                                                                                             \
      case THEANO_LA_QR: {                                                                                             \
        const int64_t kk = m < n ? m : n;                                                                              \
        const int64_t full = c->kind == THEANO_LA_PINV ? 0 : c->opt[0];                                                \
        const int64_t ucols = c->kind != THEANO_LA_QR ? (full ? m : kk) : (full == 1 ? m : kk);                        \
        const int64_t vrows = full ? n : kk;                                                                           \
        if ((rc = theano_la_query_##S(c, &lw, &liw)) != THEANO_LA_OK) return rc;                                       \
        if (liw < 0) return theano_la_fail(c, THEANO_LA_VALUE, 0, "the workspace's size overflows int64", 0, "", 0, ""); \
        if ((rc = theano_la_work_add(c, bytes, kk, ts)) != THEANO_LA_OK) return rc; /* S / tau */                       \
        if (theano_checked_mul(m, ucols > n ? ucols : n, &mm) != THEANO_RULE_OK)                                       \
          return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");             \
        if ((rc = theano_la_work_add(c, bytes, mm, ts)) != THEANO_LA_OK) return rc; /* U / Q */                         \
        if (c->kind != THEANO_LA_QR) {                                                                                 \
          if (theano_checked_mul(vrows, n, &mm) != THEANO_RULE_OK)                                                     \
            return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");           \
          if ((rc = theano_la_work_add(c, bytes, mm, ts)) != THEANO_LA_OK) return rc; /* Vt */                          \
        }                                                                                                              \
        if ((rc = theano_la_work_add(c, bytes, lw, ts)) != THEANO_LA_OK) return rc;                                    \
        if ((rc = theano_la_work_add(c, bytes, liw, 4)) != THEANO_LA_OK) return rc;                                    \
        break;                                                                                                         \
      }                                                                                                                \
      default:                                                                                                         \
        break;                                                                                                         \
    }                                                                                                                  \
    return THEANO_LA_OK;                                                                                               \
  }                                                                                                                    \
  /* Whether the n x n row-major contiguous matrix at src holds a NaN or an infinity: the load's check (kernels/       \
   * linalg_call.h) without its copy, for the solves that read their matrix in place. */                               \
  static inline int theano_la_any_bad_##S(int64_t n, const T* src) {                                                   \
    const THEANO_LA_U_##S e = THEANO_LA_E_##S, low = e & (0 - e);                                                      \
    THEANO_LA_U_##S bits, any = 0;                                                                                     \
    int64_t i, nn = n * n;                                                                                             \
    for (i = 0; i < nn; ++i) {                                                                                         \
      __builtin_memcpy(&bits, &src[i], sizeof bits);                                                                   \
      any |= (bits & e) + low;                                                                                         \
    }                                                                                                                  \
    return (int)(any >> (8 * sizeof bits - 1));                                                                        \
  }                                                                                                                    \
  static inline int theano_la_run_##S(TheanoLaCall* c) {                                                               \
    int64_t m = 0, n = 0, rs, cs, r = 0, k = 0, b, i, j;                                                               \
    int mi = 0, ni = 0, ki = 0, info = 0, rc;                                                                          \
    char* at = c->work;                                                                                                \
    T *a, *x = 0, *w = 0, *u = 0, *vt = 0, *lwk = 0;                                                                   \
    int *piv = 0, *iwk = 0;                                                                                            \
    int64_t* perm = 0;                                                                                                 \
    int64_t lw = 0, liw = 0;                                                                                           \
    int lwi = 0, liwi = 0;                                                                                             \
    if (c->kind == THEANO_LA_EXPM) return theano_la_expm_run_##S(c);                                                   \
    if (c->kind == THEANO_LA_EIG) return theano_la_eig_run_##S(c);                                                     \
    theano_la_core(c, 0, &m, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, m, &mi) || theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                  \
    const int ld = mi > 1 ? mi : 1;                                                                                    \
    const int64_t kk = m < n ? m : n;                                                                                  \
    ki = (int)kk;                                                                                                      \
    a = c->kind == THEANO_LA_CHOLESKY ? (T*)0 : (T*)theano_la_take(&at, m * n, (int64_t)sizeof(T));                    \
    switch (c->kind) {                                                                                                 \
      case THEANO_LA_SOLVE_TRIANGULAR:                                                                                 \
      case THEANO_LA_CHO_SOLVE:                                                                                        \
      case THEANO_LA_SOLVE:                                                                                            \
      case THEANO_LA_INV:                                                                                              \
        if (theano_la_rhs(c, n, &r, &k)) return THEANO_LA_VALUE;                                                       \
        ki = (int)k;                                                                                                   \
        x = (T*)theano_la_take(&at, r * k, (int64_t)sizeof(T));                                                                 \
        piv = (int*)theano_la_take(&at, n, 4);                                                                         \
        break;                                                                                                         \
      case THEANO_LA_DET:                                                                                              \
      case THEANO_LA_SLOGDET:                                                                                          \
      case THEANO_LA_LU_FACTOR:                                                                                        \
        piv = (int*)theano_la_take(&at, n, 4);                                                                         \
        break;                                                                                                         \
      case THEANO_LA_CHOLESKY_GRAD:                                                                                    \
        x = (T*)theano_la_take(&at, n * n, (int64_t)sizeof(T));                                                        \
        w = (T*)theano_la_take(&at, theano_la_chol_grad_scratch(n), (int64_t)sizeof(T));                               \
        break;                                                                                                         \
      case THEANO_LA_PIV_TO_PERM:                                                                                      \
        perm = (int64_t*)theano_la_take(&at, m, 8);                                                                    \
        break;                                                                                                         \
      case THEANO_LA_EIGH:                                                                                             \
        if ((rc = theano_la_query_##S(c, &lw, &liw)) != THEANO_LA_OK) return rc;                                       \
        w = (T*)theano_la_take(&at, n, (int64_t)sizeof(T));                                                                     \
        lwk = (T*)theano_la_take(&at, lw, (int64_t)sizeof(T));                                                                  \
        iwk = (int*)theano_la_take(&at, liw, 4);                                                                       \
        break;                                                                                                         \
      case THEANO_LA_SVD:                                                                                              \
      case THEANO_LA_PINV:                                                                                             \
      case THEANO_LA_QR: {                                                                                             \
        const int64_t full = c->kind == THEANO_LA_PINV ? 0 : c->opt[0];                                                \
        const int64_t ucols = c->kind != THEANO_LA_QR ? (full ? m : kk) : (full == 1 ? m : kk);                        \
        const int64_t vrows = full ? n : kk;                                                                           \
        if ((rc = theano_la_query_##S(c, &lw, &liw)) != THEANO_LA_OK) return rc;                                       \
        w = (T*)theano_la_take(&at, kk, (int64_t)sizeof(T));                                                                    \
        u = (T*)theano_la_take(&at, m * (ucols > n ? ucols : n), (int64_t)sizeof(T));                                           \
        if (c->kind != THEANO_LA_QR) vt = (T*)theano_la_take(&at, vrows * n, (int64_t)sizeof(T));                              \
        lwk = (T*)theano_la_take(&at, lw, (int64_t)sizeof(T));                                                                  \
        iwk = (int*)theano_la_take(&at, liw, 4);                                                                       \
        break;                                                                                                         \
      }                                                                                                                \
      default:                                                                                                         \
        break;                                                                                                         \
    }                                                                                                                  \
    if (theano_la_int(c, lw, &lwi) || theano_la_int(c, liw, &liwi)) return THEANO_LA_VALUE;                            \
    const int ldx = (int)(r > 1 ? r : 1);                                                                              \
    const int64_t c0 = theano_la_out_core(c, 0), c1 = c->nout > 1 ? theano_la_out_core(c, 1) : 0,                     \
                  c2 = c->nout > 2 ? theano_la_out_core(c, 2) : 0;                                                     \
    for (b = 0; b < c->nbatch; ++b) {                                                                                  \
      T* o0 = (T*)c->out[0] + b * c0;                                                                                  \
      T* o1 = c->nout > 1 && c->kind != THEANO_LA_LU_FACTOR ? (T*)c->out[1] + b * c1 : (T*)0;                          \
      T* o2 = c->nout > 2 ? (T*)c->out[2] + b * c2 : (T*)0;                                                            \
      (void)o1;                                                                                                        \
      (void)o2;                                                                                                        \
      c->at = b;                                                                                                       \
      info = 0;                                                                                                        \
      switch (c->kind) {                                                                                               \
        case THEANO_LA_CHOLESKY: {                                                                                     \
          /* Factored in the output: o0 (row-major, contiguous) read column-major with ld n is A^T as it lies, whose   \
           * other triangle is the one read; the triangle LAPACK leaves untouched is zeroed after. */                  \
          const int lower = (int)c->opt[0];                                                                            \
          if (c->opt[1]) {                                                                                             \
            int64_t bad = theano_la_load_##S(n, n, theano_la_in_at(c, 0, b), cs, rs, o0, n);                           \
            if (bad) {                                                                                                 \
              theano_la_fill_##S(o0, n * n, (T)__builtin_nan(""));                                                     \
              break;                                                                                                   \
            }                                                                                                          \
          } else if ((rc = theano_la_get_t_##S(c, 0, b, o0, n)) != THEANO_LA_OK) {                                     \
            return rc;                                                                                                 \
          }                                                                                                            \
          if (n == 0) break;                                                                                           \
          theano_la_potrf_##S(!lower, ni, o0, ni, &info);                                                              \
          if (info < 0) return theano_la_arg_error(c, #P "potrf", info);                                               \
          if (info > 0) {                                                                                              \
            if (c->opt[1]) {                                                                                           \
              theano_la_fill_##S(o0, n * n, (T)__builtin_nan(""));                                                     \
              break;                                                                                                   \
            }                                                                                                          \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the matrix (input 0) is not positive definite: leading minor ", \
                                  info, " is not positive", 0, "");                                                    \
          }                                                                                                            \
          for (i = 0; i < n; ++i) {                                                                                    \
            int64_t lo, hi;                                                                                            \
            T* o = o0 + i * n;                                                                                         \
            theano_la_tri_span(i, n, lower ? 1 : 2, &lo, &hi);                                                         \
            for (j = 0; j < lo; ++j) o[j] = (T)0;                                                                      \
            for (j = hi; j < n; ++j) o[j] = (T)0;                                                                      \
          }                                                                                                            \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_SOLVE_TRIANGULAR:                                                                               \
        case THEANO_LA_CHO_SOLVE:                                                                                      \
        case THEANO_LA_SOLVE:                                                                                          \
        case THEANO_LA_INV: {                                                                                          \
          /* triangular and Cholesky solves read A^T as it lies (the other triangle, the other trans), and             \
           * only read it: a contiguous one is checked where it lies and not copied (a 500 x 500 double's copy was     \
           * 0.15 ms of a 0.2 ms solve of one right-hand side); a NaN takes the load for its message. */               \
          const int at_t = c->kind == THEANO_LA_SOLVE_TRIANGULAR || c->kind == THEANO_LA_CHO_SOLVE;                   \
          const T* av = a;                                                                                             \
          if (at_t && cs == (int64_t)sizeof(T) && rs == n * (int64_t)sizeof(T) &&                                      \
              !theano_la_any_bad_##S(n, (const T*)theano_la_in_at(c, 0, b))) {                                         \
            av = (const T*)theano_la_in_at(c, 0, b);                                                                   \
          } else if ((rc = at_t ? theano_la_get_t_##S(c, 0, b, a, ld) : theano_la_get_##S(c, 0, b, a, ld)) !=          \
                     THEANO_LA_OK) {                                                                                   \
            return rc;                                                                                                \
          }                                                                                                            \
          if (c->kind == THEANO_LA_INV) {                                                                              \
            for (j = 0; j < n; ++j)                                                                                    \
              for (i = 0; i < n; ++i) x[i + j * n] = (T)(i == j);                                                      \
          } else if ((rc = theano_la_get_##S(c, 1, b, x, ldx)) != THEANO_LA_OK) {                                      \
            return rc;                                                                                                 \
          }                                                                                                            \
          if (n == 0 || k == 0) break;                                                                                 \
          if (c->kind == THEANO_LA_SOLVE_TRIANGULAR) {                                                                 \
            P##trtrs_(c->opt[0] ? "U" : "L", c->opt[1] ? "N" : "T", c->opt[2] ? "U" : "N", &ni, &ki, av, &ld, x, &ldx, \
                      &info, 1, 1, 1);                                                                                 \
            if (info < 0) return theano_la_arg_error(c, #P "trtrs", info);                                             \
            if (info > 0)                                                                                              \
              return theano_la_fail(c, THEANO_LA_VALUE, 1, "the matrix (input 0) is singular: diagonal element ",      \
                                    info - 1, " is zero", 0, "");                                                      \
          } else if (c->kind == THEANO_LA_CHO_SOLVE) {                                                                 \
            P##potrs_(c->opt[0] ? "U" : "L", &ni, &ki, av, &ld, x, &ldx, &info, 1);                                    \
            if (info < 0) return theano_la_arg_error(c, #P "potrs", info);                                             \
          } else if (c->kind == THEANO_LA_SOLVE && c->opt[0] == 2) {                                                   \
            theano_la_potrf_##S((int)c->opt[1], ni, a, ld, &info);                                                     \
            if (info < 0) return theano_la_arg_error(c, #P "potrf", info);                                             \
            if (info > 0)                                                                                              \
              return theano_la_fail(c, THEANO_LA_VALUE, 1,                                                             \
                                    "the matrix (input 0) is not positive definite (assume_a=\"pos\"): leading minor ",  \
                                    info, " is not positive", 0, "");                                                  \
            P##potrs_(c->opt[1] ? "L" : "U", &ni, &ki, a, &ld, x, &ldx, &info, 1);                                     \
            if (info < 0) return theano_la_arg_error(c, #P "potrs", info);                                             \
          } else {                                                                                                     \
            if (c->kind == THEANO_LA_SOLVE && c->opt[0] == 1) /* sym: the other triangle from the one read */         \
              for (j = 0; j < n; ++j)                                                                                  \
                for (i = 0; i < n; ++i)                                                                                \
                  if (c->opt[1] ? i < j : i > j) a[i + j * n] = a[j + i * n];                                          \
            P##getrf_(&ni, &ni, a, &ld, piv, &info);                                                                   \
            if (info < 0) return theano_la_arg_error(c, #P "getrf", info);                                             \
            if (info > 0)                                                                                              \
              return theano_la_fail(c, THEANO_LA_VALUE, 1, "the matrix (input 0) is singular: U[", info - 1,          \
                                    "] of its LU factorization is exactly zero", 0, "");                              \
            P##getrs_("N", &ni, &ki, a, &ld, piv, x, &ldx, &info, 1);                                                  \
            if (info < 0) return theano_la_arg_error(c, #P "getrs", info);                                             \
          }                                                                                                            \
          theano_la_store_##S(r, k, x, ldx, o0, 0);                                                                    \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_DET:                                                                                            \
        case THEANO_LA_SLOGDET: {                                                                                      \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          if (n > 0) {                                                                                                 \
            P##getrf_(&ni, &ni, a, &ld, piv, &info);                                                                   \
            if (info < 0) return theano_la_arg_error(c, #P "getrf", info);                                             \
          }                                                                                                            \
          theano_la_gpu_lu_det_##S(a, piv, n, c->kind == THEANO_LA_SLOGDET, o0, o1);                                   \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_EIGH: {                                                                                         \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          if (n == 0) break;                                                                                           \
          P##syevd_(c->opt[1] ? "V" : "N", c->opt[0] ? "L" : "U", &ni, a, &ld, w, lwk, &lwi, iwk, &liwi, &info, 1, 1); \
          if (info < 0) return theano_la_arg_error(c, #P "syevd", info);                                               \
          if (info > 0)                                                                                                \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the eigenvalue algorithm did not converge on the matrix (input 0): info ", \
                                  info, "", 0, "");                                                                    \
          for (i = 0; i < n; ++i) o0[i] = w[i];                                                                        \
          if (c->opt[1]) theano_la_store_##S(n, n, a, ld, o1, 0);                                                      \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_SVD: {                                                                                          \
          const int full = (int)c->opt[0], uv = (int)c->opt[1];                                                        \
          const int64_t ucols = full ? m : kk, vrows = full ? n : kk;                                                  \
          const int ldu = ld, ldvt = (int)(vrows > 1 ? vrows : 1);                                                     \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          if (kk == 0) {                                                                                               \
            /* an empty matrix: no singular values; U and Vt of a full SVD are identities */                          \
            if (uv) {                                                                                                  \
              for (i = 0; i < m; ++i)                                                                                  \
                for (j = 0; j < ucols; ++j) o0[i * ucols + j] = (T)(i == j);                                           \
              for (i = 0; i < vrows; ++i)                                                                              \
                for (j = 0; j < n; ++j) o2[i * n + j] = (T)(i == j);                                                   \
            }                                                                                                          \
            break;                                                                                                     \
          }                                                                                                            \
          P##gesdd_(!uv ? "N" : full ? "A" : "S", &mi, &ni, a, &ld, w, u, &ldu, vt, &ldvt, lwk, &lwi, iwk, &info, 1);  \
          if (info < 0) return theano_la_arg_error(c, #P "gesdd", info);                                               \
          if (info > 0)                                                                                                \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the SVD did not converge on the matrix (input 0): info ",    \
                                  info, "", 0, "");                                                                    \
          if (uv) {                                                                                                    \
            theano_la_store_##S(m, ucols, u, ldu, o0, 0);                                                              \
            for (i = 0; i < kk; ++i) o1[i] = w[i];                                                                     \
            theano_la_store_##S(vrows, n, vt, ldvt, o2, 0);                                                            \
          } else {                                                                                                     \
            for (i = 0; i < kk; ++i) o0[i] = w[i];                                                                     \
          }                                                                                                            \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_LU_FACTOR: {                                                                                    \
          int32_t* p1 = (int32_t*)c->out[1] + b * c1;                                                                  \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          if (n == 0) break;                                                                                           \
          P##getrf_(&ni, &ni, a, &ld, piv, &info);                                                                     \
          if (info < 0) return theano_la_arg_error(c, #P "getrf", info);                                               \
          /* info > 0: U singular, the factorization is still complete (scipy's lu_factor warns) */                   \
          theano_la_store_##S(n, n, a, ld, o0, 0);                                                                     \
          for (i = 0; i < n; ++i) p1[i] = piv[i] - 1;                                                                  \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_CHOLESKY_GRAD:                                                                                 \
          if (n > 0) theano_la_cholesky_grad_##S(c, b, n, ni, a, x, w, o0);                                            \
          break;                                                                                                      \
        case THEANO_LA_PIV_TO_PERM: {                                                                                  \
          /* m: the pivots' length; the input is int32, any stride */                                                 \
          const char* pp = theano_la_in_at(c, 0, b);                                                                   \
          int64_t* out = (int64_t*)c->out[0] + b * c0;                                                                 \
          for (i = 0; i < m; ++i) perm[i] = i;                                                                         \
          for (i = 0; i < m; ++i) {                                                                                    \
            const int64_t v = *(const int32_t*)(pp + i * rs);                                                          \
            int64_t t;                                                                                                 \
            if (v < i || v >= m)                                                                                       \
              return theano_la_fail(c, THEANO_LA_VALUE, 2, "the pivots (input 0) are not LAPACK's: pivot ", i,         \
                                    " is ", v, ", outside [its index, the length)");                                   \
            t = perm[i];                                                                                               \
            perm[i] = perm[v];                                                                                         \
            perm[v] = t;                                                                                               \
          }                                                                                                            \
          for (i = 0; i < m; ++i) {                                                                                    \
            if (c->opt[0])                                                                                             \
              out[perm[i]] = i;                                                                                        \
            else                                                                                                       \
              out[i] = perm[i];                                                                                        \
          }                                                                                                            \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_PINV: {                                                                                         \
          /* Z (n x m) = V diag(s+) U^T, U m x k and Vt k x n column-major */                                         \
          const int ldvt = (int)(kk > 1 ? kk : 1);                                                                     \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          theano_la_fill_##S(o0, n * m, (T)0);                                                                         \
          if (kk == 0) break;                                                                                          \
          P##gesdd_("S", &mi, &ni, a, &ld, w, u, &ld, vt, &ldvt, lwk, &lwi, iwk, &info, 1);                            \
          if (info < 0) return theano_la_arg_error(c, #P "gesdd", info);                                               \
          if (info > 0)                                                                                                \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the SVD did not converge on the matrix (input 0): info ",    \
                                  info, "", 0, "");                                                                    \
          for (i = 0; i < n; ++i)                                                                                      \
            for (j = 0; j < m; ++j) theano_la_gpu_pinv_ij_##S(i, j, m, n, w, u, vt, 0, o0);                            \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_QR: {                                                                                           \
          const int mode = (int)c->opt[0];                                                                             \
          const int64_t qcols = mode == 1 ? m : kk, rrows = mode == 1 ? m : kk;                                        \
          const int qci = (int)qcols;                                                                                  \
          if ((rc = theano_la_get_##S(c, 0, b, u, ld)) != THEANO_LA_OK) return rc;                                     \
          if (kk > 0) {                                                                                                \
            P##geqrf_(&mi, &ni, u, &ld, w, lwk, &lwi, &info);                                                          \
            if (info < 0) return theano_la_arg_error(c, #P "geqrf", info);                                             \
          }                                                                                                            \
          T* rout = mode == 2 ? o0 : o1;                                                                               \
          for (i = 0; i < rrows; ++i)                                                                                  \
            for (j = 0; j < n; ++j) rout[i * n + j] = i <= j && i < kk ? u[i + j * m] : (T)0;                          \
          if (mode == 2) break;                                                                                        \
          if (kk == 0) {                                                                                               \
            for (i = 0; i < m; ++i)                                                                                    \
              for (j = 0; j < qcols; ++j) o0[i * qcols + j] = (T)(i == j);                                             \
            break;                                                                                                     \
          }                                                                                                            \
          P##orgqr_(&mi, &qci, &ki, u, &ld, w, lwk, &lwi, &info);                                                      \
          if (info < 0) return theano_la_arg_error(c, #P "orgqr", info);                                               \
          theano_la_store_##S(m, qcols, u, ld, o0, 0);                                                                 \
          break;                                                                                                       \
        }                                                                                                              \
        default:                                                                                                       \
          return theano_la_fail(c, THEANO_LA_INTERNAL, 1, "unknown linear algebra kind ", c->kind, "", 0, "");       \
      }                                                                                                                \
    }                                                                                                                  \
    c->at = -1;                                                                                                        \
    (void)vt;                                                                                                          \
    return THEANO_LA_OK;                                                                                               \
  }

THEANO_LA_KERNELS(double, f64, d)
THEANO_LA_KERNELS(float, f32, s)

#endif /* THEANO_RUNTIME_LINALG_H */
