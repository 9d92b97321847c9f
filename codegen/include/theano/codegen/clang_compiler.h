/// \file
/// In-process C++ compilation with Clang 19 (libclang-cpp): source text in memory
/// -> ELF relocatable object in memory.
///
/// Why: the JIT compiles one translation unit per function graph. Running Clang as
/// a library saves the fork/exec and the file round trips of a subprocess compiler
/// (about 25 ms per compile; docs/jit-and-cache.md, "Measured costs") and needs no writable temp dir.
/// The recipe: the clang driver turns the flag set into cc1 arguments once (cached
/// per flag set, thread-safe), and every compile parses them into a fresh
/// CompilerInvocation with both DisableFree flags cleared (otherwise every compile
/// leaks about 0.5 MB), reads the source from an overlay VFS and writes the object
/// to a memory stream. Each compile has its own CompilerInstance and LLVMContext, so
/// several threads may compile at once.
///
/// Generated code should include no standard headers (docs/jit-and-cache.md, "The prelude"): a header-free
/// TU compiles in about 5 ms at -O0 and 30 ms at -O2; `<cmath>` alone adds ~100 ms.
#pragma once

#include <theano/codegen/errors.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen {

/// The line that ends a generated unit's prelude (codegen/src/emit/lower/prelude.cpp).
/// A source with this line has the text up to and including it precompiled
/// once per process and flag set (a PCH in memory; docs/jit-and-cache.md,
/// "The precompiled prelude") and reused by every compile whose source starts
/// with the same text.
inline constexpr std::string_view kPreludeEnd = "// ---- end of prelude\n";

/// Where precompiled preludes outlive the process (docs/jit-and-cache.md,
/// "The precompiled prelude"; the JIT's is the compiledir's `prelude`
/// entries). `load` returns the bytes kept under `key` (nullopt: none),
/// `save` keeps them, `evict` drops bytes that Clang refused. `key` is text
/// naming the compiler, the flags and the prelude; the store hashes it.
/// Called from any thread, with none of the compiler's locks held.
struct PreludeStore {
  std::function<std::optional<std::string>(const std::string& key)> load;
  std::function<void(const std::string& key, const std::string& bytes)> save;
  std::function<void(const std::string& key, const std::string& why)> evict;
};

/// Optimization level passed to clang as -O0 .. -O3.
enum class OptLevel { O0 = 0, O1 = 1, O2 = 2, O3 = 3 };

/// Everything that changes the generated object. Two CompileOptions that compare
/// equal produce the same cc1 arguments (and share one driver computation).
struct CompileOptions {
  OptLevel opt = OptLevel::O2;
  /// `-march=<march>`; "native" resolves to the host CPU and its features.
  /// Empty: no -march flag (the generic x86-64 target).
  std::string march = "native";
  /// `-std=<std>` for the generated source.
  std::string std = "c++17";
  /// `-fno-math-errno`: lets LLVM vectorize math calls (docs/jit-and-cache.md, "Vectorization").
  bool no_math_errno = true;
  /// `-fveclib=<veclib>` ("libmvec" maps exp/log/sin/cos/pow to glibc's vector
  /// variants); empty for none.
  std::string veclib = "libmvec";
  /// `-ffast-math`: opt-in only, it breaks NaN/Inf semantics.
  bool fast_math = false;
  /// `-fPIC` (needed only for export_shared_object; ORC does not care).
  bool pic = false;
  /// Keep compiler warnings in the diagnostics text; false passes `-w`.
  bool warnings = false;
  /// Extra driver flags appended last (the `cxxflags` config). `-mllvm` flags are
  /// refused: they mutate LLVM's process-global option state.
  std::vector<std::string> cxxflags;
  /// Threads for machine-code generation of one module (after the optimizer,
  /// which runs once): 0 picks min(cores, 2) for big modules, 1 for small
  /// ones. With more than one the object is a bundle (`bundle_objects`) of
  /// one ELF object per part of the module, loaded together.
  int codegen_threads = 0;
  /// Precompile a source's prelude (the text through the line kPreludeEnd)
  /// once per process and reuse it. Not a compile flag: the code is the
  /// same either way. Off where the diagnostics must cover the prelude
  /// (`warnings`) or where `cxxflags` include other text first (-include,
  /// -imacros).
  bool precompile_prelude = true;
  /// Where the precompiled prelude is looked for before it is built, and
  /// kept once built; null: this process's memory only.
  std::shared_ptr<const PreludeStore> prelude_store;

  /// The driver-level flags these options stand for, in order (without the input
  /// file): `-c -x c++ -std=c++17 -fno-exceptions -fno-rtti ... -O2 -march=native`.
  std::vector<std::string> driver_flags() const;

  bool operator==(const CompileOptions&) const = default;
};

/// Several ELF objects as one byte string (what parallel code generation
/// produces): the line "THEANO-OBJECTS", then per object its size (8 bytes,
/// little-endian) and its bytes. A single object is returned as it is.
std::string bundle_objects(const std::vector<std::string>& objects);
/// The objects of `bytes`: the bundled ones, or `bytes` itself when it is not
/// a bundle. LoadError for a damaged bundle.
std::vector<std::string_view> unbundle_objects(std::string_view bytes);

/// The result of a successful compile.
struct CompiledObject {
  /// The ELF relocatable object, or a bundle of them (for compile), or the
  /// text (assembly / IR).
  std::string bytes;
  /// Warnings, when `CompileOptions::warnings` is set; usually empty.
  std::string diagnostics;
  /// Wall time of this compile (front end + optimization + codegen), ms.
  double compile_ms = 0;
  /// Time spent computing the cc1 arguments (0 when they were cached), ms.
  double driver_ms = 0;
  /// The parts of compile_ms: the front end (parsing and IR generation), the
  /// -O pipeline, and machine code (or text) generation, ms.
  double frontend_ms = 0, optimize_ms = 0, machine_code_ms = 0;
  /// Whether the front end read the prelude precompiled (the first compile
  /// of a process that finds no PCH stored parses its whole source; the
  /// second builds the PCH).
  bool precompiled_prelude = false;
};

/// Compiles C++ source text in the process. Cheap to construct and copy; all the
/// expensive state (driver results, LLVM target initialization) is process-wide.
/// All member functions are safe to call from several threads at once.
class ClangCompiler {
 public:
  explicit ClangCompiler(CompileOptions options = {});

  const CompileOptions& options() const noexcept { return options_; }

  /// Source -> ELF object bytes. Throws CompileError (diagnostics with line numbers,
  /// and the path where the failing source was kept) when the source does not
  /// compile, ValueError for unusable options. `name` is the virtual file name that
  /// diagnostics show (no directory).
  CompiledObject compile(std::string_view source, std::string_view name = "kernel.cpp") const;
  /// Source -> textual assembly (debugging; same flags as compile).
  CompiledObject emit_assembly(std::string_view source, std::string_view name = "kernel.cpp") const;
  /// Source -> textual LLVM IR after optimization (debugging).
  CompiledObject emit_llvm_ir(std::string_view source, std::string_view name = "kernel.cpp") const;

  /// The cc1 arguments the driver computed for these options (cached), for tests
  /// and debugging. The first element is "-cc1".
  std::vector<std::string> cc1_args() const;

  /// A normalized description of everything that decides the object besides the
  /// source: clang full version, target triple, target CPU, target features and the
  /// driver flags. Independent of the working directory and the process; meant as a
  /// cache-key fragment.
  std::string identity() const;

 private:
  CompileOptions options_;
};

/// Precompiles `prelude` (a generated unit's text through its kPreludeEnd
/// line; CLinker::prelude()) for `options` now and saves it to `store`,
/// whatever the process holds; returns its size in bytes. `theano-cache
/// precompile` (and the build, for its own tree) runs it. ValueError when
/// the prelude does not end with that line or Clang rejects it.
std::size_t build_prelude_pch(const CompileOptions& options, std::string_view prelude, const PreludeStore& store);

/// `ClangCompiler().identity()`: the identity of the default (-O2 -march=native)
/// flag set; the clang version, triple, CPU and features are what a compiledir is
/// keyed on.
std::string compiler_identity();

/// `clang::getClangFullVersion()`, e.g. "Debian clang version 19.1.7 (...)".
std::string clang_version();

/// The clang++ driver path used to compute cc1 arguments (it locates the resource
/// directory and the libstdc++ headers). Defaults to the configured LLVM's
/// `bin/clang++`; the `THEANO_CLANG_DRIVER` environment variable overrides it.
std::string clang_driver_path();

}  // namespace theano::codegen
