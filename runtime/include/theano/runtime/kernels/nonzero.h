/* \file
 * The kernels of Nonzero (theano/tensor/index_ops.h: nonzero, flatnonzero,
 * argwhere and boolean-mask indexing), written ONCE for its perform, its
 * generated C++ and its CUDA form: the output's length is known only once
 * the input's true elements are counted, so a node runs in two passes, count
 * (then the output is allocated at run time, (nd, count) int64) and fill.
 *
 * The input is a bool array (one byte per element, true when nonzero: the
 * user functions compare other dtypes with 0 first) of rank nd in [1, 16],
 * addressed by byte strides (any layout, also negative or zero strides). The
 * passes work on a range [begin, end) of its elements in C order (the last
 * axis fastest, the order NumPy's nonzero reports), so the CPU runs one range
 * and the GPU one range per thread: counts per range, their running sum, then
 * each range's coordinates written from its offset.
 */
#ifndef THEANO_RUNTIME_KERNELS_NONZERO_H
#define THEANO_RUNTIME_KERNELS_NONZERO_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* Element `begin`'s coordinates (idx) and byte offset; begin < the size. */
static inline int64_t theano_nonzero_seek(int nd, const int64_t* shape, const int64_t* strides, int64_t begin,
                                              int64_t* idx) {
  int64_t off = 0, rest = begin, d;
  for (d = nd - 1; d >= 0; --d) {
    idx[d] = rest % shape[d];
    rest /= shape[d];
    off += idx[d] * strides[d];
  }
  return off;
}

/* Steps the coordinates (and byte offset) to the next element in C order. */
static inline int64_t theano_nonzero_step(int nd, const int64_t* shape, const int64_t* strides, int64_t* idx,
                                              int64_t off) {
  int64_t d;
  for (d = nd - 1; d >= 0; --d) {
    off += strides[d];
    if (++idx[d] < shape[d]) return off;
    off -= idx[d] * strides[d];
    idx[d] = 0;
  }
  return off;
}

/* The number of true elements among elements [begin, end) of x (end at most
 * the product of shape). */
static inline int64_t theano_nonzero_count_range(const char* x, int nd, const int64_t* shape,
                                                     const int64_t* strides, int64_t begin, int64_t end) {
  int64_t idx[16];
  int64_t count = 0, e, off;
  if (begin >= end) return 0;
  off = theano_nonzero_seek(nd, shape, strides, begin, idx);
  for (e = begin; e < end; ++e) {
    count += x[off] != 0;
    if (e + 1 < end) off = theano_nonzero_step(nd, shape, strides, idx, off);
  }
  return count;
}

/* Writes the coordinates of the true elements among [begin, end) in C order:
 * axis d's of the j-th at out[d * count + j], j from `first` (out: nd rows of
 * count int64, C-contiguous; count the total over the whole array). */
static inline void theano_nonzero_fill_range(const char* x, int nd, const int64_t* shape, const int64_t* strides,
                                                 int64_t begin, int64_t end, int64_t* out, int64_t count,
                                                 int64_t first) {
  int64_t idx[16];
  int64_t j = first, e, off, d;
  if (begin >= end) return;
  off = theano_nonzero_seek(nd, shape, strides, begin, idx);
  for (e = begin; e < end && j < count; ++e) {
    if (x[off] != 0) {
      for (d = 0; d < nd; ++d) out[d * count + j] = idx[d];
      ++j;
    }
    if (e + 1 < end) off = theano_nonzero_step(nd, shape, strides, idx, off);
  }
}

/* The element count of the shape (0 when an axis is empty). */
static inline int64_t theano_nonzero_size(int nd, const int64_t* shape) {
  int64_t n = 1, d;
  for (d = 0; d < nd; ++d) n *= shape[d];
  return n;
}

/* The whole array: count, then fill (count as theano_nonzero_count returned). */
static inline int64_t theano_nonzero_count(const char* x, int nd, const int64_t* shape, const int64_t* strides) {
  return theano_nonzero_count_range(x, nd, shape, strides, 0, theano_nonzero_size(nd, shape));
}
static inline void theano_nonzero_fill(const char* x, int nd, const int64_t* shape, const int64_t* strides,
                                           int64_t* out, int64_t count) {
  theano_nonzero_fill_range(x, nd, shape, strides, 0, theano_nonzero_size(nd, shape), out, count, 0);
}

#endif
