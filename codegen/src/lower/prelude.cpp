// The embedded prelude of every generated translation unit: the thunk ABI
// structs (mirrored by the host in c_linker.cpp), error helpers, libm and CBLAS
// prototypes and the scalar helpers the scalar table's C expressions name. No
// standard header is included: the TU must compile fast and the same everywhere.
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

constexpr std::string_view kPrelude = R"PRELUDE(// theano-cpp generated code: prelude (thunk ABI, libm prototypes, helpers)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
#define THEANO_MAX_NDIM 16
// Error reporting runs at most once per call: compiled without optimization
// (optnone), it costs the compile almost nothing (at -O2 the digit loops alone
// doubled the compile time of a small graph).
#define THEANO_COLD __attribute__((cold, noinline, optnone))
// Node functions with no per-element work worth optimizing (views, shape
// queries, statically tiny values) are compiled as written: each saves a few
// ms of -O2 time and costs nanoseconds a call.
#define THEANO_UNOPTIMIZED __attribute__((noinline, optnone))
#define THEANO_ERR_SHAPE 1
#define THEANO_ERR_VALUE 2
#define THEANO_ERR_INDEX 3
#define THEANO_ERR_ASSERT 4
#define THEANO_ERR_HOST 5
struct TheanoArray {
  char* data;
  int64_t ndim;
  int64_t dtype;
  int64_t owner;
  int64_t shape[THEANO_MAX_NDIM];
  int64_t strides[THEANO_MAX_NDIM];  // bytes
};
struct TheanoContext {
  const TheanoArray* inputs;
  TheanoArray* outputs;
  const TheanoArray* constants;
  void* host;
  // in: ndim, dtype, shape; out: data, strides (C order), owner. slot >= 0: a
  // buffer the memory plan shares between intermediates whose lives do not overlap.
  int (*alloc)(void* host, TheanoArray* a, int64_t slot);
  char* error;
  int64_t error_size;
  // Runs the reference `perform` of fallback node `node` (an op without a
  // lowering) on the host; fills the outputs like alloc does. 0 or an error code.
  int (*perform)(void* host, int64_t node, const TheanoArray* const* in, TheanoArray* const* out);
  TheanoArray* vars;  // OpWise linker only: the storage of every node output
  // Runs body(closure, begin, end, part) over consecutive parts of [0, n) on
  // up to `threads` threads (the caller included) and returns the number of
  // parts; the cut depends only on n, min_part and threads (runtime/thread_pool.h).
  int64_t (*parallel_for)(int64_t threads, int64_t n, int64_t min_part,
                          void (*body)(void*, int64_t, int64_t, int64_t), void* closure);
  int64_t threads;  // THEANO_FLAGS threads: 1 runs every loop on the caller
};
#define THEANO_MAX_PARTS 64
// A part of a split loop: part(args, begin, end, part index).
typedef void (*TheanoPart)(void*, int64_t, int64_t, int64_t);
// Runs part(args, begin, end, k) over [0, n): split across the loop threads
// when there are at least two parts of min_part indices, else part(args, 0,
// n, 0) here. Returns the number of parts.
static inline int64_t theano_parallel(TheanoContext* ctx, int64_t n, int64_t min_part, TheanoPart part, void* args) {
  if (ctx->threads > 1 && n >= 2 * min_part) return ctx->parallel_for(ctx->threads, n, min_part, part, args);
  part(args, 0, n, 0);
  return 1;
}
extern "C" {
double exp(double); double exp2(double); double expm1(double);
double log(double); double log2(double); double log10(double); double log1p(double);
double sin(double); double cos(double); double tan(double);
double asin(double); double acos(double); double atan(double); double atan2(double, double);
double sinh(double); double cosh(double); double tanh(double);
double asinh(double); double acosh(double); double atanh(double);
double erf(double); double erfc(double); double lgamma(double);
double floor(double); double ceil(double); double nearbyint(double); double trunc(double);
double sqrt(double); double fabs(double); double pow(double, double); double fmod(double, double);
}
THEANO_COLD static void theano_put(TheanoContext* c, int64_t* p, const char* s) {
  while (*s && *p + 1 < c->error_size) c->error[(*p)++] = *s++;
  c->error[*p] = 0;
}
THEANO_COLD static void theano_put_int(TheanoContext* c, int64_t* p, int64_t v) {
  char rev[24];
  char s[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do { rev[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u != 0);
  int k = 0;
  if (v < 0) s[k++] = '-';
  while (n > 0) s[k++] = rev[--n];
  s[k] = 0;
  theano_put(c, p, s);
}
THEANO_COLD static void theano_put_shape(TheanoContext* c, int64_t* p, const TheanoArray* a) {
  theano_put(c, p, "(");
  for (int64_t d = 0; d < a->ndim; ++d) {
    if (d) theano_put(c, p, ", ");
    theano_put_int(c, p, a->shape[d]);
  }
  if (a->ndim == 1) theano_put(c, p, ",");
  theano_put(c, p, ")");
}
// Writes `msg` and the input shapes into the error buffer; returns `code`.
THEANO_COLD static int theano_fail(TheanoContext* c, int code, const char* msg, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "; input shapes: ");
  for (int i = 0; i < n; ++i) {
    if (i) theano_put(c, &p, ", ");
    theano_put_shape(c, &p, in[i]);
  }
  return code;
}
// theano_fail with a run-time value in the message: "<msg><value><tail>".
THEANO_COLD static int theano_fail_int(TheanoContext* c, int code, const char* msg, int64_t value, const char* tail,
                           const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, value);
  theano_put(c, &p, tail);
  theano_put(c, &p, "; input shapes: ");
  for (int i = 0; i < n; ++i) {
    if (i) theano_put(c, &p, ", ");
    theano_put_shape(c, &p, in[i]);
  }
  return code;
}
// Number of elements.
static inline int64_t theano_size(const TheanoArray* a) {
  int64_t n = 1;
  for (int64_t d = 0; d < a->ndim; ++d) n *= a->shape[d];
  return n;
}
// Whether `a` is C-contiguous for elements of `itemsize` bytes (size-1 dims ignored).
static inline bool theano_c_contiguous(const TheanoArray* a, int64_t itemsize) {
  int64_t expect = itemsize;
  for (int64_t d = a->ndim - 1; d >= 0; --d) {
    if (a->shape[d] == 1) continue;
    if (a->strides[d] != expect) return false;
    expect *= a->shape[d];
  }
  return true;
}
// Byte offset of the flat C-order element `k` of `a`.
static inline int64_t theano_offset(const TheanoArray* a, int64_t k) {
  int64_t off = 0;
  for (int64_t d = a->ndim - 1; d >= 0; --d) {
    const int64_t s = a->shape[d];
    off += (k % s) * a->strides[d];
    k /= s;
  }
  return off;
}
// Copies `src` into `dst` (same shape and dtype, any strides), element by element.
static void theano_copy(TheanoArray* dst, const TheanoArray* src, int64_t itemsize) {
  const int64_t n = theano_size(src);
  if (n == 0) return;
  if (theano_c_contiguous(dst, itemsize) && theano_c_contiguous(src, itemsize)) {
    __builtin_memmove(dst->data, src->data, (unsigned long)(n * itemsize));
    return;
  }
  int64_t idx[THEANO_MAX_NDIM] = {0};
  const int64_t nd = src->ndim;
  char* pd = dst->data;
  const char* ps = src->data;
  for (int64_t k = 0; k < n; ++k) {
    __builtin_memcpy(pd, ps, (unsigned long)itemsize);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < src->shape[d]) {
        pd += dst->strides[d];
        ps += src->strides[d];
        break;
      }
      pd -= (src->shape[d] - 1) * dst->strides[d];
      ps -= (src->shape[d] - 1) * src->strides[d];
      idx[d] = 0;
    }
  }
}
// CBLAS (OpenBLAS, LP64: int indices), loaded into the JIT by the host.
enum { CblasRowMajor = 101, CblasColMajor = 102, CblasNoTrans = 111, CblasTrans = 112 };
extern "C" {
void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double* a, int lda, const double* x,
                 int incx, double beta, double* y, int incy);
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float* a, int lda, const float* x,
                 int incx, float beta, float* y, int incy);
void cblas_dger(int order, int m, int n, double alpha, const double* x, int incx, const double* y, int incy,
                double* a, int lda);
void cblas_sger(int order, int m, int n, float alpha, const float* x, int incx, const float* y, int incy,
                float* a, int lda);
double cblas_ddot(int n, const double* x, int incx, const double* y, int incy);
float cblas_sdot(int n, const float* x, int incx, const float* y, int incy);
}
// Helpers for the double compute domain (the scalar table's C expressions).
namespace theano_f {
static inline double theano_floor_div(double a, double b) { return floor(a / b); }
static inline double theano_mod(double a, double b) {
  double r = fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline double theano_sign(double x) { return x != x ? x : (double)((x > 0) - (x < 0)); }
static inline double theano_maximum(double a, double b) { return (a != a || a >= b) ? a : b; }
static inline double theano_minimum(double a, double b) { return (a != a || a <= b) ? a : b; }
static inline double theano_clip(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
// tanh, sigmoid and softplus in terms of exp/log and selects only: LLVM 19's
// libmvec table maps exp and log (to _ZGVdN4v_*) but not tanh or log1p, so
// these forms keep elementwise loops vectorized (JIT-NOTES.md, vectorization).
// Accuracy is within a few ulp of libm's.
static inline double theano_tanh(double x) {
  // |x| < 0.625: x + x^3 P(x^2)/Q(x^2) (a minimax rational form, Cephes'
  // coefficients); else sign(x) (e - 1)/(e + 1) with e = exp(2|x|), which has
  // no cancellation there. One division serves both branches (division
  // throughput bounds the vectorized loop); |x| is capped at 40, where
  // tanh is 1 in double, so e stays finite.
  const double z = x * x;
  const double p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3;
  const double q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3;
  const double a = fabs(x);
  const bool small = a < 0.625;
  const double e = exp(2.0 * (a > 40.0 ? 40.0 : a));
  const double r = (small ? x * z * p : e - 1.0) / (small ? q : e + 1.0);
  return small ? x + r : (x < 0 ? -r : r);
}
// log(1 + e) for 0 <= e <= 1 without log1p: log(u) * e / (u - 1) with u = 1 + e
// corrects the rounding of u (Goldberg); exact e when u rounds to 1.
static inline double theano_log1p_unit(double e) {
  const double u = 1.0 + e;
  const double d = u - 1.0;
  const double r = log(u) * (e / (d == 0 ? 1.0 : d));
  return d == 0 ? e : r;
}
static inline double theano_sigmoid(double x) {
  const double e = exp(-fabs(x));
  const double r = 1.0 / (1.0 + e);
  return x >= 0 ? r : e * r;
}
static inline double theano_softplus(double x) {
  return (x > 0 ? x : 0.0) + theano_log1p_unit(exp(-fabs(x)));
}
static inline bool isnan(double x) { return x != x; }
static inline bool isinf(double x) { return x == __builtin_inf() || x == -__builtin_inf(); }
static inline double theano_digamma(double x) {
  if (x != x || x == -__builtin_inf()) return __builtin_nan("");
  if (x <= 0 && floor(x) == x) return __builtin_nan("");
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
// Helpers for the int64 compute domain (NumPy integer semantics; -fwrapv).
namespace theano_i {
static inline int64_t theano_floor_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)((uint64_t)0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
static inline int64_t theano_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
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
// ---- end of prelude
)PRELUDE";

}  // namespace

std::string_view prelude() { return kPrelude; }

}  // namespace theano::codegen::lower
