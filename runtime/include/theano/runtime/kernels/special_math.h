/* \file
 * The special functions of the scalar table (erfinv, erfcinv, erfcx, logit,
 * xlogx, xlogy0, xlog1py, gamma, tri_gamma, polygamma, betaln, ndtr,
 * log_ndtr, ndtri), written ONCE for the three readers of scalar_math.h:
 * the scalar table's reference implementations (perform, constant folding)
 * include this header, and the code generator embeds its text, after the
 * prelude, in the host or CUDA units whose elementwise code calls one of its
 * functions (codegen/src/emit/lower/elemwise_exprs.cpp; kept out of the prelude,
 * which every unit compiles).
 *
 * Float and double forms come from one text, THEANO_SPECIAL_MATH(T, F), as
 * scalar_math.h's helpers: T the compute type, F the suffix of its libm
 * functions and literals; a constant that depends on the precision (an
 * overflow threshold, a series' cut) is selected with
 * sizeof(T). Functions whose double form calls a double-only helper
 * (polygamma through theano_digamma, betaln through lgamma) are written in
 * the double domain only, after the macro.
 *
 * Every formula is written here from the published mathematics (each
 * function cites its source); accuracy against Boost.Math, the behaviour at
 * the domain's edges and the command that measures them are in
 * docs/special-functions.md. Conventions: NaN in, NaN out; an argument
 * outside the domain gives NaN; a pole gives the two-sided limit when it has
 * one (+-inf) and NaN otherwise.
 *
 * Plain C-like C++ (namespaces, overloads), no standard header in generated
 * code: the libm functions called are the prelude's prototypes (built in
 * under NVRTC). x^2 is split exactly with fma (its rounding error is
 * fma(x, x, -x*x)), not with Dekker's multiply-and-subtract split: NVRTC's
 * --fmad fuses that split's x * c - x into one fma on a real GPU, which
 * breaks the split and cost float32 erfcx 40 ulps at x = -8.4 there.
 */
#ifndef THEANO_RUNTIME_KERNELS_SPECIAL_MATH_H
#define THEANO_RUNTIME_KERNELS_SPECIAL_MATH_H

#ifndef THEANO_GENERATED_CODE
#include "theano/runtime/kernels/scalar_math.h"
#endif

#define THEANO_SPECIAL_MATH(T, F) \
  /* exp(s * x * x) for s = +-1 or +-1/2, with x * x split exactly: x * x = p + e, p its rounded \
   * value and e = fma(x, x, -p) its rounding error, exact (the error-free product of Ogita, Rump \
   * and Oishi 2005), so exp(s x^2) = exp(s p) exp(s e) loses nothing to rounding x^2. For |x| up \
   * to the overflow of exp(x^2) (the callers cap |x|). */ \
  static inline T theano_sp_expsq(T x, T s) { \
    const T p = x * x; \
    const T e = fma##F(x, x, -p); \
    return exp##F(s * p) * exp##F(s * e); \
  } \
  /* erfcx(x) = exp(x^2) erfc(x). x >= 0: exp(x^2) erfc(x) below the point where erfc leaves the \
   * normal range (26 in double, 9 in float), above it the asymptotic series of Abramowitz & Stegun \
   * 7.1.23, 1 / (x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2 x^2)^k, to k = 10 (the next term is below \
   * 1e-14 of the sum in float at 9, 1e-24 in double at 26). x < 0: 2 exp(x^2) - erfcx(-x) \
   * (A&S 7.1.2), +inf where exp(x^2) overflows. */ \
  static inline T theano_sp_erfcx_pos(T x) { \
    if (x < (T)(sizeof(T) == 8 ? 26.0 : 9.0)) return theano_sp_expsq(x, 1.0##F) * erfc##F(x); \
    const T u = 0.5##F / x / x; \
    T s = 1.0##F; \
    for (int k = 10; k >= 1; --k) s = 1.0##F - (T)(2 * k - 1) * u * s; \
    return s * (0.56418958354775628695##F / x); \
  } \
  static inline T theano_erfcx(T x) { \
    if (x != x) return x; \
    if (x >= 0) return theano_sp_erfcx_pos(x); \
    if (x < (T)(sizeof(T) == 8 ? -26.7 : -9.5)) return THEANO_INF; \
    return 2.0##F * theano_sp_expsq(x, 1.0##F) - theano_sp_erfcx_pos(-x); \
  } \
  /* Starting point of erfinv(y), |y| < 1: Giles (2010), "Approximating the erfinv function" (GPU \
   * Computing Gems, Jade Edition), his single-precision polynomials in w = -log((1 - y)(1 + y)), \
   * relative error below 1e-7 for w < 16 (1 - |y| > 1e-7, the float range it was fitted on); the \
   * Newton steps below make it exact to the last bits. */ \
  static inline T theano_sp_erfinv_guess(T y) { \
    T w = -log##F((1.0##F - y) * (1.0##F + y)); \
    T p; \
    if (w < 5.0##F) { \
      w = w - 2.5##F; \
      p = 2.81022636e-08##F; \
      p = 3.43273939e-07##F + p * w; \
      p = -3.5233877e-06##F + p * w; \
      p = -4.39150654e-06##F + p * w; \
      p = 0.00021858087##F + p * w; \
      p = -0.00125372503##F + p * w; \
      p = -0.00417768164##F + p * w; \
      p = 0.246640727##F + p * w; \
      p = 1.50140941##F + p * w; \
    } else { \
      w = sqrt##F(w) - 3.0##F; \
      p = -0.000200214257##F; \
      p = 0.000100950558##F + p * w; \
      p = 0.00134934322##F + p * w; \
      p = -0.00367342844##F + p * w; \
      p = 0.00573950773##F + p * w; \
      p = -0.0076224613##F + p * w; \
      p = 0.00943887047##F + p * w; \
      p = 1.00167406##F + p * w; \
      p = 2.83297682##F + p * w; \
    } \
    return p * y; \
  } \
  /* erfinv(y) for |y| <= 1/2: Newton on erf(x) = y, x -= (erf(x) - y) sqrt(pi)/2 exp(x^2). */ \
  static inline T theano_sp_erfinv_central(T y) { \
    T x = theano_sp_erfinv_guess(y); \
    for (int i = 0; i < 4; ++i) { \
      const T dx = (erf##F(x) - y) * 0.88622692545275801365##F * exp##F(x * x); \
      x = x - dx; \
      if (fabs##F(dx) <= (T)(sizeof(T) == 8 ? 1e-10 : 1e-5) * fabs##F(x)) break; \
    } \
    return x; \
  } \
  /* erfcinv(q) for 0 < q <= 1/2. From Giles' guess at 1 - q (q > e^-16, where it is fitted): Newton \
   * on erfc(x) = q, x += (erfc(x) - q) sqrt(pi)/2 exp(x^2), whose step errs by under an ulp. Below: \
   * from the asymptote x^2 = L - log(pi L) / 2, L = -log q, of erfc(x) ~ exp(-x^2) / (x sqrt(pi)) \
   * (A&S 7.1.23), Newton on g(x) = log erfc(x) - log q = log erfcx(x) - x^2 + L, whose derivative \
   * is -2 / (sqrt(pi) erfcx(x)): the log keeps the steps well scaled down to the smallest q, and \
   * erfcx keeps erfc from underflowing. */ \
  static inline T theano_sp_erfcinv_tail(T q) { \
    const T L = -log##F(q); \
    const T tol = (T)(sizeof(T) == 8 ? 1e-10 : 1e-5); \
    if (L < 16.0##F) { \
      T x = theano_sp_erfinv_guess(1.0##F - q); \
      for (int i = 0; i < 4; ++i) { \
        const T dx = (erfc##F(x) - q) * 0.88622692545275801365##F * theano_sp_expsq(x, 1.0##F); \
        x = x + dx; \
        if (fabs##F(dx) <= tol * x) break; \
      } \
      return x; \
    } \
    T x = sqrt##F(L - 0.5##F * log##F(3.14159265358979323846##F * L)); \
    for (int i = 0; i < 8; ++i) { \
      const T e = theano_erfcx(x); \
      const T dx = (log##F(e) - x * x + L) * 0.88622692545275801365##F * e; \
      x = x + dx; \
      if (fabs##F(dx) <= tol * x) break; \
    } \
    return x; \
  } \
  /* erfinv(y): NaN outside [-1, 1], +-inf at +-1; |y| >= 1/2 through erfcinv(1 - |y|) (exact). */ \
  static inline T theano_erfinv(T y) { \
    if (y != y || y < -1.0##F || y > 1.0##F) return THEANO_NAN; \
    if (y == 1.0##F) return THEANO_INF; \
    if (y == -1.0##F) return -THEANO_INF; \
    const T a = fabs##F(y); \
    if (a <= 0.5##F) return theano_sp_erfinv_central(y); \
    const T x = theano_sp_erfcinv_tail(1.0##F - a); \
    return y < 0 ? -x : x; \
  } \
  /* erfcinv(q): NaN outside [0, 2], +inf at 0, -inf at 2; erfinv(1 - q) (exact) for q in [1/2, 3/2], \
   * the tail for q < 1/2 and -tail(2 - q) (exact) above 3/2. */ \
  static inline T theano_erfcinv(T q) { \
    if (q != q || q < 0 || q > 2.0##F) return THEANO_NAN; \
    if (q == 0) return THEANO_INF; \
    if (q == 2.0##F) return -THEANO_INF; \
    if (q < 0.5##F) return theano_sp_erfcinv_tail(q); \
    if (q > 1.5##F) return -theano_sp_erfcinv_tail(2.0##F - q); \
    return theano_sp_erfinv_central(1.0##F - q); \
  } \
  /* logit(x) = log(x / (1 - x)); within 1/4 of 1/2 as log1p((2x - 1) / (1 - x)), whose numerator is \
   * exact, so logit keeps its relative accuracy near its zero. -inf at 0, +inf at 1, NaN outside. */ \
  static inline T theano_logit(T x) { \
    const T r = fabs##F(x - 0.5##F) < 0.25##F ? log1p##F((2.0##F * x - 1.0##F) / (1.0##F - x)) \
                                              : log##F(x / (1.0##F - x)); \
    return r; \
  } \
  /* PyTensor's XlogX, XlogY0 and SciPy's xlog1py: 0 where x == 0 (also against log(0) or log(NaN)). */ \
  static inline T theano_xlogx(T x) { return x == 0 ? 0.0##F : x * log##F(x); } \
  static inline T theano_xlogy0(T x, T y) { return x == 0 ? 0.0##F : x * log##F(y); } \
  static inline T theano_xlog1py(T x, T y) { return x == 0 ? 0.0##F : x * log1p##F(y); } \
  /* sin(pi x) and cos(pi x) with the argument reduced exactly: x = n + d, n the nearest integer, \
   * |d| <= 1/2, and (-1)^n from the parity of n (every |x| >= 2^53 is an even integer); cos(pi d) \
   * as sin(pi (1/2 - |d|)) above |d| = 1/4 (exact difference), so cospi(n + 1/2) is 0. */ \
  static inline T theano_sp_sinpi(T x) { \
    const T n = nearbyint##F(x); \
    const T r = sin##F(3.14159265358979323846##F * (x - n)); \
    return floor##F(0.5##F * n) * 2.0##F != n ? -r : r; \
  } \
  static inline T theano_sp_cospi(T x) { \
    const T n = nearbyint##F(x); \
    const T a = fabs##F(x - n); \
    const T r = a > 0.25##F ? sin##F(3.14159265358979323846##F * (0.5##F - a)) \
                            : cos##F(3.14159265358979323846##F * a); \
    return floor##F(0.5##F * n) * 2.0##F != n ? -r : r; \
  } \
  /* Stirling's series for log Gamma(y) - ((y - 1/2) log y - y + log(2 pi) / 2) (DLMF 5.11.1, \
   * Abramowitz & Stegun 6.1.40): sum_k B_2k / (2k (2k - 1) y^(2k - 1)) to k = 8, for y >= 10 \
   * (the next term is below 2e-18 there). */ \
  static inline T theano_sp_stirling_tail(T y) { \
    const T r = 1.0##F / (y * y); \
    const T p = -3617.0##F / 122400.0##F; \
    const T s = ((((((p * r + 1.0##F / 156.0##F) * r - 691.0##F / 360360.0##F) * r + 1.0##F / 1188.0##F) * r - \
                   1.0##F / 1680.0##F) * r + 1.0##F / 1260.0##F) * r - 1.0##F / 360.0##F) * r + 1.0##F / 12.0##F; \
    return s / y; \
  } \
  /* Gamma(y) = lead(y) h(y)^2 for y >= 10, lead = sqrt(2 pi / y) exp(stirling_tail(y)) and \
   * h = y^(y/2) exp(-y/2): y/2 is exact, so no rounding of y is raised to a large power (the \
   * usual (y/e)^y would err by y ulp), and h stays finite past Gamma's own overflow. */ \
  static inline T theano_sp_gamma_lead(T y) { \
    return sqrt##F(6.28318530717958647693##F / y) * exp##F(theano_sp_stirling_tail(y)); \
  } \
  static inline T theano_sp_gamma_half(T y) { return pow##F(y, 0.5##F * y) * exp##F(-0.5##F * y); } \
  /* Gamma(x), scipy.special.gamma: x >= 10 by Stirling's series; 0 < x < 10 as \
   * Gamma(x + n) / (x (x + 1) ... (x + n - 1)) with x + n >= 10, corrected for the roundings of the \
   * sums x + k; x < 0 by the reflection \
   * Gamma(x) = -pi / (x sin(pi x) Gamma(-x)) (-x exact), divided factor by factor so a tiny \
   * result does not wait on Gamma(-x)'s overflow. +-inf at +-0 (C's tgamma), NaN at the negative \
   * integers and -inf, +inf above the overflow (171.62 in double, 35.04 in float). */ \
  static inline T theano_gamma(T x) { \
    if (x != x) return x; \
    if (x == 0) return 1.0##F / x; \
    if (x < 0) { \
      if (floor##F(x) == x) return THEANO_NAN; \
      /* 1/x - Euler's gamma near 0 (the next term, 0.99 x, is below the last bit there; the \
       * reflection's x sin(pi x) would underflow first). */ \
      if (x > -1e-9##F) return 1.0##F / x - 0.57721566490153286061##F; \
      const T y = -x; \
      const T k = -3.14159265358979323846##F / (x * theano_sp_sinpi(x)); \
      if (y < 10.0##F) return k / theano_gamma(y); \
      const T h = theano_sp_gamma_half(y); \
      return k / (theano_sp_gamma_lead(y) * h) / h; \
    } \
    if (x > (T)(sizeof(T) == 8 ? 171.7 : 35.1)) return THEANO_INF; \
    /* p (1 + c) = x (x + 1) ... (x + n - 1) and y + e = x + n to first order in the rounding \
     * errors of the sums (Knuth's TwoSum gives each exactly): uncorrected, the rounding of y alone \
     * cost psi(y) y ulp (10 ulp near x = 2). */ \
    T y = x, p = 1.0##F, c = 0.0##F, e = 0.0##F, k = 0.0##F; \
    while (y < 10.0##F) { \
      p = p * y; \
      c = c + e / y; \
      k = k + 1.0##F; \
      y = x + k; \
      const T bb = y - x; \
      e = (x - (y - bb)) + (k - bb); \
    } \
    const T h = theano_sp_gamma_half(y); \
    const T psi = log##F(y) - 0.5##F / y; \
    return theano_sp_gamma_lead(y) * h * h * (1.0##F + psi * e) / (p * (1.0##F + c)); \
  } \
  /* scale * Hurwitz zeta(s, x), scale * sum_j (x + j)^-s, for integer s >= 2 and x > 0 (the scale \
   * (polygamma's n!) enters every term, so n! zeta does not underflow before the product), by Euler-Maclaurin \
   * summation (DLMF 25.11.5 with 2.10.1): the terms below a = x + N >= s + 10 summed, the rest as \
   * a^(1-s) / (s-1) + a^-s / 2 + sum_k B_2k / (2k)! s (s+1) ... (s+2k-2) a^(-s-2k+1) to k = 10 \
   * (each term under a tenth of the one before at that a). Every term is positive; a^(1-s) is \
   * taken as scale a^((1-s)/2) a^((1-s)/2), so a large a underflows no earlier than the result; \
   * the rounding e of a = x + N enters as the tail's derivative, -a^-s e. */ \
  static inline T theano_sp_hurwitz_zeta(T s, T x0, T scale) { \
    if (x0 == (T)THEANO_INF) return 0.0##F; \
    /* x = x0 + j rounded, e its rounding error (Knuth's TwoSum); each power is corrected to first \
     * order, (x + e)^-s = x^-s (1 - s e / x): uncorrected, the rounding costs s ulp. */ \
    T sum = 0.0##F, x = x0, e = 0.0##F, j = 0.0##F; \
    while (x < s + 10.0##F) { \
      sum = sum + scale * pow##F(x, -s) * (1.0##F - s * e / x); \
      j = j + 1.0##F; \
      x = x0 + j; \
      const T bb = x - x0; \
      e = (x0 - (x - bb)) + (j - bb); \
    } \
    const T half = pow##F(x, 0.5##F - 0.5##F * s); \
    const T q = scale * half * half, p = q / x, r = 1.0##F / (x * x); \
    const T b[10] = {1.0##F / 12.0##F, -1.0##F / 720.0##F, 1.0##F / 30240.0##F, -1.0##F / 1209600.0##F, \
                     1.0##F / 47900160.0##F, -691.0##F / 1307674368000.0##F, 1.0##F / 74724249600.0##F, \
                     -3617.0##F / 10670622842880000.0##F, 43867.0##F / 5109094217170944000.0##F, \
                     -174611.0##F / 802857662698291200000.0##F}; \
    T f = s * p / x, tail = 0.0##F; \
    for (int k = 0; k < 10; ++k) { \
      tail = tail + b[k] * f; \
      f = f * (s + (T)(2 * k + 1)) * (s + (T)(2 * k + 2)) * r; \
    } \
    return sum + (q / (s - 1.0##F) + 0.5##F * p + tail - p * e); \
  } \
  /* tri_gamma(x) = psi'(x) = zeta(2, x); x < 0 by the reflection psi'(x) = pi^2 / sin^2(pi x) - \
   * psi'(1 - x) (DLMF 5.15.6). +inf at the poles x = 0, -1, -2, ... (psi' -> +inf from both sides), \
   * NaN at -inf. */ \
  static inline T theano_trigamma(T x) { \
    if (x != x) return x; \
    if (x <= 0) { \
      if (floor##F(x) == x) return x == -(T)THEANO_INF ? (T)THEANO_NAN : (T)THEANO_INF; \
      const T sp = theano_sp_sinpi(x); \
      return 9.86960440108935861883##F / (sp * sp) - theano_sp_hurwitz_zeta(2.0##F, 1.0##F - x, 1.0##F); \
    } \
    return theano_sp_hurwitz_zeta(2.0##F, x, 1.0##F); \
  } \
  /* ndtr(x), the standard normal CDF, 0.5 erfc(-x / sqrt 2) (A&S 26.2.29). Below -1 as \
   * 0.5 erfcx(-x / sqrt 2) exp(-x^2 / 2) with x^2 split exactly: erfc's argument would carry its \
   * rounding into the result x^2 times over (900 ulp at -30); 0 below -40 (under every subnormal). */ \
  static inline T theano_ndtr(T x) { \
    if (x != x) return x; \
    const T z = -x * 0.70710678118654752440##F; \
    if (x < -40.0##F) return 0.0##F; \
    if (x < -1.0##F) return 0.5##F * theano_erfcx(z) * theano_sp_expsq(x, -0.5##F); \
    return 0.5##F * erfc##F(z); \
  } \
  /* log_ndtr(x) = log(ndtr(x)): below -1 log(erfcx(-x / sqrt 2) / 2) - x^2 / 2, finite down to \
   * -inf's neighbourhood (no underflow); above 0 log1p(-ndtr(-x)), which keeps the tiny result's \
   * relative accuracy; log(ndtr(x)) between. */ \
  static inline T theano_log_ndtr(T x) { \
    if (x != x) return x; \
    if (x < -1.0##F) return log##F(0.5##F * theano_erfcx(-x * 0.70710678118654752440##F)) - 0.5##F * x * x; \
    if (x > 0) return log1p##F(-theano_ndtr(-x)); \
    return log##F(theano_ndtr(x)); \
  } \
  /* ndtri(p), the inverse of ndtr: -sqrt(2) erfcinv(2 p) (2 p exact). -inf at 0, +inf at 1, NaN \
   * outside [0, 1]. */ \
  static inline T theano_ndtri(T p) { return -1.41421356237309504880##F * theano_erfcinv(2.0##F * p); }

#ifdef __cplusplus
namespace theano_f {
THEANO_SPECIAL_MATH(double, )
/* polygamma(n, x) = psi^(n)(x), n a non-negative integer (NaN otherwise): n = 0 is psi (theano_digamma,
 * scalar_math.h), n = 1 tri_gamma, n >= 2 (-1)^(n+1) n! zeta(n + 1, x) for x > 0 (DLMF 5.15.2), and for
 * x < 0 the reflection psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)) (the n-th
 * derivative of psi(1 - x) - psi(x) = pi cot(pi x), DLMF 5.5.4), where P_0(c) = c and
 * P_(k+1)(c) = -(1 + c^2) P_k'(c) (d/dx cot(pi x) = -pi (1 + cot^2)); its coefficients are kept for
 * n <= 60, and larger n at x < 0 give NaN; n > 170 (n! overflows) gives NaN. Poles (x = 0, -1, ...): +inf for odd n (the two-sided
 * limit), NaN for even n (none). Double only: psi has no float form. */
static inline double theano_polygamma(double n, double x) {
  if (n != n || x != x || n < 0 || n > 170 || floor(n) != n) return THEANO_NAN;
  if (n == 0) return theano_digamma(x);
  if (n == 1) return theano_trigamma(x);
  const bool odd = floor(0.5 * n) * 2 != n;
  if (x <= 0 && floor(x) == x) return odd && x != -THEANO_INF ? THEANO_INF : THEANO_NAN;
  if (x > 0) {
    double fact = 1;  // n!
    for (double k = 2; k <= n; k += 1) fact *= k;
    return theano_sp_hurwitz_zeta(n + 1, x, odd ? fact : -fact);
  }
  if (n > 60) return THEANO_NAN;
  const int m = (int)n;
  double p[62];  // P_k's coefficients, p[j] of c^j
  for (int j = 0; j < 62; ++j) p[j] = 0;
  p[1] = 1;
  for (int k = 0; k < m; ++k) {  // P_(k+1) = -(1 + c^2) P_k', degree k + 2
    double d[62];
    for (int j = 0; j <= k + 1; ++j) d[j] = (j + 1 <= k + 1) ? (j + 1) * p[j + 1] : 0;
    for (int j = 0; j <= k + 2; ++j) p[j] = -((j <= k ? d[j] : 0) + (j >= 2 ? d[j - 2] : 0));
  }
  const double c = theano_sp_cospi(x) / theano_sp_sinpi(x);
  double v = 0;
  for (int j = m + 1; j >= 0; --j) v = v * c + p[j];
  const double reflected = theano_polygamma(n, 1 - x);
  return (odd ? -reflected : reflected) - pow(3.14159265358979323846, n + 1) * v;
}
/* betaln(a, b) = log|B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b) (scipy.special.betaln). For
 * 0 < a <= b with b >= 10 the large logs cancel analytically (Stirling, DLMF 5.11.1): with s = a + b
 * and c(y) = theano_sp_stirling_tail(y),
 *   a < 10:  lgamma(a) - (b - 1/2) log1p(a / b) - a log s + a + c(b) - c(s),
 *   a >= 10: log(2 pi) / 2 - log(s) / 2 + (a - 1/2) log(a / s) + (b - 1/2) log1p(-a / s)
 *            + c(a) + c(b) - c(s).
 * Both below 10: log(gamma(a)) + log(gamma(b) / gamma(a + b)), whose error is gamma's relative one
 * (lgamma(a) + lgamma(b) - lgamma(a + b) adds their absolute errors: 28 ulp of 1 near (0.1, 9)).
 * An argument <= 0 (or below 1e-300): the three lgammas, PyTensor's gammaln form. */
static inline double theano_betaln(double a, double b) {
  if (a != a || b != b) return THEANO_NAN;
  if (a > b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (a == 1) return -log(b);  // B(1, b) = 1 / b, exactly 0 at (1, 1)
  if (b == 1) return -log(a);
  if (a <= 0 || (b < 10 && a < 1e-300)) return lgamma(a) + lgamma(b) - lgamma(a + b);
  if (b < 10) return log(theano_gamma(a)) + log(theano_gamma(b) / theano_gamma(a + b));
  const double s = a + b;
  if (b == THEANO_INF) return -THEANO_INF;
  if (a < 10)
    return lgamma(a) - (b - 0.5) * log1p(a / b) - a * log(s) + a + theano_sp_stirling_tail(b) -
           theano_sp_stirling_tail(s);
  return 0.91893853320467274178 - 0.5 * log(s) + (a - 0.5) * log(a / s) + (b - 0.5) * log1p(-a / s) +
         theano_sp_stirling_tail(a) + theano_sp_stirling_tail(b) - theano_sp_stirling_tail(s);
}
}  // namespace theano_f
namespace theano_s {
THEANO_SPECIAL_MATH(float, f)
}  // namespace theano_s
#endif /* __cplusplus */

#endif /* THEANO_RUNTIME_KERNELS_SPECIAL_MATH_H */
