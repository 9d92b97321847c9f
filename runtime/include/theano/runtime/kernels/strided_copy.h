/* \file
 * The strided block copy with element conversion that generated code runs
 * (Reshape's copy and Alloc's fill, codegen/src/emit/lower/lowering.cpp's
 * emit_strided_copy; Join; a scan's states and rows),
 * written once, as C++ templates, for two readers:
 *
 * - theano_convert_copy<D, S>: embedded in the units that convert between
 *   element types (a Join of mixed dtypes);
 * - theano_copy_strided: the same-type copy by element size, compiled once
 *   into the host and reached through TheanoHostKernels (host_kernels.h),
 *   so the units that only copy (almost all) do not compile the templates
 *   (docs/jit-and-cache.md, "Host kernels"). A copy is a copy of the bits,
 *   so one instantiation per element size serves every dtype.
 *
 * `theano_convert_copy<D, S>(dst, dst_strides, src, src_strides, shape, nd)`
 * converts and copies the strided `src` block into the strided `dst` block
 * of the same shape (byte strides; src strides may be 0 to broadcast).
 * Dimensions of size 1 are dropped and dimensions that are contiguous in
 * both are merged first, so contiguous copies become one flat loop the
 * vectorizer sees.
 */
#ifndef THEANO_RUNTIME_STRIDED_COPY_H
#define THEANO_RUNTIME_STRIDED_COPY_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>

#include "shape_rules.h" /* THEANO_MAX_NDIM, theano_checked_mul */
#endif

template <class D, class S>
static void theano_convert_copy_rec(char* pd, const int64_t* ds, const char* ps, const int64_t* ss,
                                  const int64_t* shape, int64_t nd) {
  if (nd == 0) {
    *(D*)pd = (D) * (const S*)ps;
    return;
  }
  const int64_t n = shape[0];
  if (nd == 1) {
    const int64_t a = ds[0], b = ss[0];
    if (b == 0) {
      const D v = (D) * (const S*)ps;
      if (a == (int64_t)sizeof(D)) {
        D* __restrict d = (D*)pd;
        for (int64_t k = 0; k < n; ++k) d[k] = v;
      } else {
        for (int64_t k = 0; k < n; ++k) *(D*)(pd + k * a) = v;
      }
    } else if (a == (int64_t)sizeof(D) && b == (int64_t)sizeof(S)) {
      D* __restrict d = (D*)pd;
      const S* __restrict s = (const S*)ps;
      for (int64_t k = 0; k < n; ++k) d[k] = (D)s[k];
    } else {
      for (int64_t k = 0; k < n; ++k) *(D*)(pd + k * a) = (D) * (const S*)(ps + k * b);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    theano_convert_copy_rec<D, S>(pd + i * ds[0], ds + 1, ps + i * ss[0], ss + 1, shape + 1, nd - 1);
}
template <class D, class S>
static void theano_convert_copy(char* pd, const int64_t* ds, const char* ps, const int64_t* ss, const int64_t* shape,
                              int64_t nd) {
  int64_t sh[THEANO_MAX_NDIM], a[THEANO_MAX_NDIM], b[THEANO_MAX_NDIM];
  int64_t m = 0, pa = 0, pb = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    /* Merge with the dimension before when both strides run on from it (a
     * product past int64 does not: no merge). */
    if (m > 0 && theano_checked_mul(ds[d], shape[d], &pa) == THEANO_RULE_OK &&
        theano_checked_mul(ss[d], shape[d], &pb) == THEANO_RULE_OK && a[m - 1] == pa && b[m - 1] == pb) {
      sh[m - 1] *= shape[d];
      a[m - 1] = ds[d];
      b[m - 1] = ss[d];
    } else {
      sh[m] = shape[d];
      a[m] = ds[d];
      b[m] = ss[d];
      ++m;
    }
  }
  theano_convert_copy_rec<D, S>(pd, a, ps, b, sh, m);
}

#ifndef THEANO_GENERATED_CODE
/* 16-byte elements (complex128) copied as two words. */
struct TheanoCopy16 {
  uint64_t lo, hi;
};

/* The same-type copy of `item`-byte elements (1, 2, 4, 8 or 16): the host's
 * entry for every unit. 0, or 1 for another element size (no dtype has one). */
static int theano_copy_strided(char* pd, const int64_t* ds, const char* ps, const int64_t* ss, const int64_t* shape,
                               int64_t nd, int64_t item) {
  switch (item) {
    case 1: theano_convert_copy<uint8_t, uint8_t>(pd, ds, ps, ss, shape, nd); return 0;
    case 2: theano_convert_copy<uint16_t, uint16_t>(pd, ds, ps, ss, shape, nd); return 0;
    case 4: theano_convert_copy<uint32_t, uint32_t>(pd, ds, ps, ss, shape, nd); return 0;
    case 8: theano_convert_copy<uint64_t, uint64_t>(pd, ds, ps, ss, shape, nd); return 0;
    case 16: theano_convert_copy<TheanoCopy16, TheanoCopy16>(pd, ds, ps, ss, shape, nd); return 0;
    default: return 1;
  }
}
#endif

#endif /* THEANO_RUNTIME_STRIDED_COPY_H */
