/* \file
 * The samplers of RandomFunction's continuous distributions beyond uniform
 * and normal (theano/tensor/random.h lists them with their parameters), the
 * helpers every later sampler builds on (open uniforms, Box-Muller, gamma)
 * and the wording of a broken parameter rule; random_discrete.h holds the
 * discrete ones and the row samplers (categorical, multinomial, permutation).
 * Written ONCE, as plain C, for three readers: perform
 * (compiler/src/tensor/random/distributions.cpp), the generated C++ and the
 * CUDA form (codegen/src/emit/lower/random.cpp and gpu_random.cpp embed this
 * very text after random_kernels.h, which it builds on, and before
 * random_discrete.h). docs/random.md describes each algorithm and its source.
 *
 * Per distribution X with parameters p[0..n):
 *   double theano_rv_X(TheanoSubStream* s, const double* p)
 *     draws element i from element i's own substream `s` (random_kernels.h),
 *     so a draw is a pure function of (call key, i, parameters) on any device;
 *   int theano_rv_X_check(const double* p, const char** rule)
 *     the parameter rule: 0 when p is valid, else 1 + the index of the bad
 *     parameter, with *rule the requirement it breaks ("must be > 0"); NaN
 *     fails every rule (they are written as !(valid)). perform and the
 *     generated code both call it and word the error with theano_rv_message.
 * Discrete samplers return whole numbers as doubles, capped at
 * THEANO_RV_COUNT_MAX (the largest double below 2^63) so the int64 output
 * conversion is defined.
 *
 * Rejection loops stop after THEANO_RV_MAX_TRIES proposals and return NaN
 * (THEANO_RV_NAN); every sampler here accepts a proposal with probability
 * above 0.3, so that needs more than 1e-150 bad luck (docs/random.md).
 *
 * CPU = GPU: the same text, compiled without FMA contraction on both sides,
 * reads the same Philox words, so the host-emulated device draws perform's
 * values bit for bit. On a real GPU, libm's log / exp / cos / lgamma / pow
 * may differ from the host's in the last ulp; an inverse-CDF draw then
 * differs by about an ulp, and a rejection test that lands within an ulp of
 * its bound can take the other branch (a different, equally valid draw).
 */
#ifndef THEANO_TENSOR_RANDOM_DISTRIBUTIONS_H
#define THEANO_TENSOR_RANDOM_DISTRIBUTIONS_H

#ifndef THEANO_GENERATED_CODE
#include "theano/runtime/kernels/random_kernels.h"
#define THEANO_RV_NAN NAN
#else
#define THEANO_RV_NAN THEANO_NAN
#endif

#define THEANO_RV_MAX_TRIES 1000
#define THEANO_RV_PI 3.141592653589793
#define THEANO_RV_COUNT_MAX 0x1.fffffffffffffp+62

/* ---------------------------------------------------------------- helpers */

/* Uniform on the open interval (0, 1): 53 bits, centred in its cell. */
static inline double theano_rv_open(TheanoSubStream* s) {
  THEANO_FP_EXACT
  return ((double)(theano_sub_next64(s) >> 11) + 0.5) * 0x1p-53;
}
/* Standard normal by Box-Muller (the cosine half; two 64-bit values). */
static inline double theano_rv_std_normal(TheanoSubStream* s) {
  THEANO_FP_EXACT
  const double u1 = 1.0 - theano_sub_double(s); /* (0, 1]: log is finite */
  const double u2 = theano_sub_double(s);
  return sqrt(-2.0 * log(u1)) * cos(2.0 * THEANO_RV_PI * u2);
}
/* A whole-number draw, capped so that its int64 conversion is defined. */
static inline double theano_rv_count(double x) { return x < THEANO_RV_COUNT_MAX ? x : THEANO_RV_COUNT_MAX; }
/* log k! by lgamma (exact at 0 and 1). */
static inline double theano_rv_logfactorial(double k) { return k < 2 ? 0.0 : lgamma(k + 1.0); }

/* Marsaglia & Tsang (2000), "A simple method for generating gamma
 * variables", for shape a >= 1: d = a - 1/3, c = 1/sqrt(9d); x normal,
 * v = (1 + c x)^3, accept d v when u < 1 - 0.0331 x^4 (squeeze) or
 * log u < x^2/2 + d (1 - v + log v). Acceptance >= 0.95. */
static inline double theano_rv_mt_gamma(TheanoSubStream* s, double a) {
  THEANO_FP_EXACT
  const double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  int t;
  for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
    const double x = theano_rv_std_normal(s);
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = theano_sub_double(s);
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) return d * v;
  }
  return THEANO_RV_NAN;
}
/* Standard gamma(a), a >= 0; for a < 1 Marsaglia & Tsang's boost
 * G(a) = G(a + 1) U^(1/a) (U uniform on (0, 1), drawn after G(a + 1)). */
static inline double theano_rv_std_gamma(TheanoSubStream* s, double a) {
  THEANO_FP_EXACT
  if (a == 0) return 0.0;
  if (a < 1) {
    const double g = theano_rv_mt_gamma(s, a + 1.0);
    return g * pow(theano_rv_open(s), 1.0 / a);
  }
  return theano_rv_mt_gamma(s, a);
}
/* log of a standard gamma(a) draw, a > 0, the same draws as theano_rv_std_gamma
 * (the boost's U^(1/a) in logs, so tiny shapes do not underflow to 0). */
static inline double theano_rv_log_std_gamma(TheanoSubStream* s, double a) {
  THEANO_FP_EXACT
  if (a < 1) {
    const double g = theano_rv_mt_gamma(s, a + 1.0);
    return log(g) + log(theano_rv_open(s)) / a;
  }
  return log(theano_rv_mt_gamma(s, a));
}

/* ---------------------------------------------------- error messages */

/* Appends `t` to out[*pos..cap) (always 0-terminated). */
static inline void theano_rv_put(char* out, int* pos, int cap, const char* t) {
  while (*t && *pos < cap - 1) out[(*pos)++] = *t++;
  out[*pos] = 0;
}
static inline void theano_rv_put_int(char* out, int* pos, int cap, int64_t v) {
  char rev[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    rev[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u != 0);
  char buf[26];
  int k = 0;
  if (v < 0) buf[k++] = '-';
  while (n > 0) buf[k++] = rev[--n];
  buf[k] = 0;
  theano_rv_put(out, pos, cap, buf);
}
/* A parameter value for a message: whole numbers below 1e15 exactly, else six
 * significant digits as printf's %g ("0.25", "-1.5e-07", "3.14159e+20"), nan,
 * inf. */
static inline void theano_rv_put_double(char* out, int* pos, int cap, double v) {
  if (v != v) return theano_rv_put(out, pos, cap, "nan");
  if (v < 0) {
    theano_rv_put(out, pos, cap, "-");
    v = -v;
  }
  if (v > 1.7976931348623157e308) return theano_rv_put(out, pos, cap, "inf");
  if (v == floor(v) && v < 1e15) return theano_rv_put_int(out, pos, cap, (int64_t)v);
  int e = (int)floor(log10(v));
  int64_t m = (int64_t)floor(v / pow(10.0, e - 5) + 0.5); /* 6 digits */
  if (m >= 1000000) {
    m /= 10;
    ++e;
  }
  char d[7];
  int k;
  for (k = 5; k >= 0; --k) {
    d[k] = (char)('0' + (int)(m % 10));
    m /= 10;
  }
  int last = 5; /* trailing zeros dropped */
  while (last > 0 && d[last] == '0') --last;
  char buf[32];
  int n = 0;
  if (e >= -4 && e < 6) {
    if (e < 0) {
      buf[n++] = '0';
      buf[n++] = '.';
      for (k = -1; k > e; --k) buf[n++] = '0';
      for (k = 0; k <= last; ++k) buf[n++] = d[k];
    } else {
      for (k = 0; k <= (last > e ? last : e); ++k) {
        if (k == e + 1) buf[n++] = '.';
        buf[n++] = k <= 5 ? d[k] : '0';
      }
    }
    buf[n] = 0;
    return theano_rv_put(out, pos, cap, buf);
  }
  buf[n++] = d[0];
  if (last > 0) buf[n++] = '.';
  for (k = 1; k <= last; ++k) buf[n++] = d[k];
  buf[n++] = 'e';
  buf[n++] = e < 0 ? '-' : '+';
  if (e < 0) e = -e;
  if (e < 10) buf[n++] = '0';
  buf[n] = 0;
  theano_rv_put(out, pos, cap, buf);
  theano_rv_put_int(out, pos, cap, e);
}
/* "<prefix><param>[<i>] = <value> <rule>": a failed parameter rule of sample
 * element i (C order), as perform and the generated code both word it; with
 * j >= 0 (categorical's category j) "<param>[<i>][<j>] = ...". */
static inline void theano_rv_message_at(char* out, int cap, const char* prefix, const char* param, int64_t i,
                                        int64_t j, double value, const char* rule) {
  int pos = 0;
  out[0] = 0;
  theano_rv_put(out, &pos, cap, prefix);
  theano_rv_put(out, &pos, cap, param);
  theano_rv_put(out, &pos, cap, "[");
  theano_rv_put_int(out, &pos, cap, i);
  if (j >= 0) {
    theano_rv_put(out, &pos, cap, "][");
    theano_rv_put_int(out, &pos, cap, j);
  }
  theano_rv_put(out, &pos, cap, "] = ");
  theano_rv_put_double(out, &pos, cap, value);
  theano_rv_put(out, &pos, cap, " ");
  theano_rv_put(out, &pos, cap, rule);
}
static inline void theano_rv_message(char* out, int cap, const char* prefix, const char* param, int64_t i,
                                     double value, const char* rule) {
  theano_rv_message_at(out, cap, prefix, param, i, -1, value, rule);
}

/* Rule helpers: set *rule and return the 1-based parameter index. */
#define THEANO_RV_RULE(cond, k, text) \
  if (!(cond)) {                      \
    *rule = text;                     \
    return (k) + 1;                   \
  }

/* ------------------------------------------------ continuous, scalar */

/* exponential(scale): inversion, -scale log(1 - u). */
static inline int theano_rv_exponential_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] >= 0, 0, "must be >= 0");
  return 0;
}
static inline double theano_rv_exponential(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return -p[0] * log(1.0 - theano_sub_double(s));
}

/* laplace(loc, scale): inversion of the two exponential halves. */
static inline int theano_rv_laplace_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] == p[0], 0, "must not be NaN");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_laplace(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double u = theano_rv_open(s);
  return u < 0.5 ? p[0] + p[1] * log(2.0 * u) : p[0] - p[1] * log(2.0 - 2.0 * u);
}

/* logistic(loc, scale): inversion, loc + scale log(u / (1 - u)). */
static inline int theano_rv_logistic_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] == p[0], 0, "must not be NaN");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_logistic(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double u = theano_rv_open(s);
  return p[0] + p[1] * log(u / (1.0 - u));
}

/* lognormal(mean, sigma): exp(mean + sigma z), z standard normal. */
static inline int theano_rv_lognormal_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] == p[0], 0, "must not be NaN");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_lognormal(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return exp(p[0] + p[1] * theano_rv_std_normal(s));
}

/* cauchy(loc, scale): inversion, loc + scale tan(pi (u - 1/2)). */
static inline int theano_rv_cauchy_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] == p[0], 0, "must not be NaN");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_cauchy(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return p[0] + p[1] * tan(THEANO_RV_PI * (theano_rv_open(s) - 0.5));
}

/* gamma(shape, scale): scale * standard gamma(shape) (Marsaglia & Tsang). */
static inline int theano_rv_gamma_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] >= 0, 0, "must be >= 0");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_gamma(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return p[1] * theano_rv_std_gamma(s, p[0]);
}

/* beta(a, b): X / (X + Y), X ~ gamma(a), Y ~ gamma(b), in logs:
 * 1 / (1 + exp(log Y - log X)). */
static inline int theano_rv_beta_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0, 0, "must be > 0");
  THEANO_RV_RULE(p[1] > 0, 1, "must be > 0");
  return 0;
}
static inline double theano_rv_beta(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double lx = theano_rv_log_std_gamma(s, p[0]);
  const double ly = theano_rv_log_std_gamma(s, p[1]);
  return 1.0 / (1.0 + exp(ly - lx));
}

/* chisquare(df): 2 * standard gamma(df / 2). */
static inline int theano_rv_chisquare_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0, 0, "must be > 0");
  return 0;
}
static inline double theano_rv_chisquare(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return 2.0 * theano_rv_std_gamma(s, p[0] / 2.0);
}

/* standard_t(df): z sqrt(df / 2) / sqrt(G), z normal, G ~ gamma(df / 2)
 * (z / sqrt(chi2(df) / df)). */
static inline int theano_rv_standard_t_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0, 0, "must be > 0");
  return 0;
}
static inline double theano_rv_standard_t(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double z = theano_rv_std_normal(s);
  const double g = theano_rv_std_gamma(s, p[0] / 2.0);
  return sqrt(p[0] / 2.0) * z / sqrt(g);
}

/* vonmises(mu, kappa): Best & Fisher (1979), "Efficient simulation of the von
 * Mises distribution" (numpy's form: kappa < 1e-8 uniform on (-pi, pi);
 * kappa < 1e-5 the second-order r; kappa > 1e6 a wrapped normal of variance
 * 1 / kappa); the result wrapped into [-pi, pi). Acceptance >= 0.65. */
static inline int theano_rv_vonmises_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] - p[0] == 0, 0, "must be finite");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  return 0;
}
static inline double theano_rv_vonmises(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double mu = p[0], kappa = p[1];
  double w = 0, r;
  int t;
  if (kappa < 1e-8) return THEANO_RV_PI * (2.0 * theano_sub_double(s) - 1.0);
  if (kappa > 1e6) {
    r = mu + sqrt(1.0 / kappa) * theano_rv_std_normal(s);
  } else {
    double sr;
    if (kappa < 1e-5) {
      sr = 1.0 / kappa + kappa;
    } else {
      const double tau = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa);
      const double rho = (tau - sqrt(2.0 * tau)) / (2.0 * kappa);
      sr = (1.0 + rho * rho) / (2.0 * rho);
    }
    for (t = 0;; ++t) {
      if (t == THEANO_RV_MAX_TRIES) return THEANO_RV_NAN;
      const double z = cos(THEANO_RV_PI * theano_sub_double(s));
      w = (1.0 + sr * z) / (sr + z);
      const double y = kappa * (sr - w);
      const double v = theano_sub_double(s);
      if (y * (2.0 - y) - v >= 0 || log(y / v) + 1.0 - y >= 0) break;
    }
    const double u = theano_sub_double(s);
    r = acos(w);
    if (u < 0.5) r = -r;
    r += mu;
  }
  /* wrap into [-pi, pi) */
  r = fmod(r + THEANO_RV_PI, 2.0 * THEANO_RV_PI);
  if (r < 0) r += 2.0 * THEANO_RV_PI;
  return r - THEANO_RV_PI;
}

/* The standard normal truncated to [a, b], 0 <= a < b (b may be inf):
 * Robert (1995), "Simulation of truncated normal variables": the
 * translated-exponential proposal of rate lam = (a + sqrt(a^2 + 4)) / 2,
 * accepted with exp(-(z - lam)^2 / 2), or, when the interval is narrower than
 * sqrt(e) / lam * exp(-a / (2 lam)) (Robert's comparison of the two
 * acceptance rates), the uniform proposal on [a, b] accepted with
 * exp((a^2 - z^2) / 2). */
static inline double theano_rv_tn_tail(TheanoSubStream* s, double a, double b) {
  THEANO_FP_EXACT
  const double root = a > 1 ? a * sqrt(1.0 + 4.0 / (a * a)) : sqrt(a * a + 4.0);
  const double lam = (a + root) / 2.0;
  const int uniform = b - a < sqrt(2.718281828459045) / lam * exp(-a / (2.0 * lam));
  int t;
  for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
    if (uniform) {
      const double z = a + (b - a) * theano_sub_double(s);
      if (theano_sub_double(s) <= exp(-(z - a) * (z + a) / 2.0)) return z;
    } else {
      const double z = a - log(theano_rv_open(s)) / lam;
      const double u = theano_sub_double(s);
      if (z > b) continue;
      if (u <= exp(-(z - lam) * (z - lam) / 2.0)) return z;
    }
  }
  return THEANO_RV_NAN;
}
/* The standard normal truncated to [a, b], a < b: the tail sampler on the
 * side away from 0, or, when 0 is inside, the uniform proposal accepted with
 * exp(-z^2 / 2) for b - a < sqrt(2 pi), else normal draws until one lands
 * in [a, b] (acceptance > 0.49 either way). */
static inline double theano_rv_tn_std(TheanoSubStream* s, double a, double b) {
  THEANO_FP_EXACT
  int t;
  if (a >= 0) return theano_rv_tn_tail(s, a, b);
  if (b <= 0) return -theano_rv_tn_tail(s, -b, -a);
  for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
    if (b - a < 2.5066282746310002) {
      const double z = a + (b - a) * theano_sub_double(s);
      if (theano_sub_double(s) <= exp(-z * z / 2.0)) return z;
    } else {
      const double z = theano_rv_std_normal(s);
      if (z >= a && z <= b) return z;
    }
  }
  return THEANO_RV_NAN;
}
/* truncated_normal(loc, scale, lower, upper): loc + scale z, z the standard
 * normal truncated to [(lower - loc) / scale, (upper - loc) / scale];
 * clamped into [lower, upper] against the last rounding. */
static inline int theano_rv_truncated_normal_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] - p[0] == 0, 0, "must be finite");
  THEANO_RV_RULE(p[1] > 0 && p[1] - p[1] == 0, 1, "must be > 0 and finite");
  THEANO_RV_RULE(p[2] == p[2] && p[2] < p[3], 2, "must be < upper");
  THEANO_RV_RULE(p[3] == p[3], 3, "must not be NaN");
  return 0;
}
static inline double theano_rv_truncated_normal(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const double z = theano_rv_tn_std(s, (p[2] - p[0]) / p[1], (p[3] - p[0]) / p[1]);
  const double x = p[0] + p[1] * z;
  return x < p[2] ? p[2] : x > p[3] ? p[3] : x;
}

/* loggamma(alpha): log of a standard gamma(alpha) draw (scipy's loggamma
 * with c = alpha), in logs for alpha < 1 (theano_rv_log_std_gamma), so a
 * tiny alpha gives a very negative finite value, not log 0. dirichlet is its
 * softmax along the categories. */
static inline int theano_rv_loggamma_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0 && p[0] - p[0] == 0, 0, "must be > 0 and finite");
  return 0;
}
static inline double theano_rv_loggamma(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  return theano_rv_log_std_gamma(s, p[0]);
}

#endif /* THEANO_TENSOR_RANDOM_DISTRIBUTIONS_H */
