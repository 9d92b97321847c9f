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
 *                         are found there), the LAPACK routine called, its
 *                         result copied out row-major.
 * Each returns THEANO_LA_OK or a THEANO_LA_* code with the message in c->msg
 * (LAPACK's `info` turned into words naming the matrix, e.g. "the matrix
 * (input 0) is not positive definite: leading minor 3"); the caller prefixes
 * the op's name (perform) or the node's label (generated code).
 *
 * LAPACK is the Fortran interface OpenBLAS exports (LP64: 32-bit int sizes),
 * declared below with gfortran's hidden string lengths passed explicitly.
 * Plain C as the folder's README asks; the caller owns every buffer. */
#ifndef THEANO_RUNTIME_LINALG_H
#define THEANO_RUNTIME_LINALG_H

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
  void P##orgqr_(const int*, const int*, const int*, T*, const int*, const T*, T*, const int*, int*);             \
  void P##trmm_(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,    \
                const int*, T*, const int*, unsigned long, unsigned long, unsigned long, unsigned long);          \
  void P##trsm_(const char*, const char*, const char*, const char*, const int*, const int*, const T*, const T*,    \
                const int*, T*, const int*, unsigned long, unsigned long, unsigned long, unsigned long);
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
#define THEANO_LA_CHOLESKY_GRAD 14

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

/* The typed half: T the element type, S the suffix (f64 / f32), P LAPACK's
 * prefix (d / s). */
#define THEANO_LA_KERNELS(T, S, P)                                                                                    \
  /* dst (column-major, leading dimension ld) <- the r x k matrix at src; 0,                                          \
   * or 1 + the row-major position of the first NaN or infinity. */                                                   \
  static inline int64_t theano_la_load_##S(int64_t r, int64_t k, const char* src, int64_t rs, int64_t cs, T* dst,      \
                                           int64_t ld) {                                                              \
    int64_t i, j, bad = 0;                                                                                             \
    for (j = 0; j < k; ++j)                                                                                            \
      for (i = 0; i < r; ++i) {                                                                                        \
        const T v = *(const T*)(src + i * rs + j * cs);                                                                \
        dst[i + j * ld] = v;                                                                                           \
        if (!bad && !(v - v == 0)) bad = 1 + i * k + j;                                                                \
      }                                                                                                                \
    return bad;                                                                                                        \
  }                                                                                                                    \
  /* Loads core matrix `i` at batch entry b into dst with finiteness checked. */                                     \
  static inline int theano_la_get_##S(TheanoLaCall* c, int64_t i, int64_t b, T* dst, int64_t ld) {                     \
    int64_t r, k, rs, cs, bad, p = 0;                                                                                  \
    theano_la_core(c, i, &r, &k, &rs, &cs);                                                                            \
    bad = theano_la_load_##S(r, k, theano_la_in_at(c, i, b), rs, cs, dst, ld);                                         \
    if (!bad) return THEANO_LA_OK;                                                                                     \
    theano_la_puts(c, &p, i == 0 ? "the matrix (input " : "the right-hand side (input ");                              \
    theano_la_puti(c, &p, i);                                                                                          \
    theano_la_puts(c, &p, ") contains a NaN or an infinity, at row ");                                                 \
    theano_la_puti(c, &p, (bad - 1) / (k ? k : 1));                                                                    \
    theano_la_puts(c, &p, ", column ");                                                                                \
    theano_la_puti(c, &p, (bad - 1) % (k ? k : 1));                                                                    \
    if (c->nb > 0) {                                                                                                   \
      theano_la_puts(c, &p, " (batch entry ");                                                                         \
      theano_la_puti(c, &p, b);                                                                                        \
      theano_la_puts(c, &p, ")");                                                                                      \
    }                                                                                                                  \
    return THEANO_LA_VALUE;                                                                                            \
  }                                                                                                                    \
  /* dst (column-major, ld) <- the transpose of core matrix i at batch entry b: a row-major                           \
   * matrix read as it lies (contiguous rows become contiguous columns, no transposing copy);                         \
   * a NaN or infinity is reported at its own row and column, as theano_la_get does. */                               \
  static inline int theano_la_get_t_##S(TheanoLaCall* c, int64_t i, int64_t b, T* dst, int64_t ld) {                  \
    int64_t r, k, rs, cs, bad, p = 0;                                                                                 \
    theano_la_core(c, i, &r, &k, &rs, &cs);                                                                           \
    bad = theano_la_load_##S(k, r, theano_la_in_at(c, i, b), cs, rs, dst, ld);                                        \
    if (!bad) return THEANO_LA_OK;                                                                                    \
    theano_la_puts(c, &p, i == 0 ? "the matrix (input " : "the right-hand side (input ");                             \
    theano_la_puti(c, &p, i);                                                                                         \
    theano_la_puts(c, &p, ") contains a NaN or an infinity, at row ");                                                \
    theano_la_puti(c, &p, (bad - 1) % (r ? r : 1));                                                                   \
    theano_la_puts(c, &p, ", column ");                                                                               \
    theano_la_puti(c, &p, (bad - 1) / (r ? r : 1));                                                                   \
    if (c->nb > 0) {                                                                                                  \
      theano_la_puts(c, &p, " (batch entry ");                                                                        \
      theano_la_puti(c, &p, b);                                                                                       \
      theano_la_puts(c, &p, ")");                                                                                     \
    }                                                                                                                 \
    return THEANO_LA_VALUE;                                                                                           \
  }                                                                                                                   \
  /* out (row-major n x n) <- the transpose of src (column-major, ld), read as it lies; with                          \
   * tri 1 / 2 only out's lower / upper triangle, zeros elsewhere. */                                                 \
  static inline void theano_la_store_t_##S(int64_t n, const T* src, int64_t ld, T* out, int tri) {                    \
    int64_t i, j;                                                                                                     \
    for (i = 0; i < n; ++i)                                                                                           \
      for (j = 0; j < n; ++j) out[i * n + j] = (tri == 1 && j > i) || (tri == 2 && j < i) ? (T)0 : src[j + i * ld];   \
  }                                                                                                                   \
  /* out (row-major r x k) <- src (column-major, ld); with tri 1 / 2 only the                                         \
   * lower / upper triangle, zeros elsewhere. */                                                                       \
  static inline void theano_la_store_##S(int64_t r, int64_t k, const T* src, int64_t ld, T* out, int tri) {            \
    int64_t i, j;                                                                                                      \
    for (i = 0; i < r; ++i)                                                                                            \
      for (j = 0; j < k; ++j)                                                                                          \
        out[i * k + j] = (tri == 1 && j > i) || (tri == 2 && j < i) ? (T)0 : src[i + j * ld];                          \
  }                                                                                                                    \
  static inline void theano_la_fill_##S(T* out, int64_t n, T v) {                                                     \
    int64_t i;                                                                                                         \
    for (i = 0; i < n; ++i) out[i] = v;                                                                                \
  }                                                                                                                    \
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
    theano_la_core(c, 0, &m, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, m, &dummy_i) || theano_la_int(c, n, &dummy_i)) return THEANO_LA_VALUE;                        \
    if (theano_checked_mul(m, n, &nn) != THEANO_RULE_OK)                                                               \
      return theano_la_fail(c, THEANO_LA_VALUE, 0, "the matrix's size overflows int64", 0, "", 0, "");                 \
    if ((rc = theano_la_work_add(c, bytes, nn, ts)) != THEANO_LA_OK) return rc; /* the matrix */                      \
    switch (c->kind) {                                                                                                 \
      case THEANO_LA_SOLVE_TRIANGULAR:                                                                                 \
      case THEANO_LA_CHO_SOLVE:                                                                                        \
      case THEANO_LA_SOLVE:                                                                                            \
      case THEANO_LA_INV:                                                                                              \
        if (c->kind == THEANO_LA_INV) {                                                                                \
          r = n;                                                                                                       \
          k = n;                                                                                                       \
        } else {                                                                                                       \
          theano_la_core(c, 1, &r, &k, &rs, &cs);                                                                      \
        }                                                                                                              \
        if (theano_la_int(c, k, &dummy_i)) return THEANO_LA_VALUE;                                                     \
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
      case THEANO_LA_PIV_TO_PERM:                                                                                      \
        if ((rc = theano_la_work_add(c, bytes, m, 8)) != THEANO_LA_OK) return rc;                                      \
        break;                                                                                                         \
      case THEANO_LA_CHOLESKY_GRAD:                                                                                    \
        if ((rc = theano_la_work_add(c, bytes, nn, ts)) != THEANO_LA_OK) return rc; /* the gradient */                  \
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
  /* CHOLESKY_GRAD at batch entry b, on U = L^T (u) and X = tril(Lbar)^T (x), both column-major:                      \
   * a lower op's row-major inputs are read as they lie (contiguous copies), an upper op's are its                    \
   * own U and Ubar. X U^T = (L^T tril(Lbar))^T, whose upper triangle is P's lower one (Phi of the                    \
   * lower triangle of L^T Lbar needs only tril(Lbar): L^T is upper); M = P + P^T is that upper                       \
   * triangle mirrored (its diagonal P's doubled); S = L^-T M L^-1 = U^-1 M U^-T (symmetric), and                     \
   * the result is Phi(S) (or its transpose). NaNs propagate, as through a product. */                                \
  static inline void theano_la_cholesky_grad_##S(TheanoLaCall* c, int64_t b, int64_t n, int ni, T* u, T* x, T* out) { \
    int64_t i, j, r, k, rs0, cs0, rs1, cs1;                                                                           \
    const int lower = (int)c->opt[0];                                                                                 \
    const int ld = ni;                                                                                                \
    const T one = 1;                                                                                                  \
    const char* lp = theano_la_in_at(c, 0, b);                                                                        \
    const char* gp = theano_la_in_at(c, 1, b);                                                                        \
    theano_la_core(c, 0, &r, &k, &rs0, &cs0);                                                                         \
    theano_la_core(c, 1, &r, &k, &rs1, &cs1);                                                                         \
    if (lower) { /* U[i][j] = L[j][i] */                                                                              \
      int64_t t = rs0;                                                                                                \
      rs0 = cs0;                                                                                                      \
      cs0 = t;                                                                                                        \
      t = rs1;                                                                                                        \
      rs1 = cs1;                                                                                                      \
      cs1 = t;                                                                                                        \
    }                                                                                                                 \
    for (j = 0; j < n; ++j) {                                                                                         \
      for (i = 0; i <= j; ++i) {                                                                                      \
        u[i + j * n] = *(const T*)(lp + i * rs0 + j * cs0);                                                           \
        x[i + j * n] = *(const T*)(gp + i * rs1 + j * cs1);                                                           \
      }                                                                                                               \
      for (; i < n; ++i) {                                                                                            \
        u[i + j * n] = 0;                                                                                             \
        x[i + j * n] = 0;                                                                                             \
      }                                                                                                               \
    }                                                                                                                 \
    P##trmm_("R", "U", "T", "N", &ni, &ni, &one, u, &ld, x, &ld, 1, 1, 1, 1);                                         \
    for (j = 0; j < n; ++j)                                                                                           \
      for (i = j + 1; i < n; ++i) x[i + j * n] = x[j + i * n];                                                        \
    P##trsm_("L", "U", "N", "N", &ni, &ni, &one, u, &ld, x, &ld, 1, 1, 1, 1);                                         \
    P##trsm_("R", "U", "T", "N", &ni, &ni, &one, u, &ld, x, &ld, 1, 1, 1, 1);                                         \
    /* out row i: S[i][j] = S[j][i], column i of x, for j on the kept side */                                         \
    for (i = 0; i < n; ++i)                                                                                           \
      for (j = 0; j < n; ++j)                                                                                         \
        out[i * n + j] = i == j ? x[i + i * n] / 2 : (lower ? j < i : j > i) ? x[j + i * n] : (T)0;                   \
  }                                                                                                                   \
  static inline int theano_la_run_##S(TheanoLaCall* c) {                                                               \
    int64_t m = 0, n = 0, rs, cs, r = 0, k = 0, b, i, j;                                                               \
    int mi = 0, ni = 0, ki = 0, info = 0, rc;                                                                          \
    char* at = c->work;                                                                                                \
    T *a, *x = 0, *w = 0, *u = 0, *vt = 0, *lwk = 0;                                                                   \
    int *piv = 0, *iwk = 0;                                                                                            \
    int64_t* perm = 0;                                                                                                 \
    int64_t lw = 0, liw = 0;                                                                                           \
    int lwi = 0, liwi = 0;                                                                                             \
    theano_la_core(c, 0, &m, &n, &rs, &cs);                                                                            \
    if (theano_la_int(c, m, &mi) || theano_la_int(c, n, &ni)) return THEANO_LA_VALUE;                                  \
    const int ld = mi > 1 ? mi : 1;                                                                                    \
    const int64_t kk = m < n ? m : n;                                                                                  \
    ki = (int)kk;                                                                                                      \
    a = (T*)theano_la_take(&at, m * n, (int64_t)sizeof(T));                                                                     \
    switch (c->kind) {                                                                                                 \
      case THEANO_LA_SOLVE_TRIANGULAR:                                                                                 \
      case THEANO_LA_CHO_SOLVE:                                                                                        \
      case THEANO_LA_SOLVE:                                                                                            \
      case THEANO_LA_INV:                                                                                              \
        if (c->kind == THEANO_LA_INV) {                                                                                \
          r = n;                                                                                                       \
          k = n;                                                                                                       \
        } else {                                                                                                       \
          theano_la_core(c, 1, &r, &k, &rs, &cs);                                                                      \
        }                                                                                                              \
        if (theano_la_int(c, k, &ki)) return THEANO_LA_VALUE;                                                          \
        x = (T*)theano_la_take(&at, r * k, (int64_t)sizeof(T));                                                                 \
        piv = (int*)theano_la_take(&at, n, 4);                                                                         \
        break;                                                                                                         \
      case THEANO_LA_DET:                                                                                              \
      case THEANO_LA_SLOGDET:                                                                                          \
      case THEANO_LA_LU_FACTOR:                                                                                        \
        piv = (int*)theano_la_take(&at, n, 4);                                                                         \
        break;                                                                                                         \
      case THEANO_LA_PIV_TO_PERM:                                                                                      \
        perm = (int64_t*)theano_la_take(&at, m, 8);                                                                    \
        break;                                                                                                         \
      case THEANO_LA_CHOLESKY_GRAD:                                                                                    \
        x = (T*)theano_la_take(&at, n * n, (int64_t)sizeof(T));                                                        \
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
          const int lower = (int)c->opt[0];                                                                            \
          if (c->opt[1]) {                                                                                             \
            int64_t bad = theano_la_load_##S(n, n, theano_la_in_at(c, 0, b), cs, rs, a, ld);                          \
            if (bad) {                                                                                                 \
              theano_la_fill_##S(o0, n * n, (T)__builtin_nan(""));                                                           \
              break;                                                                                                   \
            }                                                                                                          \
          } else if ((rc = theano_la_get_t_##S(c, 0, b, a, ld)) != THEANO_LA_OK) {                                    \
            return rc;                                                                                                 \
          }                                                                                                            \
          if (n == 0) break;                                                                                           \
          /* a holds A^T as it lies (the triangle read is its other one): factor that */                              \
          P##potrf_(lower ? "U" : "L", &ni, a, &ld, &info, 1);                                                        \
          if (info < 0) return theano_la_arg_error(c, #P "potrf", info);                                               \
          if (info > 0) {                                                                                              \
            if (c->opt[1]) {                                                                                           \
              theano_la_fill_##S(o0, n * n, (T)__builtin_nan(""));                                                           \
              break;                                                                                                   \
            }                                                                                                          \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the matrix (input 0) is not positive definite: leading minor ", \
                                  info, " is not positive", 0, "");                                                    \
          }                                                                                                            \
          theano_la_store_t_##S(n, a, ld, o0, lower ? 1 : 2);                                                         \
          break;                                                                                                       \
        }                                                                                                              \
        case THEANO_LA_SOLVE_TRIANGULAR:                                                                               \
        case THEANO_LA_CHO_SOLVE:                                                                                      \
        case THEANO_LA_SOLVE:                                                                                          \
        case THEANO_LA_INV: {                                                                                          \
          /* triangular and Cholesky solves read A^T as it lies (the other triangle, the other trans) */              \
          const int at_t = c->kind == THEANO_LA_SOLVE_TRIANGULAR || c->kind == THEANO_LA_CHO_SOLVE;                   \
          if ((rc = at_t ? theano_la_get_t_##S(c, 0, b, a, ld) : theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK)  \
            return rc;                                                                                                \
          if (c->kind == THEANO_LA_INV) {                                                                              \
            for (j = 0; j < n; ++j)                                                                                    \
              for (i = 0; i < n; ++i) x[i + j * n] = (T)(i == j);                                                      \
          } else if ((rc = theano_la_get_##S(c, 1, b, x, ldx)) != THEANO_LA_OK) {                                      \
            return rc;                                                                                                 \
          }                                                                                                            \
          if (n == 0 || k == 0) break;                                                                                 \
          if (c->kind == THEANO_LA_SOLVE_TRIANGULAR) {                                                                 \
            P##trtrs_(c->opt[0] ? "U" : "L", c->opt[1] ? "N" : "T", c->opt[2] ? "U" : "N", &ni, &ki, a, &ld, x, &ldx, \
                      &info, 1, 1, 1);                                                                                 \
            if (info < 0) return theano_la_arg_error(c, #P "trtrs", info);                                             \
            if (info > 0)                                                                                              \
              return theano_la_fail(c, THEANO_LA_VALUE, 1, "the matrix (input 0) is singular: diagonal element ",      \
                                    info - 1, " is zero", 0, "");                                                      \
          } else if (c->kind == THEANO_LA_CHO_SOLVE) {                                                                 \
            P##potrs_(c->opt[0] ? "U" : "L", &ni, &ki, a, &ld, x, &ldx, &info, 1);                                    \
            if (info < 0) return theano_la_arg_error(c, #P "potrs", info);                                             \
          } else if (c->kind == THEANO_LA_SOLVE && c->opt[0] == 2) {                                                   \
            P##potrf_(c->opt[1] ? "L" : "U", &ni, a, &ld, &info, 1);                                                   \
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
          T d = 1, sign = 1, logabs = 0;                                                                               \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          if (n > 0) {                                                                                                 \
            P##getrf_(&ni, &ni, a, &ld, piv, &info);                                                                   \
            if (info < 0) return theano_la_arg_error(c, #P "getrf", info);                                             \
          }                                                                                                            \
          for (i = 0; i < n; ++i) {                                                                                    \
            const T e = a[i + i * n];                                                                                  \
            if (piv[i] != i + 1) {                                                                                     \
              d = -d;                                                                                                  \
              sign = -sign;                                                                                            \
            }                                                                                                          \
            d *= e;                                                                                                    \
            if (e < 0) sign = -sign;                                                                                   \
            if (e == 0) sign = 0;                                                                                      \
            logabs += (T)theano_la_log_abs_##S(e);                                                                     \
          }                                                                                                            \
          if (c->kind == THEANO_LA_DET) {                                                                              \
            o0[0] = d;                                                                                                 \
          } else {                                                                                                     \
            o0[0] = sign;                                                                                              \
            o1[0] = sign == 0 ? (T)(-__builtin_inf()) : logabs;                                                              \
          }                                                                                                            \
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
        case THEANO_LA_CHOLESKY_GRAD:                                                                                  \
          if (n > 0) theano_la_cholesky_grad_##S(c, b, n, ni, a, x, o0);                                               \
          break;                                                                                                       \
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
          int64_t t;                                                                                                   \
          T cut;                                                                                                       \
          if ((rc = theano_la_get_##S(c, 0, b, a, ld)) != THEANO_LA_OK) return rc;                                     \
          theano_la_fill_##S(o0, n * m, (T)0);                                                                         \
          if (kk == 0) break;                                                                                          \
          P##gesdd_("S", &mi, &ni, a, &ld, w, u, &ld, vt, &ldvt, lwk, &lwi, iwk, &info, 1);                            \
          if (info < 0) return theano_la_arg_error(c, #P "gesdd", info);                                               \
          if (info > 0)                                                                                                \
            return theano_la_fail(c, THEANO_LA_VALUE, 1, "the SVD did not converge on the matrix (input 0): info ",    \
                                  info, "", 0, "");                                                                    \
          cut = (T)1e-15 * w[0];                                                                                       \
          for (t = 0; t < kk; ++t) {                                                                                   \
            const T si = w[t] > cut ? (T)1 / w[t] : (T)0;                                                              \
            if (si == 0) continue;                                                                                     \
            for (i = 0; i < n; ++i) {                                                                                  \
              const T vi = vt[t + i * ldvt] * si;                                                                      \
              for (j = 0; j < m; ++j) o0[i * m + j] += vi * u[j + t * m];                                              \
            }                                                                                                          \
          }                                                                                                            \
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

static inline double theano_la_log_abs_f64(double e) { return e == 0 ? 0.0 : __builtin_log(e < 0 ? -e : e); }
static inline double theano_la_log_abs_f32(float e) { return e == 0 ? 0.0 : __builtin_log((double)(e < 0 ? -e : e)); }

THEANO_LA_KERNELS(double, f64, d)
THEANO_LA_KERNELS(float, f32, s)

#endif /* THEANO_RUNTIME_LINALG_H */
