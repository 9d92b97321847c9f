/* \file
 * The kernels of SortOp and ArgSortOp (theano/tensor/sort.h: sort, argsort),
 * written ONCE, as plain C, for three readers: their perform includes this
 * header, and the code generator embeds this very file's text in the
 * translation units and CUDA units of graphs with such a node, through the
 * ops' kernel form (Op::kernel_form, the Lines kind; one GPU thread a line),
 * so every back end computes exactly what perform computes.
 *
 * A kernel sorts one line: the n elements x + i * xs (byte strides) along the
 * op's axis, writing to o + i * os. theano_sort_<sfx> writes the values in
 * ascending order (x and o may be the same line); theano_argsort_<sfx>
 * writes, as int64, the indices that sort the line, ties in index order (a
 * stable sort, whatever sorting kind the user named). NaN sorts after every
 * number, as in NumPy, and the NaNs keep their index order.
 *
 * Both are heapsorts (Williams 1964: a binary max-heap built by sifting down
 * from the last parent, then the maximum swapped to the end, n log n
 * comparisons, no extra memory, no recursion, so the same text serves a GPU
 * thread). argsort compares (value, index) pairs, a total order, so the
 * unstable heapsort yields the stable order.
 *
 * One kernel per dtype: suffix f64, f32, i64, i32, i16, i8, u64, u32, u16, u8.
 */
#ifndef THEANO_RUNTIME_KERNELS_SORT_H
#define THEANO_RUNTIME_KERNELS_SORT_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* a < b in NumPy's sort order: a NaN is larger than every number. For an
 * integer type the NaN tests are false (a == a always holds). */
#define THEANO_SORT_LESS(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))

/* Element k of a line of T at p with byte stride s. */
#define THEANO_SORT_AT(T, p, s, k) (*(T*)((p) + (k) * (s)))

/* The heapsort, once: NAME(PARAMS char* o, int64_t os, int64_t n) sorts the
 * n elements of type E at o (byte stride os) so that BEFORE(ARGS a, b), whether
 * element a sorts before element b, never holds for a later a. PARAMS / ARGS,
 * in parentheses: extra leading parameters and the arguments passing them on
 * (`()`, or `(const char* x, int64_t xs,)` and `(x, xs,)`). NAME##_sift sifts
 * element root of the heap o[0, end) down to its place. */
#define THEANO_SORT_ID(...) __VA_ARGS__
#define THEANO_SORT_UNPAREN(list) THEANO_SORT_ID list
#define THEANO_HEAPSORT(NAME, E, BEFORE, PARAMS, ARGS)                                                               \
  static inline void NAME##_sift(THEANO_SORT_UNPAREN(PARAMS) char* o, int64_t os, int64_t root, int64_t end) {       \
    for (;;) {                                                                                                       \
      int64_t child = 2 * root + 1;                                                                                  \
      if (child >= end) return;                                                                                      \
      if (child + 1 < end &&                                                                                         \
          BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, child), THEANO_SORT_AT(E, o, os, child + 1)))    \
        ++child;                                                                                                     \
      if (!BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, root), THEANO_SORT_AT(E, o, os, child)))        \
        return;                                                                                                      \
      E t = THEANO_SORT_AT(E, o, os, root);                                                                          \
      THEANO_SORT_AT(E, o, os, root) = THEANO_SORT_AT(E, o, os, child);                                              \
      THEANO_SORT_AT(E, o, os, child) = t;                                                                           \
      root = child;                                                                                                  \
    }                                                                                                                \
  }                                                                                                                  \
  static inline void NAME(THEANO_SORT_UNPAREN(PARAMS) char* o, int64_t os, int64_t n) {                              \
    int64_t i;                                                                                                       \
    for (i = n / 2; i-- > 0;) NAME##_sift(THEANO_SORT_UNPAREN(ARGS) o, os, i, n);                                    \
    for (i = n - 1; i > 0; --i) {                                                                                    \
      E t = THEANO_SORT_AT(E, o, os, 0);                                                                             \
      THEANO_SORT_AT(E, o, os, 0) = THEANO_SORT_AT(E, o, os, i);                                                     \
      THEANO_SORT_AT(E, o, os, i) = t;                                                                               \
      NAME##_sift(THEANO_SORT_UNPAREN(ARGS) o, os, 0, i);                                                            \
    }                                                                                                                \
  }

#define THEANO_SORT_KERNELS(T, SUFFIX)                                                                               \
  THEANO_HEAPSORT(theano_sort_heap_##SUFFIX, T, THEANO_SORT_LESS, (), ())                                            \
  static inline void theano_sort_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n) {               \
    int64_t i;                                                                                                       \
    if (x != o)                                                                                                      \
      for (i = 0; i < n; ++i) THEANO_SORT_AT(T, o, os, i) = THEANO_SORT_AT(const T, x, xs, i);                       \
    theano_sort_heap_##SUFFIX(o, os, n);                                                                             \
  }                                                                                                                  \
  /* Whether index a sorts before index b: by value, then by index. */                                               \
  static inline int theano_argsort_less_##SUFFIX(const char* x, int64_t xs, int64_t a, int64_t b) {                  \
    const T va = THEANO_SORT_AT(const T, x, xs, a), vb = THEANO_SORT_AT(const T, x, xs, b);                          \
    if (THEANO_SORT_LESS(va, vb)) return 1;                                                                          \
    if (THEANO_SORT_LESS(vb, va)) return 0;                                                                          \
    return a < b;                                                                                                    \
  }                                                                                                                  \
  THEANO_HEAPSORT(theano_argsort_heap_##SUFFIX, int64_t, theano_argsort_less_##SUFFIX,                               \
                  (const char* x, int64_t xs, ), (x, xs, ))                                                          \
  static inline void theano_argsort_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n) {            \
    int64_t i;                                                                                                       \
    for (i = 0; i < n; ++i) THEANO_SORT_AT(int64_t, o, os, i) = i;                                                   \
    theano_argsort_heap_##SUFFIX(x, xs, o, os, n);                                                                   \
  }

THEANO_SORT_KERNELS(double, f64)
THEANO_SORT_KERNELS(float, f32)
THEANO_SORT_KERNELS(int64_t, i64)
THEANO_SORT_KERNELS(int32_t, i32)
THEANO_SORT_KERNELS(int16_t, i16)
THEANO_SORT_KERNELS(int8_t, i8)
THEANO_SORT_KERNELS(uint64_t, u64)
THEANO_SORT_KERNELS(uint32_t, u32)
THEANO_SORT_KERNELS(uint16_t, u16)
THEANO_SORT_KERNELS(uint8_t, u8)

#endif /* THEANO_RUNTIME_KERNELS_SORT_H */
