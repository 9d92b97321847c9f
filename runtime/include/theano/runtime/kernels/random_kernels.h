/* \file
 * The sampling kernels of RandomFunction (the stream layout of
 * theano/tensor/random.h), written ONCE, as plain C, for two readers:
 * RandomFunction::perform (compiler/src/tensor/random/random_kernels.cpp)
 * includes this header, and the code generator embeds this very file's text
 * in the translation units of graphs that draw (codegen/CMakeLists.txt), so
 * generated draws are perform's draws bit for bit and the Philox constants,
 * the word layouts and the rejection loops cannot drift apart.
 *
 * Philox4x32-10 (Salmon et al., SC 2011), written from the paper: each round
 * multiplies two of the four words by M0, M1 (high and low halves of the
 * 64-bit products), permutes and mixes in the key; the key is bumped by the
 * Weyl constants W0, W1 between rounds. Checked against Random123's
 * kat_vectors (tests/compiler/tensor/test_random.cpp).
 *
 * Uniform and normal draws read the call's dense word layout (word w is word
 * w % 4 of block w / 4); binomial and integers give element i its own
 * substream (their rejection loops use a varying number of words), as do the
 * samplers of random_distributions.h, which build on this file. Every
 * kernel is a pure function of the call key and the element index, as a GPU
 * kernel would be. Floating-point contraction is off (clang's pragma; the
 * host compiler is not asked to fuse either), so both readers round alike.
 */
#ifndef THEANO_TENSOR_RANDOM_KERNELS_H
#define THEANO_TENSOR_RANDOM_KERNELS_H

#ifndef THEANO_GENERATED_CODE
#include <math.h>
#include <stdint.h>
#endif

#if defined(__clang__)
#define THEANO_FP_EXACT _Pragma("clang fp contract(off)")
#else
#define THEANO_FP_EXACT
#endif

#define THEANO_PHILOX_M0 0xD2511F53u /* multipliers */
#define THEANO_PHILOX_M1 0xCD9E8D57u
#define THEANO_PHILOX_W0 0x9E3779B9u /* Weyl constants: golden ratio, sqrt(3) - 1 */
#define THEANO_PHILOX_W1 0xBB67AE85u
#define THEANO_PHILOX_ROUNDS 10

/* `rounds` rounds of Philox4x32 on the counter c, in place, under key (k0, k1). */
static inline void theano_philox4x32_r(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds) {
  int r;
  for (r = 0; r < rounds; ++r) {
    if (r > 0) {
      k0 += THEANO_PHILOX_W0;
      k1 += THEANO_PHILOX_W1;
    }
    const uint64_t p0 = (uint64_t)THEANO_PHILOX_M0 * c[0];
    const uint64_t p1 = (uint64_t)THEANO_PHILOX_M1 * c[2];
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
  }
}
/* Philox4x32-10. */
static inline void theano_philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1) {
  theano_philox4x32_r(c, k0, k1, THEANO_PHILOX_ROUNDS);
}
/* The key of one call of a random op on the stream state {seed, counter}. */
static inline void theano_philox_call_key(uint64_t seed, uint64_t counter, uint32_t key[2]) {
  uint32_t c[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), 0u, 0u};
  theano_philox4x32(c, (uint32_t)seed, (uint32_t)(seed >> 32));
  key[0] = c[0];
  key[1] = c[1];
}

/* The dense word layout: word w is word w % 4 of block w / 4 (one block cached). */
typedef struct TheanoDenseWords {
  uint32_t key[2];
  uint32_t buf[4];
  uint64_t block;
  int valid;
} TheanoDenseWords;
static inline void theano_dense_init(TheanoDenseWords* d, const uint32_t key[2]) {
  d->key[0] = key[0];
  d->key[1] = key[1];
  d->block = 0;
  d->valid = 0;
}
static inline uint32_t theano_dense_word(TheanoDenseWords* d, uint64_t w) {
  const uint64_t b = w >> 2;
  if (!d->valid || b != d->block) {
    d->buf[0] = (uint32_t)b;
    d->buf[1] = (uint32_t)(b >> 32);
    d->buf[2] = 0u;
    d->buf[3] = 0u;
    theano_philox4x32(d->buf, d->key[0], d->key[1]);
    d->block = b;
    d->valid = 1;
  }
  return d->buf[w & 3];
}
/* Uniform number k of the call on [0, 1): 24 bits (single) or 53 bits. */
static inline double theano_dense_uniform(TheanoDenseWords* d, uint64_t k, int single) {
  if (single) return (double)(theano_dense_word(d, k) >> 8) * 0x1p-24;
  const uint64_t x = ((uint64_t)theano_dense_word(d, 2 * k) << 32) | theano_dense_word(d, 2 * k + 1);
  return (double)(x >> 11) * 0x1p-53;
}

/* Element i's own stream: blocks philox({j, lo(i), hi(i), 1}, key), two 64-bit values each. */
typedef struct TheanoSubStream {
  uint32_t key[2];
  uint64_t i;
  uint32_t j;
  uint32_t buf[4];
  int pos;
} TheanoSubStream;
static inline void theano_sub_init(TheanoSubStream* s, const uint32_t key[2], uint64_t i) {
  s->key[0] = key[0];
  s->key[1] = key[1];
  s->i = i;
  s->j = 0u;
  s->pos = 2;
}
static inline uint64_t theano_sub_next64(TheanoSubStream* s) {
  if (s->pos == 2) {
    s->buf[0] = s->j++;
    s->buf[1] = (uint32_t)s->i;
    s->buf[2] = (uint32_t)(s->i >> 32);
    s->buf[3] = 1u;
    theano_philox4x32(s->buf, s->key[0], s->key[1]);
    s->pos = 0;
  }
  const uint64_t v = ((uint64_t)s->buf[2 * s->pos] << 32) | s->buf[2 * s->pos + 1];
  ++s->pos;
  return v;
}
static inline double theano_sub_double(TheanoSubStream* s) { return (double)(theano_sub_next64(s) >> 11) * 0x1p-53; }

/* The 128-bit product a * b as (high, low) words, portably (CUDA: __umul64hi). */
static inline void theano_mul_64x64(uint64_t a, uint64_t b, uint64_t* hi, uint64_t* lo) {
  const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  *lo = (mid << 32) | (uint32_t)p00;
}

/* Uniform on [lo, hi): draw i of the dense layout. */
static inline double theano_uniform_one(TheanoDenseWords* d, int64_t i, double lo, double hi, int single) {
  THEANO_FP_EXACT
  return lo + (hi - lo) * theano_dense_uniform(d, (uint64_t)i, single);
}
/* Box-Muller: the pair (2j, 2j + 1) shares its two uniforms, drawn at even i. */
static inline void theano_normal_pair(TheanoDenseWords* d, int64_t i, int single, double* radius, double* theta) {
  THEANO_FP_EXACT
  const double u1 = 1.0 - theano_dense_uniform(d, (uint64_t)i, single); /* (0, 1]: log is finite */
  const double u2 = theano_dense_uniform(d, (uint64_t)i + 1, single);
  *radius = sqrt(-2.0 * log(u1));
  *theta = 2.0 * 3.141592653589793 * u2;
}
static inline double theano_normal_one(double avg, double sd, double radius, double theta, int odd) {
  THEANO_FP_EXACT
  return odd ? avg + sd * radius * sin(theta) : avg + sd * radius * cos(theta);
}

/* Integers on [low, high) from element i's substream: Lemire's multiply-shift
 * with rejection, unbiased on [0, range). */
static inline int64_t theano_integers_one(TheanoSubStream* s, int64_t low, int64_t high) {
  const uint64_t range = (uint64_t)high - (uint64_t)low;
  uint64_t h, l;
  theano_mul_64x64(theano_sub_next64(s), range, &h, &l);
  if (l < range) {
    const uint64_t t = (0 - range) % range;
    while (l < t) theano_mul_64x64(theano_sub_next64(s), range, &h, &l);
  }
  return (int64_t)((uint64_t)low + h);
}

/* Hormann's Stirling tail correction fc(k) = log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2]. */
static inline double theano_stirling_tail(double k) {
  THEANO_FP_EXACT
  static const double table[10] = {0.08106146679532726, 0.04134069595540929, 0.02767792568499834,
                                   0.02079067210376509, 0.01664469118982119, 0.01387612882307075,
                                   0.01189670994589177, 0.01041126526197209, 0.009255462182712733,
                                   0.008330563433362871};
  if (k <= 9) return table[(int)k];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}
/* Binomial by inversion (numpy's random_binomial_inversion), for n p < 10, p <= 1/2. */
static inline int64_t theano_binomial_inversion(TheanoSubStream* s, int64_t n, double p) {
  THEANO_FP_EXACT
  const double q = 1.0 - p;
  const double qn = exp((double)n * log(q));
  const double np = (double)n * p;
  const double bnd = np + 10.0 * sqrt(np * q + 1);
  const double bound = bnd < (double)n ? bnd : (double)n;
  int64_t x = 0;
  double px = qn;
  double u = theano_sub_double(s);
  while (u > px) {
    ++x;
    if ((double)x > bound) {
      x = 0;
      px = qn;
      u = theano_sub_double(s);
    } else {
      u -= px;
      px = ((double)(n - x + 1) * p * px) / ((double)x * q);
    }
  }
  return x;
}
/* Binomial by Hormann's BTRS (transformed rejection with squeeze), for n p >= 10, p <= 1/2. */
static inline int64_t theano_binomial_btrs(TheanoSubStream* s, int64_t n, double p) {
  THEANO_FP_EXACT
  const double dn = (double)n;
  const double spq = sqrt(dn * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = dn * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = floor((dn + 1) * p);
  for (;;) {
    const double u = theano_sub_double(s) - 0.5;
    double v = theano_sub_double(s);
    const double us = 0.5 - fabs(u);
    const double k = floor((2 * a / us + b) * u + c);
    if (us >= 0.07 && v <= v_r) return (int64_t)k;
    if (k < 0 || k > dn) continue;
    v = log(v * alpha / (a / (us * us) + b));
    const double h = (m + 0.5) * log((m + 1) / (r * (dn - m + 1))) + (dn + 1) * log((dn - m + 1) / (dn - k + 1)) +
                     (k + 0.5) * log(r * (dn - k + 1) / (k + 1)) + theano_stirling_tail(m) +
                     theano_stirling_tail(dn - m) - theano_stirling_tail(k) - theano_stirling_tail(dn - k);
    if (v <= h) return (int64_t)k;
  }
}
/* Binomial(n, p) from element i's substream. */
static inline int64_t theano_binomial_one(TheanoSubStream* s, int64_t n, double p) {
  THEANO_FP_EXACT
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  if (p > 0.5) return n - theano_binomial_one(s, n, 1 - p);
  return (double)n * p < 10 ? theano_binomial_inversion(s, n, p) : theano_binomial_btrs(s, n, p);
}

#endif /* THEANO_TENSOR_RANDOM_KERNELS_H */
