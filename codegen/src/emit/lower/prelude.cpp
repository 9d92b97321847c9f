// The embedded prelude of every generated translation unit: the thunk ABI, the
// shape rules and the float -> integer conversions (the very headers the host
// includes, embedded by CMake), error helpers, libm and CBLAS
// prototypes and the scalar helpers the scalar table's C expressions name
// (runtime/include/theano/runtime/kernels/scalar_math.h, embedded too). No
// standard header is included: the TU must compile fast and the same everywhere.
#include "lowering.h"

namespace theano::codegen::lower {

// The verbatim text of runtime/include/theano/runtime/kernels/shape_rules.h,
// scalar_convert.h, scalar_math.h (the scalar helpers the scalar table's C
// expressions name, in the double, float and int64 domains; perform calls the
// same functions) and codegen/src/thunk_abi.h (embedded_headers.cpp, generated
// by CMake).
extern const char kShapeRulesText[];
extern const char kScalarConvertText[];
extern const char kScalarMathText[];
extern const char kThunkAbiText[];

namespace {

constexpr std::string_view kPreludeHead = R"PRELUDE(// theano-cpp generated code: prelude (thunk ABI, libm prototypes, helpers)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
#define THEANO_GENERATED_CODE 1
)PRELUDE";

// Infinity and NaN for the scalar helpers: GCC builtins on the host (and in
// the emulated CUDA unit), CUDA intrinsics under NVRTC, which has no builtins.
constexpr std::string_view kHostSpecials = R"PRELUDE(#define THEANO_INF __builtin_inf()
#define THEANO_NAN __builtin_nan("")
)PRELUDE";
constexpr std::string_view kCudaSpecials = R"PRELUDE(#ifdef THEANO_CUDA_EMULATION
#define THEANO_INF __builtin_inf()
#define THEANO_NAN __builtin_nan("")
// A double passed bit for bit in an int64 kernel parameter.
static inline double theano_bits_double(int64_t v) { double d; __builtin_memcpy(&d, &v, 8); return d; }
#else
#define THEANO_INF __longlong_as_double(0x7ff0000000000000LL)
#define THEANO_NAN __longlong_as_double(0x7ff8000000000000LL)
static inline double theano_bits_double(int64_t v) { return __longlong_as_double((long long)v); }
// NVRTC lacks the GCC builtins the shape rules (shape_rules.h, in units that
// request them) use: exact
// int64 forms of the checked product, sum and difference, and the libm / memcpy calls.
static inline bool theano_cuda_mul_overflow(int64_t a, int64_t b, int64_t* r) {
  const long long lo = (long long)((unsigned long long)a * (unsigned long long)b);
  const long long hi = __mul64hi((long long)a, (long long)b);
  *r = (int64_t)lo;
  return hi != (lo < 0 ? -1LL : 0LL);
}
static inline bool theano_cuda_add_overflow(int64_t a, int64_t b, int64_t* r) {
  const int64_t s = (int64_t)((unsigned long long)a + (unsigned long long)b);
  *r = s;
  return (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0);
}
static inline bool theano_cuda_sub_overflow(int64_t a, int64_t b, int64_t* r) {
  const int64_t d = (int64_t)((unsigned long long)a - (unsigned long long)b);
  *r = d;
  return (a >= 0) != (b >= 0) && (d >= 0) != (a >= 0);
}
#define __builtin_mul_overflow(a, b, r) theano_cuda_mul_overflow((a), (b), (r))
#define __builtin_add_overflow(a, b, r) theano_cuda_add_overflow((a), (b), (r))
#define __builtin_sub_overflow(a, b, r) theano_cuda_sub_overflow((a), (b), (r))
#define __builtin_ceil ceil
#define __builtin_memcpy memcpy
#endif
)PRELUDE";

// The libm functions the scalar table's C expressions call (NVRTC has them
// built in; the host prelude and the emulation shim declare them).
constexpr std::string_view kLibmPrototypes = R"PRELUDE(extern "C" {
double exp(double); double exp2(double); double expm1(double);
double log(double); double log2(double); double log10(double); double log1p(double);
double sin(double); double cos(double); double tan(double);
double asin(double); double acos(double); double atan(double); double atan2(double, double);
double sinh(double); double cosh(double); double tanh(double);
double asinh(double); double acosh(double); double atanh(double);
double erf(double); double erfc(double); double lgamma(double);
double floor(double); double ceil(double); double nearbyint(double); double trunc(double);
double sqrt(double); double fabs(double); double pow(double, double); double fmod(double, double);
float expf(float); float exp2f(float); float expm1f(float);
float logf(float); float log2f(float); float log10f(float); float log1pf(float);
float sinf(float); float cosf(float); float tanf(float);
float asinf(float); float acosf(float); float atanf(float); float atan2f(float, float);
float sinhf(float); float coshf(float); float asinhf(float); float acoshf(float); float atanhf(float);
float erff(float); float erfcf(float);
float floorf(float); float ceilf(float); float nearbyintf(float); float truncf(float);
float sqrtf(float); float fabsf(float); float powf(float, float);
}
)PRELUDE";

// After the embedded headers (shape_rules.h, scalar_convert.h, thunk_abi.h).
constexpr std::string_view kPreludeTail = R"PRELUDE(// Error reporting runs at most once per call: compiled without optimization
// (optnone), it costs the compile almost nothing (at -O2 the digit loops alone
// doubled the compile time of a small graph).
#define THEANO_COLD __attribute__((cold, noinline, optnone))
// Node functions with no per-element work worth optimizing (views, shape
// queries, statically tiny values) are compiled as written: each saves a few
// ms of -O2 time and costs nanoseconds a call.
#define THEANO_UNOPTIMIZED __attribute__((noinline, optnone))
#define THEANO_MAX_PARTS 64
// Loops over the 16 accumulator lanes of a reduction. The JIT compiles with
// -fno-unroll-loops, which also keeps these loops rolled unless asked, and a
// rolled lane loop holds its lanes in a stack array: every step then waits on
// a store-to-load round trip (row sums of a 4000x4000 float32 matrix, 2 cores:
// 3.7 ms instead of 1.2 ms). THEANO_LANES, before the loop that folds 16
// elements into the 16 lanes: one 16-wide vector step (the fold may be a
// select, which the loop vectorizer turns into a blend where the SLP
// vectorizer of an unrolled loop gives up). THEANO_UNROLL, before the other
// short fixed loops (lane set-up, the tree that combines the lanes, eight
// rows folded into one column accumulator): unrolled.
#define THEANO_LANES _Pragma("clang loop vectorize_width(16) interleave_count(1)")
#define THEANO_UNROLL _Pragma("clang loop unroll(full)")
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
)PRELUDE";

// After the libm prototypes.
constexpr std::string_view kPreludeTail2 = R"PRELUDE(THEANO_COLD static void theano_put(TheanoContext* c, int64_t* p, const char* s) {
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
// "; input shapes: (2,), (3,)": the tail of every theano_fail* message.
THEANO_COLD static void theano_put_input_shapes(TheanoContext* c, int64_t* p, const TheanoArray* const* in, int n) {
  theano_put(c, p, "; input shapes: ");
  for (int i = 0; i < n; ++i) {
    if (i) theano_put(c, p, ", ");
    theano_put_shape(c, p, in[i]);
  }
}
// Writes `msg` and the input shapes into the error buffer; returns `code`.
THEANO_COLD static int theano_fail(TheanoContext* c, int code, const char* msg, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// A failed theano_broadcast_rule, as Elemwise::perform words it:
// "<msg>at dimension D, input I has size N: <rule text>" ("input O has size A
// but input I has size B" for a mismatch).
THEANO_COLD static int theano_fail_broadcast(TheanoContext* c, int rule, const char* msg, int64_t input, int64_t dim,
                                             int64_t other, const TheanoArray* const* in, int n) {
  const int code = theano_rule_error_kind(rule);
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "at dimension ");
  theano_put_int(c, &p, dim);
  if (rule == THEANO_RULE_BCAST_MISMATCH) {
    theano_put(c, &p, ", input ");
    theano_put_int(c, &p, other);
    theano_put(c, &p, " has size ");
    theano_put_int(c, &p, in[other]->shape[dim]);
    theano_put(c, &p, " but input ");
  } else {
    theano_put(c, &p, ", input ");
  }
  theano_put_int(c, &p, input);
  theano_put(c, &p, " has size ");
  theano_put_int(c, &p, in[input]->shape[dim]);
  theano_put(c, &p, ": ");
  theano_put(c, &p, theano_rule_text(rule));
  theano_put_input_shapes(c, &p, in, n);
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
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// theano_fail with two run-time values: "<msg><a><mid><b><tail>".
THEANO_COLD static int theano_fail_int2(TheanoContext* c, int code, const char* msg, int64_t a, const char* mid,
                                        int64_t b, const char* tail, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, a);
  theano_put(c, &p, mid);
  theano_put_int(c, &p, b);
  theano_put(c, &p, tail);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// theano_fail with three run-time values: "<msg><a><mid><b><mid2><c><tail>".
THEANO_COLD static int theano_fail_int3(TheanoContext* c, int code, const char* msg, int64_t a, const char* mid,
                                        int64_t b, const char* mid2, int64_t v, const char* tail,
                                        const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, a);
  theano_put(c, &p, mid);
  theano_put_int(c, &p, b);
  theano_put(c, &p, mid2);
  theano_put_int(c, &p, v);
  theano_put(c, &p, tail);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// A failed shape rule (shape_rules.h): "<msg><rule text>[<value>]" with the
// rule's error kind, as throw_shape_rule words it on the host.
THEANO_COLD static int theano_fail_rule(TheanoContext* c, int rule, const char* msg, int64_t value,
                                        const TheanoArray* const* in, int n) {
  const int code = theano_rule_error_kind(rule);
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, theano_rule_text(rule));
  if (theano_rule_has_value(rule)) theano_put_int(c, &p, value);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// A failed allocation of a valid size (MemoryError on the host), worded as
// out_of_memory_message (ndarray.h): "<msg>out of memory: cannot allocate
// <bytes> bytes for an array of shape (..); input shapes: ...".
THEANO_COLD static int theano_fail_alloc(TheanoContext* c, const char* msg, int64_t bytes, const TheanoArray* a,
                                         const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return THEANO_ERR_MEMORY;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "out of memory: cannot allocate ");
  theano_put_int(c, &p, bytes);
  theano_put(c, &p, " bytes for an array of shape ");
  theano_put_shape(c, &p, a);
  theano_put_input_shapes(c, &p, in, n);
  return THEANO_ERR_MEMORY;
}
// Allocates output `a` (ndim, dtype and shape set) through the host once its
// size passed the shared rule (shape_rules.h, as NDArray::empty checks it): a
// bad size fails with `msg`, the rule's text and the offending value.
static inline int theano_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize,
                                       const char* msg, const TheanoArray* const* in, int n) {
  int64_t size = 0, bad = 0;
  const int rule = theano_shape_size(a->shape, a->ndim, itemsize, &size, &bad);
  if (rule != THEANO_RULE_OK) return theano_fail_rule(c, rule, msg, bad, in, n);
  const int e = c->alloc(c->host, a, slot);
  if (e == THEANO_ERR_HOST) return e;  // the host kept the error (a slot the plan does not have)
  if (e != 0) return theano_fail_alloc(c, msg, size * itemsize, a, in, n);
  return 0;
}
// theano_alloc_checked for a GPU output: the same size rule, GPU memory.
static inline int theano_gpu_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize,
                                           const char* msg, const TheanoArray* const* in, int n) {
  int64_t size = 0, bad = 0;
  const int rule = theano_shape_size(a->shape, a->ndim, itemsize, &size, &bad);
  if (rule != THEANO_RULE_OK) return theano_fail_rule(c, rule, msg, bad, in, n);
  return c->gpu_alloc(c->host, a, slot);
}
// Number of elements of an existing array: its size passed theano_shape_size
// when it was made (NDArray, theano_alloc_checked, a view of such), so this
// product cannot overflow; sizes being made go through the checked rules.
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
)PRELUDE";

// After the scalar helpers (scalar_math.h): the float domain's names for the
// libm functions the scalar table's C expressions call. Each name hides the
// double one inside namespace theano_s, so an expression written for double
// computes in float (vectorized 8 or 16 lanes wide through libmvec on the CPU).
constexpr std::string_view kFloatLibm = R"PRELUDE(namespace theano_s {
static inline float exp(float x) { return expf(x); }
static inline float exp2(float x) { return exp2f(x); }
static inline float expm1(float x) { return expm1f(x); }
static inline float log(float x) { return logf(x); }
static inline float log2(float x) { return log2f(x); }
static inline float log10(float x) { return log10f(x); }
static inline float log1p(float x) { return log1pf(x); }
static inline float sin(float x) { return sinf(x); }
static inline float cos(float x) { return cosf(x); }
static inline float tan(float x) { return tanf(x); }
static inline float asin(float x) { return asinf(x); }
static inline float acos(float x) { return acosf(x); }
static inline float atan(float x) { return atanf(x); }
static inline float atan2(float y, float x) { return atan2f(y, x); }
static inline float sinh(float x) { return sinhf(x); }
static inline float cosh(float x) { return coshf(x); }
static inline float asinh(float x) { return asinhf(x); }
static inline float acosh(float x) { return acoshf(x); }
static inline float atanh(float x) { return atanhf(x); }
static inline float erf(float x) { return erff(x); }
static inline float erfc(float x) { return erfcf(x); }
static inline float floor(float x) { return floorf(x); }
static inline float ceil(float x) { return ceilf(x); }
static inline float nearbyint(float x) { return nearbyintf(x); }
static inline float trunc(float x) { return truncf(x); }
static inline float sqrt(float x) { return sqrtf(x); }
static inline float fabs(float x) { return fabsf(x); }
static inline float pow(float x, float y) { return powf(x, y); }
}  // namespace theano_s
// ---- end of prelude
)PRELUDE";

}  // namespace

std::string_view prelude() {
  static const std::string text = std::string(kPreludeHead) + std::string(kHostSpecials) + kShapeRulesText +
                                  kScalarConvertText + kThunkAbiText + std::string(kPreludeTail) +
                                  std::string(kLibmPrototypes) + std::string(kPreludeTail2) + kScalarMathText +
                                  std::string(kFloatLibm);
  return text;
}

std::string_view libm_prototypes() { return kLibmPrototypes; }

std::string_view shape_rules_text() { return kShapeRulesText; }

std::string_view cuda_prelude() {
  // NVRTC provides the libm functions (exp, floor, ...) as device functions
  // with no include; the emulation shim declares them for the host compiler.
  // Kernels that check indices request the shape rules (shape_rules_text).
  static const std::string text = std::string(kPreludeHead) + "#define THEANO_CUDA 1\n" +
                                  std::string(kCudaSpecials) + kScalarConvertText + kScalarMathText +
                                  std::string(kFloatLibm);
  return text;
}

}  // namespace theano::codegen::lower
