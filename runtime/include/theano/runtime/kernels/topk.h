/* \file
 * The kernels of ArgTopKOp (theano/tensor/sort.h: topk, argtopk,
 * topk_and_argtopk), written ONCE for its perform, its generated C++ and its
 * CUDA form (a Lines kernel form with an output line of m elements,
 * codegen/src/emit/lower/kernel_form.cpp).
 *
 * theano_argtopk_<max|min>_<sfx>(x, xs, o, os, n, m): the indices of the m
 * (1 <= m <= n) elements of the line x + i * xs (byte strides) that rank
 * first, written to the int64 line o + j * os best first. "max" ranks by
 * value descending, ties by the larger index first; "min" by value
 * ascending, ties by the smaller index first: exactly the last m of a stable
 * ascending argsort reversed, and its first m (NumPy's order: NaN above every
 * number). Partial selection: the m best are kept in a heap that lives in
 * the output line itself (no extra memory, so a GPU thread runs it too), then
 * sorted in place: O(n log m + m log m) instead of a full sort.
 *
 * One kernel per mode and dtype: suffix f64, f32, i64, i32, i16, i8, u64,
 * u32, u16, u8.
 */
#ifndef THEANO_RUNTIME_KERNELS_TOPK_H
#define THEANO_RUNTIME_KERNELS_TOPK_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

#define THEANO_TOPK_LESS_FLOAT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
#define THEANO_TOPK_LESS_INT(a, b) ((a) < (b))

/* MODE max: i ranks before j when x[i] > x[j], or equal and i > j; min: x[i]
 * < x[j], or equal and i < j. The heap keeps its worst element at the root. */
#define THEANO_TOPK_KERNEL(T, SUFFIX, LESS, MODE, BEFORE)                                                         \
  static inline int theano_topk_before_##MODE##_##SUFFIX(const char* x, int64_t xs, int64_t i, int64_t j) {      \
    const T a = *(const T*)(x + i * xs), b = *(const T*)(x + j * xs);                                            \
    BEFORE                                                                                                        \
  }                                                                                                               \
  static inline void theano_topk_sift_##MODE##_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os,          \
                                                        int64_t root, int64_t size) {                            \
    for (;;) {                                                                                                    \
      int64_t worst = root, c = 2 * root + 1, k;                                                                  \
      for (k = 0; k < 2 && c + k < size; ++k) {                                                                   \
        const int64_t ic = *(const int64_t*)(o + (c + k) * os), iw = *(const int64_t*)(o + worst * os);           \
        if (theano_topk_before_##MODE##_##SUFFIX(x, xs, iw, ic)) worst = c + k;                                   \
      }                                                                                                           \
      if (worst == root) return;                                                                                  \
      {                                                                                                           \
        const int64_t t = *(const int64_t*)(o + root * os);                                                       \
        *(int64_t*)(o + root * os) = *(const int64_t*)(o + worst * os);                                           \
        *(int64_t*)(o + worst * os) = t;                                                                          \
      }                                                                                                           \
      root = worst;                                                                                               \
    }                                                                                                             \
  }                                                                                                               \
  static inline void theano_argtopk_##MODE##_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n, \
                                                      int64_t m) {                                               \
    int64_t i;                                                                                                    \
    if (m <= 0 || m > n) return;                                                                                  \
    for (i = 0; i < m; ++i) *(int64_t*)(o + i * os) = i;                                                          \
    for (i = m / 2; i-- > 0;) theano_topk_sift_##MODE##_##SUFFIX(x, xs, o, os, i, m);                             \
    for (i = m; i < n; ++i)                                                                                       \
      if (theano_topk_before_##MODE##_##SUFFIX(x, xs, i, *(const int64_t*)o)) {                                   \
        *(int64_t*)o = i;                                                                                         \
        theano_topk_sift_##MODE##_##SUFFIX(x, xs, o, os, 0, m);                                                   \
      }                                                                                                           \
    /* The worst to the end, repeatedly: best first. */                                                           \
    for (i = m - 1; i > 0; --i) {                                                                                 \
      const int64_t t = *(const int64_t*)o;                                                                       \
      *(int64_t*)o = *(const int64_t*)(o + i * os);                                                               \
      *(int64_t*)(o + i * os) = t;                                                                                \
      theano_topk_sift_##MODE##_##SUFFIX(x, xs, o, os, 0, i);                                                     \
    }                                                                                                             \
  }

#define THEANO_TOPK(T, SUFFIX, LESS)                                                                              \
  THEANO_TOPK_KERNEL(T, SUFFIX, LESS, max, return LESS(b, a) || (!LESS(a, b) && i > j);)                         \
  THEANO_TOPK_KERNEL(T, SUFFIX, LESS, min, return LESS(a, b) || (!LESS(b, a) && i < j);)

THEANO_TOPK(double, f64, THEANO_TOPK_LESS_FLOAT)
THEANO_TOPK(float, f32, THEANO_TOPK_LESS_FLOAT)
THEANO_TOPK(int64_t, i64, THEANO_TOPK_LESS_INT)
THEANO_TOPK(int32_t, i32, THEANO_TOPK_LESS_INT)
THEANO_TOPK(int16_t, i16, THEANO_TOPK_LESS_INT)
THEANO_TOPK(int8_t, i8, THEANO_TOPK_LESS_INT)
THEANO_TOPK(uint64_t, u64, THEANO_TOPK_LESS_INT)
THEANO_TOPK(uint32_t, u32, THEANO_TOPK_LESS_INT)
THEANO_TOPK(uint16_t, u16, THEANO_TOPK_LESS_INT)
THEANO_TOPK(uint8_t, u8, THEANO_TOPK_LESS_INT)

#endif
