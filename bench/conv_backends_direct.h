// bench/conv_backends.cpp's candidate (b): direct loops (and the naive reference).
#pragma once

#include "conv_backends_common.h"

namespace conv_bench {

// ---------------------------------------------------------------- (b) direct loops
// DirectRows: per output row, an axpy of up to Q elements per tap. Plain and
// obviously right; here the reference (in double) that the others are checked
// against, not timed (short rows: loop overhead dominates).
template <class T>
struct DirectRows {
  const Shape& z;
  int threads;
  std::vector<std::vector<T>> dwpart, acc;
  DirectRows(const Shape& z_, int t) : z(z_), threads(t), dwpart(t), acc(t) {
    for (int i = 1; i < t; ++i) dwpart[i].resize(z.K * z.crs());
    for (auto& a : acc) a.resize(z.Q());
  }
  // y[n,k,p,:] += w[k,c,r,s] * x[n,c,p+r-pad, :+s-pad]: an axpy over the output row.
  void fwd(const Tensors<T>& d, T* __restrict y, i64 n0, i64 n1) const {
    const i64 P = z.P(), Q = z.Q();
    for (i64 n = n0; n < n1; ++n)
      for (i64 k = 0; k < z.K; ++k) {
        T* __restrict yk = y + (n * z.K + k) * P * Q;
        std::fill(yk, yk + P * Q, T(0));
        for (i64 c = 0; c < z.C; ++c)
          for (i64 r = 0; r < z.R; ++r)
            for (i64 s = 0; s < z.S; ++s) {
              const T wv = d.w[((k * z.C + c) * z.R + r) * z.S + s];
              const i64 q0 = q_lo(z, s), q1 = q_hi(z, s);
              const i64 p0 = std::max<i64>(0, z.pad - r), p1 = std::min<i64>(P, z.H + z.pad - r);
              for (i64 p = p0; p < p1; ++p) {
                const T* __restrict xr = d.x.data() + ((n * z.C + c) * z.H + p + r - z.pad) * z.W + s - z.pad;
                T* __restrict yr = yk + p * Q;
                for (i64 q = q0; q < q1; ++q) yr[q] += wv * xr[q];
              }
            }
      }
  }
  // dw[k,c,r,s] = sum over n, p, q of dy[n,k,p,q] * x[n,c,p+r-pad,q+s-pad]: products
  // accumulated per q in a row buffer (vectorizes without reassociation), summed once.
  void gradw(const Tensors<T>& d, T* __restrict dw, T* __restrict a, i64 n0, i64 n1) const {
    const i64 P = z.P(), Q = z.Q();
    for (i64 k = 0; k < z.K; ++k)
      for (i64 c = 0; c < z.C; ++c)
        for (i64 r = 0; r < z.R; ++r)
          for (i64 s = 0; s < z.S; ++s) {
            const i64 q0 = q_lo(z, s), q1 = q_hi(z, s);
            const i64 p0 = std::max<i64>(0, z.pad - r), p1 = std::min<i64>(P, z.H + z.pad - r);
            std::fill(a, a + Q, T(0));
            for (i64 n = n0; n < n1; ++n)
              for (i64 p = p0; p < p1; ++p) {
                const T* __restrict xr = d.x.data() + ((n * z.C + c) * z.H + p + r - z.pad) * z.W + s - z.pad;
                const T* __restrict g = d.dy.data() + ((n * z.K + k) * P + p) * Q;
                for (i64 q = q0; q < q1; ++q) a[q] += g[q] * xr[q];
              }
            T sum = 0;
            for (i64 q = 0; q < Q; ++q) sum += a[q];
            dw[((k * z.C + c) * z.R + r) * z.S + s] = sum;
          }
  }
  // dx[n,c,p+r-pad, :+s-pad] += w[k,c,r,s] * dy[n,k,p,:]: an axpy into the input row.
  void gradi(const Tensors<T>& d, T* __restrict dx, i64 n0, i64 n1) const {
    const i64 P = z.P(), Q = z.Q();
    for (i64 n = n0; n < n1; ++n)
      for (i64 c = 0; c < z.C; ++c) {
        T* __restrict xc = dx + (n * z.C + c) * z.H * z.W;
        std::fill(xc, xc + z.H * z.W, T(0));
        for (i64 k = 0; k < z.K; ++k)
          for (i64 r = 0; r < z.R; ++r)
            for (i64 s = 0; s < z.S; ++s) {
              const T wv = d.w[((k * z.C + c) * z.R + r) * z.S + s];
              const i64 q0 = q_lo(z, s), q1 = q_hi(z, s);
              const i64 p0 = std::max<i64>(0, z.pad - r), p1 = std::min<i64>(P, z.H + z.pad - r);
              for (i64 p = p0; p < p1; ++p) {
                T* __restrict xr = xc + (p + r - z.pad) * z.W + s - z.pad;
                const T* __restrict g = d.dy.data() + ((n * z.K + k) * P + p) * Q;
                for (i64 q = q0; q < q1; ++q) xr[q] += wv * g[q];
              }
            }
      }
  }
  void run(Pass pass, Tensors<T>& d) {
    over_batch(threads, z.N, [&](int t, i64 n0, i64 n1) {
      if (pass == Pass::Fwd) fwd(d, d.y.data(), n0, n1);
      else if (pass == Pass::GradW) gradw(d, t == 0 ? d.dw.data() : dwpart[t].data(), acc[t].data(), n0, n1);
      else gradi(d, d.dx.data(), n0, n1);
    });
    if (pass == Pass::GradW)
      for (int t = 1; t < threads; ++t)
        for (i64 i = 0; i < z.K * z.crs(); ++i) d.dw[i] += dwpart[t][i];
  }
};

// Direct: the timed direct loop. Each image plane is (zero-)padded to width
// Wp = W + 2 pad and flattened, so one filter row (c, r) is ONE loop over
// L = (P-1)*Wp + Q contiguous outputs, y_wide[i] += sum_t w[t] * x_pad[i + r*Wp + t]
// (the Wp - Q = S - 1 extra columns per row are computed and dropped). gradI is
// the same loop in gather form, gradW a dot product written with 16 lanes of
// partial sums (vectorizes without reassociation). Threads over the batch.
template <class T>
struct Direct {
  const Shape& z;
  int threads;
  i64 Hp, Wp, L;
  struct Scratch {
    std::vector<T> xp, yw, dw;
  };
  std::vector<Scratch> sc;
  Direct(const Shape& z_, int t) : z(z_), threads(t), sc(t) {
    Hp = z.H + 2 * z.pad, Wp = z.W + 2 * z.pad, L = (z.P() - 1) * Wp + z.Q();
    for (int i = 0; i < t; ++i) {
      sc[i].xp.assign(z.C * Hp * Wp, T(0));
      sc[i].yw.assign(z.S - 1 + z.K * z.P() * Wp, T(0));
      sc[i].dw.resize(z.K * z.crs());  // thread > 0: its part of gradW; every thread: gradI's reversed taps
    }
  }
  // x[n] into xp (C, Hp, Wp); the border stays zero.
  void pad_in(const T* __restrict x, T* __restrict xp) const {
    for (i64 c = 0; c < z.C; ++c)
      for (i64 h = 0; h < z.H; ++h)
        std::memcpy(xp + (c * Hp + h + z.pad) * Wp + z.pad, x + (c * z.H + h) * z.W, z.W * sizeof(T));
  }
  // dy[n] (K, P, Q) into yw: S-1 zeros, then (K, P, Wp) with zero extra columns.
  void widen(const T* __restrict dy, T* __restrict yw) const {
    const i64 P = z.P(), Q = z.Q();
    std::fill(yw, yw + z.S - 1, T(0));
    yw += z.S - 1;
    for (i64 k = 0; k < z.K; ++k)
      for (i64 p = 0; p < P; ++p) {
        T* o = yw + (k * P + p) * Wp;
        std::memcpy(o, dy + (k * P + p) * Q, Q * sizeof(T));
        std::fill(o + Q, o + Wp, T(0));
      }
  }
  static T dot(const T* __restrict a, const T* __restrict b, i64 n) {
    T part[16] = {};
    i64 i = 0;
    for (; i + 16 <= n; i += 16)
      for (int j = 0; j < 16; ++j) part[j] += a[i + j] * b[i + j];
    T sum = 0;
    for (; i < n; ++i) sum += a[i] * b[i];
    for (int j = 0; j < 16; ++j) sum += part[j];
    return sum;
  }
  // One filter row (c, r) at a time: y[i] += sum over t < S of w[t] * x[i + t],
  // i < L: S FMAs per load and store of y. S a template argument where it is 3
  // or 5 (unrolled), a loop otherwise.
  template <int S>
  static void taps(T* __restrict y, const T* __restrict x, const T* __restrict w, i64 s, i64 n) {
    for (i64 i = 0; i < n; ++i) {
      T a = y[i];
      if constexpr (S > 0)
        for (int t = 0; t < S; ++t) a += w[t] * x[i + t];
      else
        for (i64 t = 0; t < s; ++t) a += w[t] * x[i + t];
      y[i] = a;
    }
  }
  static void taps_any(T* y, const T* x, const T* w, i64 s, i64 n) {
    s == 3 ? taps<3>(y, x, w, s, n) : s == 5 ? taps<5>(y, x, w, s, n) : taps<0>(y, x, w, s, n);
  }
  void fwd(const Tensors<T>& d, Scratch& s, i64 n) {
    const i64 P = z.P(), Q = z.Q();
    pad_in(d.x.data() + n * z.C * z.H * z.W, s.xp.data());
    for (i64 k = 0; k < z.K; ++k) {
      T* yw = s.yw.data();
      std::fill(yw, yw + L, T(0));
      for (i64 c = 0; c < z.C; ++c)
        for (i64 r = 0; r < z.R; ++r)
          taps_any(yw, s.xp.data() + c * Hp * Wp + r * Wp, d.w.data() + ((k * z.C + c) * z.R + r) * z.S, z.S, L);
      T* y = const_cast<T*>(d.y.data()) + (n * z.K + k) * P * Q;
      for (i64 p = 0; p < P; ++p) std::memcpy(y + p * Q, yw + p * Wp, Q * sizeof(T));
    }
  }
  // The gather form of the scatter: dx_pad[r*Wp + j] += sum over t of
  // w[k,c,r,t] * dy_wide[k][j - t], j < P*Wp; dy_wide has S-1 zeros in front
  // of plane 0 and zero extra columns, so j - t never leaves zeros or data.
  void gradi(const Tensors<T>& d, Scratch& s, i64 n) {
    const i64 PW = z.P() * Wp;
    widen(d.dy.data() + n * z.K * z.P() * z.Q(), s.yw.data());
    std::fill(s.xp.begin(), s.xp.end(), T(0));
    std::vector<T>& wr = s.dw;  // the S taps of one filter row, reversed
    for (i64 c = 0; c < z.C; ++c)
      for (i64 k = 0; k < z.K; ++k)
        for (i64 r = 0; r < z.R; ++r) {
          for (i64 t = 0; t < z.S; ++t) wr[t] = d.w[((k * z.C + c) * z.R + r) * z.S + z.S - 1 - t];
          taps_any(s.xp.data() + c * Hp * Wp + r * Wp, s.yw.data() + k * PW, wr.data(), z.S, PW);
        }
    T* dx = const_cast<T*>(d.dx.data()) + n * z.C * z.H * z.W;
    for (i64 c = 0; c < z.C; ++c)
      for (i64 h = 0; h < z.H; ++h)
        std::memcpy(dx + (c * z.H + h) * z.W, s.xp.data() + (c * Hp + h + z.pad) * Wp + z.pad, z.W * sizeof(T));
  }
  void gradw(const Tensors<T>& d, Scratch& s, T* __restrict dw, i64 n0, i64 n1) {
    std::fill(dw, dw + z.K * z.crs(), T(0));
    for (i64 n = n0; n < n1; ++n) {
      pad_in(d.x.data() + n * z.C * z.H * z.W, s.xp.data());
      widen(d.dy.data() + n * z.K * z.P() * z.Q(), s.yw.data());
      for (i64 k = 0; k < z.K; ++k)
        for (i64 c = 0; c < z.C; ++c)
          for (i64 r = 0; r < z.R; ++r)
            for (i64 t = 0; t < z.S; ++t)
              dw[((k * z.C + c) * z.R + r) * z.S + t] +=
                  dot(s.yw.data() + z.S - 1 + k * z.P() * Wp, s.xp.data() + c * Hp * Wp + r * Wp + t, L);
    }
  }
  void run(Pass pass, Tensors<T>& d) {
    over_batch(threads, z.N, [&](int t, i64 n0, i64 n1) {
      if (pass == Pass::GradW) return gradw(d, sc[t], t == 0 ? d.dw.data() : sc[t].dw.data(), n0, n1);
      for (i64 n = n0; n < n1; ++n) pass == Pass::Fwd ? fwd(d, sc[t], n) : gradi(d, sc[t], n);
    });
    if (pass == Pass::GradW)
      for (int t = 1; t < threads; ++t)
        for (i64 i = 0; i < z.K * z.crs(); ++i) d.dw[i] += sc[t].dw[i];
  }
};

// The reference for DirectRows<double> on the small shapes: a plain 7-deep loop.
void naive(const Shape& z, const Tensors<double>& d, Tensors<double>& o) {
  const i64 P = z.P(), Q = z.Q();
  std::fill(o.y.begin(), o.y.end(), 0.0);
  std::fill(o.dw.begin(), o.dw.end(), 0.0);
  std::fill(o.dx.begin(), o.dx.end(), 0.0);
  for (i64 n = 0; n < z.N; ++n)
    for (i64 k = 0; k < z.K; ++k)
      for (i64 p = 0; p < P; ++p)
        for (i64 q = 0; q < Q; ++q)
          for (i64 c = 0; c < z.C; ++c)
            for (i64 r = 0; r < z.R; ++r)
              for (i64 s = 0; s < z.S; ++s) {
                const i64 h = p + r - z.pad, w = q + s - z.pad;
                if (h < 0 || h >= z.H || w < 0 || w >= z.W) continue;
                const i64 xi = ((n * z.C + c) * z.H + h) * z.W + w, wi = ((k * z.C + c) * z.R + r) * z.S + s,
                          yi = ((n * z.K + k) * P + p) * Q + q;
                o.y[yi] += d.w[wi] * d.x[xi];
                o.dw[wi] += d.dy[yi] * d.x[xi];
                o.dx[xi] += d.w[wi] * d.dy[yi];
              }
}

// max |a - ref| / max |ref|
template <class T>
double rel_err(const std::vector<T>& a, const std::vector<double>& ref) {
  double e = 0, m = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    e = std::max(e, std::abs(double(a[i]) - ref[i]));
    m = std::max(m, std::abs(ref[i]));
  }
  return e / m;
}

}  // namespace conv_bench
