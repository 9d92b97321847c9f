// The libmvec vector variants the loop vectorizer may call (see vector_math.h).
//
// Names follow the x86_64 vector function ABI that glibc implements:
// _ZGV<isa>N<lanes><v per argument>_<scalar name>, isa b = SSE (xmm),
// d = AVX2 (ymm), e = AVX-512 (zmm), N = unmasked. The loop vectorizer also
// needs the variant's "LLVM ABI" prefix, _ZGV_LLVM_N<lanes><v...>.
#include "vector_math.h"

#include <string>
#include <utility>
#include <vector>

namespace theano::codegen::detail {
namespace {

struct MathFunction {
  const char* name;  ///< the double function; the float one adds 'f'
  int arity;         ///< 1 or 2 arguments
  bool intrinsic;    ///< Clang 19 may emit it as llvm.<name>.f64 / .f32
};

// glibc 2.36's libmvec (x86_64), every function it exports in all widths.
constexpr MathFunction kFunctions[] = {
    {"acos", 1, true},   {"acosh", 1, false}, {"asin", 1, true},   {"asinh", 1, false}, {"atan", 1, true},
    {"atanh", 1, false}, {"cbrt", 1, false},  {"cos", 1, true},    {"cosh", 1, true},   {"erf", 1, false},
    {"erfc", 1, false},  {"exp", 1, true},    {"exp10", 1, true},  {"exp2", 1, true},   {"expm1", 1, false},
    {"log", 1, true},    {"log10", 1, true},  {"log1p", 1, false}, {"log2", 1, true},   {"sin", 1, true},
    {"sinh", 1, true},   {"tan", 1, true},    {"tanh", 1, true},   {"atan2", 2, false}, {"hypot", 2, false},
    {"pow", 2, true},
};

struct Variant {
  char isa;             ///< the ABI's ISA letter
  std::string scalar;   ///< libm name or LLVM intrinsic
  std::string vector;   ///< libmvec entry point
  std::string prefix;   ///< the LLVM vector ABI prefix
  unsigned lanes;
};

// Every variant at every width, built once: VecDesc holds StringRefs, and the
// strings must outlive each compile's TargetLibraryInfoImpl.
const std::vector<Variant>& all_variants() {
  static const std::vector<Variant> variants = [] {
    std::vector<Variant> r;
    for (const MathFunction& f : kFunctions) {
      const std::string params(static_cast<std::size_t>(f.arity), 'v');
      for (const auto& [isa, double_lanes] : {std::pair{'b', 2u}, std::pair{'d', 4u}, std::pair{'e', 8u}}) {
        for (const bool single : {false, true}) {
          const unsigned lanes = single ? 2 * double_lanes : double_lanes;
          const std::string scalar = std::string(f.name) + (single ? "f" : "");
          const std::string vector = std::string("_ZGV") + isa + "N" + std::to_string(lanes) + params + "_" + scalar;
          const std::string prefix = "_ZGV_LLVM_N" + std::to_string(lanes) + params;
          r.push_back({isa, scalar, vector, prefix, lanes});
          if (f.intrinsic)
            r.push_back({isa, "llvm." + std::string(f.name) + (single ? ".f32" : ".f64"), vector, prefix, lanes});
        }
      }
    }
    return r;
  }();
  return variants;
}

}  // namespace

bool libmvec_avx512(const llvm::MCSubtargetInfo& cpu) { return cpu.checkFeatures("+avx512f,+evex512"); }

void add_libmvec_functions(llvm::TargetLibraryInfoImpl& tlii, const llvm::MCSubtargetInfo& cpu) {
  const bool avx2 = cpu.checkFeatures("+avx2,+fma"), avx512 = libmvec_avx512(cpu);
  std::vector<llvm::VecDesc> table;
  for (const Variant& v : all_variants()) {
    if ((v.isa == 'd' && !avx2) || (v.isa == 'e' && !avx512)) continue;
    table.emplace_back(v.scalar, v.vector, llvm::ElementCount::getFixed(v.lanes), false, v.prefix);
  }
  tlii.addVectorizableFunctions(table);
}

}  // namespace theano::codegen::detail
