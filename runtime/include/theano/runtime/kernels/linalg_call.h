/* The LAPACK-backed linear algebra ops' call record and shape rule
 * (theano/tensor/linalg.h, docs/linalg.md), shared by every kernel of
 * kernels/linalg*.h: the LAPACK / BLAS declarations, the result codes and
 * op kinds, TheanoLaCall, the messages, the shape rule (theano_la_rule),
 * the workspace helpers, and the typed loads and stores between the
 * row-major strided inputs / outputs and LAPACK's column-major buffers.
 * The runs are in kernels/linalg.h (factorizations, solvers, spectral),
 * kernels/linalg_expm.h and kernels/linalg_eig.h. Plain C. */
#ifndef THEANO_RUNTIME_LINALG_CALL_H
#define THEANO_RUNTIME_LINALG_CALL_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#include "shape_rules.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif
#define THEANO_LA_LAPACK_DECL(T, P)                                                                               \
  void P##potrf_(const char*, const int*, T*, const int*, int*, unsigned long);                                  \
  void P##potrs_(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, unsigned long);  \
  void P##trtrs_(const char*, const char*, const char*, const int*, const int*, const T*, const int*, T*,         \
                 const int*, int*, unsigned long, unsigned long, unsigned long);                                  \
  void P##getrf_(const int*, const int*, T*, const int*, int*, int*);                                            \
  void P##getrs_(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*,      \
                 unsigned long);                                                                                  \
  void P##syevd_(const char*, const char*, const int*, T*, const int*, T*, T*, const int*, int*, const int*, int*, \
                 unsigned long, unsigned long);                                                                   \
  void P##gesdd_(const char*, const int*, const int*, T*, const int*, T*, T*, const int*, T*, const int*, T*,      \
                 const int*, int*, int*, unsigned long);                                                          \
  void P##geqrf_(const int*, const int*, T*, const int*, T*, T*, const int*, int*);                               \
  void P##orgqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);            \
  void P##geev_(const char*, const char*, const int*, T*, const int*, T*, T*, T*, const int*, T*, const int*, T*,     \
                const int*, int*, unsigned long, unsigned long);                                                      \
  void P##trmm_(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,       \
                const int*, T*, const int*, unsigned long, unsigned long, unsigned long, unsigned long);              \
  void P##trsm_(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,       \
                const int*, T*, const int*, unsigned long, unsigned long, unsigned long, unsigned long);              \
  void P##trtri_(const char*, const char*, const int*, T*, const int*, int*, unsigned long, unsigned long);         \
  void P##gemm_(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*,       \
                const T*, const int*, const T*, T*, const int*, unsigned long, unsigned long);             \
  void P##syrk_(const char*, const char*, const int*, const int*, const T*, const T*, const int*, const T*, T*,     \
                const int*, unsigned long, unsigned long);
THEANO_LA_LAPACK_DECL(double, d)
THEANO_LA_LAPACK_DECL(float, s)
#undef THEANO_LA_LAPACK_DECL
#ifdef __cplusplus
}
#endif

/* Result codes: OK, a shape error (ShapeError), a value error (ValueError:
 * not positive definite, singular, non-finite input, a size past LAPACK's
 * 32-bit int), an internal error (LAPACK rejected an argument: a bug here). */
#define THEANO_LA_OK 0
#define THEANO_LA_SHAPE 1
#define THEANO_LA_VALUE 2
#define THEANO_LA_INTERNAL 3

/* The op kinds and their options (opt[]):
 *   CHOLESKY          A                 opt: lower, nan_on_error
 *   SOLVE_TRIANGULAR  A, b              opt: lower, trans (0 N, 1 T), unit_diagonal, b_ndim
 *   CHO_SOLVE         C, b              opt: lower, b_ndim
 *   SOLVE             A, b              opt: assume_a (0 gen, 1 sym, 2 pos), lower, b_ndim
 *   INV, DET, SLOGDET A                 (SLOGDET: two outputs, sign and log|det|)
 *   EIGH              A                 opt: lower, compute_v (outputs w, then v)
 *   SVD               A                 opt: full_matrices, compute_uv (outputs U, S, Vt or S)
 *   QR                A                 opt: mode (0 reduced, 1 complete, 2 r; outputs Q, R or R)
 *   LU_FACTOR         A                 outputs LU (L's strict lower part and U), pivots (int32, 0-based,
 *                                       scipy's: row i was swapped with row piv[i])
 *   PIV_TO_PERM       piv (int32)       opt: inverse; output int64 perm with A[perm] = L U (inverse:
 *                                       p with A = L[p] U, scipy's lu(p_indices=True))
 *   PINV              A                 the Moore-Penrose pseudo-inverse (n x m) through gesdd: singular
 *                                       values at or below 1e-15 times the largest taken as zero (numpy's
 *                                       default rcond)
 *   EXPM              A                 the matrix exponential (kernels/linalg_expm.h), computed in double
 *   EIG               A                 opt: compute_v; outputs w, then v (the eigenvectors as columns), complex
 *                                       (interleaved real, imaginary: complex128 for float64, complex64 for
 *                                       float32), as numpy.linalg.eig (kernels/linalg_eig.h)
 *   CHOLESKY_GRAD     L, Lbar           opt: lower; Cholesky's gradient (Murray 2016): with the lower factor
 *                                       L (the upper one's transpose) and Lbar (its lower triangle read),
 *                                       Phi(L^-T (P + P^T) L^-1), P = Phi(L^T Lbar), Phi the lower triangle with
 *                                       the diagonal halved; the upper op's result is its transpose */
#define THEANO_LA_CHOLESKY 1
#define THEANO_LA_SOLVE_TRIANGULAR 2
#define THEANO_LA_CHO_SOLVE 3
#define THEANO_LA_SOLVE 4
#define THEANO_LA_INV 5
#define THEANO_LA_DET 6
#define THEANO_LA_SLOGDET 7
#define THEANO_LA_EIGH 8
#define THEANO_LA_SVD 9
#define THEANO_LA_QR 10
#define THEANO_LA_LU_FACTOR 11
#define THEANO_LA_PIV_TO_PERM 12
#define THEANO_LA_PINV 13
#define THEANO_LA_EXPM 14
#define THEANO_LA_EIG 15
#define THEANO_LA_CHOLESKY_GRAD 16

#define THEANO_LA_MAX_ARGS 3
#define THEANO_LA_MSG 256

typedef struct TheanoLaCall {
  int64_t kind;
  int64_t opt[4];
  int64_t nin, nout;
  const char* in[THEANO_LA_MAX_ARGS];
  int64_t in_nd[THEANO_LA_MAX_ARGS];
  const int64_t* in_shape[THEANO_LA_MAX_ARGS];
  const int64_t* in_strides[THEANO_LA_MAX_ARGS]; /* bytes */
  char* out[THEANO_LA_MAX_ARGS];                 /* C-contiguous, shapes from the rule */
  int64_t out_nd[THEANO_LA_MAX_ARGS];
  int64_t out_shape[THEANO_LA_MAX_ARGS][THEANO_MAX_NDIM];
  /* Set by the rule: each input's core rank, the broadcast batch shape. */
  int64_t core_in[THEANO_LA_MAX_ARGS];
  int64_t nb;
  int64_t bshape[THEANO_MAX_NDIM];
  int64_t nbatch;
  int64_t at; /* the batch entry being computed (messages) */
  char* work; /* theano_la_work_<s> bytes, 16-byte aligned */
  char msg[THEANO_LA_MSG];
} TheanoLaCall;

static inline void theano_la_init(TheanoLaCall* c, int64_t kind, int64_t nin, int64_t nout) {
  int64_t i;
  c->kind = kind;
  c->nin = nin;
  c->nout = nout;
  c->nb = 0;
  c->nbatch = 1;
  c->at = -1;
  c->work = 0;
  c->msg[0] = 0;
  for (i = 0; i < 4; ++i) c->opt[i] = 0;
  for (i = 0; i < THEANO_LA_MAX_ARGS; ++i) {
    c->in[i] = 0;
    c->in_nd[i] = 0;
    c->in_shape[i] = 0;
    c->in_strides[i] = 0;
    c->out[i] = 0;
    c->out_nd[i] = 0;
    c->core_in[i] = 0;
  }
}

/* ---- messages ---- */

static inline void theano_la_puts(TheanoLaCall* c, int64_t* p, const char* s) {
  while (*s && *p < THEANO_LA_MSG - 1) c->msg[(*p)++] = *s++;
  c->msg[*p] = 0;
}
static inline void theano_la_puti(TheanoLaCall* c, int64_t* p, int64_t v) {
  char t[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    t[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  if (v < 0) t[n++] = '-';
  while (n && *p < THEANO_LA_MSG - 1) c->msg[(*p)++] = t[--n];
  c->msg[*p] = 0;
}
/* "<a><v><b><w><tail>" (k values: 0 to 2), then " (batch entry N)" while a
 * batched run is under way; returns `code`. */
static inline int theano_la_fail(TheanoLaCall* c, int code, int k, const char* a, int64_t v, const char* b, int64_t w,
                                 const char* tail) {
  int64_t p = 0;
  theano_la_puts(c, &p, a);
  if (k > 0) theano_la_puti(c, &p, v);
  if (k > 0) theano_la_puts(c, &p, b);
  if (k > 1) theano_la_puti(c, &p, w);
  theano_la_puts(c, &p, tail);
  if (c->at >= 0 && c->nb > 0) {
    theano_la_puts(c, &p, " (batch entry ");
    theano_la_puti(c, &p, c->at);
    theano_la_puts(c, &p, ")");
  }
  return code;
}
/* Copies the NUL-terminated `a` then `b` into dst (cap bytes, NUL-terminated):
 * generated code's message, the node's label before the kernel's words. */
static inline void theano_la_cat(char* dst, int64_t cap, const char* a, const char* b) {
  int64_t p = 0;
  while (*a && p < cap - 1) dst[p++] = *a++;
  while (*b && p < cap - 1) dst[p++] = *b++;
  dst[p] = 0;
}

/* ---- the shape rule ---- */

/* The core dims of input i: a matrix (rows, cols, their byte strides) or,
 * with core rank 1, a vector as one column. */
static inline void theano_la_core(const TheanoLaCall* c, int64_t i, int64_t* r, int64_t* k, int64_t* rs, int64_t* cs) {
  const int64_t nd = c->in_nd[i];
  if (c->core_in[i] == 1) {
    *r = c->in_shape[i][nd - 1];
    *k = 1;
    *rs = c->in_strides[i][nd - 1];
    *cs = 0;
  } else {
    *r = c->in_shape[i][nd - 2];
    *k = c->in_shape[i][nd - 1];
    *rs = c->in_strides[i][nd - 2];
    *cs = c->in_strides[i][nd - 1];
  }
}

/* Checks every input's rank and broadcasts the batch dims (numpy's rule,
 * aligned right); sets nb, bshape and nbatch. */
static inline int theano_la_batch_rule(TheanoLaCall* c) {
  int64_t i, d, nb = 0;
  for (i = 0; i < c->nin; ++i) {
    const int64_t bi = c->in_nd[i] - c->core_in[i];
    if (bi < 0)
      return theano_la_fail(c, THEANO_LA_SHAPE, 2, "input ", i, " has rank ", c->in_nd[i],
                            c->core_in[i] == 1 ? ", expected at least 1" : ", expected at least 2 (a matrix)");
    if (bi > nb) nb = bi;
  }
  c->nb = nb;
  c->nbatch = 1;
  for (d = 0; d < nb; ++d) {
    int64_t size = 1;
    for (i = 0; i < c->nin; ++i) {
      const int64_t bi = c->in_nd[i] - c->core_in[i], k = d - (nb - bi);
      if (k < 0 || c->in_shape[i][k] == 1) continue;
      if (size != 1 && size != c->in_shape[i][k])
        return theano_la_fail(c, THEANO_LA_SHAPE, 2, "the batch dimensions do not broadcast: at batch dimension ", d,
                              ", input ", i, " has a different size from an earlier input");
      size = c->in_shape[i][k];
    }
    c->bshape[d] = size;
    if (theano_checked_mul(c->nbatch, size, &c->nbatch) != THEANO_RULE_OK)
      return theano_la_fail(c, THEANO_LA_VALUE, 0, "the number of batch entries overflows int64", 0, "", 0, "");
  }
  return THEANO_LA_OK;
}

/* Output k: the batch shape then `cnd` core dims d0, d1. */
static inline void theano_la_set_out(TheanoLaCall* c, int64_t k, int64_t cnd, int64_t d0, int64_t d1) {
  int64_t d;
  for (d = 0; d < c->nb; ++d) c->out_shape[k][d] = c->bshape[d];
  if (cnd > 0) c->out_shape[k][c->nb] = d0;
  if (cnd > 1) c->out_shape[k][c->nb + 1] = d1;
  c->out_nd[k] = c->nb + cnd;
}

static inline int theano_la_square(TheanoLaCall* c, int64_t i, int64_t* n) {
  int64_t r, k, rs, cs;
  theano_la_core(c, i, &r, &k, &rs, &cs);
  if (r != k) {
    int64_t p = 0;
    theano_la_puts(c, &p, "input ");
    theano_la_puti(c, &p, i);
    theano_la_puts(c, &p, " must be a square matrix, got one of shape (");
    theano_la_puti(c, &p, r);
    theano_la_puts(c, &p, ", ");
    theano_la_puti(c, &p, k);
    theano_la_puts(c, &p, ")");
    return THEANO_LA_SHAPE;
  }
  *n = r;
  return THEANO_LA_OK;
}

/* A size LAPACK takes as its 32-bit int. */
static inline int theano_la_int(TheanoLaCall* c, int64_t v, int* out) {
  if (v < 0 || v > 2147483647)
    return theano_la_fail(c, THEANO_LA_VALUE, 1, "a size of ", v, " does not fit LAPACK's 32-bit int", 0, "");
  *out = (int)v;
  return THEANO_LA_OK;
}

static inline int theano_la_rule(TheanoLaCall* c) {
  int64_t n = 0, m = 0, r, k, rs, cs, kind = c->kind;
  int rc;
  int64_t i;
  if (kind == THEANO_LA_SOLVE_TRIANGULAR || kind == THEANO_LA_CHO_SOLVE || kind == THEANO_LA_SOLVE) {
    const int64_t b_ndim = kind == THEANO_LA_SOLVE_TRIANGULAR ? c->opt[3] : kind == THEANO_LA_CHO_SOLVE ? c->opt[1] : c->opt[2];
    c->core_in[0] = 2;
    c->core_in[1] = b_ndim;
  } else if (kind == THEANO_LA_CHOLESKY_GRAD) {
    c->core_in[0] = 2;
    c->core_in[1] = 2;
  } else {
    c->core_in[0] = kind == THEANO_LA_PIV_TO_PERM ? 1 : 2;
  }
  if ((rc = theano_la_batch_rule(c)) != THEANO_LA_OK) return rc;
  switch (kind) {
    case THEANO_LA_CHOLESKY:
    case THEANO_LA_INV:
    case THEANO_LA_EXPM:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      theano_la_set_out(c, 0, 2, n, n);
      break;
    case THEANO_LA_DET:
    case THEANO_LA_SLOGDET:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      for (i = 0; i < c->nout; ++i) theano_la_set_out(c, i, 0, 0, 0);
      break;
    case THEANO_LA_SOLVE_TRIANGULAR:
    case THEANO_LA_CHO_SOLVE:
    case THEANO_LA_SOLVE:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      theano_la_core(c, 1, &r, &k, &rs, &cs);
      if (r != n)
        return theano_la_fail(c, THEANO_LA_SHAPE, 2, "the right-hand side (input 1) has ", r,
                              " rows but the matrix (input 0) has ", n, "");
      theano_la_set_out(c, 0, c->core_in[1], n, k);
      break;
    case THEANO_LA_CHOLESKY_GRAD:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK || (rc = theano_la_square(c, 1, &m)) != THEANO_LA_OK)
        return rc;
      if (m != n)
        return theano_la_fail(c, THEANO_LA_SHAPE, 2, "the factor's gradient (input 1) is ", m,
                              " x the same but the factor (input 0) is ", n, " x the same");
      theano_la_set_out(c, 0, 2, n, n);
      break;
    case THEANO_LA_EIG:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      theano_la_set_out(c, 0, 1, n, 0);
      if (c->opt[0]) theano_la_set_out(c, 1, 2, n, n);
      break;
    case THEANO_LA_EIGH:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      theano_la_set_out(c, 0, 1, n, 0);
      if (c->opt[1]) theano_la_set_out(c, 1, 2, n, n);
      break;
    case THEANO_LA_SVD: {
      theano_la_core(c, 0, &m, &n, &rs, &cs);
      k = m < n ? m : n;
      if (c->opt[1]) {
        theano_la_set_out(c, 0, 2, m, c->opt[0] ? m : k);
        theano_la_set_out(c, 1, 1, k, 0);
        theano_la_set_out(c, 2, 2, c->opt[0] ? n : k, n);
      } else {
        theano_la_set_out(c, 0, 1, k, 0);
      }
      break;
    }
    case THEANO_LA_LU_FACTOR:
      if ((rc = theano_la_square(c, 0, &n)) != THEANO_LA_OK) return rc;
      theano_la_set_out(c, 0, 2, n, n);
      theano_la_set_out(c, 1, 1, n, 0);
      break;
    case THEANO_LA_PIV_TO_PERM:
      theano_la_core(c, 0, &n, &k, &rs, &cs);
      theano_la_set_out(c, 0, 1, n, 0);
      break;
    case THEANO_LA_PINV:
      theano_la_core(c, 0, &m, &n, &rs, &cs);
      theano_la_set_out(c, 0, 2, n, m);
      break;
    case THEANO_LA_QR: {
      theano_la_core(c, 0, &m, &n, &rs, &cs);
      k = m < n ? m : n;
      if (c->opt[0] == 2) {
        theano_la_set_out(c, 0, 2, k, n);
      } else {
        theano_la_set_out(c, 0, 2, m, c->opt[0] == 1 ? m : k);
        theano_la_set_out(c, 1, 2, c->opt[0] == 1 ? m : k, n);
      }
      break;
    }
    default:
      return theano_la_fail(c, THEANO_LA_INTERNAL, 1, "unknown linear algebra kind ", kind, "", 0, "");
  }
  return THEANO_LA_OK;
}

/* ---- shared pieces of the runs ---- */

/* Input i's core at batch entry b (a size-1 or missing batch dim broadcasts). */
static inline const char* theano_la_in_at(const TheanoLaCall* c, int64_t i, int64_t b) {
  const char* p = c->in[i];
  const int64_t bi = c->in_nd[i] - c->core_in[i];
  int64_t d;
  for (d = c->nb - 1; d >= 0; --d) {
    const int64_t idx = b % c->bshape[d], k = d - (c->nb - bi);
    b /= c->bshape[d];
    if (k >= 0 && c->in_shape[i][k] != 1) p += idx * c->in_strides[i][k];
  }
  return p;
}

/* Element count of output k's core (its size over the batch entries). */
static inline int64_t theano_la_out_core(const TheanoLaCall* c, int64_t k) {
  int64_t d, s = 1;
  for (d = c->nb; d < c->out_nd[k]; ++d) s *= c->out_shape[k][d];
  return s;
}

/* Adds `count` items of `size` bytes to a workspace total, 16-byte aligned. */
static inline int theano_la_work_add(TheanoLaCall* c, int64_t* total, int64_t count, int64_t size) {
  int64_t b = 0;
  if (count < 0) count = 0;
  if (theano_checked_mul(count, size, &b) != THEANO_RULE_OK || theano_checked_add(b, 15, &b) != THEANO_RULE_OK ||
      theano_checked_add(*total, b / 16 * 16, total) != THEANO_RULE_OK)
    return theano_la_fail(c, THEANO_LA_VALUE, 0, "the workspace's size overflows int64", 0, "", 0, "");
  return THEANO_LA_OK;
}
/* The next `count` items of `size` bytes of the workspace (the same order as the _add calls). */
static inline char* theano_la_take(char** at, int64_t count, int64_t size) {
  char* p = *at;
  if (count < 0) count = 0;
  *at += (count * size + 15) / 16 * 16;
  return p;
}

/* The right-hand side's core dims (r rows, k columns) of the solvers and of
 * inv (its identity, n x n), k checked to fit LAPACK's int. */
static inline int theano_la_rhs(TheanoLaCall* c, int64_t n, int64_t* r, int64_t* k) {
  int64_t rs, cs;
  int ki;
  if (c->kind == THEANO_LA_INV) {
    *r = n;
    *k = n;
  } else {
    theano_la_core(c, 1, r, k, &rs, &cs);
  }
  return theano_la_int(c, *k, &ki);
}

/* LAPACK's `info` < 0: an argument it rejected, a bug of this layer. */
static inline int theano_la_arg_error(TheanoLaCall* c, const char* routine, int info) {
  int64_t p = 0;
  theano_la_puts(c, &p, "LAPACK's ");
  theano_la_puts(c, &p, routine);
  theano_la_puts(c, &p, " rejected its argument ");
  theano_la_puti(c, &p, -(int64_t)info);
  theano_la_puts(c, &p, " (a bug of kernels/linalg.h)");
  return THEANO_LA_INTERNAL;
}

/* Row i of a triangle: [*lo, *hi) of its k columns are kept (tri 1: j <= i, tri 2: j >= i, 0: all), the
 * rest are zeros. The stores below split each row at these bounds rather than test every element, so
 * the copy and the zeros are plain loops (g++ vectorized neither under a per-element test). */
static inline void theano_la_tri_span(int64_t i, int64_t k, int tri, int64_t* lo, int64_t* hi) {
  *lo = tri == 2 ? (i < k ? i : k) : 0;
  *hi = tri == 1 ? (i + 1 < k ? i + 1 : k) : k;
}

/* The typed loads and stores: T the element type, S the suffix (f64 / f32), U the unsigned
 * integer of T's size and E its exponent bits. */
#define THEANO_LA_IO(T, S, U, E)                                                                                      \
  /* dst (column-major, leading dimension ld) <- the r x k matrix at src; 0,                                          \
   * or 1 + the row-major position of the first NaN or infinity. */                                                   \
  static inline int64_t theano_la_load_##S(int64_t r, int64_t k, const char* src, int64_t rs, int64_t cs, T* dst,     \
                                           int64_t ld) {                                                              \
    int64_t i, j, bad = 0;                                                                                            \
    for (j = 0; j < k; ++j) {                                                                                         \
      /* A column at a time, its exponents ORed: each exponent plus its lowest bit carries into the                   \
       * top bit only when it is all ones (a NaN or an infinity). Integer ORs vectorize under GCC                     \
       * too, which compiles the host's copy; an AND of v - v == 0 did not (a scalar compare per                      \
       * element, 4 % of a 500 x 500 W11 step). A branch per element to note the first bad one                        \
       * did not either (5 cycles an element, 0.4 ms of a 500 x 500 Cholesky's 2.3); the column                       \
       * holding one is searched again. */                                                                            \
      const char* col = src + j * cs;                                                                                 \
      T* d = dst + j * ld;                                                                                            \
      const U low = (E) & (0 - (E)); /* the exponent's lowest bit */                                                  \
      U bits, any = 0;                                                                                                \
      if (rs == (int64_t)sizeof(T)) {                                                                                 \
        const T* s = (const T*)col;                                                                                   \
        for (i = 0; i < r; ++i) {                                                                                     \
          d[i] = s[i];                                                                                                \
          __builtin_memcpy(&bits, &s[i], sizeof bits);                                                                \
          any |= (bits & (E)) + low;                                                                                  \
        }                                                                                                             \
      } else {                                                                                                        \
        for (i = 0; i < r; ++i) {                                                                                     \
          const T v = *(const T*)(col + i * rs);                                                                      \
          d[i] = v;                                                                                                   \
          __builtin_memcpy(&bits, &v, sizeof bits);                                                                   \
          any |= (bits & (E)) + low;                                                                                  \
        }                                                                                                             \
      }                                                                                                               \
      const int finite = !(any >> (8 * sizeof(U) - 1));                                                               \
      if (!finite && !bad)                                                                                             \
        for (i = 0; i < r && !bad; ++i)                                                                                \
          if (!(d[i] - d[i] == 0)) bad = 1 + i * k + j;                                                                \
    }                                                                                                                  \
    return bad;                                                                                                        \
  }                                                                                                                    \
  /* Loads core matrix `i` at batch entry b into dst with finiteness checked: the matrix itself                       \
   * or, with t, its transpose (a row-major matrix read as it lies: contiguous rows become                            \
   * contiguous columns, no transposing copy); a NaN or infinity is reported at its own row and                       \
   * column either way. */                                                                                            \
  static inline int theano_la_get_as_##S(TheanoLaCall* c, int64_t i, int64_t b, T* dst, int64_t ld, int t) {          \
    int64_t r, k, rs, cs, bad, row, col, p = 0;                                                                       \
    theano_la_core(c, i, &r, &k, &rs, &cs);                                                                           \
    bad = t ? theano_la_load_##S(k, r, theano_la_in_at(c, i, b), cs, rs, dst, ld)                                     \
            : theano_la_load_##S(r, k, theano_la_in_at(c, i, b), rs, cs, dst, ld);                                    \
    if (!bad) return THEANO_LA_OK;                                                                                    \
    /* bad - 1: the row-major position in the loaded matrix (r x k, or k x r with t) */                               \
    row = t ? (bad - 1) % (r ? r : 1) : (bad - 1) / (k ? k : 1);                                                      \
    col = t ? (bad - 1) / (r ? r : 1) : (bad - 1) % (k ? k : 1);                                                      \
    theano_la_puts(c, &p, i == 0 ? "the matrix (input " : "the right-hand side (input ");                             \
    theano_la_puti(c, &p, i);                                                                                         \
    theano_la_puts(c, &p, ") contains a NaN or an infinity, at row ");                                                \
    theano_la_puti(c, &p, row);                                                                                       \
    theano_la_puts(c, &p, ", column ");                                                                               \
    theano_la_puti(c, &p, col);                                                                                       \
    if (c->nb > 0) {                                                                                                  \
      theano_la_puts(c, &p, " (batch entry ");                                                                        \
      theano_la_puti(c, &p, b);                                                                                       \
      theano_la_puts(c, &p, ")");                                                                                     \
    }                                                                                                                 \
    return THEANO_LA_VALUE;                                                                                           \
  }                                                                                                                   \
  static inline int theano_la_get_##S(TheanoLaCall* c, int64_t i, int64_t b, T* dst, int64_t ld) {                    \
    return theano_la_get_as_##S(c, i, b, dst, ld, 0);                                                                 \
  }                                                                                                                   \
  static inline int theano_la_get_t_##S(TheanoLaCall* c, int64_t i, int64_t b, T* dst, int64_t ld) {                  \
    return theano_la_get_as_##S(c, i, b, dst, ld, 1);                                                                 \
  }                                                                                                                   \
  /* out (row-major n x n) <- the transpose of src (column-major, ld), read as it lies; with                          \
   * tri 1 / 2 only out's lower / upper triangle, zeros elsewhere. */                                                 \
  static inline void theano_la_store_t_##S(int64_t n, const T* src, int64_t ld, T* out, int tri) {                    \
    int64_t i, j, lo, hi;                                                                                             \
    for (i = 0; i < n; ++i) {                                                                                         \
      T* o = out + i * n;                                                                                             \
      const T* s = src + i * ld;                                                                                      \
      theano_la_tri_span(i, n, tri, &lo, &hi);                                                                        \
      for (j = 0; j < lo; ++j) o[j] = (T)0;                                                                           \
      for (j = lo; j < hi; ++j) o[j] = s[j];                                                                          \
      for (j = hi; j < n; ++j) o[j] = (T)0;                                                                           \
    }                                                                                                                 \
  }                                                                                                                   \
  /* out (row-major r x k) <- src (column-major, ld); with tri 1 / 2 only the                                         \
   * lower / upper triangle, zeros elsewhere. */                                                                      \
  static inline void theano_la_store_##S(int64_t r, int64_t k, const T* src, int64_t ld, T* out, int tri) {           \
    int64_t i, j, lo, hi;                                                                                             \
    for (i = 0; i < r; ++i) {                                                                                         \
      T* o = out + i * k;                                                                                             \
      theano_la_tri_span(i, k, tri, &lo, &hi);                                                                        \
      for (j = 0; j < lo; ++j) o[j] = (T)0;                                                                           \
      for (j = lo; j < hi; ++j) o[j] = src[i + j * ld];                                                               \
      for (j = hi; j < k; ++j) o[j] = (T)0;                                                                           \
    }                                                                                                                 \
  }                                                                                                                   \
  static inline void theano_la_fill_##S(T* out, int64_t n, T v) {                                                     \
    int64_t i;                                                                                                         \
    for (i = 0; i < n; ++i) out[i] = v;                                                                                \
  }

THEANO_LA_IO(double, f64, uint64_t, 0x7ff0000000000000ULL)
THEANO_LA_IO(float, f32, uint32_t, 0x7f800000U)

#endif /* THEANO_RUNTIME_LINALG_CALL_H */
