/* \file
 * Special functions B (docs/special-functions-b.md): the regularized incomplete gamma functions
 * (gammainc, gammaincc, dP/da for their gradient, and their inverses gammaincinv, gammainccinv),
 * the regularized incomplete beta function (betainc and its derivatives in a and b) and the Bessel
 * functions J_v, I_v, K_v of
 * real order (jv, j0, j1, iv, ive, i0, i1, kv, kve), written ONCE for three readers: the scalar
 * table's reference implementations (compiler/src/tensor/scalar/scalar_table.cpp, hence every
 * Elemwise perform and constant folding), the generated C++ prelude and the CUDA prelude
 * (codegen/src/emit/lower/prelude.cpp embeds this file after scalar_math.h), so perform,
 * generated code and the GPU compute each function with the same formula.
 *
 * Each function is written once in THEANO_SPECIAL_MATH2(T, F, EPS, TINY, BIG, TEMME_A), a macro
 * over the compute type, its libm suffix, its unit roundoff, a tiny value (the continued
 * fractions' floor and the rescaling factor of sums and recurrences), the size past which a sum
 * or recurrence is rescaled, and the smallest a of Temme's expansion; it is instantiated for
 * double in theano_f and for float in theano_s (scalar_math.h's compute domains). Plain C-like
 * C++: no standard header in generated code, libm through the prelude's prototypes (built in
 * under NVRTC). The mathematics is from the published sources named beside each function (DLMF
 * chapters 5, 8 and 10, Temme 1979, Gautschi 1979, Boik and Robison-Cox 1998, Trefethen and
 * Weideman 2014); the accuracy measured against Boost.Math is in docs/special-functions-b.md.
 */
#ifndef THEANO_RUNTIME_KERNELS_SPECIAL_MATH2_H
#define THEANO_RUNTIME_KERNELS_SPECIAL_MATH2_H

#ifndef THEANO_GENERATED_CODE
#include "theano/runtime/kernels/scalar_math.h"
#endif

#define THEANO_SPECIAL_MATH2(T, F, EPS, TINY, BIG, TEMME_A) \
  /* ---- shared pieces of the incomplete gamma functions ---- */ \
  /* log Gamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2) for a >= 10: Stirling's series (DLMF 5.11.1), \
   * terms to B_14 / (14 * 13 a^13), below 1e-16 at a = 10. */ \
  static inline T theano_sm2_stirlerr(T a) { \
    const T r = 1.0##F / a, r2 = r * r; \
    return r * (1.0##F / 12 - r2 * (1.0##F / 360 - r2 * (1.0##F / 1260 - r2 * (1.0##F / 1680 - \
           r2 * (1.0##F / 1188 - r2 * (691.0##F / 360360 - r2 * (1.0##F / 156))))))); \
  } \
  /* d - log(1 + d) without cancellation, d = (x - a) / a: for |d| <= 1/4 through u = d / (2 + d), \
   * log(1 + d) = 2 atanh(u) (DLMF 4.6.4), so d - log(1 + d) = d^2 / (2 + d) - 2 (u^3/3 + u^5/5 + ...); \
   * else as d - log(x / a) (x / a keeps x's digits when x << a, 1 + d would not). */ \
  static inline T theano_sm2_dlog(T x, T a) { \
    const T d = (x - a) / a; \
    if (!(fabs##F(d) <= 0.25##F)) return d - log##F(x / a); \
    const T u = d / (2.0##F + d), u2 = u * u; \
    const T s = u2 * (1.0##F / 3 + u2 * (1.0##F / 5 + u2 * (1.0##F / 7 + u2 * (1.0##F / 9 + u2 * (1.0##F / 11 + \
                u2 * (1.0##F / 13 + u2 * (1.0##F / 15 + u2 * (1.0##F / 17 + u2 * (1.0##F / 19 + u2 / 21))))))))); \
    return d * d / (2.0##F + d) - 2.0##F * u * s; \
  } \
  /* log Gamma(1 + a) for 0 <= a < 1/2 by its Taylor series (DLMF 5.7.3): -gamma a + \
   * sum_{k>=2} (-1)^k zeta(k) a^k / k; zeta(2..13) tabulated (DLMF 25.6), above as 1 + 2^-k + ... + 7^-k \
   * plus the tail's integral from 7.5 (7.5^(1-k) / (k - 1)); lgamma(1 + a) above. Exact for tiny a, where 1 + a \
   * would round a away. */ \
  static inline T theano_sm2_lgamma1p(T a) { \
    if (!(a < 0.5##F)) return lgamma##F(1.0##F + a); \
    const T zeta[12] = {1.644934066848226436472##F, 1.202056903159594285400##F, 1.082323233711138191516##F, \
                        1.036927755143369926331##F, 1.017343061984449139715##F, 1.008349277381922826839##F, \
                        1.004077356197944339378##F, 1.002008392826082214417##F, 1.000994575127818085337##F, \
                        1.000494188604119464559##F, 1.000246086553308048299##F, 1.000122713347578489147##F}; \
    T s = 0.0##F, ak = -a, p2 = 0.5##F, p3 = 1.0##F / 3, p4 = 0.25##F, p5 = 0.2##F, p6 = 1.0##F / 6, p7 = 1.0##F / 7, \
      q = 1.0##F; \
    for (int k = 2; k < 60; ++k) { \
      ak *= -a; \
      p2 *= 0.5##F; p3 *= 1.0##F / 3; p4 *= 0.25##F; p5 *= 0.2##F; p6 *= 1.0##F / 6; p7 *= 1.0##F / 7; \
      q *= 1.0##F / 7.5##F; \
      const T z = k < 14 ? zeta[k - 2] : 1.0##F + p2 + p3 + p4 + p5 + p6 + p7 + q / (T)(k - 1); \
      const T term = ak * z / (T)k; \
      s += term; \
      if (fabs##F(term) <= (T)(EPS) * fabs##F(s)) break; \
    } \
    return -0.5772156649015328606065##F * a + s; \
  } \
  /* log(x^a e^-x / Gamma(a + 1)) for a > 0, x >= 0 (the factor in front of the series). Below \
   * a = 10 directly; above through Stirling's series, as -a (d - log(1 + d)) with d = (x - a) / a, \
   * which keeps its accuracy near x = a for large a (no a log x - x cancellation). */ \
  static inline T theano_sm2_lprefix1(T a, T x) { \
    if (a < 10.0##F) return a * log##F(x) - x - theano_sm2_lgamma1p(a); \
    return -a * theano_sm2_dlog(x, a) - theano_sm2_stirlerr(a) + 0.5##F * log##F(a / 6.283185307179586476925##F) - \
           log##F(a); \
  } \
  /* log(x^a e^-x / Gamma(a)) = lprefix1 + log(a). */ \
  static inline T theano_sm2_lprefix(T a, T x) { \
    if (a < 10.0##F) return a * log##F(x) - x - lgamma##F(a); \
    return -a * theano_sm2_dlog(x, a) - theano_sm2_stirlerr(a) + 0.5##F * log##F(a / 6.283185307179586476925##F); \
  } \
  /* The digamma function for a > 0 (the derivatives below): scalar_math.h's, in double. */ \
  static inline T theano_sm2_psi(T a) { return (T)theano_f::theano_digamma((double)a); } \
  /* The iteration cap of the series and continued fractions: near x = a they need about \
   * 10 sqrt(a) terms; beyond the cap (a > ~1e8 off Temme's region) the sum is truncated. */ \
  static inline int theano_sm2_gamma_maxit(T a) { \
    return a < 1e8##F ? 100 + (int)(12.0##F * sqrt##F(a)) : 120100; \
  } \
  /* Which method: 0 the power series of P (x < a + 1), 1 the continued fraction of Q, 2 Temme's \
   * uniform expansion (large a, x near a: a >= TEMME_A and |x/a - 1| < 0.03). */ \
  static inline int theano_sm2_gamma_method(T a, T x) { \
    if (a >= (T)(TEMME_A) && fabs##F(x - a) < 0.03##F * a) return 2; \
    return x < a + 1.0##F ? 0 : 1; \
  } \
  /* P(a, x) by its power series (DLMF 8.7.1 with 8.2.4): x^a e^-x / Gamma(a + 1) * \
   * sum_n x^n / ((a + 1) ... (a + n)); every term positive. */ \
  static inline T theano_sm2_gammainc_series(T a, T x) { \
    T t = 1.0##F, s = 1.0##F; \
    const int maxit = theano_sm2_gamma_maxit(a); \
    for (int n = 1; n < maxit; ++n) { \
      t *= x / (a + (T)n); \
      s += t; \
      if (t <= s * (T)(EPS)) break; \
    } \
    return s * exp##F(theano_sm2_lprefix1(a, x)); \
  } \
  /* Q(a, x) for a < 1, x < 2 where P is near 1: DLMF 8.7.1 termwise, \
   * P = u (1 + a S), u = x^a / Gamma(a + 1), S = sum_{n>=1} (-x)^n / (n! (a + n)), so \
   * Q = -expm1(log u) - u a S with no 1 - P cancellation (Gautschi 1979, section 4). */ \
  static inline T theano_sm2_gammaincc_small_a(T a, T x) { \
    const T lu = a * log##F(x) - theano_sm2_lgamma1p(a); \
    T t = 1.0##F, s = 0.0##F; \
    for (int n = 1; n < 200; ++n) { \
      t *= -x / (T)n; \
      const T term = t / (a + (T)n); \
      s += term; \
      if (fabs##F(term) <= fabs##F(s) * (T)(EPS)) break; \
    } \
    return -expm1##F(lu) - exp##F(lu) * a * s; \
  } \
  /* Q(a, x) by its continued fraction (DLMF 8.9.2 in even form: Gamma(a, x) = x^a e^-x / \
   * (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))), modified Lentz. */ \
  static inline T theano_sm2_gammaincc_cf(T a, T x) { \
    const T tiny = (T)(TINY); \
    T b = x + 1.0##F - a, c = 1.0##F / tiny, d = 1.0##F / b, h = d; \
    const int maxit = theano_sm2_gamma_maxit(a); \
    for (int i = 1; i < maxit; ++i) { \
      const T an = -(T)i * ((T)i - a); \
      b += 2.0##F; \
      d = an * d + b; \
      if (fabs##F(d) < tiny) d = tiny; \
      c = b + an / c; \
      if (fabs##F(c) < tiny) c = tiny; \
      d = 1.0##F / d; \
      const T del = d * c; \
      h *= del; \
      if (fabs##F(del - 1.0##F) <= (T)(EPS)) break; \
    } \
    return h * exp##F(theano_sm2_lprefix(a, x)); \
  } \
  /* Temme's uniform expansion (DLMF 8.12.3-8.12.9): Q = erfc(eta sqrt(a/2)) / 2 + R, \
   * R = e^(-a eta^2/2) / sqrt(2 pi a) (c0(eta) + c1(eta)/a + c2(eta)/a^2), \
   * eta = sign(x/a - 1) sqrt(2 (x/a - 1 - log(x/a))); c_k by their Taylor series at eta = 0 \
   * (|eta| < 0.03 here). Returns Q; P = erfc(-eta sqrt(a/2)) / 2 - R. */ \
  static inline T theano_sm2_temme_r(T a, T eta) { \
    const T c0 = -1.0##F / 3 + eta * (1.0##F / 12 + eta * (-2.0##F / 135 + eta * (1.0##F / 864 + \
                 eta * (1.0##F / 2835 + eta * (-139.0##F / 777600))))); \
    const T c1 = -1.0##F / 540 + eta * (-1.0##F / 288 + eta * (1.0##F / 378)); \
    const T c2 = 25.0##F / 6048; \
    return exp##F(-0.5##F * a * eta * eta) / sqrt##F(6.283185307179586476925##F * a) * (c0 + (c1 + c2 / a) / a); \
  } \
  static inline T theano_sm2_temme_eta(T a, T x) { \
    const T e = sqrt##F(2.0##F * theano_sm2_dlog(x, a)); \
    return x < a ? -e : e; \
  } \
  /* gammainc(a, x): the regularized lower incomplete gamma function P(a, x) = \
   * gamma(a, x) / Gamma(a) (SciPy's gammainc). a < 0, x < 0 or NaN: NaN; a = 0: 1 for x > 0, NaN at \
   * x = 0; x = 0: 0; x = inf: 1 (NaN if a = inf too); a = inf: 0. */ \
  static inline T theano_gammainc(T a, T x) { \
    if (!(a >= 0) || !(x >= 0)) return THEANO_NAN; \
    if (a == 0) return x > 0 ? 1.0##F : (T)THEANO_NAN; \
    if (x == (T)THEANO_INF) return a == (T)THEANO_INF ? (T)THEANO_NAN : 1.0##F; \
    if (a == (T)THEANO_INF || x == 0) return 0.0##F; \
    const int m = theano_sm2_gamma_method(a, x); \
    if (m == 2) { \
      const T eta = theano_sm2_temme_eta(a, x); \
      return 0.5##F * erfc##F(-eta * sqrt##F(0.5##F * a)) - theano_sm2_temme_r(a, eta); \
    } \
    if (m == 0) return theano_sm2_gammainc_series(a, x); \
    return 1.0##F - theano_sm2_gammaincc_cf(a, x); \
  } \
  /* gammaincc(a, x) = Q(a, x) = 1 - P(a, x) (SciPy's gammaincc), computed directly where it is \
   * small. Edges mirror gammainc: a = 0, x > 0: 0; x = 0: 1; x = inf: 0; a = inf: 1. */ \
  static inline T theano_gammaincc(T a, T x) { \
    if (!(a >= 0) || !(x >= 0)) return THEANO_NAN; \
    if (a == 0) return x > 0 ? 0.0##F : (T)THEANO_NAN; \
    if (x == (T)THEANO_INF) return a == (T)THEANO_INF ? (T)THEANO_NAN : 0.0##F; \
    if (a == (T)THEANO_INF || x == 0) return 1.0##F; \
    const int m = theano_sm2_gamma_method(a, x); \
    if (m == 2) { \
      const T eta = theano_sm2_temme_eta(a, x); \
      return 0.5##F * erfc##F(eta * sqrt##F(0.5##F * a)) + theano_sm2_temme_r(a, eta); \
    } \
    if (m == 1) return theano_sm2_gammaincc_cf(a, x); \
    if (a < 1.0##F) return theano_sm2_gammaincc_small_a(a, x); \
    return 1.0##F - theano_sm2_gammainc_series(a, x); \
  } \
  /* d P(a, x) / da (PyTensor's gammainc_der), for the gradient with respect to a. Below x = a + 1, \
   * the series above differentiated termwise: with t_n = prod_{k<=n} x / (a + k), \
   * dP/da = e^L (S (log x - psi(a + 1)) - sum_n t_n H_n), H_n = sum_{k<=n} 1 / (a + k), \
   * L = log(x^a e^-x / Gamma(a + 1)). Above, -dQ/da from the continued fraction differentiated \
   * through its three-term recurrences A_n = b_n A_{n-1} + a_n A_{n-2} (and B_n), the way Boik and \
   * Robison-Cox (1998) differentiate the incomplete beta's: with Q = e^L' f, \
   * dQ/da = e^L' (f (log x - psi(a)) + df/da). The same edges as gammainc give 0. */ \
  static inline T theano_gammainc_der(T a, T x) { \
    if (!(a > 0) || !(x >= 0)) return THEANO_NAN; \
    if (x == 0 || x == (T)THEANO_INF || a == (T)THEANO_INF) return 0.0##F; \
    const int maxit = theano_sm2_gamma_maxit(a); \
    const T eps = (T)(EPS); \
    if (x < a + 1.0##F) { \
      T t = 1.0##F, s = 1.0##F, h = 0.0##F, ds = 0.0##F; \
      for (int n = 1; n < maxit; ++n) { \
        h += 1.0##F / (a + (T)n); \
        t *= x / (a + (T)n); \
        s += t; \
        ds -= t * h; \
        if (t <= s * eps && t * h <= fabs##F(ds) * eps) break; \
      } \
      return exp##F(theano_sm2_lprefix1(a, x)) * (s * (log##F(x) - theano_sm2_psi(a + 1.0##F)) + ds); \
    } \
    T am2 = 1.0##F, am1 = 0.0##F, bm2 = 0.0##F, bm1 = 1.0##F; \
    T dam2 = 0.0##F, dam1 = 0.0##F, dbm2 = 0.0##F, dbm1 = 0.0##F; \
    T f = 0.0##F, df = 0.0##F; \
    for (int n = 1; n < maxit; ++n) { \
      const T k = (T)(n - 1); \
      const T an = n == 1 ? 1.0##F : -k * (k - a), dan = n == 1 ? 0.0##F : k; \
      const T bn = x + (T)(2 * n - 1) - a; /* d bn / da = -1 */ \
      const T A = bn * am1 + an * am2, B = bn * bm1 + an * bm2; \
      const T dA = -am1 + bn * dam1 + dan * am2 + an * dam2; \
      const T dB = -bm1 + bn * dbm1 + dan * bm2 + an * dbm2; \
      const T r = 1.0##F / B; \
      am2 = am1 * r; bm2 = bm1 * r; dam2 = dam1 * r; dbm2 = dbm1 * r; \
      am1 = A * r; bm1 = 1.0##F; dam1 = dA * r; dbm1 = dB * r; \
      const T fn = am1, dfn = dam1 - am1 * dbm1; \
      /* The derivative to 64 EPS: each step rounds it afresh (a tighter test could wait on noise). */ \
      const bool done = n > 2 && fabs##F(fn - f) <= eps * fabs##F(fn) && fabs##F(dfn - df) <= 64.0##F * eps * fabs##F(dfn); \
      f = fn; \
      df = dfn; \
      if (done) break; \
    } \
    return -exp##F(theano_sm2_lprefix(a, x)) * (f * (log##F(x) - theano_sm2_psi(a)) + df); \
  } \
  /* ---- Bessel functions of the first kind, J_v and I_v (DLMF chapter 10) ---- */ \
  /* Whether v is an integer (the orders for which x < 0 and v < 0 have real values). */ \
  static inline bool theano_sm2_is_int(T v) { return floor##F(v) == v; } \
  /* a_k(v) / x^k of the Hankel expansions (DLMF 10.17.1): a_k = (4v^2 - 1)(4v^2 - 9)...(4v^2 - (2k-1)^2) \
   * / (k! 8^k). theano_sm2_hankel returns sum (-1)^k a_2k / x^2k in *p and sum (-1)^k a_2k+1 / x^2k+1 in \
   * *q when alt, else the plain sum (+-1)^k a_k / x^k of I_v (sign (-1)^k, DLMF 10.40.1) in *p; the \
   * series is stopped at its smallest term (it diverges beyond). */ \
  static inline void theano_sm2_hankel(T v, T x, bool alt, T* p, T* q) { \
    const T mu = 4.0##F * v * v; \
    T t = 1.0##F, sp = 1.0##F, sq = 0.0##F; \
    for (int k = 1; k < 200; ++k) { \
      const T odd = (T)(2 * k - 1); \
      const T nt = t * (mu - odd * odd) / ((T)k * 8.0##F * x); \
      if (fabs##F(nt) >= fabs##F(t) && (T)k > v + 1.0##F) break; \
      t = nt; \
      if (alt) { \
        /* k odd feeds Q with sign (-1)^((k-1)/2); k even feeds P with sign (-1)^(k/2). */ \
        const int j = k / 2; \
        const T s = (j % 2 == 0) ? 1.0##F : -1.0##F; \
        if (k % 2) sq += s * t; else sp += s * t; \
      } else { \
        sp += (k % 2 ? -t : t); \
      } \
      if (fabs##F(t) <= (T)(EPS) * fabs##F(sp)) break; \
    } \
    *p = sp; \
    *q = sq; \
  } \
  /* Whether the large-argument expansions serve (their smallest term is below EPS there). */ \
  static inline bool theano_sm2_bessel_large(T v, T x) { return x > 35.0##F && x > 0.6##F * v * v; } \
  /* J_v(x) for v >= 0, x >= 0. Small x: the power series (DLMF 10.2.2) while x^2 / 4 < 1 + v (little \
   * cancellation); large x: Hankel's expansion (DLMF 10.17.3), J = sqrt(2 / (pi x)) (P cos w - Q sin w), \
   * w = x - (v / 2 + 1 / 4) pi, with cos(x - phi) expanded so a large x keeps libm's argument reduction; \
   * between: Miller's backward recurrence J_{n-1} = (2n / x) J_n - J_{n+1} (DLMF 10.6.1) from an order \
   * well above max(v, x), normalized by (x / 2)^v0 = sum_k (v0 + 2k) Gamma(v0 + k) / k! J_{v0+2k}(x) \
   * (Gegenbauer's generalization of Neumann's expansion, DLMF 10.23.15 / Watson 5.21). */ \
  static inline T theano_sm2_jv_pos(T v, T x) { \
    if (x == 0) return v == 0 ? 1.0##F : 0.0##F; \
    if (x * x < 4.0##F * (1.0##F + v) || x < 1e-3##F) { \
      const T y = -0.25##F * x * x; \
      T t = 1.0##F, s = 1.0##F; \
      for (int k = 1; k < 500; ++k) { \
        t *= y / ((T)k * (v + (T)k)); \
        s += t; \
        if (fabs##F(t) <= (T)(EPS) * fabs##F(s)) break; \
      } \
      return s * exp##F(v * log##F(0.5##F * x) - theano_sm2_lgamma1p(v)); \
    } \
    if (theano_sm2_bessel_large(v, x)) { \
      T p, q; \
      theano_sm2_hankel(v, x, true, &p, &q); \
      /* phi = (v / 2 + 1 / 4) pi reduced modulo 2 pi. */ \
      const T turns = 0.5##F * v + 0.25##F; \
      const T phi = (turns - 2.0##F * floor##F(0.5##F * turns)) * 3.141592653589793238462643##F; \
      const T cw = cos##F(x) * cos##F(phi) + sin##F(x) * sin##F(phi); \
      const T sw = sin##F(x) * cos##F(phi) - cos##F(x) * sin##F(phi); \
      return sqrt##F(0.636619772367581343075535##F / x) * (p * cw - q * sw); \
    } \
    /* Miller: orders v0 + m, v0 = v - floor(v), m from M down to 0, f_v kept on the way; M past \
     * max(v, x) by 30 + 2 sqrt(x) (J_{v0+M} / J_v is then below EPS), capped at 200000 (beyond, \
     * x > 1e5 with v > sqrt(x / 0.6), the accuracy is not reached). Normalized at the base order v0, \
     * where the weights (v0 + 2k) Gamma(v0 + k) / (k! Gamma(v0 + 1)) stay below 2 and the sum has no \
     * cancellation: w_0 = 1, w_k = (v0 + 2k) c_k, c_1 = 1, c_k = c_{k-1} (v0 + k - 1) / k. */ \
    const T fl = floor##F(v), v0 = v - fl; \
    const T mf = (x > v ? x : v) + 30.0##F + 2.0##F * sqrt##F(x); \
    const int M = (mf < 200000.0##F ? (int)mf : 200000) / 2 * 2 + 2; \
    const int mv = (int)fl; \
    T c = 1.0##F; \
    for (int k = 2; k <= M / 2; ++k) c *= (v0 + (T)(k - 1)) / (T)k; \
    T fp1 = 0.0##F, f = (T)(TINY) * 1e10##F, sum = 0.0##F, fv = 0.0##F; \
    for (int m = M; m >= 1; --m) { \
      /* f is J_{v0+m} up to scale, fp1 is J_{v0+m+1}. */ \
      if (m == mv) fv = f; \
      if (m % 2 == 0) { \
        const int k = m / 2; \
        sum += (v0 + (T)m) * c * f; \
        c *= (T)k / (v0 + (T)(k - 1)); \
      } \
      const T fm1 = 2.0##F * (v0 + (T)m) / x * f - fp1; \
      fp1 = f; \
      f = fm1; \
      if (fabs##F(f) > (T)(BIG)) { \
        f *= (T)(TINY); fp1 *= (T)(TINY); sum *= (T)(TINY); fv *= (T)(TINY); \
      } \
    } \
    if (mv == 0) fv = f; \
    sum += f; /* w_0 J_v0 */ \
    return fv / sum * exp##F(v0 * log##F(0.5##F * x) - theano_sm2_lgamma1p(v0)); \
  } \
  /* jv(v, x): J_v(x) (SciPy's jv). x < 0: (-1)^v J_v(-x) for an integer v, else NaN; v < 0: J_{-n} = \
   * (-1)^n J_n for an integer order, else NaN (SciPy's reflection through Y_v is not provided); x = +-inf: \
   * 0; NaN: NaN. */ \
  static inline T theano_jv(T v, T x) { \
    if (v != v || x != x) return THEANO_NAN; \
    const bool vint = theano_sm2_is_int(v); \
    if ((v < 0 || x < 0) && !vint) return THEANO_NAN; \
    if (fabs##F(x) == (T)THEANO_INF) return 0.0##F; \
    const T av = fabs##F(v); \
    T r = theano_sm2_jv_pos(av, fabs##F(x)); \
    /* (-1)^n for v = -n, and again for x < 0: parity of the integer order. */ \
    const bool odd = vint && floor##F(0.5##F * av) != 0.5##F * av; \
    if (odd && (v < 0) != (x < 0)) r = -r; \
    return r; \
  } \
  static inline T theano_j0(T x) { return theano_jv(0.0##F, x); } \
  static inline T theano_j1(T x) { return theano_jv(1.0##F, x); } \
  /* I_v(x) e^-x for v >= 0, x >= 0: the power series (DLMF 10.25.2, every term positive) with its \
   * factor (x / 2)^v e^-x / Gamma(v + 1) in logs and the partial sum rescaled before it overflows; \
   * for large x the expansion DLMF 10.40.1, I_v e^-x = (2 pi x)^(-1/2) sum (-1)^k a_k(v) / x^k. */ \
  static inline T theano_sm2_ive_pos(T v, T x) { \
    if (x == 0) return v == 0 ? 1.0##F : 0.0##F; \
    if (theano_sm2_bessel_large(v, x)) { \
      T p, q; \
      theano_sm2_hankel(v, x, false, &p, &q); \
      return p / sqrt##F(6.283185307179586476925##F * x); \
    } \
    const T y = 0.25##F * x * x; \
    T t = 1.0##F, s = 1.0##F, lscale = 0.0##F; \
    for (int k = 1; k < 100000; ++k) { \
      t *= y / ((T)k * (v + (T)k)); \
      s += t; \
      if (t <= (T)(EPS) * s) break; \
      if (s > (T)(BIG)) { \
        s *= (T)(TINY); t *= (T)(TINY); lscale -= log##F((T)(TINY)); \
      } \
    } \
    return s * exp##F(v * log##F(0.5##F * x) - x - theano_sm2_lgamma1p(v) + lscale); \
  } \
  /* ive(v, x) = I_v(x) e^-|x| (SciPy's ive). x < 0: (-1)^v ive(v, -x) for an integer v, else NaN; v < 0: \
   * I_{-n} = I_n for an integer order, else NaN (SciPy's reflection through K_v is not provided); \
   * x = +-inf: 0 (the limit of I_v e^-|x|); NaN: NaN. */ \
  static inline T theano_ive(T v, T x) { \
    if (v != v || x != x) return THEANO_NAN; \
    const bool vint = theano_sm2_is_int(v); \
    if ((v < 0 || x < 0) && !vint) return THEANO_NAN; \
    if (fabs##F(x) == (T)THEANO_INF) return 0.0##F; \
    const T av = fabs##F(v); \
    const T r = theano_sm2_ive_pos(av, fabs##F(x)); \
    return (x < 0 && floor##F(0.5##F * av) != 0.5##F * av) ? -r : r; \
  } \
  /* iv(v, x) = I_v(x) (SciPy's iv): ive(v, x) e^|x|, inf where that overflows; x = +inf: inf, x = -inf: \
   * (-1)^v inf for an integer v. */ \
  static inline T theano_iv(T v, T x) { \
    if (v != v || x != x) return THEANO_NAN; \
    const bool vint = theano_sm2_is_int(v); \
    if ((v < 0 || x < 0) && !vint) return THEANO_NAN; \
    const T av = fabs##F(v); \
    const T sgn = (x < 0 && floor##F(0.5##F * av) != 0.5##F * av) ? -1.0##F : 1.0##F; \
    if (fabs##F(x) == (T)THEANO_INF) return sgn * (T)THEANO_INF; \
    const T ax = fabs##F(x); \
    const T r = theano_sm2_ive_pos(av, ax); \
    if (r == 0) return 0.0##F * sgn; \
    /* e^|x| in two halves so a result near the overflow threshold does not overflow early. */ \
    const T h = exp##F(0.5##F * ax); \
    return sgn * ((r * h) * h); \
  } \
  static inline T theano_i0(T x) { return theano_iv(0.0##F, x); } \
  static inline T theano_i1(T x) { return theano_iv(1.0##F, x); } \
  /* ---- the modified Bessel function of the second kind, K_v (DLMF 10.25, 10.32) ---- */ \
  /* K_mu(x) e^x and K_{mu+1}(x) e^x for |mu| <= 1/2, x > 0, from the integral K_v(x) = int_0^inf \
   * e^(-x cosh t) cosh(v t) dt (DLMF 10.32.9) by the trapezoidal rule, which converges geometrically for \
   * an integrand analytic in a strip and decaying doubly exponentially (Trefethen and Weideman, SIAM \
   * Review 56 (2014), section 5): step h = 1/4 (error ~ e^(-pi^2 / h)), narrowed as 1 / sqrt(x) for \
   * large x where the peak narrows; x (cosh t - 1) = 2 x sinh(t/2)^2 keeps the scaled form free of \
   * cancellation, every term is positive, and the sum stops past the peak once a term is below EPS of \
   * it. */ \
  static inline void theano_sm2_kve_base(T mu, T x, T* k0, T* k1) { \
    const T h = x > 2.0##F ? 0.25##F * sqrt##F(2.0##F / x) : 0.25##F; \
    const T nu1 = mu + 1.0##F; \
    const T peak = log##F(nu1 / x + sqrt##F(1.0##F + (nu1 / x) * (nu1 / x))); /* asinh(nu1 / x) */ \
    T s0 = 0.5##F, s1 = 0.5##F; /* the t = 0 node, halved */ \
    for (int k = 1; k < 100000; ++k) { \
      const T t = (T)k * h; \
      const T sh = sinh##F(0.5##F * t); \
      const T l = -2.0##F * x * sh * sh; \
      const T a0 = 0.5##F * (exp##F(l + mu * t) + exp##F(l - mu * t)); \
      const T a1 = 0.5##F * (exp##F(l + nu1 * t) + exp##F(l - nu1 * t)); \
      s0 += a0; \
      s1 += a1; \
      if (t > peak && a1 <= (T)(EPS) * s1 && a0 <= (T)(EPS) * s0) break; \
    } \
    *k0 = h * s0; \
    *k1 = h * s1; \
  } \
  /* K_v(x) e^x (scaled) or K_v(x) for v >= 0, x > 0: K_mu, K_mu+1 with v = n + mu, n = round(v), then \
   * the recurrence K_{j+1} = K_{j-1} + (2j / x) K_j (DLMF 10.29.1), stable upward (K is the dominant \
   * solution). Unscaled, e^-x is applied before the recurrence unless K_mu e^-x would underflow (a large \
   * order can bring K_v back into range from there), else after it (0 or inf where K_v is out of range). */ \
  static inline T theano_sm2_k_pos(T v, T x, bool scaled) { \
    const T n = floor##F(v + 0.5##F), mu = v - n; \
    T k0, k1; \
    theano_sm2_kve_base(mu, x, &k0, &k1); \
    bool pending = !scaled; \
    if (pending) { \
      const T e = exp##F(-x); \
      if (k0 * e > (T)(TINY) * 1e10##F) { \
        k0 *= e; \
        k1 *= e; \
        pending = false; \
      } \
    } \
    const int m = n < 1e6##F ? (int)n : 1000000; \
    for (int j = 1; j < m; ++j) { \
      const T k2 = k0 + 2.0##F * (mu + (T)j) / x * k1; \
      k0 = k1; \
      k1 = k2; \
    } \
    const T r = m == 0 ? k0 : k1; \
    if (!pending || r == (T)THEANO_INF) return r; \
    const T h = exp##F(-0.5##F * x); \
    return (r * h) * h; \
  } \
  /* kve(v, x) = K_v(x) e^x (SciPy's kve), K_-v = K_v: x < 0 or NaN: NaN; x = 0: inf; x = inf: 0. */ \
  static inline T theano_kve(T v, T x) { \
    if (v != v || !(x >= 0)) return THEANO_NAN; \
    if (x == 0) return THEANO_INF; \
    if (x == (T)THEANO_INF) return 0.0##F; \
    return theano_sm2_k_pos(fabs##F(v), x, true); \
  } \
  /* kv(v, x) = K_v(x) (SciPy's kv), with kve's edges. */ \
  static inline T theano_kv(T v, T x) { \
    if (v != v || !(x >= 0)) return THEANO_NAN; \
    if (x == 0) return THEANO_INF; \
    if (x == (T)THEANO_INF) return 0.0##F; \
    return theano_sm2_k_pos(fabs##F(v), x, false); \
  } \
  /* ---- the regularized incomplete beta function I_x(a, b) (DLMF 8.17) ---- */ \
  /* log(x^a (1 - x)^b / (a B(a, b))): the factor in front of the continued fraction. Both a, b >= 10: \
   * Stirling's series for the three log Gammas (DLMF 5.11.1) leaves -a (d1 - log(1 + d1)) - \
   * b (d2 - log(1 + d2)) + log(ab / (2 pi (a + b))) / 2 + s(a + b) - s(a) - s(b) with d1 = x / x0 - 1, \
   * d2 = (1 - x) / (1 - x0) - 1, x0 = a / (a + b) (the a log x + b log(1 - x) - log B cancellation done \
   * exactly, as for the incomplete gamma's factor); one of them >= 10: log Gamma(c + s) - log Gamma(c) \
   * = (c - 1/2) log(1 + s / c) + s log(c + s) - s + s(c + s) - s(c) for the large c, the small s; else \
   * the log Gammas directly. */ \
  static inline T theano_sm2_beta_lprefix(T a, T b, T x) { \
    const T c = a + b; \
    if (a >= 10.0##F && b >= 10.0##F) { \
      const T x0 = a / c; \
      return -a * theano_sm2_dlog(x, x0) - b * theano_sm2_dlog(1.0##F - x, b / c) + \
             0.5##F * log##F(a / 6.283185307179586476925##F * (b / c)) + theano_sm2_stirlerr(c) - theano_sm2_stirlerr(a) - \
             theano_sm2_stirlerr(b) - log##F(a); \
    } \
    /* -log a - log Gamma(a) = -log Gamma(1 + a), exact for small a (where the two cancel). */ \
    const T lx = a * log##F(x) + b * log1p##F(-x); \
    if (a < 10.0##F && b < 10.0##F) return lx - theano_sm2_lgamma1p(a) - lgamma##F(b) + lgamma##F(c); \
    const T big = a > b ? a : b, sm = a > b ? b : a; \
    const T g = (big - 0.5##F) * log1p##F(sm / big) + sm * log##F(c) - sm + theano_sm2_stirlerr(c) - theano_sm2_stirlerr(big); \
    return a < b ? lx + g - theano_sm2_lgamma1p(a) : lx + g - lgamma##F(b) - log##F(a); \
  } \
  /* The continued fraction of I_x(a, b) (DLMF 8.17.22): I = prefix / (1 + d1 / (1 + d2 / (1 + ...))), \
   * d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)), d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)), \
   * converging fast for x < (a + 1) / (a + b + 2). Evaluated through the three-term recurrences \
   * A_n = A_{n-1} + d_{n-1} A_{n-2} (and B_n) together with their derivatives in a and b, rescaled by \
   * B_n at each step (Boik and Robison-Cox 1998, "Derivatives of the incomplete beta function", J. Stat. \
   * Software 3(1)): returns f = 1 / (1 + d1 / ...) and, with derivs, df/da, df/db in *fa, *fb. */ \
  static inline T theano_sm2_beta_cf(T a, T b, T x, bool derivs, T* fa, T* fb) { \
    /* n = 1: A_1 = 1, B_1 = 1 (numerator 1 over 1 + ...); level 0: A_0 = 0, B_0 = 1. */ \
    T am2 = 0.0##F, am1 = 1.0##F, bm2 = 1.0##F, bm1 = 1.0##F; \
    T aam2 = 0.0##F, aam1 = 0.0##F, bam2 = 0.0##F, bam1 = 0.0##F; /* d/da of A, B */ \
    T abm2 = 0.0##F, abm1 = 0.0##F, bbm2 = 0.0##F, bbm1 = 0.0##F; /* d/db of A, B */ \
    T f = 1.0##F, dfa = 0.0##F, dfb = 0.0##F; \
    for (int n = 1; n < 20000; ++n) { \
      /* d_n and its derivatives. */ \
      T d, dda, ddb; \
      if (n % 2) { \
        const T m = (T)((n - 1) / 2); \
        const T p = a + 2.0##F * m; \
        d = -(a + m) * (a + b + m) * x / (p * (p + 1.0##F)); \
        dda = d * (1.0##F / (a + m) + 1.0##F / (a + b + m) - 1.0##F / p - 1.0##F / (p + 1.0##F)); \
        ddb = -(a + m) * x / (p * (p + 1.0##F)); \
      } else { \
        const T m = (T)(n / 2); \
        const T p = a + 2.0##F * m; \
        d = m * (b - m) * x / ((p - 1.0##F) * p); \
        dda = -d * (1.0##F / (p - 1.0##F) + 1.0##F / p); \
        ddb = m * x / ((p - 1.0##F) * p); \
      } \
      const T A = am1 + d * am2, B = bm1 + d * bm2; \
      const T Aa = aam1 + dda * am2 + d * aam2, Ba = bam1 + dda * bm2 + d * bam2; \
      const T Ab = abm1 + ddb * am2 + d * abm2, Bb = bbm1 + ddb * bm2 + d * bbm2; \
      const T r = 1.0##F / B; \
      am2 = am1 * r; bm2 = bm1 * r; aam2 = aam1 * r; bam2 = bam1 * r; abm2 = abm1 * r; bbm2 = bbm1 * r; \
      am1 = A * r; bm1 = 1.0##F; aam1 = Aa * r; bam1 = Ba * r; abm1 = Ab * r; bbm1 = Bb * r; \
      const T fn = am1, fan = aam1 - am1 * bam1, fbn = abm1 - am1 * bbm1; \
      /* The value to EPS; the derivatives (when wanted) to 64 EPS: each step rounds them afresh, so a \
       * tighter test could wait on rounding noise until the cap. */ \
      const T tol = (T)(EPS), dtol = 64.0##F * (T)(EPS); \
      const bool done = n > 2 && fabs##F(fn - f) <= tol * fabs##F(fn) && \
                        (!derivs || (fabs##F(fan - dfa) <= dtol * fabs##F(fan) && fabs##F(fbn - dfb) <= dtol * fabs##F(fbn))); \
      f = fn; \
      dfa = fan; \
      dfb = fbn; \
      if (done) break; \
    } \
    *fa = dfa; \
    *fb = dfb; \
    return f; \
  } \
  /* I_x(a, b) and, when wanted, its derivatives in a and b for a, b > 0, 0 < x < 1, through the \
   * continued fraction at (a, b, x), or at (b, a, 1 - x) past the mean x > (a + 1) / (a + b + 2) \
   * (I_x(a, b) = 1 - I_{1-x}(b, a)); d/da of the prefix: log x - 1/a - psi(a) + psi(a + b). */ \
  static inline T theano_sm2_betainc_core(T a, T b, T x, int wrt) { \
    bool swap = x > (a + 1.0##F) / (a + b + 2.0##F); \
    T p = swap ? b : a, q = swap ? a : b, y = swap ? 1.0##F - x : x; \
    T fp, fq; \
    T f = theano_sm2_beta_cf(p, q, y, wrt != 0, &fp, &fq); \
    T lpre = theano_sm2_beta_lprefix(p, q, y); \
    T pre = exp##F(lpre); \
    T v = pre * f; \
    if (swap && v > 0.75##F && y > 0.05##F) { \
      /* 1 - v would cancel (a small b puts I_x(a, b) near 0 past the mean): the fraction at (a, b, x) \
       * still converges there, more slowly. */ \
      swap = false; \
      p = a; q = b; y = x; \
      f = theano_sm2_beta_cf(p, q, y, wrt != 0, &fp, &fq); \
      lpre = theano_sm2_beta_lprefix(p, q, y); \
      pre = exp##F(lpre); \
      v = pre * f; \
    } \
    /* 1 - v as -expm1(log v): v near 1 (a tiny b past the mean) keeps the digits its logarithm has. */ \
    if (wrt == 0) return swap ? -expm1##F(lpre + log##F(f)) : v; \
    const T psum = theano_sm2_psi(p + q); \
    const T dp = v * (log##F(y) - 1.0##F / p - theano_sm2_psi(p) + psum) + pre * fp; \
    const T dq = v * (log1p##F(-y) - theano_sm2_psi(q) + psum) + pre * fq; \
    /* wrt 1: d/da, wrt 2: d/db of I_x(a, b); swapped, a is q and the sign flips. */ \
    if (wrt == 1) return swap ? -dq : dp; \
    return swap ? -dp : dq; \
  } \
  /* betainc(a, b, x): I_x(a, b) (SciPy's betainc). a, b > 0 and 0 <= x <= 1, else (or NaN) NaN; x = 0: 0; \
   * x = 1: 1. */ \
  static inline T theano_betainc(T a, T b, T x) { \
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1)) return THEANO_NAN; \
    if (a == (T)THEANO_INF || b == (T)THEANO_INF) return THEANO_NAN; \
    if (x == 0 || x == 1) return x; \
    return theano_sm2_betainc_core(a, b, x, 0); \
  } \
  /* d betainc / da and d betainc / db (PyTensor's BetaIncGrad): betainc's domain; 0 at x = 0 and 1. */ \
  static inline T theano_betainc_der_a(T a, T b, T x) { \
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1) || a == (T)THEANO_INF || b == (T)THEANO_INF) return THEANO_NAN; \
    if (x == 0 || x == 1) return 0.0##F; \
    return theano_sm2_betainc_core(a, b, x, 1); \
  } \
  static inline T theano_betainc_der_b(T a, T b, T x) { \
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1) || a == (T)THEANO_INF || b == (T)THEANO_INF) return THEANO_NAN; \
    if (x == 0 || x == 1) return 0.0##F; \
    return theano_sm2_betainc_core(a, b, x, 2); \
  } \
  /* ---- the inverses of the incomplete gamma functions in x ---- */ \
  /* The x >= 0 with P(a, x) = y (upper false) or Q(a, x) = y (upper true), 0 < y < 1, a > 0. The equation \
   * solved is the one whose side S (P or Q) is below 1/2, as log S(a, x) = log t, whose Newton steps \
   * converge in the tails too (S ~ e^-x or x^a there): step = (log S - log t) / (S' / S), S' = +-x^(a-1) \
   * e^-x / Gamma(a), in logs. Start: the small-x form P ~ x^a / Gamma(a + 1) below the median, else \
   * Wilson and Hilferty's cube-root normal approximation x ~ a (1 - 1/(9a) + z / (3 sqrt(a)))^3 \
   * (Didonato and Morris 1986, section 2), z from the logistic approximation of the normal quantile \
   * refined by two Newton steps on erfc; the steps stay inside a bracket [lo, hi] that every \
   * evaluation narrows, and are bisected geometrically when they leave it. A start below the smallest \
   * number is the answer (0). */ \
  static inline T theano_sm2_gammaincinv(T a, T y, bool upper) { \
    const bool use_q = upper ? y < 0.5##F : y > 0.5##F; /* solve Q = t rather than P = t */ \
    const T t = use_q ? (upper ? y : 1.0##F - y) : (upper ? 1.0##F - y : y); \
    const T lt = log##F(t), lga = lgamma##F(a); \
    /* Start. */ \
    const T lp = use_q ? log1p##F(-t) : lt; /* log P at the root */ \
    const T xs = exp##F((lp + theano_sm2_lgamma1p(a)) / a); \
    T x; \
    if (!use_q && xs < a) { \
      if (xs == 0) return 0.0##F; \
      x = xs; \
    } else { \
      /* z with Phi(z) = P: the logistic start, two Newton steps on erfc. */ \
      const T p = exp##F(lp); \
      T z = use_q ? -(lt - lp) / 1.702##F : (lp - log1p##F(-p)) / 1.702##F; \
      for (int i = 0; i < 2; ++i) { \
        const T phi = 0.5##F * erfc##F(-z * 0.7071067811865475244##F); \
        const T dens = 0.3989422804014326779##F * exp##F(-0.5##F * z * z); \
        if (dens > 0) z -= (phi - p) / dens; \
      } \
      const T w = 1.0##F - 1.0##F / (9.0##F * a) + z / (3.0##F * sqrt##F(a)); \
      x = w > 0.01##F ? a * w * w * w : xs; \
    } \
    if (!(x > 0) || x == (T)THEANO_INF) x = a; \
    T lo = 0.0##F, hi = (T)THEANO_INF; \
    for (int it = 0; it < 300; ++it) { \
      const T sv = use_q ? theano_gammaincc(a, x) : theano_gammainc(a, x); \
      const T ls = log##F(sv); \
      /* g increases with x in both cases. */ \
      const T g = use_q ? lt - ls : ls - lt; \
      if (g == 0) return x; \
      if (g < 0) lo = x; else hi = x; \
      /* d g / dx = S' / S = x^(a-1) e^-x / (Gamma(a) S), in logs. */ \
      const T dg = exp##F((a - 1.0##F) * log##F(x) - x - lga - ls); \
      T xn = x - g / dg; \
      if (!(xn > lo && xn < hi)) xn = hi == (T)THEANO_INF ? (lo > 0 ? 2.0##F * lo : 2.0##F * x + 1.0##F) \
                                                            : (lo > 0 ? sqrt##F(lo * hi) : 0.5##F * hi); \
      if (fabs##F(xn - x) <= 4.0##F * (T)(EPS) * xn) return xn; \
      x = xn; \
    } \
    return x; \
  } \
  /* gammaincinv(a, y): the x with gammainc(a, x) = y (SciPy's gammaincinv). a > 0 and 0 <= y <= 1, else \
   * NaN; y = 0: 0; y = 1: inf. gammainccinv(a, y): the x with gammaincc(a, x) = y; y = 0: inf; y = 1: 0. */ \
  static inline T theano_gammaincinv(T a, T y) { \
    if (!(a > 0) || !(y >= 0) || !(y <= 1) || a == (T)THEANO_INF) return THEANO_NAN; \
    if (y == 0) return 0.0##F; \
    if (y == 1) return THEANO_INF; \
    return theano_sm2_gammaincinv(a, y, false); \
  } \
  static inline T theano_gammainccinv(T a, T y) { \
    if (!(a > 0) || !(y >= 0) || !(y <= 1) || a == (T)THEANO_INF) return THEANO_NAN; \
    if (y == 0) return THEANO_INF; \
    if (y == 1) return 0.0##F; \
    return theano_sm2_gammaincinv(a, y, true); \
  }

#ifdef __cplusplus
namespace theano_f {
THEANO_SPECIAL_MATH2(double, , 1.1102230246251565e-16, 1e-300, 1e250, 1e5)
}  // namespace theano_f
namespace theano_s {
THEANO_SPECIAL_MATH2(float, f, 5.9604645e-08f, 1e-30f, 1e30f, 1e2f)
}  // namespace theano_s
#endif /* __cplusplus */

#endif /* THEANO_RUNTIME_KERNELS_SPECIAL_MATH2_H */
