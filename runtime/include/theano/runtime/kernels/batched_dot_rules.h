/* \file
 * BatchedDot's shape rule with its messages and its batch walk, written ONCE
 * for perform (compiler/src/tensor/blas/batched_dot.cpp) and the lowerings
 * (codegen/src/emit/lower/blas.cpp, gpu_blas.cpp embed this text).
 *
 * a (..., m, k) and b (..., k2, n) of one rank nd >= 3: k == k2, and the
 * batch dimensions (all but the last two) are equal or broadcast, a
 * dimension broadcasting only where its operand's type says size 1
 * (Theano's rule, as Elemwise's: the gradient sums exactly those
 * dimensions; masks `abc`, `bbc`, bit d for batch axis d); the output is (batch..., m, n) and its element
 * count must fit in int64. Batch item i (flat, C order over the output's
 * batch dimensions) reads a and b at the byte offsets theano_batch_offset
 * gives (a size-1 dimension of an operand stays at index 0).
 *
 * Messages (after "BatchedDot: " / the node's label), assembled from the
 * pieces with the run-time values between them:
 *   batch: batch dimensions do not broadcast: axis D of a has size A but b has size B (a batch
 *          dimension broadcasts only where its type says size 1)
 *   inner: shapes are not aligned: a has k = K along its last axis but b has K2 along its second-to-last
 *   size:  the output has more elements than int64 holds
 */
#ifndef THEANO_RUNTIME_BATCHED_DOT_RULES_H
#define THEANO_RUNTIME_BATCHED_DOT_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

#define THEANO_BDOT_OK 0
#define THEANO_BDOT_BATCH 1 /* ShapeError: batch axis *bad does not broadcast */
#define THEANO_BDOT_INNER 2 /* ShapeError: a's last axis and b's second-to-last differ */
#define THEANO_BDOT_SIZE 3  /* ValueError: the output's element count leaves int64 */

#define THEANO_BDOT_BATCH_TEXT1 "batch dimensions do not broadcast: axis " /* D */
#define THEANO_BDOT_BATCH_TEXT2 " of a has size "                          /* A */
#define THEANO_BDOT_BATCH_TEXT3 " but b has size "                         /* B */
#define THEANO_BDOT_BATCH_TEXT4 " (a batch dimension broadcasts only where its type says size 1)"
#define THEANO_BDOT_INNER_TEXT1 "shapes are not aligned: a has k = "       /* K */
#define THEANO_BDOT_INNER_TEXT2 " along its last axis but b has "          /* K2 */
#define THEANO_BDOT_INNER_TEXT3 " along its second-to-last"
#define THEANO_BDOT_SIZE_TEXT "the output has more elements than int64 holds"

/* a's and b's shapes `as`, `bs` (nd entries, nd >= 3, each >= 0) and the
 * masks of their batch axes whose types say size 1: THEANO_BDOT_OK
 * with `out` (nd entries) the output's shape and *nbatch the number of batch
 * items, or the first rule broken (*bad: the batch axis for THEANO_BDOT_BATCH). */
static inline int theano_batched_dot_rule(int64_t nd, const int64_t* as, const int64_t* bs, int64_t abc,
                                          int64_t bbc, int64_t* out, int64_t* nbatch, int64_t* bad) {
  int64_t d, nb = 1, size;
  for (d = 0; d < nd - 2; ++d) {
    if (as[d] == bs[d] || (bs[d] == 1 && ((bbc >> d) & 1))) out[d] = as[d];
    else if (as[d] == 1 && ((abc >> d) & 1)) out[d] = bs[d];
    else {
      *bad = d;
      return THEANO_BDOT_BATCH;
    }
  }
  if (as[nd - 1] != bs[nd - 2]) return THEANO_BDOT_INNER;
  out[nd - 2] = as[nd - 2];
  out[nd - 1] = bs[nd - 1];
  for (d = 0; d < nd - 2; ++d)
    if (__builtin_mul_overflow(nb, out[d], &nb)) return THEANO_BDOT_SIZE;
  if (__builtin_mul_overflow(nb, out[nd - 2], &size) || __builtin_mul_overflow(size, out[nd - 1], &size))
    return THEANO_BDOT_SIZE;
  *nbatch = nb;
  return THEANO_BDOT_OK;
}

/* The byte offset of batch item i (0 <= i < the rule's *nbatch) in an operand
 * of shape s and byte strides st, the output's shape being `out` (all nd
 * entries; the last two are the matrix's and not walked). */
static inline int64_t theano_batch_offset(int64_t nd, const int64_t* out, const int64_t* s, const int64_t* st,
                                          int64_t i) {
  int64_t d, off = 0;
  for (d = nd - 3; d >= 0; --d) {
    const int64_t idx = i % out[d];
    i /= out[d];
    if (s[d] != 1) off += idx * st[d];
  }
  return off;
}

/* Whether the batch walk of an operand (shape s, byte strides st; the
 * output's shape `out`) has one stride: theano_batch_offset(.., i) ==
 * i * *stride for every item i. 1 with *stride (bytes) set, else 0. The GPU
 * form then makes one strided-batched gemm call instead of one per item. */
static inline int theano_batch_uniform_stride(int64_t nd, const int64_t* out, const int64_t* s, const int64_t* st,
                                              int64_t* stride) {
  int64_t d, span = 1, step = 0, want;
  int found = 0;
  for (d = nd - 3; d >= 0; --d) {
    const int64_t e = s[d] == 1 ? 0 : st[d];
    if (out[d] != 1) {
      if (!found) {
        step = e; /* span is 1 here: only size-1 axes lie inside */
        found = 1;
      } else if (__builtin_mul_overflow(step, span, &want) || want != e) {
        return 0;
      }
    }
    if (__builtin_mul_overflow(span, out[d], &span)) return 0;
  }
  *stride = step;
  return 1;
}

#endif /* THEANO_RUNTIME_BATCHED_DOT_RULES_H */
