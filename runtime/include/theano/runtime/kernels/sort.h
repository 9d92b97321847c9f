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
 * Both are introsorts (Musser 1997): a quicksort (Hoare 1962; the pivot the
 * median of the first, middle and last elements, which also bound the
 * partition scans), its ranges of at most THEANO_SORT_SMALL elements
 * finished by insertion sort, and a range that went 2 log2(n) partitions
 * deep sorted by heapsort instead (Williams 1964), so the worst case stays
 * n log n. No extra memory and no recursion (the pending ranges live in a
 * 64-entry array: the larger part is deferred, the smaller one sorted first,
 * so at most log2(n) wait), so the same text serves a GPU thread. argsort
 * compares (value, index) pairs, a total order, so the unstable sort yields
 * the stable order.
 *
 * On the CPU a line of at most THEANO_SORT_RADIX_MAX elements is sorted by
 * an LSD radix sort instead (Seward 1954; 11 bits a pass for keys of 32 and
 * 64 bits, a byte for shorter ones, a pass skipped where every key has the
 * same digit; the keys and all histograms made in one loop, the last pass
 * writing the output line; 2000 random doubles in about 33 us against
 * std::sort's 105 us and 48 us a byte a pass, in a scratch program on one
 * core): the
 * values become unsigned keys in NumPy's order (a float's bits, the sign's
 * meaning turned around; NaN the largest key), sorted in arrays on the
 * stack. The radix sort is stable, so argsort gets the same
 * indices as by comparisons, with -0.0 keyed as +0.0 and every NaN alike
 * (they compare equal); sort keys each value by its own bits and writes
 * them back, so among equal values only -0.0 before +0.0 and a NaN's payload
 * (NaN comes back as the quiet NaN 0x7ff...f) can tell the two methods
 * apart. A GPU thread has no room for the arrays: it runs the introsort.
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

/* Ranges of at most this many elements are finished by insertion sort. */
#define THEANO_SORT_SMALL 16

/* Swaps elements a and b of the line of E at o (byte stride os). */
#define THEANO_SORT_SWAP(E, o, os, a, b)                                                                             \
  do {                                                                                                               \
    E sw_ = THEANO_SORT_AT(E, o, os, a);                                                                             \
    THEANO_SORT_AT(E, o, os, a) = THEANO_SORT_AT(E, o, os, b);                                                       \
    THEANO_SORT_AT(E, o, os, b) = sw_;                                                                               \
  } while (0)

/* The introsort, once: NAME(PARAMS char* o, int64_t os, int64_t n), the same
 * contract as THEANO_HEAPSORT's NAME, which must exist as NAME##_heap. */
#define THEANO_INTROSORT(NAME, E, BEFORE, PARAMS, ARGS)                                                              \
  static inline void NAME(THEANO_SORT_UNPAREN(PARAMS) char* o, int64_t os, int64_t n) {                              \
    int64_t pend_lo[64], pend_hi[64], pend_depth[64];                                                                \
    int top = 0;                                                                                                     \
    int64_t lo = 0, hi = n, depth = 0, m;                                                                            \
    for (m = n; m > 1; m >>= 1) depth += 2;                                                                          \
    for (;;) {                                                                                                       \
      while (hi - lo > THEANO_SORT_SMALL) {                                                                          \
        int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi - 1;                                                        \
        E p;                                                                                                         \
        if (depth == 0) {                                                                                            \
          NAME##_heap(THEANO_SORT_UNPAREN(ARGS) o + lo * os, os, hi - lo);                                           \
          lo = hi;                                                                                                   \
          break;                                                                                                     \
        }                                                                                                            \
        --depth;                                                                                                     \
        /* o[lo] <= o[mid] <= o[hi - 1]: the pivot, and the scans' sentinels. */                                     \
        if (BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, mid), THEANO_SORT_AT(E, o, os, lo)))           \
          THEANO_SORT_SWAP(E, o, os, mid, lo);                                                                       \
        if (BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, hi - 1), THEANO_SORT_AT(E, o, os, mid))) {     \
          THEANO_SORT_SWAP(E, o, os, hi - 1, mid);                                                                   \
          if (BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, mid), THEANO_SORT_AT(E, o, os, lo)))         \
            THEANO_SORT_SWAP(E, o, os, mid, lo);                                                                     \
        }                                                                                                            \
        p = THEANO_SORT_AT(E, o, os, mid);                                                                           \
        /* Hoare's partition: afterwards o[lo, j] <= p <= o[j + 1, hi), both parts non-empty. */                     \
        for (;;) {                                                                                                   \
          do ++i;                                                                                                    \
          while (BEFORE(THEANO_SORT_UNPAREN(ARGS) THEANO_SORT_AT(E, o, os, i), p));                                  \
          do --j;                                                                                                    \
          while (BEFORE(THEANO_SORT_UNPAREN(ARGS) p, THEANO_SORT_AT(E, o, os, j)));                                  \
          if (i >= j) break;                                                                                         \
          THEANO_SORT_SWAP(E, o, os, i, j);                                                                          \
        }                                                                                                            \
        /* The larger part waits; the smaller one is sorted now. */                                                  \
        if (j + 1 - lo < hi - (j + 1)) {                                                                             \
          pend_lo[top] = j + 1, pend_hi[top] = hi, pend_depth[top++] = depth;                                        \
          hi = j + 1;                                                                                                \
        } else {                                                                                                     \
          pend_lo[top] = lo, pend_hi[top] = j + 1, pend_depth[top++] = depth;                                        \
          lo = j + 1;                                                                                                \
        }                                                                                                            \
      }                                                                                                              \
      {                                                                                                              \
        int64_t k;                                                                                                   \
        for (k = lo + 1; k < hi; ++k) {                                                                              \
          E v = THEANO_SORT_AT(E, o, os, k);                                                                         \
          int64_t j = k;                                                                                             \
          for (; j > lo && BEFORE(THEANO_SORT_UNPAREN(ARGS) v, THEANO_SORT_AT(E, o, os, j - 1)); --j)                \
            THEANO_SORT_AT(E, o, os, j) = THEANO_SORT_AT(E, o, os, j - 1);                                           \
          THEANO_SORT_AT(E, o, os, j) = v;                                                                           \
        }                                                                                                            \
      }                                                                                                              \
      if (top == 0) return;                                                                                          \
      --top;                                                                                                         \
      lo = pend_lo[top], hi = pend_hi[top], depth = pend_depth[top];                                                 \
    }                                                                                                                \
  }

#ifndef __CUDACC__
/* Lines of at most this many elements are radix sorted (keys, and for
 * argsort the indices, two arrays each on the stack: 128 KiB for int64).
 * Below 65536: the histograms count in uint16_t. */
#define THEANO_SORT_RADIX_MAX 4096

/* Keys in NumPy's order. A float: its bits with the sign bit set when
 * positive, every bit flipped when negative; NaN the largest key;
 * `canon`: -0.0 keyed as +0.0 (argsort's ties). The flip is one XOR with a
 * mask made from the sign, not a choice: signs at random made the host's
 * g++ -O3 branch on them, mispredicted half the time (a line of 2000
 * float32 took 22 us instead of 14, float64 39 instead of 34; Clang's code
 * had no branch). */
static inline uint64_t theano_sort_key_f64(double v, int canon) {
  uint64_t b;
  if (v != v) return ~(uint64_t)0;
  if (canon && v == 0) v = 0.0;
  __builtin_memcpy(&b, &v, 8);
  return b ^ (((uint64_t)0 - (b >> 63)) | ((uint64_t)1 << 63));
}
static inline double theano_sort_unkey_f64(uint64_t k) {
  uint64_t b = k ^ (((k >> 63) - 1) | ((uint64_t)1 << 63));
  double v;
  __builtin_memcpy(&v, &b, 8);
  return v;
}
static inline uint32_t theano_sort_key_f32(float v, int canon) {
  uint32_t b;
  if (v != v) return ~(uint32_t)0;
  if (canon && v == 0) v = 0.0f;
  __builtin_memcpy(&b, &v, 4);
  return b ^ (((uint32_t)0 - (b >> 31)) | ((uint32_t)1 << 31));
}
static inline float theano_sort_unkey_f32(uint32_t k) {
  uint32_t b = k ^ (((k >> 31) - 1) | ((uint32_t)1 << 31));
  float v;
  __builtin_memcpy(&v, &b, 4);
  return v;
}
/* A signed integer: its bits with the sign bit flipped; unsigned: itself. */
#define THEANO_SORT_INT_KEYS(T, U, SUFFIX, SIGN)                                                                     \
  static inline U theano_sort_key_##SUFFIX(T v, int canon) { return (void)canon, (U)((U)v ^ (U)(SIGN)); }           \
  static inline T theano_sort_unkey_##SUFFIX(U k) { return (T)(U)(k ^ (U)(SIGN)); }
THEANO_SORT_INT_KEYS(int64_t, uint64_t, i64, (uint64_t)1 << 63)
THEANO_SORT_INT_KEYS(int32_t, uint32_t, i32, (uint32_t)1 << 31)
THEANO_SORT_INT_KEYS(int16_t, uint16_t, i16, 0x8000)
THEANO_SORT_INT_KEYS(int8_t, uint8_t, i8, 0x80)
THEANO_SORT_INT_KEYS(uint64_t, uint64_t, u64, 0)
THEANO_SORT_INT_KEYS(uint32_t, uint32_t, u32, 0)
THEANO_SORT_INT_KEYS(uint16_t, uint16_t, u16, 0)
THEANO_SORT_INT_KEYS(uint8_t, uint8_t, u8, 0)

/* The radix digit of keys of type U: 11 bits for keys of 32 and 64 bits (3
 * and 6 passes instead of 4 and 8 bytes: a line of 2000 doubles sorts in
 * about 0.7 of the time, the histograms and the scatter passes both fewer),
 * a byte for shorter keys (one or two passes either way, and smaller
 * histograms). The counters are uint16_t: a line has at most
 * THEANO_SORT_RADIX_MAX (< 65536) elements, and half-size histograms stay in
 * the L1 cache (6 x 2048 x 2 bytes for doubles). */
#define THEANO_RADIX_BITS(U) (sizeof(U) >= 4 ? 11 : 8)
#define THEANO_RADIX_PASSES(U) ((8 * (int)sizeof(U) + THEANO_RADIX_BITS(U) - 1) / THEANO_RADIX_BITS(U))

/* The radix paths of theano_sort_<sfx> / theano_argsort_<sfx> (ARG 0 / 1):
 * statements that finish the line and return when it is short enough. An
 * LSD radix sort of the keys (argsort's indices carried along), in stack
 * arrays: one loop makes the keys and every digit's histogram, a digit whose
 * keys all share one value is skipped, and the last pass writes the output
 * line itself (the values unkeyed, or the indices), so nothing is copied
 * back. x is read only by the first loop, so o may be x's line. */
#define THEANO_RADIX_LINE(T, U, SUFFIX, ARG)                                                                         \
  if (n <= THEANO_SORT_RADIX_MAX && n > 0) {                                                                         \
    enum { bits_ = THEANO_RADIX_BITS(U), passes_ = THEANO_RADIX_PASSES(U), mask_ = (1 << bits_) - 1 };               \
    U a_[THEANO_SORT_RADIX_MAX], b_[THEANO_SORT_RADIX_MAX];                                                          \
    int64_t ia_[(ARG) ? THEANO_SORT_RADIX_MAX : 1], ib_[(ARG) ? THEANO_SORT_RADIX_MAX : 1];                          \
    U *src_ = a_, *dst_ = b_;                                                                                        \
    int64_t *isrc_ = ia_, *idst_ = ib_;                                                                              \
    uint16_t cnt_[passes_][mask_ + 1];                                                                               \
    int d_, j_, last_ = -1;                                                                                          \
    for (d_ = 0; d_ < passes_; ++d_)                                                                                 \
      for (j_ = 0; j_ <= mask_; ++j_) cnt_[d_][j_] = 0;                                                              \
    for (i = 0; i < n; ++i) {                                                                                        \
      const U k_ = theano_sort_key_##SUFFIX(THEANO_SORT_AT(const T, x, xs, i), (ARG));                               \
      a_[i] = k_;                                                                                                    \
      if (ARG) ia_[i] = i;                                                                                           \
      for (d_ = 0; d_ < passes_; ++d_) ++cnt_[d_][(k_ >> (bits_ * d_)) & mask_];                                     \
    }                                                                                                                \
    for (d_ = 0; d_ < passes_; ++d_)                                                                                 \
      if (cnt_[d_][(a_[0] >> (bits_ * d_)) & mask_] != (uint16_t)n) last_ = d_; /* the last digit that varies */     \
    for (d_ = 0; d_ <= last_; ++d_) {                                                                                \
      uint16_t* c_ = cnt_[d_];                                                                                       \
      uint16_t sum_ = 0;                                                                                             \
      if (c_[(src_[0] >> (bits_ * d_)) & mask_] == (uint16_t)n) continue; /* one digit value: nothing moves */       \
      for (j_ = 0; j_ <= mask_; ++j_) {                                                                              \
        const uint16_t t_ = c_[j_];                                                                                  \
        c_[j_] = sum_;                                                                                               \
        sum_ = (uint16_t)(sum_ + t_);                                                                                \
      }                                                                                                              \
      if (d_ == last_) {                                                                                             \
        for (i = 0; i < n; ++i) {                                                                                    \
          const int64_t at_ = c_[(src_[i] >> (bits_ * d_)) & mask_]++;                                               \
          if (ARG)                                                                                                   \
            THEANO_SORT_AT(int64_t, o, os, at_) = isrc_[i];                                                          \
          else                                                                                                       \
            THEANO_SORT_AT(T, o, os, at_) = theano_sort_unkey_##SUFFIX(src_[i]);                                     \
        }                                                                                                            \
        return;                                                                                                      \
      }                                                                                                              \
      for (i = 0; i < n; ++i) {                                                                                      \
        const uint16_t at_ = c_[(src_[i] >> (bits_ * d_)) & mask_]++;                                                \
        dst_[at_] = src_[i];                                                                                         \
        if (ARG) idst_[at_] = isrc_[i];                                                                              \
      }                                                                                                              \
      {                                                                                                              \
        U* t_ = src_;                                                                                                \
        int64_t* it_ = isrc_;                                                                                        \
        src_ = dst_, dst_ = t_, isrc_ = idst_, idst_ = it_;                                                          \
      }                                                                                                              \
    }                                                                                                                \
    /* no digit varies: every key is the same */                                                                     \
    for (i = 0; i < n; ++i) {                                                                                        \
      if (ARG)                                                                                                       \
        THEANO_SORT_AT(int64_t, o, os, i) = isrc_[i];                                                                \
      else                                                                                                           \
        THEANO_SORT_AT(T, o, os, i) = theano_sort_unkey_##SUFFIX(src_[i]);                                           \
    }                                                                                                                \
    return;                                                                                                          \
  }
#define THEANO_SORT_RADIX_PATH(T, U, SUFFIX) THEANO_RADIX_LINE(T, U, SUFFIX, 0)
#define THEANO_ARGSORT_RADIX_PATH(T, U, SUFFIX) THEANO_RADIX_LINE(T, U, SUFFIX, 1)
#else
#define THEANO_SORT_RADIX_PATH(T, U, SUFFIX)
#define THEANO_ARGSORT_RADIX_PATH(T, U, SUFFIX)
#endif

#define THEANO_SORT_KERNELS(T, U, SUFFIX)                                                                            \
  THEANO_HEAPSORT(theano_sort_intro_##SUFFIX##_heap, T, THEANO_SORT_LESS, (), ())                                    \
  THEANO_INTROSORT(theano_sort_intro_##SUFFIX, T, THEANO_SORT_LESS, (), ())                                          \
  static inline void theano_sort_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n) {               \
    int64_t i;                                                                                                       \
    THEANO_SORT_RADIX_PATH(T, U, SUFFIX)                                                                             \
    if (x != o)                                                                                                      \
      for (i = 0; i < n; ++i) THEANO_SORT_AT(T, o, os, i) = THEANO_SORT_AT(const T, x, xs, i);                       \
    theano_sort_intro_##SUFFIX(o, os, n);                                                                            \
  }                                                                                                                  \
  /* Whether index a sorts before index b: by value, then by index. */                                               \
  static inline int theano_argsort_less_##SUFFIX(const char* x, int64_t xs, int64_t a, int64_t b) {                  \
    const T va = THEANO_SORT_AT(const T, x, xs, a), vb = THEANO_SORT_AT(const T, x, xs, b);                          \
    if (THEANO_SORT_LESS(va, vb)) return 1;                                                                          \
    if (THEANO_SORT_LESS(vb, va)) return 0;                                                                          \
    return a < b;                                                                                                    \
  }                                                                                                                  \
  THEANO_HEAPSORT(theano_argsort_intro_##SUFFIX##_heap, int64_t, theano_argsort_less_##SUFFIX,                       \
                  (const char* x, int64_t xs, ), (x, xs, ))                                                          \
  THEANO_INTROSORT(theano_argsort_intro_##SUFFIX, int64_t, theano_argsort_less_##SUFFIX,                             \
                   (const char* x, int64_t xs, ), (x, xs, ))                                                         \
  static inline void theano_argsort_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n) {            \
    int64_t i;                                                                                                       \
    THEANO_ARGSORT_RADIX_PATH(T, U, SUFFIX)                                                                          \
    for (i = 0; i < n; ++i) THEANO_SORT_AT(int64_t, o, os, i) = i;                                                   \
    theano_argsort_intro_##SUFFIX(x, xs, o, os, n);                                                                  \
  }

THEANO_SORT_KERNELS(double, uint64_t, f64)
THEANO_SORT_KERNELS(float, uint32_t, f32)
THEANO_SORT_KERNELS(int64_t, uint64_t, i64)
THEANO_SORT_KERNELS(int32_t, uint32_t, i32)
THEANO_SORT_KERNELS(int16_t, uint16_t, i16)
THEANO_SORT_KERNELS(int8_t, uint8_t, i8)
THEANO_SORT_KERNELS(uint64_t, uint64_t, u64)
THEANO_SORT_KERNELS(uint32_t, uint32_t, u32)
THEANO_SORT_KERNELS(uint16_t, uint16_t, u16)
THEANO_SORT_KERNELS(uint8_t, uint8_t, u8)

#endif /* THEANO_RUNTIME_KERNELS_SORT_H */
