/// \file
/// Internal: the clang driver step (flag set -> cc1 arguments), computed once per
/// flag set and cached for the process.
///
/// Why: running the driver costs 1-2 ms (it probes the file system for the GCC
/// installation and resolves -march=native into a CPU and feature list); a compile
/// should pay it only the first time a flag set is used.
#pragma once

#include <theano/codegen/clang_compiler.h>

#include <memory>
#include <string>
#include <vector>

namespace theano::codegen::detail {

/// The version of the code clang_compiler.cpp makes from a given source and
/// flag set beyond what Clang decides: its -O pipeline and vector_math.cpp's
/// libmvec table. Part of the compiler identity (so of every cache key): bump
/// it whenever either changes the machine code, or cached objects built the
/// old way keep being loaded.
inline constexpr int kPipelineVersion = 3;  // 3: no LLVM libmvec table (AVX2 calls on SSE targets)

/// The virtual directory the in-memory source lives in.
inline constexpr const char* kVirtualDir = "/__theano_jit__/";
/// The input path the driver is run with; replaced by the real virtual name per compile.
inline constexpr const char* kDriverInput = "/__theano_jit__/__input__.cpp";

struct DriverResult {
  std::vector<std::string> cc1;  ///< cc1 args, first is "-cc1"
  std::string triple, cpu;
  std::vector<std::string> features;
  std::vector<std::string> driver_flags;
};

/// Cached driver result for `options`; `driver_ms` receives the cost (0 on a hit).
/// Throws ValueError when the driver rejects the flags.
std::shared_ptr<const DriverResult> driver_result(const CompileOptions& options, double* driver_ms);

/// Initializes the native target, asm printer and parser once per process.
void init_native_target();

}  // namespace theano::codegen::detail
