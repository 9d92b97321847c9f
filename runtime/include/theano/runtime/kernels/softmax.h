/* \file
 * Softmax and LogSoftmax over the lanes of one axis (a lane is the run of
 * elements along the axis), written ONCE for perform
 * (compiler/src/tensor/nnet/softmax.cpp) and the C++ lowering
 * (codegen/src/emit/lower/nnet.cpp, which embeds this text in the units that
 * use it and instantiates the kernels there); the CUDA lowering calls the
 * passes' steps (below) in its own fold order.
 *
 * The stable passes, in double: m = the lane maximum (NaN ignored, as
 * `m < v ? v : m`), exp(x - m) written to the output (a loop the JIT
 * vectorizes into libmvec calls), total = their sum as stored, then
 * exp(x - m) / total (the stored value over total) or x - (m + log(total)).
 * The maximum and the total are folded with 16 independent accumulators, then
 * a tree, then the tail in order. Lanes of another axis than the last of a
 * C-contiguous input (theano_softmax_cols_layout) take chunks of columns
 * through the passes together, row by row (contiguous loads): each column is
 * folded in order, one accumulator.
 *
 * Readers: THEANO_SOFTMAX_KERNELS(T, NAME, LOG) defines NAME_lane (one lane,
 * any strides) and NAME_cols (a chunk of columns) for element type T (float
 * or double), softmax (LOG 0) or log-softmax (LOG 1); perform instantiates
 * the four. THEANO_SOFTMAX_CONTIGUOUS_KERNELS defines the unit-stride lane
 * and NAME_cols only: the lowering instantiates the one a node needs and
 * copies a non-contiguous input first. Input and output must not
 * overlap (the exp pass writes the output before the last pass reads the
 * input again).
 *
 * Results: perform and generated code run the same operations in the same
 * order. They agree bit for bit where exp agrees: generated code's vectorized
 * exp is libmvec's, perform's (GCC, no fast-math) is libm's; the two round
 * double results differently in the last bits for many inputs (float32
 * results, rounded from double, agree).
 */
#ifndef THEANO_RUNTIME_SOFTMAX_KERNELS_H
#define THEANO_RUNTIME_SOFTMAX_KERNELS_H

#ifndef THEANO_GENERATED_CODE
#include <math.h>
#include <stdint.h>
#endif

/* The generated prelude's loop pragmas; plain loops on the host (the
 * vectorizer keeps the order of every fold: the 16 accumulators are
 * independent). */
#ifndef THEANO_LANES
#define THEANO_LANES
#endif
#ifndef THEANO_UNROLL
#define THEANO_UNROLL
#endif

/* The steps of the passes, in double, for any fold order: the lane maximum
 * folds element v into m (NaN ignored) and joins two partial maxima; the
 * exp pass stores exp(x - m) in the output's type T, whose stored values
 * the total sums; the last pass stores o / total (softmax) or x - lse
 * (log-softmax, lse = m + log(total)). The lane and column kernels below
 * fold them in their order; the CUDA form (codegen/src/emit/lower/gpu_nnet.cpp,
 * which embeds this text in its CUDA unit) folds the same steps per thread
 * and joins the threads' partial folds with them. */
static inline double theano_softmax_max(double m, double v) { return m < v ? v : m; }
static inline double theano_softmax_lse(double m, double total) { return m + log(total); }
#define THEANO_SOFTMAX_EXP(T, X, M) ((T)exp((double)(X) - (M)))
#define THEANO_SOFTMAX_DIV(T, O, TOTAL) ((T)((double)(O) / (TOTAL)))
#define THEANO_SOFTMAX_SUB(T, X, LSE) ((T)((double)(X) - (LSE)))

/* Chunks of columns of the column path (the size of its two double buffers). */
#define THEANO_SOFTMAX_CHUNK 512

/* Whether a lane of `axis` of an input with this shape and byte strides
 * takes the column path: not the last axis, more than one column, and a
 * C-contiguous input (size-1 dimensions' strides ignored). */
static inline int theano_softmax_cols_layout(const int64_t* shape, const int64_t* strides, int64_t nd, int64_t axis,
                                             int64_t item) {
  int64_t inner = 1, expect = item, d;
  if (axis >= nd - 1) return 0;
  for (d = axis + 1; d < nd; ++d) inner *= shape[d];
  if (inner <= 1) return 0;
  for (d = nd - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    if (strides[d] != expect) return 0;
    expect *= shape[d];
  }
  return 1;
}

/* One lane: n elements p[k * PS] -> o[k * OS] (element strides). */
#define THEANO_SOFTMAX_LANE_BODY(T, PS, OS, LOG)                                                     \
  double r[16];                                                                                      \
  double m = -__builtin_inf(), total;                                                               \
  int64_t k = 0;                                                                                     \
  THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = -__builtin_inf();                               \
  for (; k + 16 <= n; k += 16)                                                                       \
    THEANO_LANES for (int j = 0; j < 16; ++j) {                                                      \
      const double v = (double)p[(k + j) * (PS)];                                                    \
      r[j] = theano_softmax_max(r[j], v);                                                            \
    }                                                                                                \
  THEANO_UNROLL for (int j = 0; j < 16; ++j) m = theano_softmax_max(m, r[j]);                       \
  for (; k < n; ++k) {                                                                               \
    const double v = (double)p[k * (PS)];                                                            \
    m = theano_softmax_max(m, v);                                                                    \
  }                                                                                                  \
  for (k = 0; k < n; ++k) o[k * (OS)] = THEANO_SOFTMAX_EXP(T, p[k * (PS)], m);                       \
  THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = 0;                                              \
  for (k = 0; k + 16 <= n; k += 16)                                                                  \
    THEANO_LANES for (int j = 0; j < 16; ++j) r[j] += (double)o[(k + j) * (OS)];                     \
  THEANO_UNROLL for (int w = 8; w >= 1; w /= 2)                                                      \
    THEANO_UNROLL for (int j = 0; j < w; ++j) r[j] += r[j + w];                                     \
  total = r[0];                                                                                      \
  for (; k < n; ++k) total += (double)o[k * (OS)];                                                   \
  if (LOG) {                                                                                         \
    const double lse = theano_softmax_lse(m, total);                                                 \
    for (k = 0; k < n; ++k) o[k * (OS)] = THEANO_SOFTMAX_SUB(T, p[k * (PS)], lse);                   \
  } else {                                                                                           \
    for (k = 0; k < n; ++k) o[k * (OS)] = THEANO_SOFTMAX_DIV(T, o[k * (OS)], total);                 \
  }

#define THEANO_SOFTMAX_KERNELS(T, NAME, LOG)                                                              \
  THEANO_SOFTMAX_CONTIGUOUS_KERNELS(T, NAME, LOG)                                                         \
  static void NAME##_lane_s(const T* p, int64_t ps, T* o, int64_t os, int64_t n) {                        \
    THEANO_SOFTMAX_LANE_BODY(T, ps, os, LOG)                                                              \
  }                                                                                                       \
  /* One lane of n elements, element strides ps / os (unit strides: the _c form). */                     \
  static inline void NAME##_lane(const T* p, int64_t ps, T* o, int64_t os, int64_t n) {                   \
    if (n == 0) return;                                                                                   \
    if (ps == 1 && os == 1) NAME##_lane_c(p, o, n);                                                       \
    else NAME##_lane_s(p, ps, o, os, n);                                                                  \
  }

/* The unit-stride lane (NAME_lane_c, n >= 1 elements) and the column chunk
 * (NAME_cols): all the lowering instantiates, as it copies a strided input
 * into a C-contiguous scratch array first (the same operations in the same
 * order as the strided lane on the original). */
#define THEANO_SOFTMAX_CONTIGUOUS_KERNELS(T, NAME, LOG)                                                   \
  static void NAME##_lane_c(const T* __restrict p, T* __restrict o, int64_t n) {                          \
    THEANO_SOFTMAX_LANE_BODY(T, 1, 1, LOG)                                                                \
  }                                                                                                       \
  /* mm <= THEANO_SOFTMAX_CHUNK columns of n rows, `inner` elements apart: xb -> ob; m and t:             \
     THEANO_SOFTMAX_CHUNK doubles each (scratch). */                                                      \
  static inline void NAME##_cols(const T* __restrict xb, T* __restrict ob, int64_t n, int64_t inner,      \
                                 int64_t mm, double* __restrict m, double* __restrict t) {                \
    for (int64_t j = 0; j < mm; ++j) {                                                                    \
      m[j] = -__builtin_inf();                                                                            \
      t[j] = 0;                                                                                           \
    }                                                                                                     \
    for (int64_t i = 0; i < n; ++i) {                                                                     \
      const T* __restrict r = xb + i * inner;                                                             \
      for (int64_t j = 0; j < mm; ++j) {                                                                  \
        const double v = (double)r[j];                                                                    \
        m[j] = theano_softmax_max(m[j], v);                                                               \
      }                                                                                                   \
    }                                                                                                     \
    for (int64_t i = 0; i < n; ++i) {                                                                     \
      const T* __restrict r = xb + i * inner;                                                             \
      T* __restrict q = ob + i * inner;                                                                   \
      for (int64_t j = 0; j < mm; ++j) q[j] = THEANO_SOFTMAX_EXP(T, r[j], m[j]);                          \
      for (int64_t j = 0; j < mm; ++j) t[j] += (double)q[j];                                              \
    }                                                                                                     \
    if (LOG)                                                                                              \
      for (int64_t j = 0; j < mm; ++j) t[j] = theano_softmax_lse(m[j], t[j]);                             \
    for (int64_t i = 0; i < n; ++i) {                                                                     \
      const T* __restrict r = xb + i * inner;                                                             \
      T* __restrict q = ob + i * inner;                                                                   \
      if (LOG)                                                                                            \
        for (int64_t j = 0; j < mm; ++j) q[j] = THEANO_SOFTMAX_SUB(T, r[j], t[j]);                        \
      else                                                                                                \
        for (int64_t j = 0; j < mm; ++j) q[j] = THEANO_SOFTMAX_DIV(T, q[j], t[j]);                        \
    }                                                                                                     \
  }

#endif /* THEANO_RUNTIME_SOFTMAX_KERNELS_H */
