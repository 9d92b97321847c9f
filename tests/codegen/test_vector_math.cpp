// Vectorized transcendentals (issue 18): the JIT's optimizer maps every libm
// function glibc's libmvec exports to its vector variant at the host's widest
// vector ABI (codegen/src/compile/vector_math.cpp), so loops over erf, log1p, the
// hyperbolic and inverse functions vectorize; and what they compute stays
// within a few ULPs of scalar libm, in float64 and float32.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>

#include <limits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

// The x86_64 vector ABI letter of the widest libmvec variants this host runs.
char host_isa() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return 'e';
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 'd';
#endif
  return 'b';
}

// True, with a message, on a host without AVX-512 (the AVX-512 tests skip).
bool skipped_without_avx512() {
  if (host_isa() == 'e') return false;
  MESSAGE("skipped: this host has no AVX-512");
  return true;
}

// The vector ABI letter of the variants a loop of the JIT's own choosing
// calls, as a plain product loop shows: host_isa(), the JIT preferring
// 512-bit vectors on every AVX-512 CPU (clang_compiler.cpp's optimize; the
// test below checks that on its own).
char preferred_isa() {
  const char isa = host_isa();
  if (isa != 'e') return isa;
  const std::string plain = codegen::ClangCompiler()
                                .emit_assembly("extern \"C\" void scale(double* __restrict o, const double* __restrict a, "
                                               "long n) { for (long i = 0; i < n; ++i) o[i] = a[i] * 3.0; }",
                                               "scale.cpp")
                                .bytes;
  return plain.find("%zmm") != std::string::npos ? 'e' : 'd';
}

// Distance in representable values between a and b (0 when equal or both NaN).
template <class F, class I>
std::int64_t ulps(F a, F b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) return INT64_MAX;
  auto key = [](F f) {
    I i;
    std::memcpy(&i, &f, sizeof i);
    // Monotone in f: negative values count down from the sign bit.
    return i < 0 ? static_cast<__int128>(std::numeric_limits<I>::min()) - i : static_cast<__int128>(i);
  };
  const __int128 d = key(a) - key(b);
  const __int128 m = d < 0 ? -d : d;
  return m > INT64_MAX ? INT64_MAX : static_cast<std::int64_t>(m);
}

struct Case {
  const char* name;
  std::function<Var(const Var&)> f;
  double (*ref)(double);
  float (*ref_f)(float);
  double lo, hi;
};

// The elementwise op of `c` compiled for F over `xs`, within 4 ulp of `ref`
// at every point.
template <class F, class I, class Ref>
void check_ulps(const Case& c, const std::vector<F>& xs, Ref ref, const char* dtype) {
  const auto n = static_cast<std::int64_t>(xs.size());
  Var x = T::vector("x", std::is_same_v<F, float> ? DType::Float32 : DType::Float64);
  NDArray out = function({x}, {c.f(x)})({NDArray::from_vector<F>(xs, {n})})[0];
  REQUIRE(out.dtype() == (std::is_same_v<F, float> ? DType::Float32 : DType::Float64));
  std::int64_t worst = 0;
  F worst_x = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const F v = xs[static_cast<std::size_t>(k)];
    const std::int64_t d = ulps<F, I>(out.data_as<F>()[k], ref(v));
    if (d > worst) worst = d, worst_x = v;
  }
  CAPTURE(dtype);
  CAPTURE(worst_x);
  CHECK(worst <= 4);
  MESSAGE(c.name << " " << dtype << ": at most " << worst << " ulp");
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("ClangCompiler: erf, log1p, expm1, the hyperbolic and inverse functions vectorize through libmvec") {
    const std::string src = R"(extern "C" {
double erf(double); double erfc(double); double log1p(double); double expm1(double); double asinh(double);
double cbrt(double); double atan(double); double cosh(double); double exp(double); double atan2(double, double);
float erff(float); float log1pf(float);
}
#define LOOP(f, T) extern "C" void v_##f(T* __restrict o, const T* __restrict a, long n) { for (long i = 0; i < n; ++i) o[i] = f(a[i]); }
LOOP(erf, double) LOOP(erfc, double) LOOP(log1p, double) LOOP(expm1, double) LOOP(asinh, double)
LOOP(cbrt, double) LOOP(atan, double) LOOP(cosh, double) LOOP(exp, double) LOOP(erff, float) LOOP(log1pf, float)
extern "C" void v_atan2(double* __restrict o, const double* __restrict a, long n) {
  for (long i = 0; i < n; ++i) o[i] = atan2(a[i], o[i]);
}
// float in and out, exp in double (softmax.h's exp pass).
extern "C" void m_exp(float* __restrict o, const float* __restrict a, double m, long n) {
  for (long i = 0; i < n; ++i) o[i] = (float)exp((double)a[i] - m);
}
)";
    const std::string native = codegen::ClangCompiler().emit_assembly(src, "vm.cpp").bytes;
    const std::string isa(1, preferred_isa());
    const std::string d_lanes = isa == "e" ? "8" : isa == "d" ? "4" : "2";
    const std::string f_lanes = isa == "e" ? "16" : isa == "d" ? "8" : "4";
    for (const char* f : {"erf", "erfc", "log1p", "expm1", "asinh", "cbrt", "atan", "cosh", "exp"}) {
      const std::string want = "_ZGV" + isa + "N" + d_lanes + "v_" + f;
      CHECK_MESSAGE(native.find(want) != std::string::npos, "no call of " << want);
    }
    CHECK(native.find("_ZGV" + isa + "N" + d_lanes + "vv_atan2") != std::string::npos);
    for (const char* f : {"erff", "log1pf"}) {
      const std::string want = "_ZGV" + isa + "N" + f_lanes + "v_" + f;
      CHECK_MESSAGE(native.find(want) != std::string::npos, "no call of " << want);
    }
    // The generic x86-64 target (no -march, or -march=x86-64 in cxxflags
    // after the default -march=native) may only use the SSE variants, also
    // in a loop converting float to double (LLVM's own table offered the AVX2 ones
    // for m_exp, called with their arguments in xmm registers: wrong values).
    codegen::CompileOptions generic;
    generic.march.clear();
    codegen::CompileOptions generic_flag;
    generic_flag.cxxflags = {"-march=x86-64"};
    for (const auto& options : {generic, generic_flag}) {
      const std::string sse = codegen::ClangCompiler(options).emit_assembly(src, "vm.cpp").bytes;
      CHECK(sse.find("_ZGVbN2v_erf") != std::string::npos);
      CHECK(sse.find("_ZGVbN2v_exp") != std::string::npos);
      CHECK(sse.find("_ZGVdN") == std::string::npos);
      CHECK(sse.find("_ZGVeN") == std::string::npos);
    }
    // Without a vector library the calls stay scalar.
    codegen::CompileOptions none;
    none.veclib.clear();
    CHECK(codegen::ClangCompiler(none).emit_assembly(src, "vm.cpp").bytes.find("_ZGV") == std::string::npos);
  }

  TEST_CASE("a forced 16-lane float loop passes libmvec's AVX-512 variant its whole vector in zmm") {
    // THEANO_LANES forces 16 float lanes (512 bits) whatever the preferred
    // width. On a CPU preferring 256-bit vectors the call of _ZGVeN16v_expf
    // took its argument in ymm0 and ymm1 and left the upper 8 lanes of the
    // result garbage (0 here), until every generated function was given
    // "min-legal-vector-width"="512" (clang_compiler.cpp's optimize).
    if (skipped_without_avx512()) return;
    const std::string src = R"SRC(extern "C" float expf(float);
extern "C" void f(float* __restrict o, const float* __restrict a, long n) {
  _Pragma("clang loop vectorize_width(16) interleave_count(1)")
  for (long i = 0; i < n; ++i) o[i] = expf(a[i]);
}
)SRC";
    const std::string as = codegen::ClangCompiler().emit_assembly(src, "lanes.cpp").bytes;
    const std::size_t call = as.find("_ZGVeN16v_expf");
    REQUIRE_MESSAGE(call != std::string::npos, as);
    // The instructions that set up the call's argument, from the loop's label.
    const std::size_t from = as.rfind(".LBB", call);
    REQUIRE(from != std::string::npos);
    const std::string setup = as.substr(from, call - from);
    CAPTURE(setup);
    CHECK(setup.find("%zmm0") != std::string::npos);
    CHECK(setup.find("%ymm1") == std::string::npos);
  }

  TEST_CASE("loops use 512-bit vectors on an AVX-512 CPU, unless the flags ask for a preferred width") {
    // LLVM's tuning for Intel's AVX-512 CPUs (Skylake-SP to Sapphire Rapids)
    // prefers 256-bit vectors; the JIT's units prefer 512 (W5 0.72 of the
    // time, bench/README.md). A user's -mprefer-vector-width is kept.
    if (skipped_without_avx512()) return;
    const std::string src = R"SRC(extern "C" double exp(double);
extern "C" void scale(double* __restrict o, const double* __restrict a, long n) {
  for (long i = 0; i < n; ++i) o[i] = a[i] * 3.0;
}
extern "C" void e(double* __restrict o, const double* __restrict a, long n) {
  for (long i = 0; i < n; ++i) o[i] = exp(a[i]);
}
)SRC";
    const std::string wide = codegen::ClangCompiler().emit_assembly(src, "wide.cpp").bytes;
    // The product's vmulpd on zmm registers ("vmulpd\t(%rsi,%rax,8), %zmm0, %zmm1").
    bool zmm_product = false;
    for (std::size_t at = wide.find("vmulpd"); at != std::string::npos; at = wide.find("vmulpd", at + 1))
      zmm_product = zmm_product || wide.substr(at, wide.find('\n', at) - at).find("%zmm") != std::string::npos;
    CHECK(zmm_product);
    CHECK(wide.find("_ZGVeN8v_exp") != std::string::npos);
    CHECK(wide.find("_ZGVdN4v_exp") == std::string::npos);
    codegen::CompileOptions narrow;
    narrow.cxxflags = {"-mprefer-vector-width=256"};
    const std::string as = codegen::ClangCompiler(narrow).emit_assembly(src, "narrow.cpp").bytes;
    CHECK(as.find("%zmm") == std::string::npos);
    CHECK(as.find("_ZGVdN4v_exp") != std::string::npos);
  }

  TEST_CASE("vectorized transcendentals stay within 4 ulp of scalar libm, float64 and float32") {
    codegen::register_linkers();
    // Domains include the regions where each function changes formula
    // (tails of erf/erfc, |x| near 0 for log1p/expm1, large |x| for sinh).
    const std::vector<Case> cases = {
        {"erf", [](const Var& x) { return T::erf(x); }, [](double v) { return std::erf(v); },
         [](float v) { return std::erf(v); }, -6, 6},
        {"erfc", [](const Var& x) { return T::erfc(x); }, [](double v) { return std::erfc(v); },
         [](float v) { return std::erfc(v); }, -3, 9},
        {"log1p", [](const Var& x) { return T::log1p(x); }, [](double v) { return std::log1p(v); },
         [](float v) { return std::log1p(v); }, -0.999, 1e3},
        {"expm1", [](const Var& x) { return T::expm1(x); }, [](double v) { return std::expm1(v); },
         [](float v) { return std::expm1(v); }, -30, 30},
        {"exp", [](const Var& x) { return T::exp(x); }, [](double v) { return std::exp(v); },
         [](float v) { return std::exp(v); }, -80, 80},
        {"log2", [](const Var& x) { return T::log2(x); }, [](double v) { return std::log2(v); },
         [](float v) { return std::log2(v); }, 1e-20, 1e20},
        {"log10", [](const Var& x) { return T::log10(x); }, [](double v) { return std::log10(v); },
         [](float v) { return std::log10(v); }, 1e-20, 1e20},
        {"exp2", [](const Var& x) { return T::exp2(x); }, [](double v) { return std::exp2(v); },
         [](float v) { return std::exp2(v); }, -100, 100},
        {"sinh", [](const Var& x) { return T::sinh(x); }, [](double v) { return std::sinh(v); },
         [](float v) { return std::sinh(v); }, -80, 80},
        {"cosh", [](const Var& x) { return T::cosh(x); }, [](double v) { return std::cosh(v); },
         [](float v) { return std::cosh(v); }, -80, 80},
        {"arcsinh", [](const Var& x) { return T::arcsinh(x); }, [](double v) { return std::asinh(v); },
         [](float v) { return std::asinh(v); }, -1e6, 1e6},
        {"arccosh", [](const Var& x) { return T::arccosh(x); }, [](double v) { return std::acosh(v); },
         [](float v) { return std::acosh(v); }, 1, 1e6},
        {"arctanh", [](const Var& x) { return T::arctanh(x); }, [](double v) { return std::atanh(v); },
         [](float v) { return std::atanh(v); }, -0.999, 0.999},
        {"arctan", [](const Var& x) { return T::arctan(x); }, [](double v) { return std::atan(v); },
         [](float v) { return std::atan(v); }, -1e4, 1e4},
        {"arcsin", [](const Var& x) { return T::arcsin(x); }, [](double v) { return std::asin(v); },
         [](float v) { return std::asin(v); }, -1, 1},
        {"arccos", [](const Var& x) { return T::arccos(x); }, [](double v) { return std::acos(v); },
         [](float v) { return std::acos(v); }, -1, 1},
        {"tan", [](const Var& x) { return T::tan(x); }, [](double v) { return std::tan(v); },
         [](float v) { return std::tan(v); }, -1.5, 1.5},
        {"cos", [](const Var& x) { return T::cos(x); }, [](double v) { return std::cos(v); },
         [](float v) { return std::cos(v); }, -100, 100},
    };
    const int n = 16411;  // not a multiple of any vector width: the scalar tail runs too
    for (const Case& c : cases) {
      const std::string op_name = c.name;
      CAPTURE(op_name);
      std::vector<double> xs(n);
      for (int k = 0; k < n; ++k) xs[static_cast<std::size_t>(k)] = c.lo + (c.hi - c.lo) * k / (n - 1);
      check_ulps<double, std::int64_t>(c, xs, c.ref, "float64");
      check_ulps<float, std::int32_t>(c, std::vector<float>(xs.begin(), xs.end()), c.ref_f, "float32");
    }
  }
}
