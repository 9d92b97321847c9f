// Lowering of RandomFunction (uniform, normal, binomial, integers): the stream
// of theano/tensor/random.h reproduced in generated code (see lowering.h for the
// node function protocol).
//
// The support snippets are a transcription of compiler/src/tensor/random/
// (philox.cpp and random_kernels.cpp): Philox4x32-10, the per-call key, the
// dense word layout (uniform, normal) and the per-element substreams
// (binomial: inversion / BTRS; integers: Lemire's method). They use the same
// double operations in the same order and the same libm calls (log, exp,
// sqrt, floor, sin, cos), and forbid FMA contraction (`#pragma clang fp
// contract(off)`; the host's perform is compiled without it), so uniform,
// integers and binomial give perform's values bit for bit and normal agrees to
// the last ulp of sin/cos/log.
//
// The node checks what perform checks, in the same order: the state length
// (ValueError), the size entries (ValueError) or the parameters' broadcast
// (ShapeError), each parameter's broadcast to the size (ShapeError), then the
// per-element parameter values (ValueError, the first bad element first). The
// parameters are walked with a multi-index (stride 0 where broadcast) in the
// sample's C order, which is the element order of the stream.
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace theano::codegen::lower {
namespace {

constexpr std::string_view kPhilox = R"(// Philox4x32-10 (Salmon et al., SC 2011), in place on the counter c.
static inline void theano_philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = (uint64_t)0xD2511F53u * c[0];
    const uint64_t p1 = (uint64_t)0xCD9E8D57u * c[2];
    const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
    const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
    c[1] = (uint32_t)p1;
    c[3] = (uint32_t)p0;
    c[0] = n0;
    c[2] = n2;
  }
}
// The key of one call of a random op on the stream state {seed, counter}.
static inline void theano_philox_call_key(uint64_t seed, uint64_t counter, uint32_t key[2]) {
  uint32_t c[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), 0u, 0u};
  theano_philox4x32(c, (uint32_t)seed, (uint32_t)(seed >> 32));
  key[0] = c[0];
  key[1] = c[1];
})";

constexpr std::string_view kRandomKernels = R"(// The dense word layout: word w is word w % 4 of block w / 4 (one block cached).
struct TheanoDenseWords {
  uint32_t key[2];
  uint32_t buf[4];
  uint64_t block;
  int valid;
};
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
// Uniform number k of the call on [0, 1): 24 bits (single) or 53 bits.
static inline double theano_dense_uniform(TheanoDenseWords* d, uint64_t k, bool single) {
  if (single) return (double)(theano_dense_word(d, k) >> 8) * 0x1p-24;
  const uint64_t x = ((uint64_t)theano_dense_word(d, 2 * k) << 32) | theano_dense_word(d, 2 * k + 1);
  return (double)(x >> 11) * 0x1p-53;
}
// Element i's own stream: blocks philox({j, lo(i), hi(i), 1}, key), two 64-bit values each.
struct TheanoSubStream {
  uint32_t key[2];
  uint64_t i;
  uint32_t j;
  uint32_t buf[4];
  int pos;
};
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
// The 128-bit product a * b as (high, low) words, as perform computes it.
static inline void theano_mul_64x64(uint64_t a, uint64_t b, uint64_t* hi, uint64_t* lo) {
  const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  *lo = (mid << 32) | (uint32_t)p00;
}
// Integers on [low, high): Lemire's multiply-shift with rejection.
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
// Hormann's Stirling tail correction fc(k).
static double theano_stirling_tail(double k) {
#pragma clang fp contract(off)
  static const double table[10] = {0.08106146679532726, 0.04134069595540929, 0.02767792568499834,
                                   0.02079067210376509, 0.01664469118982119, 0.01387612882307075,
                                   0.01189670994589177, 0.01041126526197209, 0.009255462182712733,
                                   0.008330563433362871};
  if (k <= 9) return table[(int)k];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}
// Binomial by inversion, for n p < 10, p <= 1/2.
static int64_t theano_binomial_inversion(TheanoSubStream* s, int64_t n, double p) {
#pragma clang fp contract(off)
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
// Binomial by Hormann's BTRS, for n p >= 10, p <= 1/2.
static int64_t theano_binomial_btrs(TheanoSubStream* s, int64_t n, double p) {
#pragma clang fp contract(off)
  const double dn = (double)n;
  const double spq = sqrt(dn * p * (1 - p));
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = dn * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = p / (1 - p);
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double m = floor((dn + 1) * p);
  while (true) {
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
static int64_t theano_binomial_one(TheanoSubStream* s, int64_t n, double p) {
#pragma clang fp contract(off)
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  if (p > 0.5) return n - theano_binomial_one(s, n, 1 - p);
  return (double)n * p < 10 ? theano_binomial_inversion(s, n, p) : theano_binomial_btrs(s, n, p);
})";

const char* const kParamNames[4][2] = {{"low", "high"}, {"avg", "std"}, {"n", "p"}, {"low", "high"}};

/// A double literal that reads back as exactly `v`.
std::string double_literal(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

/// The smallest and largest values of integer dtype `d`, as doubles (perform's check).
std::pair<double, double> int_range(DType d) {
  std::pair<double, double> r{0.0, 0.0};
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      r = {static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max())};
  });
  return r;
}

void lower_random(NodeLowering& L) {
  const Apply& node = L.node;
  const auto& op = static_cast<const tensor::RandomFunction&>(*node.op());
  const tensor::Distribution dist = op.distribution();
  const int di = static_cast<int>(dist);
  const int nd = L.out(1).ndim();
  const int pnd[2] = {L.in(2).ndim(), L.in(3).ndim()};
  const DType out_dt = L.out(1).dtype();
  const std::string ot = c_type(out_dt);
  const std::string fn = L.fn;
  const std::string nds = str(std::max(nd, 1));
  L.need("philox", kPhilox);
  L.need("random_kernels", kRandomKernels);

  CodeWriter& w = L.body;
  // The state.
  w.line("if (x0->shape[0] != 2) " +
         L.fail_int(kErrValue, "the state must hold {seed, counter} (2 uint64 values), got a vector of length ",
                    "x0->shape[0]"));
  w.line("const uint64_t seed = *(const uint64_t*)x0->data;");
  w.line("const uint64_t counter = *(const uint64_t*)(x0->data + x0->strides[0]);");
  // The sample shape.
  w.line("int64_t shape[" + nds + "];");
  if (op.size_from_params()) {
    for (int d = 0; d < nd; ++d) w.line("shape[" + str(d) + "] = 1;");
    for (int k = 0; k < 2; ++k) {
      const std::string xk = L.x(2 + k);
      for (int d = 0; d < pnd[k]; ++d) {
        const std::string od = str(nd - pnd[k] + d);
        w.open("");
        w.line("const int64_t v = " + xk + "->shape[" + str(d) + "];");
        w.line("if (v != 1 && shape[" + od + "] != 1 && shape[" + od + "] != v) " +
               L.fail(kErrShape, std::string("parameters ") + kParamNames[di][0] + " and " + kParamNames[di][1] +
                                     " do not broadcast together"));
        w.line("if (v != 1) shape[" + od + "] = v;");
        w.close();
      }
    }
  } else {
    w.line("if (x1->shape[0] != " + str(nd) + ") " +
           L.fail_int(kErrValue, "the size must have " + str(nd) + " entries (the sample's rank), got ",
                      "x1->shape[0]"));
    const std::string zt = L.in_ctype(1);
    for (int d = 0; d < nd; ++d) {
      const std::string ds = str(d);
      w.line("shape[" + ds + "] = (int64_t)*(const " + zt + "*)(x1->data + " + ds + " * x1->strides[0]);");
      w.line("if (shape[" + ds + "] < 0) " +
             L.fail_int(kErrValue, "the size has a negative entry ", "shape[" + ds + "]"));
    }
  }
  // Each parameter broadcasts to the shape (numpy's rule, as perform checks
  // it); its walk strides (0 where broadcast).
  for (int k = 0; k < 2; ++k) {
    const std::string xk = L.x(2 + k);
    emit_broadcast_to_check(L, 2 + k, "shape", nd, false, std::string("parameter ") + kParamNames[di][k]);
    const std::string ks = str(k);
    w.line("int64_t ps" + ks + "[" + nds + "];");
    for (int d = 0; d < nd; ++d) {
      const int pd = d - (nd - pnd[k]);
      const std::string ds = str(d);
      if (pd < 0) {
        w.line("ps" + ks + "[" + ds + "] = 0;");
        continue;
      }
      const std::string ps = xk + "->shape[" + str(pd) + "]";
      w.line("ps" + ks + "[" + ds + "] = " + ps + " == 1 ? 0 : " + xk + "->strides[" + str(pd) + "];");
    }
  }
  for (int d = 0; d < nd; ++d) w.line("o1->shape[" + str(d) + "] = shape[" + str(d) + "];");
  // The sample's size by the rule perform uses too (shape_rules.h), checked
  // before the state advances.
  w.line("int64_t n = 0, bad = 0;");
  w.line("const int rule = theano_shape_size(o1->shape, " + str(nd) + ", " +
         str(static_cast<std::int64_t>(dtype_size(L.out(1).dtype()))) + ", &n, &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "invalid size: ", "bad"));
  // Outputs: the advanced state and the sample.
  if (op.inplace()) {
    // The advanced state overwrites the input state (destroy_map {0: [0]}).
    w.line("o0->data = x0->data;");
    w.line("o0->owner = x0->owner;");
    w.line("o0->shape[0] = 2;");
    w.line("o0->strides[0] = x0->strides[0];");
    w.line("*(uint64_t*)(o0->data + o0->strides[0]) = counter + 1;");
  } else {
    w.line("o0->shape[0] = 2;");
    w.line(L.alloc(0));
    w.line("((uint64_t*)o0->data)[0] = seed;");
    w.line("((uint64_t*)o0->data)[1] = counter + 1;");
  }
  w.line(L.alloc(1));
  w.line("if (n == 0) return 0;");
  w.line("uint32_t key[2];");
  w.line("theano_philox_call_key(seed, counter, key);");
  w.line(ot + "* __restrict po = (" + ot + "*)o1->data;");

  // The element loop: i in C order, the parameters' byte offsets alongside.
  const bool int_p0 = dist == tensor::Distribution::Integers || dist == tensor::Distribution::Binomial;
  const bool int_p1 = dist == tensor::Distribution::Integers;
  const std::string t0 = int_p0 ? "int64_t" : "double", t1 = int_p1 ? "int64_t" : "double";
  const std::string single = out_dt == DType::Float64 ? "false" : "true";
  if (dist == tensor::Distribution::Uniform || dist == tensor::Distribution::Normal) {
    w.line("TheanoDenseWords dw;");
    w.line("dw.key[0] = key[0]; dw.key[1] = key[1]; dw.valid = 0; dw.block = 0;");
  }
  if (dist == tensor::Distribution::Normal) w.line("double radius = 0, theta = 0;");
  w.line("int64_t idx[" + nds + "] = {0};");
  w.line("int64_t off0 = 0, off1 = 0;");
  w.open("for (int64_t i = 0; i < n; ++i)");
  w.line("const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)(x2->data + off0);");
  w.line("const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)(x3->data + off1);");
  switch (dist) {
    case tensor::Distribution::Uniform:
      w.line("po[i] = (" + ot + ")" + fn + "_uniform(&dw, i, a, b);");
      L.file.open("static inline double " + fn + "_uniform(TheanoDenseWords* dw, int64_t i, double lo, double hi)");
      L.file.line("#pragma clang fp contract(off)");
      L.file.line("return lo + (hi - lo) * theano_dense_uniform(dw, (uint64_t)i, " + single + ");");
      L.file.close();
      break;
    case tensor::Distribution::Normal:
      w.line("if (!(b >= 0)) " +
             L.fail_int(kErrValue, "std must be >= 0; element ", "i",
                        " is negative or NaN"));
      // A pair (2j, 2j + 1) shares its two uniforms; even i computes it.
      w.line("if ((i & 1) == 0) " + fn + "_pair(&dw, i, &radius, &theta);");
      w.line("po[i] = (" + ot + ")" + fn + "_normal(a, b, radius, theta, (i & 1) != 0);");
      L.file.open("static inline void " + fn + "_pair(TheanoDenseWords* dw, int64_t i, double* radius, double* theta)");
      L.file.line("#pragma clang fp contract(off)");
      L.file.line("const double u1 = 1.0 - theano_dense_uniform(dw, (uint64_t)i, " + single + ");");
      L.file.line("const double u2 = theano_dense_uniform(dw, (uint64_t)i + 1, " + single + ");");
      L.file.line("*radius = sqrt(-2.0 * log(u1));");
      L.file.line("*theta = 2.0 * 3.141592653589793 * u2;");
      L.file.close();
      L.file.open("static inline double " + fn + "_normal(double avg, double sd, double radius, double theta, bool odd)");
      L.file.line("#pragma clang fp contract(off)");
      L.file.line("return odd ? avg + sd * radius * sin(theta) : avg + sd * radius * cos(theta);");
      L.file.close();
      break;
    case tensor::Distribution::Binomial:
      w.line("if (a < 0) " + L.fail_int(kErrValue, "n must be >= 0, got ", "a"));
      w.line("if (!(b >= 0 && b <= 1)) " +
             L.fail_int(kErrValue, "p must be in [0, 1]; element ", "i",
                        " is not"));
      w.line("TheanoSubStream s;");
      w.line("theano_sub_init(&s, key, (uint64_t)i);");
      w.line("po[i] = (" + ot + ")theano_binomial_one(&s, a, b);");
      break;
    case tensor::Distribution::Integers: {
      const auto [dmin, dmax] = int_range(out_dt);
      w.line("if (!(a < b)) " +
             L.fail_int(kErrValue, "low must be < high; element ", "i", " is not"));
      w.line("if (!((double)a >= " + double_literal(dmin) + " && (double)b - 1 <= " + double_literal(dmax) + ")) " +
             L.fail_int(kErrValue, "the range [low, high) of element ", "i",
                        " does not fit dtype " + std::string(dtype_name(out_dt))));
      w.line("TheanoSubStream s;");
      w.line("theano_sub_init(&s, key, (uint64_t)i);");
      w.line("po[i] = (" + ot + ")theano_integers_one(&s, a, b);");
      break;
    }
  }
  // Advance the multi-index and the parameter offsets.
  for (int d = nd - 1; d >= 0; --d) {
    const std::string ds = str(d);
    w.line("if (++idx[" + ds + "] < shape[" + ds + "]) { off0 += ps0[" + ds + "]; off1 += ps1[" + ds +
           "]; continue; }");
    w.line("off0 -= (shape[" + ds + "] - 1) * ps0[" + ds + "]; off1 -= (shape[" + ds + "] - 1) * ps1[" + ds +
           "]; idx[" + ds + "] = 0;");
  }
  w.close();
  w.line("(void)idx;");
  w.line("return 0;");
}

}  // namespace

void add_random_lowerings(LoweringTable& t) { t[typeid(tensor::RandomFunction)] = &lower_random; }

}  // namespace theano::codegen::lower
