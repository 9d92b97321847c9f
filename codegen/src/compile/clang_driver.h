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
#include <string_view>
#include <vector>

namespace clang {
class CompilerInstance;
class CompilerInvocation;
}
namespace llvm {
class raw_ostream;
}

namespace theano::codegen::detail {

/// The version of the code clang_compiler.cpp makes from a given source and
/// flag set beyond what Clang decides: its -O pipeline, vector_math.cpp's
/// libmvec table and pass_gate.h's skipped passes. Part of the compiler
/// identity (so of every cache key): bump it whenever one of them changes the
/// machine code, or cached objects built the old way keep being loaded.
/// 6: 512-bit vectors preferred on AVX-512 CPUs (clang_compiler.cpp);
/// 5: no Loop Strength Reduction (pass_gate.h);
/// 4: 512-bit vectors legal where the AVX-512 libmvec variants are offered
/// (their calls passed ymm halves on CPUs preferring 256-bit vectors);
/// 3: no LLVM libmvec table (AVX2 calls on SSE targets).
inline constexpr int kPipelineVersion = 6;

/// The virtual directory the in-memory source lives in.
inline constexpr const char* kVirtualDir = "/__theano_jit__/";
/// The input path the driver is run with; replaced by the real virtual name per compile.
inline constexpr const char* kDriverInput = "/__theano_jit__/__input__.cpp";

/// The host CPU's features for the compiler identity, without executing the
/// ~20 CPUID instructions LLVM's getHostCPUFeatures does (each traps to the
/// hypervisor in a VM: about 10 us here, 0.1-0.2 ms of every warm start).
/// "x86-cpuid:" and the hex of: the vendor and highest leaf (one CPUID), the
/// leaves glibc read at process start (__x86_get_cpuid_feature_leaf: 1, 7.0,
/// 7.1, 0xd.1, 0x14, 0x19, 0x80000001, 0x80000007, 0x80000008), raw and as
/// glibc found them usable, with the fields that describe the core rather
/// than the CPU masked out (stepping, APIC id, counts, sizes), and XCR0
/// (XGETBV: the register states the OS enables). Those are every input of
/// LLVM 19's x86 host features, so equal fingerprints mean equal
/// -march=native features (the converse need not hold: more keys, never a
/// shared one). Empty where that cannot be said: not x86-64 with glibc 2.33+,
/// another LLVM major, or a CPU with AVX10 (LLVM also reads leaf 0x24); the
/// identity then lists LLVM's features.
std::string x86_cpuid_fingerprint();

struct DriverResult {
  std::vector<std::string> cc1;  ///< cc1 args, first is "-cc1"
  std::string triple, cpu;
  std::vector<std::string> features;
  std::vector<std::string> driver_flags;
};

/// Cached driver result for `options`; `driver_ms` receives the cost (0 on a hit).
/// Throws ValueError when the driver rejects the flags.
std::shared_ptr<const DriverResult> driver_result(const CompileOptions& options, double* driver_ms);

/// A fresh CompilerInvocation from `driver`'s cc1 args, reading `path` (its
/// -main-file-name `name`), with both DisableFree flags cleared (either one
/// left set leaks the AST or the LLVM module of every compile) and the LLVM
/// passes off (clang_compiler.cpp runs the -O pipeline). ValueError, with
/// what Clang printed to `diags`, when Clang rejects the args.
std::shared_ptr<clang::CompilerInvocation> make_invocation(const DriverResult& driver, const std::string& path,
                                                           std::string_view name, llvm::raw_ostream& diags);

/// A file a compile reads from memory: `bytes` must outlive the compile unless
/// `copy` (a source Clang lexes must also be followed by a NUL: std::string's
/// data, or a copy).
struct MemoryFile {
  std::string path;
  std::string_view bytes;
  bool copy = false;
};

/// Gives `ci` a file manager that sees `files` over the real file system
/// (where Clang finds its resource headers).
void use_memory_files(clang::CompilerInstance& ci, const std::vector<MemoryFile>& files);

/// Initializes the native target, asm printer and parser once per process.
void init_native_target();

}  // namespace theano::codegen::detail
