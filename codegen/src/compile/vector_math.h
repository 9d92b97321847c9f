/// \file
/// The optimizer's view of the vector math library: which libm calls the loop
/// vectorizer may replace by which of glibc's libmvec entry points, for the
/// exact CPU the JIT compiles for.
///
/// Why: LLVM 19's own libmvec table knows only exp, log, sin, cos, tan and pow,
/// and only at the SSE and AVX2 widths, although glibc 2.35+ exports the
/// vector ABI variants of erf, erfc, log1p, expm1, the inverse and hyperbolic
/// functions, cbrt, exp2/exp10/log2/log10, atan2 and hypot at every width,
/// AVX-512 included. An elementwise loop with one unmapped call stays scalar
/// (docs/jit-and-cache.md, "Vectorization"), so this table decides whether `erf(x) * y`
/// runs 8 lanes at a time or one.
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>

namespace theano::codegen::detail {

/// Adds to `tlii` the libmvec variants of every libm function glibc's libmvec
/// exports, at the widths `cpu` can run: SSE (2 doubles / 4 floats) always,
/// AVX2 (4 / 8) when it has AVX2 and FMA, AVX-512 (8 / 16) when it has
/// AVX512F. Both the libm names (erf, erff) and the LLVM intrinsics Clang
/// emits for some of them (llvm.exp.f64, llvm.tanh.f32) are mapped.
void add_libmvec_functions(llvm::TargetLibraryInfoImpl& tlii, const llvm::MCSubtargetInfo& cpu);

/// Whether add_libmvec_functions offers `cpu` the AVX-512 (zmm) variants:
/// AVX512F with 512-bit registers. The functions that may call them must
/// then be compiled with 512-bit vectors legal (clang_compiler.cpp's
/// optimize sets their "min-legal-vector-width"), or the calls pass their
/// arguments in halves.
bool libmvec_avx512(const llvm::MCSubtargetInfo& cpu);

}  // namespace theano::codegen::detail
