/* \file
 * The BLAS layout rule, written ONCE for the BLAS ops' perform
 * (compiler/src/tensor/blas/blas_kernels.cpp) and their lowerings
 * (codegen/src/emit/lower/blas.cpp, gpu_blas.cpp: this text is embedded in the
 * units that call BLAS): whether row-major CBLAS (or cuBLAS through its
 * transpose) reads an operand in place, with which transpose flag and leading
 * dimension / increment.
 *
 * A logical m x k operand with element strides (s0, s1) is read as is when
 * s1 == 1 and s0 >= k (ld = s0), with the transpose flag when s0 == 1 and
 * s1 >= m (the transpose of a row-major k x m array, ld = s1); a stride on a
 * size-1 dimension does not matter. A vector needs a positive increment.
 * Anything else (negative, zero, non-unit inner strides, strides that are not
 * a multiple of the item size) is THEANO_BLAS_COPY: perform copies the operand
 * first, generated code (which has no scratch allocator) runs plain loops.
 * Outputs: perform writes a matrix output in place when the row-major rule
 * (the first case) holds and gemv's y when the vector rule does, else it
 * computes into a C-contiguous temporary (leading dimension
 * theano_blas_contiguous_ld) and assigns it; the C++ lowering writes its
 * output by the matrix rule (a transposed output: the transposed product),
 * the CUDA one into a fresh C-contiguous array.
 *
 * The 32-bit BLAS interface: a dimension, leading dimension or increment
 * above INT_MAX is THEANO_BLAS_TOO_BIG with the value in *bad, checked before
 * anything is copied; perform raises its ValueError
 * (THEANO_BLAS_TOO_BIG_TEXT), generated code takes its loops.
 */
#ifndef THEANO_RUNTIME_BLAS_LAYOUT_H
#define THEANO_RUNTIME_BLAS_LAYOUT_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

#define THEANO_BLAS_COPY 0    /* not readable in place: copy it (perform) or loop (generated code) */
#define THEANO_BLAS_DIRECT 1  /* readable in place: *trans and *ld (or *inc) are set */
#define THEANO_BLAS_TOO_BIG 2 /* *bad: a size above the 32-bit BLAS interface's INT_MAX */
/* CBLAS's CblasNoTrans / CblasTrans values (the CBLAS standard's enum). */
#define THEANO_BLAS_NO_TRANS 111
#define THEANO_BLAS_TRANS 112
#define THEANO_BLAS_INT_MAX 2147483647
/* perform's message for THEANO_BLAS_TOO_BIG: "<op>: dimension <*bad>" + this. */
#define THEANO_BLAS_TOO_BIG_TEXT " is too large for the 32-bit BLAS interface"

/* The leading dimension of a C-contiguous m x k array (a copy, a fresh
 * output): k, at least 1. */
static inline int64_t theano_blas_contiguous_ld(int64_t k) { return k > 1 ? k : 1; }

/* The row-major rule: whether an m x k array with byte strides (s0, s1) of
 * `item`-byte elements is a row-major BLAS operand in place (s1 == 1 and
 * s0 >= k; a stride on a size-1 dimension does not matter), *ld its leading
 * dimension. perform writes a BLAS output in place by this rule (else into a
 * C-contiguous temporary); the matrix rule below reads an operand by it, or
 * by it on the transpose. */
static inline int theano_blas_row_major_rule(int64_t m, int64_t k, int64_t s0, int64_t s1, int64_t item, int* ld,
                                             int64_t* bad) {
  int64_t l;
  if (m > THEANO_BLAS_INT_MAX || k > THEANO_BLAS_INT_MAX) {
    *bad = m > THEANO_BLAS_INT_MAX ? m : k;
    return THEANO_BLAS_TOO_BIG;
  }
  if (s0 % item != 0 || s1 % item != 0) return THEANO_BLAS_COPY;
  s0 /= item;
  s1 /= item;
  if (!((k <= 1 || s1 == 1) && (m <= 1 || s0 >= theano_blas_contiguous_ld(k)))) return THEANO_BLAS_COPY;
  l = m <= 1 ? theano_blas_contiguous_ld(k) : s0;
  if (l > THEANO_BLAS_INT_MAX) {
    *bad = l;
    return THEANO_BLAS_TOO_BIG;
  }
  *ld = (int)l;
  return THEANO_BLAS_DIRECT;
}

/* An m x k operand with byte strides (s0, s1) of `item`-byte elements: the
 * row-major rule (*trans THEANO_BLAS_NO_TRANS), else the row-major rule on its
 * transpose (THEANO_BLAS_TRANS). */
static inline int theano_blas_matrix_rule(int64_t m, int64_t k, int64_t s0, int64_t s1, int64_t item, int* trans,
                                          int* ld, int64_t* bad) {
  int r = theano_blas_row_major_rule(m, k, s0, s1, item, ld, bad);
  if (r != THEANO_BLAS_COPY) {
    *trans = THEANO_BLAS_NO_TRANS;
    return r;
  }
  r = theano_blas_row_major_rule(k, m, s1, s0, item, ld, bad);
  if (r == THEANO_BLAS_DIRECT) *trans = THEANO_BLAS_TRANS;
  return r;
}

/* A vector of n elements with byte stride s of `item`-byte elements (an
 * operand, or gemv's output y: perform writes it in place by this rule, else
 * into a contiguous temporary). */
static inline int theano_blas_vector_rule(int64_t n, int64_t s, int64_t item, int* inc, int64_t* bad) {
  if (n > THEANO_BLAS_INT_MAX) {
    *bad = n;
    return THEANO_BLAS_TOO_BIG;
  }
  if (n <= 1) {
    *inc = 1;
    return THEANO_BLAS_DIRECT;
  }
  if (s <= 0 || s % item != 0) return THEANO_BLAS_COPY;
  if (s / item > THEANO_BLAS_INT_MAX) {
    *bad = s / item;
    return THEANO_BLAS_TOO_BIG;
  }
  *inc = (int)(s / item);
  return THEANO_BLAS_DIRECT;
}

/* The callers' short forms (blas_calls.h, the CUDA lowering's cuBLAS calls):
 * 1 with *trans and *ld (or *inc) set when BLAS reads the operand in place,
 * 0 where they loop instead (THEANO_BLAS_COPY and THEANO_BLAS_TOO_BIG alike);
 * and the other transpose flag. */
static inline int theano_blas_matrix(int64_t m, int64_t k, int64_t s0, int64_t s1, int64_t item, int* trans,
                                     int* ld) {
  int64_t bad;
  return theano_blas_matrix_rule(m, k, s0, s1, item, trans, ld, &bad) == THEANO_BLAS_DIRECT;
}
static inline int theano_blas_vector(int64_t n, int64_t s, int64_t item, int* inc) {
  int64_t bad;
  return theano_blas_vector_rule(n, s, item, inc, &bad) == THEANO_BLAS_DIRECT;
}
static inline int theano_blas_flip(int t) { return t == THEANO_BLAS_NO_TRANS ? THEANO_BLAS_TRANS : THEANO_BLAS_NO_TRANS; }

#endif /* THEANO_RUNTIME_BLAS_LAYOUT_H */
