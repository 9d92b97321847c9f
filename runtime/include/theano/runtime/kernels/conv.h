/* \file
 * Convolution (Theano's CorrMM / Corr3dMM and the abstract conv ops' perform),
 * written ONCE for perform (compiler/src/tensor/nnet/conv_*.cpp) and the C++
 * lowering (codegen/src/emit/lower/conv.cpp, which embeds this text in the
 * units that use it): the output-shape rule with every check and its message,
 * im2col / col2im over 2 or 3 spatial axes with padding, strides and
 * dilation, and the three algorithms (forward, gradient wrt the weights,
 * gradient wrt the inputs) as im2col + gemm per image and group.
 *
 * Layout: an input (B, C, s1..sN) is read through its element strides (any
 * view: a transposed or negatively strided one too); filters (F, C/G,
 * k1..kN) likewise; the output is C-contiguous. Everything these functions
 * need besides is a caller's scratch buffer of theano_conv_scratch_size()
 * elements: the column matrix of one image and group, the packed filters,
 * and for the gradients one packed image of the output gradient. Each
 * algorithm takes a range of images [n0, n1), so a caller may split the
 * batch across threads (one scratch a part; the weights' gradient of a part
 * is its partial sum).
 *
 * This is a cross-correlation (no flip), Theano's CorrMM; a true convolution
 * is a correlation with the filters reversed along their spatial axes, which
 * the graph does with a view (the abstract op's filter_flip).
 *
 * Padding: pad_spec[d] >= 0 is explicit symmetric padding; THEANO_CONV_FULL
 * pads dil*(k-1) and THEANO_CONV_HALF (dil*(k-1)+1)/2 (Theano's "full" and
 * "half"; "valid" is 0). Output: (in + 2 pad - (dil (k-1) + 1)) / stride + 1.
 */
#ifndef THEANO_RUNTIME_CONV_H
#define THEANO_RUNTIME_CONV_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#include <cblas.h>
#include "blas_split.h"
#include "shape_rules.h"
#endif

#define THEANO_CONV_MAX_SP 3
#define THEANO_CONV_FULL (-1)
#define THEANO_CONV_HALF (-2)

/* Rule codes; *bad is the value each one reports. */
#define THEANO_CONV_OK 0
#define THEANO_CONV_STRIDE 1     /* a stride <= 0; *bad: the stride */
#define THEANO_CONV_DILATION 2   /* a dilation <= 0; *bad: the dilation */
#define THEANO_CONV_GROUPS 3     /* num_groups <= 0; *bad: num_groups */
#define THEANO_CONV_PAD 4        /* a negative padding; *bad: the padding */
#define THEANO_CONV_CHANNELS 5   /* input channels != filter channels * groups; *bad: the input's channels */
#define THEANO_CONV_FILTERS 6    /* filters not divisible by num_groups; *bad: the number of filters */
#define THEANO_CONV_IN_GROUPS 7  /* input channels not divisible by num_groups; *bad: the channels */
#define THEANO_CONV_KERNEL 8     /* dilated kernel larger than the padded input; *bad: the spatial axis */
#define THEANO_CONV_OVERFLOW 9   /* a size past int64 or the 32-bit BLAS interface; *bad: the axis or 0 */
#define THEANO_CONV_TOPGRAD 10   /* the output gradient's shape is not the output's; *bad: its axis */
#define THEANO_CONV_HINT 11      /* a shape hint disagrees with the value; *bad: the axis */
#define THEANO_CONV_NEGATIVE 12  /* a negative size requested; *bad: the size */

/* The geometry of one convolution, resolved by theano_conv_rule. */
typedef struct TheanoConvGeom {
  int64_t nsp; /* spatial axes: 2 or 3 */
  int64_t batch, channels, filters, groups;
  int64_t in[THEANO_CONV_MAX_SP], k[THEANO_CONV_MAX_SP], out[THEANO_CONV_MAX_SP];
  int64_t pad[THEANO_CONV_MAX_SP], stride[THEANO_CONV_MAX_SP], dil[THEANO_CONV_MAX_SP];
  int64_t ksize;  /* prod k */
  int64_t osize;  /* prod out */
  int64_t isize;  /* prod in */
  int64_t crows;  /* (channels / groups) * ksize: rows of the column matrix */
} TheanoConvGeom;

/* The geometry of input `ishape` (B, C, s...) and filters `wshape` (F, C/G,
 * k...), nsp spatial axes, padding per axis (see above), strides, dilations
 * and groups; every check of the convolution, in the order of the codes. */
/* The parameters alone (the ops' constructors check them too): strides,
 * dilations and num_groups positive, paddings >= 0 (or full / half). */
static inline int theano_conv_params_rule(int64_t nsp, const int64_t* pad_spec, const int64_t* stride,
                                          const int64_t* dil, int64_t groups, int64_t* bad) {
  int64_t d;
  for (d = 0; d < nsp; ++d)
    if (stride[d] <= 0) {
      *bad = stride[d];
      return THEANO_CONV_STRIDE;
    }
  for (d = 0; d < nsp; ++d)
    if (dil[d] <= 0) {
      *bad = dil[d];
      return THEANO_CONV_DILATION;
    }
  if (groups <= 0) {
    *bad = groups;
    return THEANO_CONV_GROUPS;
  }
  for (d = 0; d < nsp; ++d)
    if (pad_spec[d] < THEANO_CONV_HALF) {
      *bad = pad_spec[d];
      return THEANO_CONV_PAD;
    }
  return THEANO_CONV_OK;
}

static inline int theano_conv_rule(int64_t nsp, const int64_t* ishape, const int64_t* wshape,
                                   const int64_t* pad_spec, const int64_t* stride, const int64_t* dil, int64_t groups,
                                   TheanoConvGeom* g, int64_t* bad) {
  int64_t d, span, padded, t, v;
  int rc = theano_conv_params_rule(nsp, pad_spec, stride, dil, groups, bad);
  g->nsp = nsp;
  if (rc != THEANO_CONV_OK) return rc;
  for (d = 0; d < nsp + 2; ++d)
    if (ishape[d] < 0 || wshape[d] < 0) {
      *bad = ishape[d] < 0 ? ishape[d] : wshape[d];
      return THEANO_CONV_NEGATIVE;
    }
  if (theano_checked_mul(wshape[1], groups, &t) != THEANO_RULE_OK || ishape[1] != t) {
    *bad = ishape[1];
    return THEANO_CONV_CHANNELS;
  }
  if (wshape[0] % groups != 0) {
    *bad = wshape[0];
    return THEANO_CONV_FILTERS;
  }
  g->batch = ishape[0];
  g->channels = ishape[1];
  g->filters = wshape[0];
  g->groups = groups;
  g->ksize = 1;
  g->osize = 1;
  g->isize = 1;
  for (d = 0; d < nsp; ++d) {
    g->in[d] = ishape[d + 2];
    g->k[d] = wshape[d + 2];
    g->stride[d] = stride[d];
    g->dil[d] = dil[d];
    /* span = dil * (k - 1) + 1, the dilated kernel's extent (0 for k == 0) */
    if (g->k[d] == 0) {
      span = 0;
    } else if (theano_checked_mul(dil[d], g->k[d] - 1, &span) != THEANO_RULE_OK ||
               theano_checked_add(span, 1, &span) != THEANO_RULE_OK) {
      *bad = d;
      return THEANO_CONV_OVERFLOW;
    }
    g->pad[d] = pad_spec[d] == THEANO_CONV_FULL ? (span > 0 ? span - 1 : 0)
                : pad_spec[d] == THEANO_CONV_HALF ? span / 2
                                                  : pad_spec[d];
    if (theano_checked_mul(g->pad[d], 2, &padded) != THEANO_RULE_OK ||
        theano_checked_add(padded, g->in[d], &padded) != THEANO_RULE_OK) {
      *bad = d;
      return THEANO_CONV_OVERFLOW;
    }
    if (span > padded || span == 0) {
      *bad = d;
      return THEANO_CONV_KERNEL;
    }
    g->out[d] = (padded - span) / stride[d] + 1;
    if (theano_checked_mul(g->ksize, g->k[d], &g->ksize) != THEANO_RULE_OK ||
        theano_checked_mul(g->osize, g->out[d], &g->osize) != THEANO_RULE_OK ||
        theano_checked_mul(g->isize, g->in[d], &g->isize) != THEANO_RULE_OK) {
      *bad = d;
      return THEANO_CONV_OVERFLOW;
    }
  }
  if (theano_checked_mul(g->ksize, g->channels / groups, &g->crows) != THEANO_RULE_OK) {
    *bad = 0;
    return THEANO_CONV_OVERFLOW;
  }
  /* gemm's sizes go through the 32-bit interface */
  v = g->crows > g->osize ? g->crows : g->osize;
  if (v > 2147483647 || g->filters > 2147483647) {
    *bad = 0;
    return THEANO_CONV_OVERFLOW;
  }
  return THEANO_CONV_OK;
}

/* Gradient wrt the weights: the channels must divide into the groups (the
 * filters' shape is made from them). */
static inline int theano_conv_channels_rule(int64_t channels, int64_t groups, int64_t* bad) {
  if (groups <= 0) {
    *bad = groups;
    return THEANO_CONV_GROUPS;
  }
  if (channels % groups != 0) {
    *bad = channels;
    return THEANO_CONV_IN_GROUPS;
  }
  return THEANO_CONV_OK;
}

/* The output gradient `top` (B, F, o...) must have the forward output's shape. */
static inline int theano_conv_top_rule(const TheanoConvGeom* g, const int64_t* top, int64_t* bad) {
  int64_t d;
  if (top[0] != g->batch) {
    *bad = 0;
    return THEANO_CONV_TOPGRAD;
  }
  if (top[1] != g->filters) {
    *bad = 1;
    return THEANO_CONV_TOPGRAD;
  }
  for (d = 0; d < g->nsp; ++d)
    if (top[d + 2] != g->out[d]) {
      *bad = d + 2;
      return THEANO_CONV_TOPGRAD;
    }
  return THEANO_CONV_OK;
}

/* A static shape hint (n entries, -1: unknown) against a value's shape. */
static inline int theano_conv_hint_rule(int64_t n, const int64_t* hint, const int64_t* shape, int64_t* bad) {
  int64_t d;
  for (d = 0; d < n; ++d)
    if (hint[d] >= 0 && hint[d] != shape[d]) {
      *bad = d;
      return THEANO_CONV_HINT;
    }
  return THEANO_CONV_OK;
}

/* The messages: "<op>: <text><*bad>" followed by the shapes involved. */
static inline const char* theano_conv_rule_text(int rule) {
  switch (rule) {
    case THEANO_CONV_STRIDE: return "strides (subsample) must be positive, got ";
    case THEANO_CONV_DILATION: return "filter_dilation must be positive, got ";
    case THEANO_CONV_GROUPS: return "num_groups must be positive, got ";
    case THEANO_CONV_PAD: return "padding must not be negative, got ";
    case THEANO_CONV_CHANNELS:
      return "the input's channels must equal the filters' channels (axis 1) times num_groups; input channels: ";
    case THEANO_CONV_FILTERS: return "num_groups must divide the number of filters, got filters: ";
    case THEANO_CONV_IN_GROUPS: return "num_groups must divide the input's channels, got channels: ";
    case THEANO_CONV_KERNEL: return "the (dilated) kernel is larger than the padded input (or empty) at spatial axis ";
    case THEANO_CONV_OVERFLOW: return "the sizes do not fit in int64 or the 32-bit BLAS interface, at axis ";
    case THEANO_CONV_TOPGRAD: return "the output gradient's shape differs from the convolution's output shape at axis ";
    case THEANO_CONV_HINT: return "a shape hint (input_shape / filter_shape) disagrees with the value at axis ";
    case THEANO_CONV_NEGATIVE: return "negative dimensions are not allowed, got ";
    default: return "invalid convolution";
  }
}

/* Elements of scratch the algorithm `dir` (0 forward, 1 grad weights, 2 grad
 * inputs) needs: the column matrix, the packed filters, one packed image of
 * the output gradient. */
static inline int theano_conv_scratch_size(const TheanoConvGeom* g, int dir, int64_t* n) {
  int64_t col, w, top, t;
  if (theano_checked_mul(g->crows, g->osize, &col) != THEANO_RULE_OK ||
      theano_checked_mul(g->crows, g->filters, &w) != THEANO_RULE_OK ||
      theano_checked_mul(g->filters, g->osize, &top) != THEANO_RULE_OK)
    return THEANO_CONV_OVERFLOW;
  t = col;
  if (dir != 1 && theano_checked_add(t, w, &t) != THEANO_RULE_OK) return THEANO_CONV_OVERFLOW;
  if (dir != 0 && theano_checked_add(t, top, &t) != THEANO_RULE_OK) return THEANO_CONV_OVERFLOW;
  *n = t;
  return THEANO_CONV_OK;
}

/* The input coordinate that column (row r, output position p) reads along
 * every axis, or -1 where it falls in the padding: the one per-element rule
 * of im2col and col2im. r = c * ksize + kernel position; writes the offset
 * of (c, coordinates) through `xs` (element strides of the channel axis and
 * the spatial axes) into *off. */
static inline int theano_conv_col_source(const TheanoConvGeom* g, int64_t r, int64_t p, const int64_t* xs,
                                         int64_t* off) {
  int64_t d, kr = r % g->ksize, pr = p, o = (r / g->ksize) * xs[0];
  for (d = g->nsp - 1; d >= 0; --d) {
    const int64_t kd = kr % g->k[d], od = pr % g->out[d];
    const int64_t i = od * g->stride[d] - g->pad[d] + kd * g->dil[d];
    kr /= g->k[d];
    pr /= g->out[d];
    if (i < 0 || i >= g->in[d]) return 0;
    o += i * xs[d + 1];
  }
  *off = o;
  return 1;
}

/* Element (c, ipos) of one group of one image's input gradient (c a channel
 * of the group, ipos a flat spatial position): the sum of the column entries
 * col2im adds there, in the same order (kernel taps ascending), found by
 * inverting theano_conv_col_source: the gather form of col2im, one element a
 * GPU thread, no two threads writing one place. */
#define THEANO_COL2IM_GATHER(T, S)                                                                                   \
  static inline T theano_col2im_at_##S(const TheanoConvGeom* g, const T* col, int64_t c, int64_t ipos) {            \
    int64_t kpos, d;                                                                                                 \
    T acc = (T)0;                                                                                                    \
    for (kpos = 0; kpos < g->ksize; ++kpos) {                                                                        \
      int64_t kr = kpos, ir = ipos, p = 0, pm = 1, ok = 1;                                                           \
      for (d = g->nsp - 1; d >= 0; --d) {                                                                            \
        const int64_t kd = kr % g->k[d], t = ir % g->in[d] + g->pad[d] - kd * g->dil[d];                             \
        kr /= g->k[d];                                                                                               \
        ir /= g->in[d];                                                                                              \
        if (t < 0 || t % g->stride[d] != 0 || t / g->stride[d] >= g->out[d]) {                                       \
          ok = 0;                                                                                                    \
          break;                                                                                                     \
        }                                                                                                            \
        p += (t / g->stride[d]) * pm;                                                                                \
        pm *= g->out[d];                                                                                             \
      }                                                                                                              \
      if (ok) acc += col[(c * g->ksize + kpos) * g->osize + p];                                                      \
    }                                                                                                                \
    return acc;                                                                                                      \
  }
THEANO_COL2IM_GATHER(float, f32)
THEANO_COL2IM_GATHER(double, f64)

/* The geometry on exactly 3 spatial axes (a 2-d one gets a leading axis of
 * size 1), so the row loops below are three nested loops for both. */
static inline void theano_conv_geom3(const TheanoConvGeom* g, const int64_t* xs, int64_t* in, int64_t* k,
                                     int64_t* out, int64_t* pad, int64_t* st, int64_t* dl, int64_t* s3) {
  int64_t d, e = 3 - g->nsp;
  for (d = 0; d < 3; ++d) {
    in[d] = 1;
    k[d] = 1;
    out[d] = 1;
    pad[d] = 0;
    st[d] = 1;
    dl[d] = 1;
    s3[d] = 0;
  }
  for (d = 0; d < g->nsp; ++d) {
    in[d + e] = g->in[d];
    k[d + e] = g->k[d];
    out[d + e] = g->out[d];
    pad[d + e] = g->pad[d];
    st[d + e] = g->stride[d];
    dl[d + e] = g->dil[d];
    s3[d + e] = xs[d];
  }
}

/* The output positions [*lo, *hi) (of `out`) whose input coordinate
 * `start + o * st` falls inside [0, in): the one range rule im2col and col2im
 * take the innermost axis by, so their inner loops have no per-element test
 * (and, at stride 1, are plain copies and adds). st > 0. */
static inline void theano_conv_span(int64_t out, int64_t st, int64_t start, int64_t in, int64_t* lo, int64_t* hi) {
  int64_t l, h;
  if (st == 1) { /* no division: a 64-bit idiv costs 40-90 cycles */
    l = start >= 0 ? 0 : -start;
    h = start <= in - 1 ? in - start : 0;
  } else {
    l = start >= 0 ? 0 : (-start + st - 1) / st;
    h = start <= in - 1 ? (in - 1 - start) / st + 1 : 0;
  }
  if (h > out) h = out;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* Row r + 1's channel and kernel taps from row r's, where r = ((c * k[0] + k0)
 * * k[1] + k1) * k[2] + k2 (theano_conv_geom3's k): stepped, not divided out
 * of r (four 64-bit divisions and remainders a row, 40-90 cycles each, were
 * a quarter of W10's im2col time, perf). */
#define THEANO_CONV_NEXT_TAP(c, k0, k1, k2, k) \
  (++(k2) == (k)[2] ? ((k2) = 0, ++(k1) == (k)[1] ? ((k1) = 0, ++(k0) == (k)[0] ? ((k0) = 0, ++(c)) : 0) : 0) : 0)

/* Whether a strided array of `nd` axes (element strides `as`) is
 * C-contiguous, so the kernels below read it in place instead of packing it. */
static inline int theano_conv_contiguous(int64_t nd, const int64_t* shape, const int64_t* as) {
  int64_t d, e = 1;
  for (d = nd - 1; d >= 0; --d) {
    if (shape[d] != 1 && as[d] != e) return 0;
    e *= shape[d];
  }
  return 1;
}

/* T: the element type; S: the name suffix (f32 / f64); GEMM: cblas_sgemm /
 * cblas_dgemm. xs, ws, ts: element strides of input, filters and output
 * gradient (nsp + 2 entries each). im2col and col2im go row by row (one
 * channel and kernel tap a row, its input coordinates stepped along the
 * output positions); they compute what theano_conv_col_source says of each
 * element (the GPU's form, one element a thread). */
#define THEANO_CONV_KERNELS(T, S, GEMM)                                                                              \
  /* col (crows x osize) <- the column matrix of image x (channels of one group; x at that group's first) */       \
  static inline void theano_im2col_##S(const TheanoConvGeom* g, const T* x, const int64_t* xs, T* col) {            \
    int64_t in[3], k[3], out[3], pad[3], st[3], dl[3], s3[3], r, o0, o1, o2, c, k0, k1, k2;                          \
    theano_conv_geom3(g, xs + 2, in, k, out, pad, st, dl, s3);                                                       \
    for (r = 0, c = 0, k0 = 0, k1 = 0, k2 = 0; r < g->crows; ++r, THEANO_CONV_NEXT_TAP(c, k0, k1, k2, k)) {          \
      const T* base = x + c * xs[1];                                                                                 \
      T* dst = col + r * g->osize;                                                                                   \
      const int64_t i2 = k2 * dl[2] - pad[2];                                                                        \
      int64_t lo2, hi2;                                                                                              \
      theano_conv_span(out[2], st[2], i2, in[2], &lo2, &hi2);                                                        \
      for (o0 = 0; o0 < out[0]; ++o0) {                                                                              \
        const int64_t i0 = o0 * st[0] - pad[0] + k0 * dl[0];                                                         \
        for (o1 = 0; o1 < out[1]; ++o1) {                                                                            \
          const int64_t i1 = o1 * st[1] - pad[1] + k1 * dl[1];                                                       \
          if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1]) {                                                      \
            for (o2 = 0; o2 < out[2]; ++o2) *dst++ = (T)0;                                                           \
            continue;                                                                                                \
          }                                                                                                          \
          {                                                                                                          \
            const T* row = base + i0 * s3[0] + i1 * s3[1];                                                           \
            for (o2 = 0; o2 < lo2; ++o2) dst[o2] = (T)0;                                                             \
            if (st[2] == 1 && s3[2] == 1)                                                                            \
              for (o2 = lo2; o2 < hi2; ++o2) dst[o2] = row[i2 + o2];                                                 \
            else                                                                                                     \
              for (o2 = lo2; o2 < hi2; ++o2) dst[o2] = row[(i2 + o2 * st[2]) * s3[2]];                               \
            for (o2 = hi2; o2 < out[2]; ++o2) dst[o2] = (T)0;                                                        \
            dst += out[2];                                                                                           \
          }                                                                                                          \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* dx (contiguous channels of one group of one image) += the column matrix folded back */                       \
  static inline void theano_col2im_##S(const TheanoConvGeom* g, const T* col, T* dx) {                              \
    int64_t in[3], k[3], out[3], pad[3], st[3], dl[3], s3[3], cs[THEANO_CONV_MAX_SP], r, o0, o1, o2, d;              \
    int64_t c, k0, k1, k2;                                                                                           \
    cs[g->nsp - 1] = 1;                                                                                              \
    for (d = g->nsp - 2; d >= 0; --d) cs[d] = cs[d + 1] * g->in[d + 1];                                              \
    theano_conv_geom3(g, cs, in, k, out, pad, st, dl, s3);                                                           \
    for (r = 0, c = 0, k0 = 0, k1 = 0, k2 = 0; r < g->crows; ++r, THEANO_CONV_NEXT_TAP(c, k0, k1, k2, k)) {          \
      T* base = dx + c * g->isize;                                                                                   \
      const T* src = col + r * g->osize;                                                                             \
      const int64_t i2 = k2 * dl[2] - pad[2];                                                                        \
      int64_t lo2, hi2;                                                                                              \
      theano_conv_span(out[2], st[2], i2, in[2], &lo2, &hi2);                                                        \
      for (o0 = 0; o0 < out[0]; ++o0) {                                                                              \
        const int64_t i0 = o0 * st[0] - pad[0] + k0 * dl[0];                                                         \
        for (o1 = 0; o1 < out[1]; ++o1, src += out[2]) {                                                             \
          const int64_t i1 = o1 * st[1] - pad[1] + k1 * dl[1];                                                       \
          if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1]) continue;                                             \
          {                                                                                                          \
            T* row = base + i0 * s3[0] + i1 * s3[1];                                                                 \
            if (st[2] == 1 && s3[2] == 1)                                                                            \
              for (o2 = lo2; o2 < hi2; ++o2) row[i2 + o2] += src[o2];                                                \
            else                                                                                                     \
              for (o2 = lo2; o2 < hi2; ++o2) row[(i2 + o2 * st[2]) * s3[2]] += src[o2];                              \
          }                                                                                                          \
        }                                                                                                            \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* a C-contiguous copy of a (n0, rest...) strided array of `nd` axes */                                         \
  static inline void theano_conv_pack_##S(int64_t nd, const int64_t* shape, const T* a, const int64_t* as, T* out) { \
    int64_t idx[THEANO_CONV_MAX_SP + 2], n = 1, i, d, off = 0;                                                      \
    for (d = 0; d < nd; ++d) {                                                                                       \
      idx[d] = 0;                                                                                                    \
      n *= shape[d];                                                                                                 \
    }                                                                                                                \
    for (i = 0; i < n; ++i) {                                                                                        \
      out[i] = a[off];                                                                                               \
      for (d = nd - 1; d >= 0; --d) {                                                                                \
        if (++idx[d] < shape[d]) {                                                                                   \
          off += as[d];                                                                                              \
          break;                                                                                                     \
        }                                                                                                            \
        off -= (shape[d] - 1) * as[d];                                                                               \
        idx[d] = 0;                                                                                                  \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* the array as a C-contiguous one: itself when it is one, else its copy in `out` */                            \
  static inline const T* theano_conv_packed_##S(int64_t nd, const int64_t* shape, const T* a, const int64_t* as,    \
                                                T* out) {                                                            \
    if (theano_conv_contiguous(nd, shape, as)) return a;                                                             \
    theano_conv_pack_##S(nd, shape, a, as, out);                                                                     \
    return out;                                                                                                      \
  }                                                                                                                  \
  /* C (m x n, contiguous) <- A . B + beta C, A m x k and B k x n, each row-major or (ta/tb) transposed; in    \
   * blas_split.h's row blocks where B is not transposed (the weights' gradient, A . B^T, ran 1.1-1.4x slower    \
   * in blocks on W10's second layer: 33 us whole against 45-49 us in float32) */                                 \
  static inline void theano_conv_gemm_##S(int ta, int tb, int64_t m, int64_t n, int64_t k, const T* a,              \
                                          const T* b, T beta, T* c) {                                                \
    int64_t i, rows, r0;                                                                                             \
    if (m == 0 || n == 0) return;                                                                                    \
    if (k == 0) {                                                                                                    \
      if (beta == (T)0)                                                                                              \
        for (i = 0; i < m * n; ++i) c[i] = (T)0;                                                                     \
      return;                                                                                                        \
    }                                                                                                                \
    rows = tb ? 0 : theano_blas_split_rows(m, n, k, (int64_t)sizeof(T));                                             \
    if (rows == 0) rows = m;                                                                                         \
    for (r0 = 0; r0 < m; r0 += rows)                                                                                 \
      GEMM(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,                          \
           (int)(m - r0 < rows ? m - r0 : rows), (int)n, (int)k, (T)1, ta ? a + r0 : a + r0 * k,                    \
           ta ? (int)m : (int)k, b, tb ? (int)k : (int)n, beta, c + r0 * n, (int)n);                                 \
  }                                                                                                                  \
  /* out (B, F, o..., contiguous) <- correlation of x with w, for images [n0, n1) */                             \
  static inline void theano_corr_fwd_##S(const TheanoConvGeom* g, int64_t n0, int64_t n1, const T* x,              \
                                         const int64_t* xs, const T* w, const int64_t* ws, T* out, T* scratch) {     \
    const int64_t G = g->groups, fg = g->filters / G, cg = g->channels / G;                                          \
    int64_t wshape[THEANO_CONV_MAX_SP + 2], n, gi, d;                                                                \
    T* col = scratch;                                                                                                \
    const T* wp;                                                                                                     \
    wshape[0] = g->filters;                                                                                          \
    wshape[1] = cg;                                                                                                  \
    for (d = 0; d < g->nsp; ++d) wshape[d + 2] = g->k[d];                                                            \
    wp = theano_conv_packed_##S(g->nsp + 2, wshape, w, ws, scratch + g->crows * g->osize);                           \
    for (n = n0; n < n1; ++n)                                                                                        \
      for (gi = 0; gi < G; ++gi) {                                                                                   \
        theano_im2col_##S(g, x + n * xs[0] + gi * cg * xs[1], xs, col);                                             \
        theano_conv_gemm_##S(0, 0, fg, g->osize, g->crows, wp + gi * fg * g->crows, col, (T)0,                      \
                             out + (n * g->filters + gi * fg) * g->osize);                                           \
      }                                                                                                              \
  }                                                                                                                  \
  /* dw (F, C/G, k..., contiguous) <- gradient wrt the filters from images [n0, n1) of x and top */              \
  static inline void theano_corr_grad_weights_##S(const TheanoConvGeom* g, int64_t n0, int64_t n1, const T* x,     \
                                                  const int64_t* xs, const T* top, const int64_t* ts, T* dw,         \
                                                  T* scratch) {                                                      \
    const int64_t G = g->groups, fg = g->filters / G, cg = g->channels / G;                                          \
    int64_t tshape[THEANO_CONV_MAX_SP + 1], n, gi, d, i;                                                             \
    T* col = scratch;                                                                                                \
    T* tbuf = scratch + g->crows * g->osize;                                                                         \
    tshape[0] = g->filters;                                                                                          \
    for (d = 0; d < g->nsp; ++d) tshape[d + 1] = g->out[d];                                                          \
    for (i = 0; i < g->filters * g->crows; ++i) dw[i] = (T)0;                                                        \
    for (n = n0; n < n1; ++n) {                                                                                      \
      const T* tp = theano_conv_packed_##S(g->nsp + 1, tshape, top + n * ts[0], ts + 1, tbuf);                       \
      for (gi = 0; gi < G; ++gi) {                                                                                   \
        theano_im2col_##S(g, x + n * xs[0] + gi * cg * xs[1], xs, col);                                             \
        theano_conv_gemm_##S(0, 1, fg, g->crows, g->osize, tp + gi * fg * g->osize, col, (T)1,                      \
                             dw + gi * fg * g->crows);                                                               \
      }                                                                                                              \
    }                                                                                                                \
  }                                                                                                                  \
  /* images [n0, n1) of dx (B, C, s..., contiguous) <- gradient wrt the input from the filters and top */         \
  static inline void theano_corr_grad_inputs_##S(const TheanoConvGeom* g, int64_t n0, int64_t n1, const T* w,      \
                                                 const int64_t* ws, const T* top, const int64_t* ts, T* dx,          \
                                                 T* scratch) {                                                       \
    const int64_t G = g->groups, fg = g->filters / G, cg = g->channels / G;                                          \
    int64_t wshape[THEANO_CONV_MAX_SP + 2], tshape[THEANO_CONV_MAX_SP + 1], n, gi, d, i;                             \
    T* col = scratch;                                                                                                \
    T* wbuf = scratch + g->crows * g->osize;                                                                         \
    T* tbuf = wbuf + g->filters * g->crows;                                                                          \
    const T* wp;                                                                                                     \
    wshape[0] = g->filters;                                                                                          \
    wshape[1] = cg;                                                                                                  \
    for (d = 0; d < g->nsp; ++d) wshape[d + 2] = g->k[d];                                                            \
    tshape[0] = g->filters;                                                                                          \
    for (d = 0; d < g->nsp; ++d) tshape[d + 1] = g->out[d];                                                          \
    wp = theano_conv_packed_##S(g->nsp + 2, wshape, w, ws, wbuf);                                                    \
    for (i = n0 * g->channels * g->isize; i < n1 * g->channels * g->isize; ++i) dx[i] = (T)0;                        \
    for (n = n0; n < n1; ++n) {                                                                                      \
      const T* tp = theano_conv_packed_##S(g->nsp + 1, tshape, top + n * ts[0], ts + 1, tbuf);                       \
      for (gi = 0; gi < G; ++gi) {                                                                                   \
        theano_conv_gemm_##S(1, 0, g->crows, g->osize, fg, wp + gi * fg * g->crows, tp + gi * fg * g->osize, (T)0, \
                             col);                                                                                   \
        theano_col2im_##S(g, col, dx + (n * g->channels + gi * cg) * g->isize);                                     \
      }                                                                                                              \
    }                                                                                                                \
  }

/* The CUDA unit takes the per-element rules only (no host BLAS there);
 * generated C++ calls these through the host's table (host_kernels.h). */
#if !defined(THEANO_CUDA) && !defined(THEANO_GENERATED_CODE)
THEANO_CONV_KERNELS(float, f32, cblas_sgemm)
THEANO_CONV_KERNELS(double, f64, cblas_dgemm)
#endif

#endif /* THEANO_RUNTIME_CONV_H */
