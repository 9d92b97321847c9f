// The reductions' fold rules (runtime/include/theano/runtime/kernels/reduce_rules.h)
// compile for every accumulator type in each of their readers, as the code
// generator embeds them: a generated C++ unit (the host prelude), the
// emulated CUDA device (the CUDA prelude) and, where present, NVRTC; and
// every reader computes what perform's view of them (FoldRules<T>, compiled
// by the host compiler) computes, bit for bit, with NumPy's results on the
// cases that define the rules (wrapping, NaN, ties). Names contain "cuda"
// where the CUDA readers run.
#include <doctest/doctest.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/cuda_emulation.h>
#include <theano/codegen/jit_loader.h>
#include <theano/codegen/nvrtc_compiler.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../../codegen/src/emit/lower/lowering.h"
#include "../../codegen/src/emit/lower/reduce_code.h"
#include "../../compiler/src/tensor/reduction/fold_rules.h"

using namespace theano;

namespace {

constexpr int kN = 9;   // elements folded
constexpr int kOut = 8;  // results per type: add, mul, mul_nz, max, min, the joined add, all, any

// The values folded, per type (NaN first found at index 4 for floats).
const double kValues[kN] = {3, -2, 0, 100, NAN, 7, NAN, -120, 100};

struct TypeCase {
  const char* suffix;
  const char* c_type;  // the accumulator's C type in generated code
};
const TypeCase kTypes[] = {{"f64", "double"},  {"f32", "float"},     {"i64", "int64_t"},   {"i32", "int32_t"},
                           {"i16", "int16_t"}, {"i8", "int8_t"},     {"u64", "uint64_t"},  {"u32", "uint32_t"},
                           {"u16", "uint16_t"}, {"u8", "uint8_t"},  {"b", "int"}};

// The folds of one type, the text every reader compiles: out[0..7] as kOut
// says (all / any only for b), idx[0..1] Argmax / Argmin by the scan rule,
// idx[2..3] by joining (value, index) pairs from the last to the first.
std::string body(const TypeCase& t) {
  const std::string S = t.suffix, A = t.c_type;
  std::string r = "static void rules_" + S + "(const " + A + "* x, " + A + "* out, int64_t* idx) {\n";
  const char* ops[] = {"add", "mul", "mul_nz", "max", "min"};
  for (int k = 0; k < 5; ++k) {
    const std::string f = std::string("theano_reduce_") + ops[k];
    r += "  { " + A + " a = " + f + "_id_" + S + "(); for (int i = 0; i < " + std::to_string(kN) + "; ++i) a = " +
         f + "_" + S + "(a, x[i]); out[" + std::to_string(k) + "] = a; }\n";
  }
  r += "  { " + A + " l = theano_reduce_add_id_" + S + "(), h = l; for (int i = 0; i < 4; ++i) l = theano_reduce_add_" +
       S + "(l, x[i]); for (int i = 4; i < " + std::to_string(kN) + "; ++i) h = theano_reduce_add_" + S +
       "(h, x[i]); out[5] = theano_reduce_add_join_" + S + "(l, h); }\n";
  if (S == "b") {
    r += "  { int a = theano_reduce_all_id_b(); for (int i = 0; i < " + std::to_string(kN) +
         "; ++i) a = theano_reduce_all_b(a, x[i]); out[6] = a; }\n";
    r += "  { int a = theano_reduce_any_id_b(); for (int i = 0; i < " + std::to_string(kN) +
         "; ++i) a = theano_reduce_any_b(a, x[i]); out[7] = a; }\n";
  }
  for (const char* m : {"max", "min"}) {
    const std::string k = std::string(m) == "max" ? "0" : "1";
    r += "  { " + A + " best = x[0]; int64_t bi = 0; for (int i = 1; i < " + std::to_string(kN) +
         "; ++i) if (theano_arg_" + m + "_better_" + S + "(best, x[i])) { best = x[i]; bi = i; } idx[" + k +
         "] = bi; }\n";
    r += "  { " + A + " v = x[0]; int64_t vi = -1; for (int i = " + std::to_string(kN - 1) +
         "; i >= 0; --i) if (theano_arg_" + m + "_takes_" + S + "(v, vi, x[i], i)) { v = x[i]; vi = i; } idx[" +
         std::to_string(std::stoi(k) + 2) + "] = vi; }\n";
  }
  return r + "}\n";
}

// The support code (the embedded header and every type's instantiation) and
// the bodies, as a generated unit would hold them.
std::string rules_source() {
  std::string s;
  std::vector<std::string> keys;
  for (const TypeCase& t : kTypes)
    for (const auto& [key, code] : codegen::lower::reduce_rules_support(t.suffix)) {
      bool seen = false;
      for (const std::string& k : keys) seen = seen || k == key;
      if (!seen) {
        keys.push_back(key);
        s += code + "\n";
      }
    }
  for (const TypeCase& t : kTypes) s += body(t);
  return s;
}

// What perform's view of the rules computes for type T (the same loops, by
// the host compiler): out as doubles, idx as body() says.
template <class T>
void host_rules(std::vector<double>& out, std::vector<std::int64_t>& idx, const T* x) {
  using R = theano::tensor::detail::FoldRules<T>;
  out.assign(kOut, 0);
  idx.assign(4, 0);
  T a = R::add_id(), m = R::mul_id(), z = R::mul_nz_id(), hi = R::max_id(), lo = R::min_id();
  for (int i = 0; i < kN; ++i) {
    a = R::add(a, x[i]);
    m = R::mul(m, x[i]);
    z = R::mul_nz(z, x[i]);
    hi = R::max(hi, x[i]);
    lo = R::min(lo, x[i]);
  }
  T l = R::add_id(), h = R::add_id();
  for (int i = 0; i < 4; ++i) l = R::add(l, x[i]);
  for (int i = 4; i < kN; ++i) h = R::add(h, x[i]);
  const T j = R::add(l, h);
  const T vals[6] = {a, m, z, hi, lo, j};
  for (int k = 0; k < 6; ++k) out[k] = static_cast<double>(vals[k]);
  if constexpr (std::is_same_v<T, bool>) {
    T all = R::all_id(), any = R::any_id();
    for (int i = 0; i < kN; ++i) {
      all = R::all(all, x[i]);
      any = R::any(any, x[i]);
    }
    out[6] = all;
    out[7] = any;
  }
  for (int k = 0; k < 2; ++k) {
    T best = x[0];
    for (int i = 1; i < kN; ++i)
      if (k == 0 ? R::arg_max_better(best, x[i]) : R::arg_min_better(best, x[i])) {
        best = x[i];
        idx[k] = i;
      }
  }
}

// The inputs of every type, as kValues converted (NaN: 0 for integers;
// negative values wrap in the unsigned types).
struct Inputs {
  double f64[kN];
  float f32[kN];
  std::int64_t i64[kN];
  std::int32_t i32[kN];
  std::int16_t i16[kN];
  std::int8_t i8[kN];
  std::uint64_t u64[kN];
  std::uint32_t u32[kN];
  std::uint16_t u16[kN];
  std::uint8_t u8[kN];
  int b[kN];
  Inputs() {
    for (int i = 0; i < kN; ++i) {
      const double v = kValues[i];
      const std::int64_t n = std::isnan(v) ? 0 : static_cast<std::int64_t>(v);
      f64[i] = v;
      f32[i] = static_cast<float>(v);
      i64[i] = n;
      i32[i] = static_cast<std::int32_t>(n);
      i16[i] = static_cast<std::int16_t>(n);
      i8[i] = static_cast<std::int8_t>(n);
      u64[i] = static_cast<std::uint64_t>(n);
      u32[i] = static_cast<std::uint32_t>(n);
      u16[i] = static_cast<std::uint16_t>(n);
      u8[i] = static_cast<std::uint8_t>(n);
      b[i] = n != 0;
    }
  }
  const void* of(int t) const {
    const void* p[] = {f64, f32, i64, i32, i16, i8, u64, u32, u16, u8, b};
    return p[t];
  }
};

// The host's results for type number t.
void host_case(int t, const Inputs& in, std::vector<double>& out, std::vector<std::int64_t>& idx) {
  switch (t) {
    case 0: return host_rules(out, idx, in.f64);
    case 1: return host_rules(out, idx, in.f32);
    case 2: return host_rules(out, idx, in.i64);
    case 3: return host_rules(out, idx, in.i32);
    case 4: return host_rules(out, idx, in.i16);
    case 5: return host_rules(out, idx, in.i8);
    case 6: return host_rules(out, idx, in.u64);
    case 7: return host_rules(out, idx, in.u32);
    case 8: return host_rules(out, idx, in.u16);
    case 9: return host_rules(out, idx, in.u8);
    default: break;
  }
  bool b[kN];
  for (int i = 0; i < kN; ++i) b[i] = in.b[i] != 0;
  host_rules(out, idx, b);
}

// A generated reader's result of type t: `out` (kOut accumulators of the
// type's C type), converted to double for comparison.
double as_double(int t, const void* out, int k) {
  switch (t) {
    case 0: return static_cast<const double*>(out)[k];
    case 1: return static_cast<const float*>(out)[k];
    case 2: return static_cast<double>(static_cast<const std::int64_t*>(out)[k]);
    case 3: return static_cast<const std::int32_t*>(out)[k];
    case 4: return static_cast<const std::int16_t*>(out)[k];
    case 5: return static_cast<const std::int8_t*>(out)[k];
    case 6: return static_cast<double>(static_cast<const std::uint64_t*>(out)[k]);
    case 7: return static_cast<const std::uint32_t*>(out)[k];
    case 8: return static_cast<const std::uint16_t*>(out)[k];
    case 9: return static_cast<const std::uint8_t*>(out)[k];
    default: break;
  }
  return static_cast<const int*>(out)[k];
}

// Compares a reader's results (outs[t]: kOut values, idxs[t]: 4 indices) with
// the host's for every type; the joined scan (idx 2, 3) must agree with the
// scan in order.
void check_against_host(const Inputs& in, const std::vector<std::vector<double>>& outs,
                        const std::vector<std::vector<std::int64_t>>& idxs) {
  for (int t = 0; t < 11; ++t) {
    CAPTURE(kTypes[t].suffix);
    std::vector<double> want;
    std::vector<std::int64_t> want_idx;
    host_case(t, in, want, want_idx);
    const int n_out = t == 10 ? kOut : 6;
    for (int k = 0; k < n_out; ++k) {
      CAPTURE(k);
      const double got = outs[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)];
      CHECK(((got == want[static_cast<std::size_t>(k)]) ||
             (std::isnan(got) && std::isnan(want[static_cast<std::size_t>(k)]))));
    }
    const auto& gi = idxs[static_cast<std::size_t>(t)];
    CHECK(gi[0] == want_idx[0]);
    CHECK(gi[1] == want_idx[1]);
    CHECK(gi[2] == want_idx[0]);
    CHECK(gi[3] == want_idx[1]);
  }
}

}  // namespace

TEST_SUITE("reduce rules") {
  TEST_CASE("reduce rules: perform's view has NumPy's results (wrapping, NaN propagates, the first NaN wins)") {
    const Inputs in;
    std::vector<double> out;
    std::vector<std::int64_t> idx;
    host_case(0, in, out, idx);  // f64
    CHECK(std::isnan(out[0]));
    CHECK(std::isnan(out[3]));
    CHECK(std::isnan(out[4]));
    CHECK(idx[0] == 4);  // the first NaN
    CHECK(idx[1] == 4);
    host_case(9, in, out, idx);  // u8: 3 + 254 + 0 + 100 + 0 + 7 + 0 + 136 + 100 = 600 wraps to 88
    CHECK(out[0] == 88);
    host_case(5, in, out, idx);  // i8
    CHECK(out[0] == 88);
    CHECK(out[1] == 0);                                        // a zero in the product
    CHECK(out[2] == static_cast<std::int8_t>(3 * -2 * 100 * 7 * -120 * 100));  // without zeros, wrapped
    CHECK(out[3] == 100);
    CHECK(out[4] == -120);
    CHECK(idx[0] == 3);  // ties keep the first
    CHECK(idx[1] == 7);
    host_case(10, in, out, idx);  // bool
    CHECK(out[0] == 1);           // add is or
    CHECK(out[1] == 0);           // mul is and
    CHECK(out[6] == 0);
    CHECK(out[7] == 1);
  }

  TEST_CASE("reduce rules: every accumulator type compiles in a generated C++ unit and folds as perform") {
    std::string src(codegen::lower::prelude());
    src += rules_source();
    src += "extern \"C\" void run_rules(const void* const* x, void* const* out, int64_t* idx) {\n";
    for (int t = 0; t < 11; ++t) {
      const std::string ts = std::to_string(t), A = kTypes[t].c_type;
      src += "  rules_" + std::string(kTypes[t].suffix) + "((const " + A + "*)x[" + ts + "], (" + A + "*)out[" + ts +
             "], idx + 4 * " + ts + ");\n";
    }
    src += "}\n";
    const codegen::CompiledObject obj = codegen::ClangCompiler().compile(src, "reduce_rules_test.cpp");
    codegen::LoadedModule m = codegen::JitLoader::instance().load(obj.bytes, "reduce_rules_test");
    const Inputs in;
    const void* x[11];
    std::vector<std::vector<double>> raw(11, std::vector<double>(kOut, 0));  // room for kOut of any type
    void* out[11];
    for (int t = 0; t < 11; ++t) {
      x[t] = in.of(t);
      out[t] = raw[static_cast<std::size_t>(t)].data();
    }
    std::vector<std::int64_t> idx(44, -9);
    m.function<void (*)(const void* const*, void* const*, std::int64_t*)>("run_rules")(x, out, idx.data());
    std::vector<std::vector<double>> outs(11);
    std::vector<std::vector<std::int64_t>> idxs(11);
    for (int t = 0; t < 11; ++t) {
      for (int k = 0; k < kOut; ++k) outs[static_cast<std::size_t>(t)].push_back(as_double(t, out[t], k));
      idxs[static_cast<std::size_t>(t)].assign(idx.begin() + 4 * t, idx.begin() + 4 * t + 4);
    }
    check_against_host(in, outs, idxs);
  }

  TEST_CASE("reduce rules: every accumulator type compiles in a CUDA unit (emulated, and NVRTC where present)") {
    std::string src(codegen::lower::cuda_prelude());
    src += rules_source();
    src += "struct theano_params_3 { int64_t v[3]; };\n";
    src += "extern \"C\" __global__ void run_rules(const theano_params_3 p) {\n";
    src += "  const void* const* x = (const void* const*)p.v[0];\n  void* const* out = (void* const*)p.v[1];\n";
    src += "  int64_t* idx = (int64_t*)p.v[2];\n  if (threadIdx.x != 0 || blockIdx.x != 0) return;\n";
    for (int t = 0; t < 11; ++t) {
      const std::string ts = std::to_string(t), A = kTypes[t].c_type;
      src += "  rules_" + std::string(kTypes[t].suffix) + "((const " + A + "*)x[" + ts + "], (" + A + "*)out[" + ts +
             "], idx + 4 * " + ts + ");\n";
    }
    src += "}\n";
    {
      const codegen::EmulatedKernels k(src, {{"run_rules", 3, false}}, codegen::CompileOptions{}, nullptr, "test");
      const Inputs in;
      const void* x[11];
      std::vector<std::vector<double>> raw(11, std::vector<double>(kOut, 0));
      void* out[11];
      for (int t = 0; t < 11; ++t) {
        x[t] = in.of(t);
        out[t] = raw[static_cast<std::size_t>(t)].data();
      }
      std::vector<std::int64_t> idx(44, -9);
      const std::int64_t p[3] = {reinterpret_cast<std::int64_t>(x), reinterpret_cast<std::int64_t>(out),
                                 reinterpret_cast<std::int64_t>(idx.data())};
      k.launch(0, 1, 32, p);
      std::vector<std::vector<double>> outs(11);
      std::vector<std::vector<std::int64_t>> idxs(11);
      for (int t = 0; t < 11; ++t) {
        for (int k2 = 0; k2 < kOut; ++k2) outs[static_cast<std::size_t>(t)].push_back(as_double(t, out[t], k2));
        idxs[static_cast<std::size_t>(t)].assign(idx.begin() + 4 * t, idx.begin() + 4 * t + 4);
      }
      check_against_host(in, outs, idxs);
    }
    if (!codegen::nvrtc_available()) {
      MESSAGE("NVRTC check skipped: " << codegen::nvrtc_unavailable_reason());
      return;
    }
    for (const char* arch : {"sm_80", "sm_90"}) {
      CAPTURE(arch);
      codegen::NvrtcOptions o;
      o.arch = arch;
      const codegen::NvrtcResult r = codegen::nvrtc_compile(src, o, "reduce_rules.cu");
      CHECK(!r.cubin.empty());
      CHECK(r.ptx.find(".entry ") != std::string::npos);
    }
  }
}
