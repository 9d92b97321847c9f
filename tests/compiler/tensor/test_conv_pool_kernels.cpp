// The conv and pool kernels themselves (runtime/include/theano/runtime/
// kernels/conv.h, pool.h), called as the lowerings call them, over thousands
// of random small geometries (2-d and 3-d, groups, padding modes, strides,
// dilations; pool windows, strides, pads, ignore_border, empty axes), every
// buffer malloc'd at exactly the size the rules give: under the sanitizer
// build any access past a buffer is a report. The conv results equal a direct
// loop exactly (integer-valued data); the pool gradients' gather form (the
// GPU's) equals the scatter form (the CPU's). An empty axis with padding once
// read past the input here.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "theano/runtime/kernels/conv.h"
#include "theano/runtime/kernels/pool.h"

namespace {

double* alloc(int64_t n) {
  return static_cast<double*>(std::malloc(sizeof(double) * static_cast<std::size_t>(n > 0 ? n : 1)));
}

}  // namespace

TEST_SUITE("conv and pool kernels") {
  TEST_CASE("conv.h: forward and both gradients over random geometries equal a direct loop, exact-size buffers") {
    std::mt19937_64 rng(5);
    int cases = 0, bad_rule = 0;
    for (int it = 0; it < 3000; ++it) {
      const int nsp = 2 + (int)(rng() % 2);
      const int64_t G = 1 + rng() % 3, B = 1 + rng() % 3, cg = 1 + rng() % 3, fg = 1 + rng() % 3;
      int64_t ish[5], wsh[5], pads[3], st[3], dl[3];
      ish[0] = B;
      ish[1] = cg * G;
      wsh[0] = fg * G;
      wsh[1] = cg;
      for (int d = 0; d < nsp; ++d) {
        ish[d + 2] = 1 + rng() % 7;
        wsh[d + 2] = 1 + rng() % 4;
        const int m = (int)(rng() % 4);
        pads[d] = m == 0 ? THEANO_CONV_FULL : m == 1 ? THEANO_CONV_HALF : (int64_t)(rng() % 3);
        st[d] = 1 + rng() % 3;
        dl[d] = 1 + rng() % 3;
      }
      TheanoConvGeom g;
      int64_t bad = 0;
      if (theano_conv_rule(nsp, ish, wsh, pads, st, dl, G, &g, &bad) != THEANO_CONV_OK) {
        ++bad_rule;
        continue;
      }
      ++cases;
      int64_t xn = 1, wn = 1, on = g.batch * g.filters * g.osize;
      for (int d = 0; d < nsp + 2; ++d) {
        xn *= ish[d];
        wn *= wsh[d];
      }
      std::vector<int64_t> xs(nsp + 2), wsr(nsp + 2), ts(nsp + 2);
      xs[nsp + 1] = 1;
      wsr[nsp + 1] = 1;
      for (int d = nsp; d >= 0; --d) {
        xs[d] = xs[d + 1] * ish[d + 1];
        wsr[d] = wsr[d + 1] * wsh[d + 1];
      }
      int64_t oshape[5] = {g.batch, g.filters, 1, 1, 1};
      for (int d = 0; d < nsp; ++d) oshape[d + 2] = g.out[d];
      ts[nsp + 1] = 1;
      for (int d = nsp; d >= 0; --d) ts[d] = ts[d + 1] * oshape[d + 1];
      double *x = alloc(xn), *w = alloc(wn), *top = alloc(on), *out = alloc(on), *dw = alloc(wn), *dx = alloc(xn);
      for (int64_t i = 0; i < xn; ++i) x[i] = (double)(rng() % 7) - 3;
      for (int64_t i = 0; i < wn; ++i) w[i] = (double)(rng() % 5) - 2;
      for (int64_t i = 0; i < on; ++i) top[i] = (double)(rng() % 5) - 2;
      for (int dir = 0; dir < 3; ++dir) {
        int64_t sn = 0;
        REQUIRE(theano_conv_scratch_size(&g, dir, &sn) == THEANO_CONV_OK);
        double* scratch = alloc(sn);
        if (dir == 0) theano_corr_fwd_f64(&g, 0, g.batch, x, xs.data(), w, wsr.data(), out, scratch);
        if (dir == 1) theano_corr_grad_weights_f64(&g, 0, g.batch, x, xs.data(), top, ts.data(), dw, scratch);
        if (dir == 2) theano_corr_grad_inputs_f64(&g, 0, g.batch, w, wsr.data(), top, ts.data(), dx, scratch);
        std::free(scratch);
      }
      // naive check of the forward and both gradients (2-d and 3-d through 3 slots)
      std::vector<double> ref(on, 0.0), rdw(wn, 0.0), rdx(xn, 0.0);
      int64_t in3[3] = {1, 1, 1}, k3[3] = {1, 1, 1}, o3[3] = {1, 1, 1}, p3[3] = {0, 0, 0}, s3[3] = {1, 1, 1},
              d3[3] = {1, 1, 1};
      for (int d = 0; d < nsp; ++d) {
        int q = 3 - nsp + d;
        in3[q] = g.in[d];
        k3[q] = g.k[d];
        o3[q] = g.out[d];
        p3[q] = g.pad[d];
        s3[q] = g.stride[d];
        d3[q] = g.dil[d];
      }
      const int64_t isz = in3[0] * in3[1] * in3[2], ksz = k3[0] * k3[1] * k3[2], osz = o3[0] * o3[1] * o3[2];
      for (int64_t n = 0; n < B; ++n)
        for (int64_t f = 0; f < g.filters; ++f)
          for (int64_t c = 0; c < cg; ++c) {
            const int64_t gi = f / fg, ch = gi * cg + c;
            for (int64_t a = 0; a < o3[0]; ++a)
              for (int64_t b = 0; b < o3[1]; ++b)
                for (int64_t e = 0; e < o3[2]; ++e)
                  for (int64_t ka = 0; ka < k3[0]; ++ka)
                    for (int64_t kb = 0; kb < k3[1]; ++kb)
                      for (int64_t ke = 0; ke < k3[2]; ++ke) {
                        const int64_t ia = a * s3[0] - p3[0] + ka * d3[0], ib = b * s3[1] - p3[1] + kb * d3[1],
                                      ie = e * s3[2] - p3[2] + ke * d3[2];
                        if (ia < 0 || ia >= in3[0] || ib < 0 || ib >= in3[1] || ie < 0 || ie >= in3[2]) continue;
                        const int64_t xi = (n * g.channels + ch) * isz + (ia * in3[1] + ib) * in3[2] + ie;
                        const int64_t wi = (f * cg + c) * ksz + (ka * k3[1] + kb) * k3[2] + ke;
                        const int64_t oi = (n * g.filters + f) * osz + (a * o3[1] + b) * o3[2] + e;
                        ref[oi] += x[xi] * w[wi];
                        rdw[wi] += x[xi] * top[oi];
                        rdx[xi] += w[wi] * top[oi];
                      }
          }
      CAPTURE(it);
      int64_t wrong = 0;
      for (int64_t i = 0; i < on; ++i) wrong += ref[i] != out[i];
      for (int64_t i = 0; i < wn; ++i) wrong += rdw[i] != dw[i];
      for (int64_t i = 0; i < xn; ++i) wrong += rdx[i] != dx[i];
      REQUIRE(wrong == 0);
      std::free(x);
      std::free(w);
      std::free(top);
      std::free(out);
      std::free(dw);
      std::free(dx);
    }
    CHECK(cases > 1000);
    CHECK(bad_rule > 0);
  }

  TEST_CASE("conv.h: products in OpenBLAS's row blocks (W10's second layer, float32, uneven) equal a direct loop") {
    // (2, 20, 12, 12) * (51, 20, 5, 5) valid: the forward's 51x64 by 64x500 and the input gradient's 500x51 by
    // 51x64 per image have 1.63 million multiply-adds, which blas_split.h cuts into blocks of 26 + 25 and 250 +
    // 250 rows where the core has the small-matrix kernels. Integer-valued data: every sum is exact.
    const int64_t ish[4] = {2, 20, 12, 12}, wsh[4] = {51, 20, 5, 5}, pads[2] = {0, 0}, st[2] = {1, 1}, dl[2] = {1, 1};
    TheanoConvGeom g;
    int64_t bad = 0;
    REQUIRE(theano_conv_rule(2, ish, wsh, pads, st, dl, 1, &g, &bad) == THEANO_CONV_OK);
    if (theano_blas_split_rows(g.filters, g.osize, g.crows, 4) == 0)
      MESSAGE("this BLAS core has no small-matrix kernels: the products run whole");
    const int64_t xn = 2 * 20 * 144, wn = 51 * 20 * 25, on = 2 * 51 * 64;
    const int64_t xs[4] = {20 * 144, 144, 12, 1}, ws[4] = {500, 25, 5, 1}, ts[4] = {51 * 64, 64, 8, 1};
    std::mt19937_64 rng(11);
    std::vector<float> x(xn), w(wn), top(on), out(on), dx(xn);
    for (float& v : x) v = (float)(rng() % 7) - 3;
    for (float& v : w) v = (float)(rng() % 5) - 2;
    for (float& v : top) v = (float)(rng() % 5) - 2;
    int64_t sn = 0;
    REQUIRE(theano_conv_scratch_size(&g, 2, &sn) == THEANO_CONV_OK);
    std::vector<float> scratch(sn);
    theano_corr_fwd_f32(&g, 0, 2, x.data(), xs, w.data(), ws, out.data(), scratch.data());
    theano_corr_grad_inputs_f32(&g, 0, 2, w.data(), ws, top.data(), ts, dx.data(), scratch.data());
    std::vector<double> ref(on, 0.0), rdx(xn, 0.0);
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t f = 0; f < 51; ++f)
        for (int64_t c = 0; c < 20; ++c)
          for (int64_t a = 0; a < 8; ++a)
            for (int64_t b = 0; b < 8; ++b)
              for (int64_t ka = 0; ka < 5; ++ka)
                for (int64_t kb = 0; kb < 5; ++kb) {
                  const int64_t xi = n * xs[0] + c * xs[1] + (a + ka) * 12 + b + kb;
                  const int64_t wi = f * 500 + c * 25 + ka * 5 + kb, oi = n * ts[0] + f * 64 + a * 8 + b;
                  ref[oi] += (double)x[xi] * w[wi];
                  rdx[xi] += (double)w[wi] * top[oi];
                }
    int64_t wrong = 0;
    for (int64_t i = 0; i < on; ++i) wrong += ref[i] != out[i];
    for (int64_t i = 0; i < xn; ++i) wrong += rdx[i] != dx[i];
    CHECK(wrong == 0);
  }

  TEST_CASE(
      "pool.h: forward, gradients (gather and scatter forms agree) and gradgrad over random geometries, exact-size "
      "buffers") {
    std::mt19937_64 rng(9);
    int cases = 0;
    for (int it = 0; it < 5000; ++it) {
      int64_t v[3], ws[3], st[3], pad[3], zl[3];
      const int ib = (int)(rng() % 2);
      bool ok = true;
      for (int d = 0; d < 3; ++d) {
        v[d] = rng() % 7;
        ws[d] = 1 + rng() % 4;
        st[d] = 1 + rng() % 4;
        pad[d] = ib ? (int64_t)(rng() % ws[d]) : 0;
        int64_t bad;
        if (theano_pool_out_len(v[d], ws[d], st[d], pad[d], ib, &zl[d], &bad) != THEANO_POOL_OK) ok = false;
      }
      if (!ok) continue;
      ++cases;
      const int64_t xn = v[0] * v[1] * v[2], zn = zl[0] * zl[1] * zl[2];
      double* x = (double*)std::malloc(8 * (xn ? xn : 1));
      double* z = (double*)std::malloc(8 * (zn ? zn : 1));
      double* gz = (double*)std::malloc(8 * (zn ? zn : 1));
      double* gx1 = (double*)std::malloc(8 * (xn ? xn : 1));
      double* gx2 = (double*)std::malloc(8 * (xn ? xn : 1));
      double* gg = (double*)std::malloc(8 * (zn ? zn : 1));
      for (int64_t i = 0; i < xn; ++i) x[i] = (double)(rng() % 5);
      for (int64_t i = 0; i < zn; ++i) gz[i] = (double)(rng() % 5) - 2;
      const int64_t xs[3] = {8 * v[1] * v[2], 8 * v[2], 8}, zs[3] = {8 * zl[1] * zl[2], 8 * zl[2], 8};
      const int mode = (int)(rng() % 4);
      for (int64_t a = 0; a < zl[0]; ++a)
        for (int64_t b = 0; b < zl[1]; ++b)
          for (int64_t c = 0; c < zl[2]; ++c)
            z[(a * zl[1] + b) * zl[2] + c] =
                theano_pool_fwd_f64((const char*)x, xs, v, ws, st, pad, THEANO_POOL_MAX, a, b, c);
      // max gradient: gather (GPU form) vs scatter (CPU form)
      for (int64_t a = 0; a < v[0]; ++a)
        for (int64_t b = 0; b < v[1]; ++b)
          for (int64_t c = 0; c < v[2]; ++c)
            gx1[(a * v[1] + b) * v[2] + c] = theano_pool_max_grad_f64((const char*)x, xs, (const char*)z, zs,
                                                                      (const char*)gz, zs, zl, ws, st, pad, a, b, c);
      std::memset(gx2, 0, 8 * xn);
      for (int64_t a = 0; a < zl[0]; ++a)
        for (int64_t b = 0; b < zl[1]; ++b)
          for (int64_t c = 0; c < zl[2]; ++c)
            theano_pool_max_grad_add_f64((const char*)x, xs, (const char*)z, zs, (const char*)gz, zs, (char*)gx2, xs, v,
                                         ws, st, pad, a, b, c);
      CAPTURE(it);
      int64_t wrong = 0;
      for (int64_t i = 0; i < xn; ++i) wrong += gx1[i] != gx2[i];
      REQUIRE(wrong == 0);
      // average gradients: gather vs scatter, every mode but max
      const int am = mode == THEANO_POOL_MAX ? THEANO_POOL_SUM : mode;
      for (int64_t a = 0; a < v[0]; ++a)
        for (int64_t b = 0; b < v[1]; ++b)
          for (int64_t c = 0; c < v[2]; ++c)
            gx1[(a * v[1] + b) * v[2] + c] =
                theano_pool_avg_grad_f64((const char*)gz, zs, zl, v, ws, st, pad, am, a, b, c);
      std::memset(gx2, 0, 8 * xn);
      for (int64_t a = 0; a < zl[0]; ++a)
        for (int64_t b = 0; b < zl[1]; ++b)
          for (int64_t c = 0; c < zl[2]; ++c)
            theano_pool_avg_grad_add_f64((const char*)gz, zs, (char*)gx2, xs, v, ws, st, pad, am, a, b, c);
      for (int64_t i = 0; i < xn; ++i) wrong += std::abs(gx1[i] - gx2[i]) > 1e-12;
      REQUIRE(wrong == 0);
      // gradgrad (per pooled element), reading x as ggx
      for (int64_t a = 0; a < zl[0]; ++a)
        for (int64_t b = 0; b < zl[1]; ++b)
          for (int64_t c = 0; c < zl[2]; ++c)
            gg[(a * zl[1] + b) * zl[2] + c] = theano_pool_max_gradgrad_f64((const char*)x, xs, (const char*)z, zs,
                                                                           (const char*)x, xs, v, ws, st, pad, a, b, c);
      // every forward mode
      for (int m = 0; m < 4; ++m)
        for (int64_t a = 0; a < zl[0]; ++a)
          for (int64_t b = 0; b < zl[1]; ++b)
            for (int64_t c = 0; c < zl[2]; ++c)
              gg[(a * zl[1] + b) * zl[2] + c] = theano_pool_fwd_f64((const char*)x, xs, v, ws, st, pad, m, a, b, c);
      std::free(x);
      std::free(z);
      std::free(gz);
      std::free(gx1);
      std::free(gx2);
      std::free(gg);
    }
    CHECK(cases > 1000);
  }
}
