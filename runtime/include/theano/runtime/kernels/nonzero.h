/* \file
 * The kernels of Nonzero (theano/tensor/array_ops.h: nonzero, flatnonzero,
 * argwhere and boolean-mask indexing), written ONCE for its perform and its
 * generated code: the output's length is known only once the input's true
 * elements are counted, so a node runs in two passes, count (then the output
 * is allocated at run time, (nd, count) int64) and fill.
 *
 * The input is a bool array (one byte per element, true when nonzero: the
 * user functions compare other dtypes with 0 first) of rank nd in
 * [1, THEANO_MAX_NDIM], addressed by byte strides (any layout, also negative
 * or zero strides). Both passes walk it in C order (the last axis fastest),
 * the order NumPy's nonzero reports.
 */
#ifndef THEANO_RUNTIME_KERNELS_NONZERO_H
#define THEANO_RUNTIME_KERNELS_NONZERO_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* The number of true elements of x (shape[d] >= 0; no element when one is 0). */
static inline int64_t theano_nonzero_count(const char* x, int nd, const int64_t* shape, const int64_t* strides) {
  int64_t idx[16];
  int64_t count = 0, d;
  const char* p = x;
  for (d = 0; d < nd; ++d) {
    if (shape[d] == 0) return 0;
    idx[d] = 0;
  }
  for (;;) {
    const int64_t n = shape[nd - 1], s = strides[nd - 1];
    int64_t i;
    for (i = 0; i < n; ++i) count += *(p + i * s) != 0;
    /* the next line: the odometer over the axes before the last */
    for (d = nd - 2; d >= 0; --d) {
      p += strides[d];
      if (++idx[d] < shape[d]) break;
      p -= idx[d] * strides[d];
      idx[d] = 0;
    }
    if (d < 0) return count;
  }
}

/* Writes the coordinates of x's true elements in C order: axis d's of the
 * j-th at out[d * count + j] (out: nd rows of count int64, C-contiguous);
 * count is what theano_nonzero_count returned for the same x. */
static inline void theano_nonzero_fill(const char* x, int nd, const int64_t* shape, const int64_t* strides,
                                       int64_t* out, int64_t count) {
  int64_t idx[16];
  int64_t j = 0, d;
  const char* p = x;
  if (count == 0) return;
  for (d = 0; d < nd; ++d) idx[d] = 0;
  for (;;) {
    const int64_t n = shape[nd - 1], s = strides[nd - 1];
    int64_t i;
    for (i = 0; i < n; ++i) {
      if (*(p + i * s) == 0) continue;
      for (d = 0; d + 1 < nd; ++d) out[d * count + j] = idx[d];
      out[(nd - 1) * count + j] = i;
      if (++j == count) return;
    }
    for (d = nd - 2; d >= 0; --d) {
      p += strides[d];
      if (++idx[d] < shape[d]) break;
      p -= idx[d] * strides[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

#endif
