/* \file
 * The kernels of the pooling ops (theano/tensor/pool.h: Pool, MaxPoolGrad,
 * AveragePoolGrad, DownsampleFactorMaxGradGrad; pool_2d and pool_3d), written
 * ONCE, as plain C, for three readers: the ops' perform includes this header,
 * and their C++ lowering and CUDA form (both in codegen/src/emit/lower/pool.cpp)
 * embed this very file's text and call the same functions, so every back end
 * computes what perform computes.
 *
 * Geometry. Pooling acts on the last 1 to 3 axes of an array ("the image";
 * every leading axis is a batch axis the caller walks). The functions always
 * take 3 pooled axes: a 2-d pool passes a leading axis of length 1, window 1,
 * stride 1, pad 0 (a 1-d pool two). Per axis: v (input length), ws (window),
 * st (stride), pad (zeros added on both sides, Theano's `pad`); output index o
 * pools the input window [o*st - pad, o*st - pad + ws) clipped to [0, v).
 *
 * Each function computes ONE element, so a GPU thread runs one call and never
 * races: the forward and the grad of the max grad (gradgrad) one output
 * element (a reduction over its window), the two gradients one input element
 * (a gather over the outputs whose window holds it; no scatter: the CUDA
 * form). The CPU computes the gradients window by window instead
 * (THEANO_POOL_SCATTER below: one thread, much faster there), and a max
 * gradient whose windows tile the input (stride ws, no padding) row by row
 * (theano_pool_max_grad_tiled_<sfx>: LeNet's 2x2 pools, about 3x the
 * scatter's speed). Strides are in bytes; pointers address element [0,0,0]
 * of one image.
 *
 * Values follow Theano's pool.py C code: max is the largest (`a > m`, the
 * window's first element to start), sum and the averages accumulate in the
 * element type for floats (float32 in float) and in 64-bit wrapping integers
 * for integers; average_inc_pad divides by the window clipped only to the
 * padded axis (ws per axis when ignore_border), average_exc_pad by the
 * elements of the input in it; integers divide as C does. Max's gradient goes
 * to EVERY position of a window equal to its maximum (Theano's rule for ties).
 *
 * One set per dtype: suffix f64, f32, i64, i32, i16, i8, u64, u32, u16, u8.
 */
#ifndef THEANO_RUNTIME_KERNELS_POOL_H
#define THEANO_RUNTIME_KERNELS_POOL_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>

#include "theano/runtime/kernels/shape_rules.h"
#endif

/* The modes (PoolMode's order): Theano's 'max', 'sum', 'average_inc_pad', 'average_exc_pad'. */
#define THEANO_POOL_MAX 0
#define THEANO_POOL_SUM 1
#define THEANO_POOL_AVG_INC 2
#define THEANO_POOL_AVG_EXC 3

/* Codes of theano_pool_param_rule and theano_pool_out_len (0: fine). */
#define THEANO_POOL_OK 0
#define THEANO_POOL_BAD_WS 1     /* a window size below 1; *bad: it */
#define THEANO_POOL_BAD_STRIDE 2 /* a stride below 1; *bad: it */
#define THEANO_POOL_BAD_PAD 3    /* a pad below 0 or not below its window size; *bad: it */
#define THEANO_POOL_PAD_BORDER 4 /* a nonzero pad without ignore_border; *bad: it */
#define THEANO_POOL_OVERFLOW 5   /* the padded length leaves int64; *bad: the input length */
#define THEANO_POOL_SHAPE 6      /* a gradient input is not x's pooled shape; *bad: the first axis that differs */

/* The message of a code; the caller appends *bad. */
static inline const char* theano_pool_rule_text(int code) {
  switch (code) {
    case THEANO_POOL_BAD_WS: return "every window size (ws) must be at least 1, got ";
    case THEANO_POOL_BAD_STRIDE: return "every stride must be at least 1, got ";
    case THEANO_POOL_BAD_PAD: return "every pad must be at least 0 and smaller than its window size, got ";
    case THEANO_POOL_PAD_BORDER: return "padding works only with ignore_border=True, got pad ";
    case THEANO_POOL_OVERFLOW: return "the padded length does not fit in int64, for an axis of length ";
    case THEANO_POOL_SHAPE: return "a gradient input does not have the pooled shape of x, at axis ";
    default: return "";
  }
}

/* The rule on one axis's parameters (what make_node checks). */
static inline int theano_pool_param_rule(int64_t ws, int64_t st, int64_t pad, int ignore_border, int64_t* bad) {
  if (ws < 1) {
    *bad = ws;
    return THEANO_POOL_BAD_WS;
  }
  if (st < 1) {
    *bad = st;
    return THEANO_POOL_BAD_STRIDE;
  }
  if (pad < 0 || pad >= ws) {
    *bad = pad;
    return THEANO_POOL_BAD_PAD;
  }
  if (pad != 0 && !ignore_border) {
    *bad = pad;
    return THEANO_POOL_PAD_BORDER;
  }
  return THEANO_POOL_OK;
}

/* The pooled length of an axis of length v >= 0 (Theano's Pool.out_shape):
 * with ignore_border, the windows that fit in the padded axis; without, also a
 * last partial window (pad is 0 there). An empty axis pools to 0 (Theano
 * gives 1 when st < ws, then fails on the empty window). */
static inline int theano_pool_out_len(int64_t v, int64_t ws, int64_t st, int64_t pad, int ignore_border,
                                      int64_t* out, int64_t* bad) {
  int64_t padded, n;
  int code = theano_pool_param_rule(ws, st, pad, ignore_border, bad);
  if (code != THEANO_POOL_OK) return code;
  if (theano_checked_add(v, pad, &padded) != THEANO_RULE_OK ||
      theano_checked_add(padded, pad, &padded) != THEANO_RULE_OK) {
    *bad = v;
    return THEANO_POOL_OVERFLOW;
  }
  if (ignore_border) {
    /* An empty axis pools to 0 even where padding makes room for a window:
     * that window would hold only padding (no element to reduce). */
    *out = v == 0 || padded < ws ? 0 : (padded - ws) / st + 1;
  } else if (v == 0) {
    *out = 0;
  } else if (st >= ws) {
    *out = (padded - 1) / st + 1;
  } else {
    n = (padded - 1 - ws + st) / st;
    *out = (n > 0 ? n : 0) + 1;
  }
  return THEANO_POOL_OK;
}

/* Whether `zshape` (rank `ndim`) is the pooled shape of `xshape`: the
 * leading axes equal, the last `nd` of length theano_pool_out_len (ws, st,
 * pad: nd entries). THEANO_POOL_SHAPE with *bad the first axis that differs
 * and *want its expected length; a parameter code where the rule fails. */
static inline int theano_pool_shape_rule(const int64_t* xshape, const int64_t* zshape, int64_t ndim, int64_t nd,
                                         const int64_t* ws, const int64_t* st, const int64_t* pad, int ignore_border,
                                         int64_t* bad, int64_t* want) {
  int64_t d, len;
  int code;
  for (d = 0; d < ndim; ++d) {
    len = xshape[d];
    if (d >= ndim - nd) {
      const int64_t k = d - (ndim - nd);
      code = theano_pool_out_len(xshape[d], ws[k], st[k], pad[k], ignore_border, &len, bad);
      if (code != THEANO_POOL_OK) return code;
    }
    if (zshape[d] != len) {
      *bad = d;
      *want = len;
      return THEANO_POOL_SHAPE;
    }
  }
  return THEANO_POOL_OK;
}

/* Output o's window along one axis: [*lo, *hi) in the input, and *n_inc, its
 * length clipped only to the padded axis (average_inc_pad's divisor). */
static inline void theano_pool_window(int64_t o, int64_t v, int64_t ws, int64_t st, int64_t pad, int64_t* lo,
                                      int64_t* hi, int64_t* n_inc) {
  const int64_t s = o * st - pad, e = s + ws, end = v + pad;
  *n_inc = (e < end ? e : end) - s;
  *lo = s < 0 ? 0 : s;
  *hi = e < v ? e : v;
}

/* The outputs whose window holds input i along one axis: [*lo, *hi), with
 * olen the pooled length. */
static inline void theano_pool_reach(int64_t i, int64_t ws, int64_t st, int64_t pad, int64_t olen, int64_t* lo,
                                     int64_t* hi) {
  const int64_t t = i + pad, h = t / st + 1;
  *lo = t < ws ? 0 : (t - ws) / st + 1;
  *hi = h < olen ? h : olen;
}

/* Whether the windows tile the input: stride ws and no padding in every slot, so each input element lies in at
 * most one window (theano_pool_max_grad_tiled_<sfx>). */
static inline int theano_pool_tiles(const int64_t* ws, const int64_t* st, const int64_t* pad) {
  int k;
  for (k = 0; k < 3; ++k)
    if (ws[k] < 1 || st[k] != ws[k] || pad[k] != 0) return 0;
  return 1;
}

/* The divisor of output o's window product over the axes (1 for max and sum). */
static inline int64_t theano_pool_divisor(int mode, const int64_t* lo, const int64_t* hi, const int64_t* n_inc) {
  if (mode == THEANO_POOL_AVG_INC) return n_inc[0] * n_inc[1] * n_inc[2];
  if (mode == THEANO_POOL_AVG_EXC) return (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
  return 1;
}

#define THEANO_POOL_AT(T, base, s, a, b, c) (*(const T*)((base) + (a) * (s)[0] + (b) * (s)[1] + (c) * (s)[2]))

/* The forward's reduction over the n0 x n1 x n2 elements from x0 (a statement
 * that returns; lo, hi, ni, mode in scope). */
#define THEANO_POOL_REDUCE(T, ACC, DIV, x0, xs, n0, n1, n2)                                                     \
  {                                                                                                              \
    int64_t a_, b_, c_;                                                                                          \
    if (mode == THEANO_POOL_MAX) {                                                                               \
      T m_ = THEANO_POOL_AT(T, x0, xs, 0, 0, 0);                                                                 \
      for (a_ = 0; a_ < (n0); ++a_)                                                                              \
        for (b_ = 0; b_ < (n1); ++b_)                                                                            \
          for (c_ = 0; c_ < (n2); ++c_) {                                                                        \
            const T e_ = THEANO_POOL_AT(T, x0, xs, a_, b_, c_);                                                  \
            m_ = e_ > m_ ? e_ : m_;                                                                              \
          }                                                                                                      \
      return m_;                                                                                                 \
    } else {                                                                                                     \
      ACC s_ = (ACC)0;                                                                                           \
      for (a_ = 0; a_ < (n0); ++a_)                                                                              \
        for (b_ = 0; b_ < (n1); ++b_)                                                                            \
          for (c_ = 0; c_ < (n2); ++c_) s_ += (ACC)THEANO_POOL_AT(T, x0, xs, a_, b_, c_);                        \
      if (mode == THEANO_POOL_SUM) return (T)s_;                                                                 \
      return (T)((DIV)s_ / (DIV)theano_pool_divisor(mode, lo, hi, ni));                                          \
    }                                                                                                            \
  }

/* T: the element type; ACC: the type sums run in; DIV: the type averages
 * divide in.
 *
 * theano_pool_fwd_<sfx>: output (o0, o1, o2) of the image x (strides xs,
 * lengths v).
 * theano_pool_max_grad_<sfx>: the gradient at input (i0, i1, i2): the sum of
 * gz over the outputs whose window holds it and whose value z equals x there.
 * theano_pool_avg_grad_<sfx>: the same for sum and the averages: gz over the
 * outputs holding it, each divided by its window's divisor.
 * theano_pool_max_gradgrad_<sfx>: output (o0, o1, o2) of the gradient of the
 * max gradient wrt gz: the sum of ggx over its window where x equals z there.
 * z / gz have pooled lengths zl. */
#define THEANO_POOL_KERNELS(T, ACC, DIV, SFX)                                                                    \
  static inline T theano_pool_fwd_##SFX(const char* x, const int64_t* xs, const int64_t* v, const int64_t* ws,  \
                                        const int64_t* st, const int64_t* pad, int mode, int64_t o0, int64_t o1, \
                                        int64_t o2) {                                                            \
    int64_t lo[3], hi[3], ni[3];                                                                                 \
    theano_pool_window(o0, v[0], ws[0], st[0], pad[0], &lo[0], &hi[0], &ni[0]);                                  \
    theano_pool_window(o1, v[1], ws[1], st[1], pad[1], &lo[1], &hi[1], &ni[1]);                                  \
    theano_pool_window(o2, v[2], ws[2], st[2], pad[2], &lo[2], &hi[2], &ni[2]);                                  \
    const char* x0 = x + lo[0] * xs[0] + lo[1] * xs[1] + lo[2] * xs[2];                                         \
    if (hi[0] - lo[0] == ws[0] && hi[1] - lo[1] == ws[1] && hi[2] - lo[2] == ws[2]) {                            \
      /* a whole window: its lengths are the (often constant) ws */                                              \
      THEANO_POOL_REDUCE(T, ACC, DIV, x0, xs, ws[0], ws[1], ws[2])                                               \
    }                                                                                                            \
    THEANO_POOL_REDUCE(T, ACC, DIV, x0, xs, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])                         \
  }                                                                                                              \
  static inline T theano_pool_max_grad_##SFX(const char* x, const int64_t* xs, const char* z, const int64_t* zs, \
                                             const char* gz, const int64_t* gzs, const int64_t* zl,              \
                                             const int64_t* ws, const int64_t* st, const int64_t* pad,           \
                                             int64_t i0, int64_t i1, int64_t i2) {                               \
    int64_t lo[3], hi[3], a, b, c;                                                                               \
    const T xv = THEANO_POOL_AT(T, x, xs, i0, i1, i2);                                                           \
    ACC s = (ACC)0;                                                                                              \
    theano_pool_reach(i0, ws[0], st[0], pad[0], zl[0], &lo[0], &hi[0]);                                          \
    theano_pool_reach(i1, ws[1], st[1], pad[1], zl[1], &lo[1], &hi[1]);                                          \
    theano_pool_reach(i2, ws[2], st[2], pad[2], zl[2], &lo[2], &hi[2]);                                          \
    for (a = lo[0]; a < hi[0]; ++a)                                                                              \
      for (b = lo[1]; b < hi[1]; ++b)                                                                            \
        for (c = lo[2]; c < hi[2]; ++c)                                                                          \
          s += THEANO_POOL_AT(T, z, zs, a, b, c) == xv ? (ACC)THEANO_POOL_AT(T, gz, gzs, a, b, c) : (ACC)0;      \
    return (T)s;                                                                                                 \
  }                                                                                                              \
  static inline T theano_pool_avg_grad_##SFX(const char* gz, const int64_t* gzs, const int64_t* zl,              \
                                             const int64_t* v, const int64_t* ws, const int64_t* st,             \
                                             const int64_t* pad, int mode, int64_t i0, int64_t i1, int64_t i2) { \
    int64_t lo[3], hi[3], wl[3], wh[3], ni[3], a, b, c;                                                          \
    ACC s = (ACC)0;                                                                                              \
    theano_pool_reach(i0, ws[0], st[0], pad[0], zl[0], &lo[0], &hi[0]);                                          \
    theano_pool_reach(i1, ws[1], st[1], pad[1], zl[1], &lo[1], &hi[1]);                                          \
    theano_pool_reach(i2, ws[2], st[2], pad[2], zl[2], &lo[2], &hi[2]);                                          \
    for (a = lo[0]; a < hi[0]; ++a) {                                                                            \
      theano_pool_window(a, v[0], ws[0], st[0], pad[0], &wl[0], &wh[0], &ni[0]);                                 \
      for (b = lo[1]; b < hi[1]; ++b) {                                                                          \
        theano_pool_window(b, v[1], ws[1], st[1], pad[1], &wl[1], &wh[1], &ni[1]);                               \
        for (c = lo[2]; c < hi[2]; ++c) {                                                                        \
          const T g = THEANO_POOL_AT(T, gz, gzs, a, b, c);                                                       \
          if (mode == THEANO_POOL_SUM) {                                                                         \
            s += (ACC)g;                                                                                         \
          } else {                                                                                               \
            theano_pool_window(c, v[2], ws[2], st[2], pad[2], &wl[2], &wh[2], &ni[2]);                           \
            s += (ACC)(T)((DIV)g / (DIV)theano_pool_divisor(mode, wl, wh, ni));                                  \
          }                                                                                                      \
        }                                                                                                        \
      }                                                                                                          \
    }                                                                                                            \
    return (T)s;                                                                                                 \
  }                                                                                                              \
  static inline T theano_pool_max_gradgrad_##SFX(const char* x, const int64_t* xs, const char* z,                \
                                                 const int64_t* zs, const char* ggx, const int64_t* ggxs,        \
                                                 const int64_t* v, const int64_t* ws, const int64_t* st,         \
                                                 const int64_t* pad, int64_t o0, int64_t o1, int64_t o2) {       \
    int64_t lo[3], hi[3], ni[3], a, b, c;                                                                        \
    const T zv = THEANO_POOL_AT(T, z, zs, o0, o1, o2);                                                           \
    ACC s = (ACC)0;                                                                                              \
    theano_pool_window(o0, v[0], ws[0], st[0], pad[0], &lo[0], &hi[0], &ni[0]);                                  \
    theano_pool_window(o1, v[1], ws[1], st[1], pad[1], &lo[1], &hi[1], &ni[1]);                                  \
    theano_pool_window(o2, v[2], ws[2], st[2], pad[2], &lo[2], &hi[2], &ni[2]);                                  \
    for (a = lo[0]; a < hi[0]; ++a)                                                                              \
      for (b = lo[1]; b < hi[1]; ++b)                                                                            \
        for (c = lo[2]; c < hi[2]; ++c)                                                                          \
          s += THEANO_POOL_AT(T, x, xs, a, b, c) == zv ? (ACC)THEANO_POOL_AT(T, ggx, ggxs, a, b, c) : (ACC)0;    \
    return (T)s;                                                                                                 \
  }

/* max_grad_add's loops over the n0 x n1 x n2 elements from x0 / g0. */
#define THEANO_POOL_MAX_ADD(T, ACC, n0, n1, n2)                                                                  \
  {                                                                                                              \
    int64_t a_, b_, c_;                                                                                          \
    for (a_ = 0; a_ < (n0); ++a_)                                                                                \
      for (b_ = 0; b_ < (n1); ++b_)                                                                              \
        for (c_ = 0; c_ < (n2); ++c_) {                                                                          \
          T* p_ = (T*)(g0 + a_ * gxs[0] + b_ * gxs[1] + c_ * gxs[2]);                                            \
          *p_ = (T)((ACC)*p_ + (THEANO_POOL_AT(T, x0, xs, a_, b_, c_) == zv ? (ACC)g : (ACC)0));                 \
        }                                                                                                        \
  }

/* The gradients window by window, for one thread walking every output in
 * turn (the CPU: perform and the C++ lowering): output (o0, o1, o2) adds its
 * share to gx at each input element of its window (gx zeroed first). The
 * same sums as the gathers above, in another order where windows overlap;
 * each input element is read once per window holding it, not searched for,
 * about 20 times faster on the CPU for LeNet's 2x2 pools. */
#define THEANO_POOL_SCATTER(T, ACC, DIV, SFX)                                                                     \
  static inline void theano_pool_max_grad_add_##SFX(const char* x, const int64_t* xs, const char* z,            \
                                                    const int64_t* zs, const char* gz, const int64_t* gzs,       \
                                                    char* gx, const int64_t* gxs, const int64_t* v,             \
                                                    const int64_t* ws, const int64_t* st, const int64_t* pad,    \
                                                    int64_t o0, int64_t o1, int64_t o2) {                        \
    int64_t lo[3], hi[3], ni[3];                                                                                  \
    const T zv = THEANO_POOL_AT(T, z, zs, o0, o1, o2), g = THEANO_POOL_AT(T, gz, gzs, o0, o1, o2);               \
    theano_pool_window(o0, v[0], ws[0], st[0], pad[0], &lo[0], &hi[0], &ni[0]);                                   \
    theano_pool_window(o1, v[1], ws[1], st[1], pad[1], &lo[1], &hi[1], &ni[1]);                                   \
    theano_pool_window(o2, v[2], ws[2], st[2], pad[2], &lo[2], &hi[2], &ni[2]);                                   \
    {                                                                                                             \
      const char* x0 = x + lo[0] * xs[0] + lo[1] * xs[1] + lo[2] * xs[2];                                         \
      char* g0 = gx + lo[0] * gxs[0] + lo[1] * gxs[1] + lo[2] * gxs[2];                                           \
      if (hi[0] - lo[0] == ws[0] && hi[1] - lo[1] == ws[1] && hi[2] - lo[2] == ws[2])                             \
        THEANO_POOL_MAX_ADD(T, ACC, ws[0], ws[1], ws[2])                                                          \
      else                                                                                                        \
        THEANO_POOL_MAX_ADD(T, ACC, hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])                                  \
    }                                                                                                             \
  }                                                                                                               \
  /* The max gradient of one whole image (lengths v, gx its strides) when the windows tile it                     \
   * (theano_pool_tiles): an element's gradient is its one window's gz where x equals that window's max z, else    \
   * 0, and 0 past the last window: the values the scatter above adds into zeros, bit for bit (0 + the same        \
   * term), row by row along the last slot with no zero fill and no read-modify-write; a row of unit strides is    \
   * walked window by window with typed pointers. */                                                             \
  static inline void theano_pool_max_grad_tiled_##SFX(const char* x, const int64_t* xs, const char* z,          \
                                                      const int64_t* zs, const char* gz, const int64_t* gzs,     \
                                                      char* gx, const int64_t* gxs, const int64_t* v,            \
                                                      const int64_t* ws, const int64_t* zl) {                    \
    int64_t a, b, c, zc, k;                                                                                       \
    const int64_t w = ws[2], whole = v[2] / w < zl[2] ? v[2] / w : zl[2]; /* whole windows along a row */        \
    const int unit = xs[2] == (int64_t)sizeof(T) && zs[2] == (int64_t)sizeof(T) &&                                \
                     gzs[2] == (int64_t)sizeof(T) && gxs[2] == (int64_t)sizeof(T);                                \
    for (a = 0; a < v[0]; ++a)                                                                                    \
      for (b = 0; b < v[1]; ++b) {                                                                                \
        const int64_t za = a / ws[0], zb = b / ws[1];                                                             \
        const char* xr = x + a * xs[0] + b * xs[1];                                                               \
        const char* zr = z + za * zs[0] + zb * zs[1];                                                             \
        const char* gr = gz + za * gzs[0] + zb * gzs[1];                                                          \
        char* orow = gx + a * gxs[0] + b * gxs[1];                                                                \
        c = 0;                                                                                                    \
        if (za < zl[0] && zb < zl[1]) {                                                                           \
          if (unit) {                                                                                             \
            const T* xp = (const T*)xr;                                                                           \
            const T* zp = (const T*)zr;                                                                           \
            const T* gp = (const T*)gr;                                                                           \
            T* op = (T*)orow;                                                                                     \
            for (zc = 0; zc < whole; ++zc) {                                                                      \
              const T zv = zp[zc];                                                                                \
              const ACC g = (ACC)gp[zc];                                                                          \
              for (k = 0; k < w; ++k) op[zc * w + k] = (T)((ACC)0 + (xp[zc * w + k] == zv ? g : (ACC)0));        \
            }                                                                                                     \
            c = whole * w;                                                                                        \
          }                                                                                                       \
          for (; c < v[2] && c / w < zl[2]; ++c) {                                                                \
            const T zv = *(const T*)(zr + (c / w) * zs[2]);                                                       \
            const ACC g = (ACC)(*(const T*)(gr + (c / w) * gzs[2]));                                              \
            *(T*)(orow + c * gxs[2]) = (T)((ACC)0 + (*(const T*)(xr + c * xs[2]) == zv ? g : (ACC)0));           \
          }                                                                                                       \
        }                                                                                                         \
        for (; c < v[2]; ++c) *(T*)(orow + c * gxs[2]) = (T)0;                                                    \
      }                                                                                                           \
  }                                                                                                               \
  static inline void theano_pool_avg_grad_add_##SFX(const char* gz, const int64_t* gzs, char* gx,               \
                                                    const int64_t* gxs, const int64_t* v, const int64_t* ws,     \
                                                    const int64_t* st, const int64_t* pad, int mode, int64_t o0, \
                                                    int64_t o1, int64_t o2) {                                    \
    int64_t lo[3], hi[3], ni[3], a, b, c;                                                                         \
    T g = THEANO_POOL_AT(T, gz, gzs, o0, o1, o2);                                                                 \
    theano_pool_window(o0, v[0], ws[0], st[0], pad[0], &lo[0], &hi[0], &ni[0]);                                   \
    theano_pool_window(o1, v[1], ws[1], st[1], pad[1], &lo[1], &hi[1], &ni[1]);                                   \
    theano_pool_window(o2, v[2], ws[2], st[2], pad[2], &lo[2], &hi[2], &ni[2]);                                   \
    if (mode != THEANO_POOL_SUM) g = (T)((DIV)g / (DIV)theano_pool_divisor(mode, lo, hi, ni));                    \
    for (a = lo[0]; a < hi[0]; ++a)                                                                               \
      for (b = lo[1]; b < hi[1]; ++b)                                                                             \
        for (c = lo[2]; c < hi[2]; ++c) {                                                                         \
          T* p = (T*)(gx + a * gxs[0] + b * gxs[1] + c * gxs[2]);                                                 \
          *p = (T)((ACC)*p + (ACC)g);                                                                             \
        }                                                                                                         \
  }

/* The element types: (T, accumulator, divisor, suffix) by suffix. */
#define THEANO_POOL_TYPES_f64 double, double, double, f64
#define THEANO_POOL_TYPES_f32 float, float, float, f32
#define THEANO_POOL_TYPES_i64 int64_t, uint64_t, int64_t, i64
#define THEANO_POOL_TYPES_i32 int32_t, uint64_t, int64_t, i32
#define THEANO_POOL_TYPES_i16 int16_t, uint64_t, int64_t, i16
#define THEANO_POOL_TYPES_i8 int8_t, uint64_t, int64_t, i8
#define THEANO_POOL_TYPES_u64 uint64_t, uint64_t, uint64_t, u64
#define THEANO_POOL_TYPES_u32 uint32_t, uint64_t, uint64_t, u32
#define THEANO_POOL_TYPES_u16 uint16_t, uint64_t, uint64_t, u16
#define THEANO_POOL_TYPES_u8 uint8_t, uint64_t, uint64_t, u8
#define THEANO_POOL_INSTANCE_(...) THEANO_POOL_KERNELS(__VA_ARGS__) THEANO_POOL_SCATTER(__VA_ARGS__)
/* Every pool kernel of element type `SFX` (f64, ..., u8). */
#define THEANO_POOL_INSTANCE(SFX) THEANO_POOL_INSTANCE_(THEANO_POOL_TYPES_##SFX)

/* Generated units define THEANO_POOL_ON_DEMAND and instantiate the types
 * their nodes use (codegen/src/emit/lower/pool.cpp): the other nine cost a
 * unit about 20 ms of parsing. */
#ifndef THEANO_POOL_ON_DEMAND
THEANO_POOL_INSTANCE(f64)
THEANO_POOL_INSTANCE(f32)
THEANO_POOL_INSTANCE(i64)
THEANO_POOL_INSTANCE(i32)
THEANO_POOL_INSTANCE(i16)
THEANO_POOL_INSTANCE(i8)
THEANO_POOL_INSTANCE(u64)
THEANO_POOL_INSTANCE(u32)
THEANO_POOL_INSTANCE(u16)
THEANO_POOL_INSTANCE(u8)
#endif

#endif /* THEANO_RUNTIME_KERNELS_POOL_H */
