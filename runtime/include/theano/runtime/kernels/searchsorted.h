/* \file
 * The kernel of SearchSorted (theano/tensor/index_ops.h: searchsorted),
 * written ONCE for its perform and its generated code.
 *
 * theano_searchsorted_<sfx>(a, as, n, sorter, ss, v, vs, m, o, os, right):
 * for each of the m values v + j * vs (byte strides), the position in the n
 * sorted elements a + k * as (k = sorter[i] when sorter is not NULL: int64,
 * each in [0, n), checked first by the rules below) where it would be inserted: the
 * first i with a[i] >= v ("left", right = 0) or a[i] > v ("right"), in
 * NumPy's order, where NaN sorts after every number. Written to the int64 at
 * o + j * os. A binary search: log2(n) + 1 comparisons per value.
 *
 * One kernel per dtype: suffix f64, f32, i64, i32, i16, i8, u64, u32, u16, u8.
 *
 * The sorter's rules, with their messages (ValueError, after "<op>: "), are
 * here too, for perform (compiler/src/tensor/array_ops/searchsorted.cpp) and
 * both lowerings (codegen/src/emit/lower/index_ops.cpp):
 *   length: sorter has L entries, a has N
 *   entry:  sorter[I] = K is out of range for a of length N
 */
#ifndef THEANO_RUNTIME_KERNELS_SEARCHSORTED_H
#define THEANO_RUNTIME_KERNELS_SEARCHSORTED_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* ValueError when false: a sorter of `len` entries for an a of length n. */
static inline int theano_searchsorted_sorter_len_ok(int64_t len, int64_t n) { return len == n; }
/* ValueError when false: sorter entry k for an a of length n. */
static inline int theano_searchsorted_sorter_entry_ok(int64_t k, int64_t n) { return k >= 0 && k < n; }

#define THEANO_SS_SORTER_LEN_TEXT1 "sorter has "                         /* L */
#define THEANO_SS_SORTER_LEN_TEXT2 " entries, a has "                    /* N */
#define THEANO_SS_SORTER_ENTRY_TEXT1 "sorter["                           /* I */
#define THEANO_SS_SORTER_ENTRY_TEXT2 "] = "                              /* K */
#define THEANO_SS_SORTER_ENTRY_TEXT3 " is out of range for a of length " /* N */

/* x before y in NumPy's sort order: NaN last. */
#define THEANO_SS_LT_FLOAT(x, y) ((x) < (y) || ((y) != (y) && (x) == (x)))
#define THEANO_SS_LT_INT(x, y) ((x) < (y))

#define THEANO_SEARCHSORTED(T, SUFFIX, LT)                                                                      \
  static inline void theano_searchsorted_##SUFFIX(const char* a, int64_t as, int64_t n, const char* sorter,    \
                                                  int64_t ss, const char* v, int64_t vs, int64_t m, char* o,   \
                                                  int64_t os, int right) {                                     \
    int64_t j;                                                                                                  \
    for (j = 0; j < m; ++j) {                                                                                   \
      const T x = *(const T*)(v + j * vs);                                                                      \
      int64_t lo = 0, hi = n;                                                                                   \
      while (lo < hi) {                                                                                         \
        const int64_t mid = lo + (hi - lo) / 2;                                                                 \
        const int64_t k = sorter ? *(const int64_t*)(sorter + mid * ss) : mid;                                  \
        const T am = *(const T*)(a + k * as);                                                                   \
        if (right ? !LT(x, am) : LT(am, x))                                                                     \
          lo = mid + 1;                                                                                         \
        else                                                                                                    \
          hi = mid;                                                                                             \
      }                                                                                                         \
      *(int64_t*)(o + j * os) = lo;                                                                             \
    }                                                                                                           \
  }

THEANO_SEARCHSORTED(double, f64, THEANO_SS_LT_FLOAT)
THEANO_SEARCHSORTED(float, f32, THEANO_SS_LT_FLOAT)
THEANO_SEARCHSORTED(int64_t, i64, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(int32_t, i32, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(int16_t, i16, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(int8_t, i8, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(uint64_t, u64, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(uint32_t, u32, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(uint16_t, u16, THEANO_SS_LT_INT)
THEANO_SEARCHSORTED(uint8_t, u8, THEANO_SS_LT_INT)

#endif
