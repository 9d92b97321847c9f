/* \file
 * The samplers of RandomFunction's discrete distributions (poisson,
 * geometric, negative_binomial, hypergeometric) and its row samplers, those
 * that read or write a whole row along a core axis (categorical: a row of
 * weights in; multinomial: weights in, counts out; permutation: indices
 * out). Split from random_distributions.h (the continuous ones, the gamma and
 * normal helpers and the error wording), which it builds on and follows in
 * the generated units; the conventions (theano_rv_X / theano_rv_X_check, the
 * substreams, bounded rejection, CPU = GPU) are that file's. Readers:
 * perform (compiler/src/tensor/random/distributions.cpp), the generated C++
 * (codegen/src/emit/lower/random.cpp) and the CUDA form (gpu_random.cpp).
 * docs/random.md describes each algorithm and its source.
 */
#ifndef THEANO_TENSOR_RANDOM_DISCRETE_H
#define THEANO_TENSOR_RANDOM_DISCRETE_H

#ifndef THEANO_GENERATED_CODE
#include "theano/runtime/kernels/random_distributions.h"
#endif

/* Poisson(lam), lam >= 0: multiplication (inversion by products of
 * uniforms, Knuth) for lam < 10; Hormann (1993) PTRS, "The transformed
 * rejection method for generating Poisson random variables", otherwise
 * (numpy's constants; acceptance > 0.85). */
static inline double theano_rv_poisson_draw(TheanoSubStream* s, double lam) {
  THEANO_FP_EXACT
  int t;
  if (lam == 0) return 0.0;
  if (lam < 10) {
    const double enlam = exp(-lam);
    double prod = 1.0, x = 0.0;
    for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
      prod *= theano_sub_double(s);
      if (prod <= enlam) return x;
      x += 1.0;
    }
    return THEANO_RV_NAN;
  }
  const double slam = sqrt(lam), loglam = log(lam);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
    const double u = theano_sub_double(s) - 0.5;
    const double v = theano_sub_double(s);
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return theano_rv_count(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - theano_rv_logfactorial(k))
      return theano_rv_count(k);
  }
  return THEANO_RV_NAN;
}

/* ----------------------------------------------------- discrete, scalar */

/* poisson(lam): inversion for lam < 10, PTRS above (theano_rv_poisson_draw). */
static inline int theano_rv_poisson_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] >= 0 && p[0] <= 1e18, 0, "must be in [0, 1e18]");
  return 0;
}
static inline double theano_rv_poisson(TheanoSubStream* s, const double* p) { return theano_rv_poisson_draw(s, p[0]); }

/* geometric(p): trials up to the first success (support 1, 2, ...), by
 * inversion: ceil(log u / log(1 - p)), u uniform on (0, 1). */
static inline int theano_rv_geometric_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0 && p[0] <= 1, 0, "must be in (0, 1]");
  return 0;
}
static inline double theano_rv_geometric(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  if (p[0] == 1) return 1.0;
  const double x = ceil(log(theano_rv_open(s)) / log1p(-p[0]));
  return theano_rv_count(x < 1 ? 1.0 : x);
}

/* negative_binomial(n, p): failures before the n-th success, as the
 * gamma-Poisson mixture poisson(gamma(n, (1 - p) / p)) (numpy's). */
static inline int theano_rv_negative_binomial_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] > 0 && p[0] - p[0] == 0, 0, "must be > 0 and finite");
  THEANO_RV_RULE(p[1] > 0 && p[1] <= 1, 1, "must be in (0, 1]");
  return 0;
}
static inline double theano_rv_negative_binomial(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  if (p[1] == 1) return 0.0;
  const double y = theano_rv_std_gamma(s, p[0]) * ((1.0 - p[1]) / p[1]);
  return theano_rv_poisson_draw(s, y < 1e18 ? y : 1e18);
}

/* hypergeometric(ngood, nbad, nsample): good items among nsample drawn
 * without replacement. numpy's choice of method: for nsample < 10 or within
 * 10 of the population, the urn drawn item by item (the smaller of nsample
 * and its complement, Lemire's integers); else Stadlober (1989) HRUA, the
 * ratio-of-uniforms method (acceptance > 0.5). */
static inline int theano_rv_hypergeometric_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] >= 0, 0, "must be >= 0");
  THEANO_RV_RULE(p[1] >= 0, 1, "must be >= 0");
  THEANO_RV_RULE(p[0] + p[1] < 1e9, 1, "must be < 1e9 - ngood (numpy's population limit)");
  THEANO_RV_RULE(p[2] >= 0 && p[2] <= p[0] + p[1], 2, "must be in [0, ngood + nbad]");
  return 0;
}
static inline double theano_rv_hypergeometric(TheanoSubStream* s, const double* p) {
  THEANO_FP_EXACT
  const int64_t good = (int64_t)p[0], bad = (int64_t)p[1], sample = (int64_t)p[2];
  const int64_t total = good + bad;
  int t;
  if (sample < 10 || sample > total - 10) {
    const int64_t computed = sample > total / 2 ? total - sample : sample;
    int64_t left = computed, rtotal = total, rgood = good;
    while (left > 0 && rgood > 0 && rtotal > rgood) {
      --rtotal;
      if (theano_integers_one(s, 0, rtotal + 1) < rgood) --rgood;
      --left;
    }
    if (rtotal == rgood) rgood -= left;
    return (double)(sample > total / 2 ? rgood : good - rgood);
  }
  const double d1 = 1.7155277699214135, d2 = 0.8989161620588988;
  const int64_t computed = sample < total - sample ? sample : total - sample;
  const int64_t mingb = good < bad ? good : bad, maxgb = good < bad ? bad : good;
  const double pp = (double)mingb / (double)total, q = (double)maxgb / (double)total;
  const double mu = (double)computed * pp, a = mu + 0.5;
  const double var = (double)(total - computed) * (double)computed * pp * q / (double)(total - 1);
  const double c = sqrt(var + 0.5), h = d1 * c + d2;
  const double m = floor((double)(computed + 1) * (double)(mingb + 1) / (double)(total + 2));
  const double g = theano_rv_logfactorial(m) + theano_rv_logfactorial((double)mingb - m) +
                   theano_rv_logfactorial((double)computed - m) + theano_rv_logfactorial((double)(maxgb - computed) + m);
  const double lim = (double)(computed < mingb ? computed : mingb) + 1;
  const double b = lim < floor(a + 16 * c) ? lim : floor(a + 16 * c);
  double k = -1;
  for (t = 0; t < THEANO_RV_MAX_TRIES; ++t) {
    const double u = theano_rv_open(s);
    const double v = theano_sub_double(s);
    const double x = a + h * (v - 0.5) / u;
    if (x < 0.0 || x >= b) continue;
    const double kk = floor(x);
    const double gp = theano_rv_logfactorial(kk) + theano_rv_logfactorial((double)mingb - kk) +
                      theano_rv_logfactorial((double)computed - kk) +
                      theano_rv_logfactorial((double)(maxgb - computed) + kk);
    const double tt = g - gp;
    if (u * (4.0 - u) - 3.0 <= tt || (u * (u - tt) < 1 && 2.0 * log(u) <= tt)) {
      k = kk;
      break;
    }
  }
  if (k < 0) return THEANO_RV_NAN;
  if (good > bad) k = (double)computed - k;
  if (computed < sample) k = (double)good - k;
  return k;
}

/* ------------------------------------------------- categorical (a row) */

/* categorical(p): the category j of a row of k weights p[0..k) (the last axis
 * of p; `row` its address, `stride` its byte stride), by inversion: u times the
 * row's sum, then the first j whose running sum exceeds it (the last positive
 * weight when rounding leaves u at the total). Weights need not sum to 1:
 * the row is normalised by its sum. One instance per element type (f64, f32):
 * each reads the weights as doubles in the same order, so they draw alike.
 * The rule: every weight >= 0 and finite (*bad_j the category), and a sum > 0
 * and finite (*bad_j = -1, *bad_v the sum; an empty row's sum is 0). */
#define THEANO_RV_CATEGORICAL(SUFFIX, T)                                                                      \
  static inline int theano_rv_categorical_check_##SUFFIX(const char* row, int64_t k, int64_t stride,         \
                                                         int64_t* bad_j, double* bad_v, const char** rule) { \
    double sum = 0;                                                                                           \
    int64_t j;                                                                                                \
    for (j = 0; j < k; ++j) {                                                                                 \
      const double v = (double)*(const T*)(row + j * stride);                                                 \
      if (!(v >= 0 && v - v == 0)) {                                                                          \
        *bad_j = j;                                                                                           \
        *bad_v = v;                                                                                           \
        *rule = "must be >= 0 and finite";                                                                    \
        return 1;                                                                                             \
      }                                                                                                       \
      sum += v;                                                                                               \
    }                                                                                                         \
    if (!(sum > 0 && sum - sum == 0)) {                                                                       \
      *bad_j = -1;                                                                                            \
      *bad_v = sum;                                                                                           \
      *rule = "(the sum of the row) must be > 0 and finite";                                                  \
      return 1;                                                                                               \
    }                                                                                                         \
    return 0;                                                                                                 \
  }                                                                                                           \
  static inline double theano_rv_categorical_##SUFFIX(TheanoSubStream* s, const char* row, int64_t k,       \
                                                      int64_t stride) {                                       \
    THEANO_FP_EXACT                                                                                           \
    double sum = 0, acc = 0;                                                                                  \
    int64_t j, last = 0;                                                                                      \
    for (j = 0; j < k; ++j) sum += (double)*(const T*)(row + j * stride);                                    \
    const double u = theano_sub_double(s) * sum;                                                              \
    for (j = 0; j < k; ++j) {                                                                                 \
      const double v = (double)*(const T*)(row + j * stride);                                                 \
      if (v > 0) {                                                                                            \
        acc += v;                                                                                             \
        last = j;                                                                                             \
        if (u < acc) return (double)j;                                                                        \
      }                                                                                                       \
    }                                                                                                         \
    return (double)last;                                                                                      \
  }
THEANO_RV_CATEGORICAL(f64, double)
THEANO_RV_CATEGORICAL(f32, float)


/* ------------------------------------------------- multinomial (a row) */

/* multinomial(n, p): the counts of n draws over a row of k weights p[0..k)
 * (categorical's row and rule: normalised by the row's sum), by sequential
 * conditional binomials: count j ~ binomial(n - counts so far, p_j / (p_j +
 * ... + p_{k-1})), the last positive weight taking what is left (so a row
 * sums to n exactly and a zero weight gets 0). A generator: `_init` once per
 * row, then `_next` for j = 0, 1, ..., k - 1 in order, each returning count j,
 * so the caller stores each count in the sample's own type. The rule of n:
 * theano_rv_multinomial_check. */
typedef struct TheanoRvMultinomial {
  int64_t left; /* draws not yet given to a category */
  double mass;  /* the weight of the categories not yet reached */
  int64_t last; /* the last positive weight's category */
} TheanoRvMultinomial;
static inline int theano_rv_multinomial_check(const double* p, const char** rule) {
  THEANO_RV_RULE(p[0] >= 0 && p[0] <= 9007199254740992.0, 0, "must be in [0, 2^53]");
  return 0;
}
#define THEANO_RV_MULTINOMIAL(SUFFIX, T)                                                                      \
  static inline void theano_rv_multinomial_init_##SUFFIX(TheanoRvMultinomial* m, double n, const char* row,  \
                                                         int64_t k, int64_t stride) {                         \
    THEANO_FP_EXACT                                                                                           \
    double sum = 0;                                                                                           \
    int64_t j;                                                                                                \
    m->last = 0;                                                                                              \
    for (j = 0; j < k; ++j) {                                                                                 \
      const double v = (double)*(const T*)(row + j * stride);                                                 \
      sum += v;                                                                                               \
      if (v > 0) m->last = j;                                                                                 \
    }                                                                                                         \
    m->left = (int64_t)n;                                                                                     \
    m->mass = sum;                                                                                            \
  }                                                                                                           \
  static inline double theano_rv_multinomial_next_##SUFFIX(TheanoRvMultinomial* m, TheanoSubStream* s,       \
                                                           const char* row, int64_t j, int64_t stride) {     \
    THEANO_FP_EXACT                                                                                           \
    const double v = (double)*(const T*)(row + j * stride);                                                   \
    int64_t c = 0;                                                                                            \
    if (m->left > 0 && v > 0) {                                                                               \
      const double q = v / m->mass;                                                                           \
      c = j >= m->last || !(q > 0 && q < 1) ? m->left : theano_binomial_one(s, m->left, q);             \
    }                                                                                                         \
    m->left -= c;                                                                                             \
    m->mass -= v;                                                                                             \
    return (double)c;                                                                                         \
  }
THEANO_RV_MULTINOMIAL(f64, double)
THEANO_RV_MULTINOMIAL(f32, float)

/* ------------------------------------------------- permutation (a row) */

/* permutation: the indices 0..k-1 in a uniformly random order, written as
 * int64 to out[0..k) (`stride` bytes apart), by the forward Fisher-Yates
 * (Durstenfeld) shuffle: for j = 0..k-2 swap position j with a position
 * uniform on [j, k) (theano_integers_one: Lemire's unbiased integers). After
 * step j position j is final, so the first m positions are a uniform draw of
 * m distinct indices (a partial shuffle; choice without replacement). */
static inline void theano_rv_permutation(TheanoSubStream* s, char* out, int64_t k, int64_t stride) {
  int64_t j;
  for (j = 0; j < k; ++j) *(int64_t*)(out + j * stride) = j;
  for (j = 0; j + 1 < k; ++j) {
    const int64_t r = theano_integers_one(s, j, k);
    int64_t* a = (int64_t*)(out + j * stride);
    int64_t* b = (int64_t*)(out + r * stride);
    const int64_t t = *a;
    *a = *b;
    *b = t;
  }
}

#endif /* THEANO_TENSOR_RANDOM_DISCRETE_H */
