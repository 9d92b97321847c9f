/* \file
 * The scalar helpers the scalar table's C expressions name (theano_sigmoid,
 * theano_mod, ...), written ONCE for three readers: the scalar table's
 * reference implementations (compiler/src/tensor/scalar/scalar_table.cpp,
 * hence every Elemwise perform and constant folding) include this header, and
 * the code generator embeds this very file's text in the host prelude and the
 * CUDA prelude (codegen/src/emit/lower/prelude.cpp), so a generated loop and perform
 * compute an op with the same formula.
 *
 * Three compute domains, one namespace each, as the generated code selects
 * them (codegen/src/emit/lower/elemwise_exprs.cpp): theano_f (double), theano_s (float,
 * the float32 forms) and theano_i (int64, NumPy's integer semantics under
 * -fwrapv; no signed-overflow UB in these helpers). A helper with a float form
 * is written once, in THEANO_SCALAR_MATH(T, F), instantiated for double (F
 * empty) and float (F = f: expf, 1.0f, ...).
 *
 * tanh, sigmoid and softplus are written with exp/log and selects only: LLVM
 * 19's libmvec table maps exp and log but not tanh or log1p, so these forms
 * keep elementwise loops vectorized (docs/jit-and-cache.md, "Vectorization").
 * Their accuracy is within a few ulp of libm's; perform uses the same forms
 * (before, perform called std::tanh and other sigmoid/softplus formulas, so
 * its results and generated code's differed in the last bits).
 *
 * Plain C-like C++ (namespaces, overloads): no standard header in generated
 * code; the libm functions are the prelude's prototypes (built in under
 * NVRTC). THEANO_INF / THEANO_NAN come from the prelude (CUDA intrinsics
 * under NVRTC); the host gets GCC builtins below.
 */
#ifndef THEANO_RUNTIME_KERNELS_SCALAR_MATH_H
#define THEANO_RUNTIME_KERNELS_SCALAR_MATH_H

#ifndef THEANO_GENERATED_CODE
#include <math.h>
#include <stdint.h>
#endif

#ifndef THEANO_INF
#define THEANO_INF __builtin_inf()
#define THEANO_NAN __builtin_nan("")
#endif

/* The helpers with a double and a float form. T: the compute type; F: the
 * suffix of its libm functions and literals (empty for double, f for float). */
#define THEANO_SCALAR_MATH(T, F) \
  static inline T theano_sign(T x) { return x != x ? x : (T)((x > 0) - (x < 0)); } \
  static inline T theano_maximum(T a, T b) { return (a != a || a >= b) ? a : b; } \
  static inline T theano_minimum(T a, T b) { return (a != a || a <= b) ? a : b; } \
  static inline T theano_clip(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); } \
  /* log(1 + e) for 0 <= e <= 1 without log1p: log(u) * e / (u - 1) with u = 1 + e corrects the \
   * rounding of u (Goldberg); exact e when u rounds to 1. */ \
  static inline T theano_log1p_unit(T e) { \
    const T u = 1.0##F + e; \
    const T d = u - 1.0##F; \
    const T r = log##F(u) * (e / (d == 0 ? 1.0##F : d)); \
    return d == 0 ? e : r; \
  } \
  /* 1 / (1 + exp(-|x|)), mirrored for x < 0: no overflow, one exp. */ \
  static inline T theano_sigmoid(T x) { \
    const T e = exp##F(-fabs##F(x)); \
    const T r = 1.0##F / (1.0##F + e); \
    return x >= 0 ? r : e * r; \
  } \
  static inline T theano_softplus(T x) { return (x > 0 ? x : 0.0##F) + theano_log1p_unit(exp##F(-fabs##F(x))); } \
  /* x / (1 + |x|); above 1 in magnitude as sign(x) / (1 + 1 / |x|), so +-inf give +-1 (not inf / inf) \
   * and no intermediate overflows; NaN stays NaN. Selects only: the loop still vectorizes. */ \
  static inline T theano_softsign(T x) { \
    const T a = fabs##F(x); \
    const T big = (x > 0 ? 1.0##F : -1.0##F) / (1.0##F + 1.0##F / a); \
    return a > 1.0##F ? big : x / (1.0##F + a); \
  } \
  /* log(1 - exp(x)): log(-expm1(x)) for x > -ln 2, else log1p(-exp(x)) (Maechler 2012); NaN above 0. */ \
  static inline T theano_log1mexp(T x) { \
    return x > -0.693147180559945309417##F ? log##F(-expm1##F(x)) : log1p##F(-exp##F(x)); \
  } \
  /* The activations of Theano's nnet (compiler/include/theano/tensor/nnet.h), selects only so loops \
   * vectorize. relu: x above 0, else a * x; with a = 0 every non-NaN x <= 0 gives 0 (-inf too, not \
   * 0 * -inf); NaN stays NaN. */ \
  static inline T theano_relu(T x, T a) { return x > 0 ? x : ((a == 0 && x == x) ? 0.0##F : a * x); } \
  /* elu: x above 0, else a * (exp(x) - 1); -inf gives -a. */ \
  static inline T theano_elu(T x, T a) { return x > 0 ? x : a * expm1##F(x); } \
  /* selu: scale * elu(x, alpha) with the constants of Klambauer et al. (2017), as Theano has them \
   * (functions, so the scalar table's gradient reads the same numbers). */ \
  static inline T theano_selu_scale(void) { return 1.0507009873554804934193349852946##F; } \
  static inline T theano_selu_alpha(void) { return 1.6732632423543772848170429916717##F; } \
  static inline T theano_selu(T x) { return theano_selu_scale() * theano_elu(x, theano_selu_alpha()); } \
  /* Theano's hard_sigmoid: clip(0.2 x + 0.5, 0, 1). */ \
  static inline T theano_hard_sigmoid(T x) { return theano_clip(0.2##F * x + 0.5##F, 0.0##F, 1.0##F); } \
  /* Theano's ultra_fast_sigmoid: 0.5 (z + 1) with z a three-piece odd approximation of tanh(x / 2) \
   * (1.5 h / (1 + h) below h = 1.7, a line to h = 3, then a constant; h = |x| / 2). NaN stays NaN \
   * (Theano's branches gave 0.0025). */ \
  static inline T theano_ultra_fast_sigmoid_slope(void) { return 0.0458812946797165##F; } \
  static inline T theano_ultra_fast_sigmoid(T x) { \
    const T h = 0.5##F * fabs##F(x); \
    const T z = h < 1.7##F ? 1.5##F * h / (1.0##F + h) \
                           : (h < 3.0##F ? 0.935409070603099##F + theano_ultra_fast_sigmoid_slope() * (h - 1.7##F) \
                                         : 0.99505475368673##F); \
    return x != x ? x : 0.5##F * ((x >= 0 ? z : -z) + 1.0##F); \
  } \
  /* Theano's sigmoid_binary_crossentropy from logits x and targets t: softplus(-|x|) + x ((x > 0) - t), \
   * which never overflows; the product is 0 where its factor is, so x = +-inf with the matching \
   * target gives 0 (not inf * 0). */ \
  static inline T theano_sigmoid_binary_crossentropy(T x, T t) { \
    const T d = (x > 0 ? 1.0##F : 0.0##F) - t; \
    return theano_softplus(-fabs##F(x)) + (d == 0 ? 0.0##F : x * d); \
  }

#ifdef __cplusplus
/* The double compute domain. */
namespace theano_f {
THEANO_SCALAR_MATH(double, )
static inline double theano_floor_div(double a, double b) { return floor(a / b); }
static inline double theano_mod(double a, double b) {
  double r = fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* tanh per precision (the coefficients are the precision's). |x| < 0.625:
 * x + x^3 P(x^2)/Q(x^2) (a minimax rational form, Cephes' coefficients); else
 * sign(x) (e - 1)/(e + 1) with e = exp(2|x|), which has no cancellation there.
 * One division serves both branches (division throughput bounds the
 * vectorized loop); |x| is capped at 40, where tanh is 1 in double, so e stays
 * finite. */
static inline double theano_tanh(double x) {
  const double z = x * x;
  const double p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3;
  const double q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3;
  const double a = fabs(x);
  const bool small = a < 0.625;
  const double e = exp(2.0 * (a > 40.0 ? 40.0 : a));
  const double r = (small ? x * z * p : e - 1.0) / (small ? q : e + 1.0);
  return small ? x + r : (x < 0 ? -r : r);
}
static inline bool isnan(double x) { return x != x; }
static inline bool isinf(double x) { return x == THEANO_INF || x == -THEANO_INF; }
/* Digamma by reflection, recurrence and the asymptotic series (accurate to
 * ~1e-12 for x > 0). */
static inline double theano_digamma(double x) {
  if (x != x || x == -THEANO_INF) return THEANO_NAN;
  if (x <= 0 && floor(x) == x) return THEANO_NAN;
  const double pi = 3.14159265358979323846;
  double r = 0;
  if (x < 0) {
    r = -pi / tan(pi * x);
    x = 1 - x;
  }
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
}  // namespace theano_f

/* The float compute domain (the float32 forms; tensor::computes_in_float32). */
namespace theano_s {
THEANO_SCALAR_MATH(float, f)
/* |x| < 0.625: x + x^3 P(x^2) (Cephes' tanhf polynomial, no division); else
 * sign(x) (e - 1) / (e + 1), e = exp(2|x|) with |x| capped at 10 (tanh is 1
 * in float there, and e stays finite). */
static inline float theano_tanh(float x) {
  const float a = fabsf(x), z = x * x;
  const float p = (((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
                  3.33332819422e-1f;
  const float e = expf(2.0f * (a > 10.0f ? 10.0f : a));
  const float big = (e - 1.0f) / (e + 1.0f);
  return a < 0.625f ? x + x * z * p : (x < 0 ? -big : big);
}
}  // namespace theano_s

/* The int64 compute domain: NumPy's integer semantics, wrapping like C under
 * -fwrapv but written without signed-overflow UB. */
namespace theano_i {
/* Floor division; x // 0 is 0 (NumPy's result, with a warning there). */
static inline int64_t theano_floor_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)((uint64_t)0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
/* Python's modulo (the sign of the divisor); x % 0 is 0. */
static inline int64_t theano_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
/* Exponentiation by squaring, wrapping on overflow; a negative exponent gives
 * 1 (perform rejects it before calling). */
static inline int64_t pow(int64_t base, int64_t e) {
  uint64_t result = 1, b = (uint64_t)base;
  while (e > 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return (int64_t)result;
}
static inline int64_t fabs(int64_t x) { return x < 0 ? (int64_t)((uint64_t)0 - (uint64_t)x) : x; }
static inline int64_t theano_sign(int64_t x) { return (x > 0) - (x < 0); }
static inline int64_t theano_maximum(int64_t a, int64_t b) { return a < b ? b : a; }
static inline int64_t theano_minimum(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t theano_clip(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline bool isnan(int64_t) { return false; }
static inline bool isinf(int64_t) { return false; }
}  // namespace theano_i
#endif /* __cplusplus */

#endif /* THEANO_RUNTIME_KERNELS_SCALAR_MATH_H */
