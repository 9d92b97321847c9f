/* \file
 * NumPy's no-copy reshape rule (_attempt_nocopy_reshape, C order), written
 * ONCE for NDArray::reshape / reshaped (runtime/src/views.cpp, which perform
 * runs) and the C++ lowering of Reshape (codegen/src/emit/lower/shape.cpp,
 * which calls the host's compiled copy through TheanoHostKernels): whether
 * an array's elements, in C order, can be seen with a new shape by strides
 * alone, and which strides. Two copies of it had drifted apart (one checked
 * its stride products for overflow, one did not; they gave a new trailing
 * size-1 dimension different strides).
 *
 * Size-1 dimensions of the old array are dropped first (any stride works
 * there). Runs of old and new dimensions with equal products are matched;
 * within a run the old dimensions must be contiguous with each other, and
 * the new strides follow from the run's last old stride. A stride product
 * past int64 means no view (a copy). New trailing size-1 dimensions get the
 * last computed stride, or the item size when there is none, as in NumPy.
 * Callers handle empty arrays before (every stride works).
 */
#ifndef THEANO_RUNTIME_RESHAPE_VIEW_H
#define THEANO_RUNTIME_RESHAPE_VIEW_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

#include "shape_rules.h" /* theano_checked_mul, THEANO_MAX_NDIM */

/* The rule on the old array without its size-1 dimensions (oldnd of them):
 * 1 with newstrides[0..newnd) set when a view has shape newdims, else 0. */
static inline int theano_nocopy_reshape_rule(int64_t oldnd, const int64_t* olddims, const int64_t* oldstrides,
                                             int64_t newnd, const int64_t* newdims, int64_t* newstrides,
                                             int64_t itemsize) {
  int64_t oi = 0, oj = 1, ni = 0, nj = 1, p = 0, k, last;
  while (ni < newnd && oi < oldnd) {
    int64_t np = newdims[ni], op = olddims[oi];
    while (np != op) {
      if (np < op) {
        if (nj >= newnd) return 0;
        np *= newdims[nj++];
      } else {
        if (oj >= oldnd) return 0;
        op *= olddims[oj++];
      }
    }
    for (k = oi; k < oj - 1; ++k)
      if (theano_checked_mul(olddims[k + 1], oldstrides[k + 1], &p) != THEANO_RULE_OK || oldstrides[k] != p) return 0;
    newstrides[nj - 1] = oldstrides[oj - 1];
    for (k = nj - 1; k > ni; --k)
      if (theano_checked_mul(newstrides[k], newdims[k], &newstrides[k - 1]) != THEANO_RULE_OK) return 0;
    ni = nj++;
    oi = oj++;
  }
  last = ni >= 1 ? newstrides[ni - 1] : itemsize;
  for (k = ni; k < newnd; ++k) newstrides[k] = last;
  return 1;
}

/* The rule on an array of nd (at most THEANO_MAX_NDIM) dimensions with its
 * size-1 ones in place: the host's entry for generated code. */
static inline int theano_nocopy_reshape(int64_t nd, const int64_t* shape, const int64_t* strides, int64_t newnd,
                                        const int64_t* newdims, int64_t* newstrides, int64_t itemsize) {
  int64_t olddims[THEANO_MAX_NDIM], oldstrides[THEANO_MAX_NDIM];
  int64_t oldnd = 0, d;
  if (nd > THEANO_MAX_NDIM) return 0;
  for (d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    olddims[oldnd] = shape[d];
    oldstrides[oldnd] = strides[d];
    ++oldnd;
  }
  return theano_nocopy_reshape_rule(oldnd, olddims, oldstrides, newnd, newdims, newstrides, itemsize);
}

#endif /* THEANO_RUNTIME_RESHAPE_VIEW_H */
