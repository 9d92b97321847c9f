/// \file
/// `CLinker`: the whole-graph C++ linker. It lowers a FunctionGraph into ONE
/// translation unit (a big graph into several, compiled on separate threads:
/// codegen_threads), compiles it in-process with Clang (ClangCompiler) and loads it
/// (JitLoader: the compiledir's shared library, else ORC); the Thunk calls `theano_entry`.
///
/// Every op kind has a lowering in codegen/src/emit/lower/ (the table and the node
/// function protocol: emit/lower/lowering.h). A node whose op has no lowering, or
/// whose lowering refuses its dtypes (float16, complex), calls the op's
/// `perform` through a host callback from inside the generated code, so every
/// graph runs; `allow_perform_fallback(false)` turns that into a LoweringError
/// (errors.h: a MethodNotDefined naming the op, with its reason; the
/// differential tests use it, so they test generated code).
///
/// Generated code (docs/architecture.md, "Generated code"): no standard headers (an embedded prelude
/// holds the ABI structs, `extern "C"` libm and CBLAS prototypes and the
/// helpers the scalar table's C expressions name), no exceptions, static
/// constructors or TLS. Each node becomes a function called in toposort order
/// by `theano_entry`. Memory plan: intermediates live in slots shared by
/// buffers whose lives do not overlap, kept by the thunk between calls; graph
/// outputs are fresh each call unless borrowed (LinkOptions::borrow_outputs),
/// then recycled. Names derive from toposort position only, so the same graph
/// gives byte-identical source in any process. Integer arithmetic wraps like
/// perform's (compiled with -fwrapv). Known difference: integer `pow` with a
/// negative exponent gives 1 instead of perform's ValueError.
///
/// GPU nodes (gpu/ops.h, placed by the GPU transfer rewrite) get host
/// functions like any node (shape checks, allocation, launches through the
/// thunk ABI's gpu_* callbacks) and kernels in ONE CUDA translation unit per
/// function (codegen/src/emit/cuda_unit.h), compiled by NVRTC for the device or by Clang
/// for the emulated device, cached in the same compiledir.
///
/// Errors inside generated code return a code and a message naming the node
/// (toposort index), its op, the user's names of its outputs and the input
/// shapes; the Thunk rethrows them as ShapeError, IndexError or ValueError
/// (an exception from a fallback perform is rethrown as it was). Never a crash.
///
/// Thread safety: compiling is thread-safe; a Thunk may run from several
/// threads at once (each concurrent call takes its own workspace of slot
/// buffers from a small pool).
///
/// Registration: "cpp", "c" and "opwise" are registered by `register_linkers()`,
/// which a static registrar in c_linker.cpp calls at start-up. compiler/ cannot
/// call into codegen/ (layering), so the registrar object must be linked in: the
/// `theano` INTERFACE target links theano_codegen with
/// `$<LINK_LIBRARY:WHOLE_ARCHIVE,theano_codegen>` (CMake >= 3.24), so every
/// program linking theano::theano gets the registrations. A program linking
/// theano_codegen directly should call `register_linkers()` itself (idempotent).
#pragma once

#include <theano/codegen/clang_compiler.h>
#include <theano/compile/linker.h>

#include <memory>
#include <string>
#include <string_view>

namespace theano {
class FunctionGraph;
}

namespace theano::codegen {

class CLinker final : public Linker {
 public:
  /// Default compile options: -O2 -march=native, -fno-math-errno, libmvec;
  /// -fwrapv and -fno-unroll-loops are always added. The name "opwise" makes the OpWise linker: the
  /// same translation unit, but the host calls the nodes one at a time
  /// (`theano_step`), timing each when LinkOptions::profile is set.
  explicit CLinker(CompileOptions options = {}, std::string name = "cpp");
  std::string_view name() const override { return name_; }
  /// Starts creating the ORC JIT in the background (JitLoader::prepare_async).
  void prepare() const override;
  /// Generates, compiles and loads the graph. LoweringError (a
  /// MethodNotDefined) for an op the linker cannot lower; CompileError if the
  /// generated source does not compile (a bug).
  /// With `options.fast_compile` the TU is compiled at -O0.
  std::unique_ptr<Thunk> make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                    const LinkOptions& options = {}) const override;
  /// With `options.request` set and a compiledir in use, make_thunk also
  /// writes a function record (function_record.h) of what it built; this
  /// looks one up and loads its object: no rewrite, source or compile. Null
  /// on a miss, or for what records do not cover (opwise, profiling,
  /// observers, GPU nodes, perform-fallback nodes).
  std::unique_ptr<Thunk> thunk_for_request(const std::vector<Var>& inputs, std::size_t noutputs,
                                           const LinkOptions& options) const override;
  /// Not opwise, and a compiledir with a usable records cache.
  bool keeps_function_records() const override;
  /// Whether nodes without a lowering may run their perform (default true).
  CLinker& allow_perform_fallback(bool allow) {
    perform_fallback_ = allow;
    return *this;
  }
  /// The complete translation unit (prelude included) for `fgraph`; the same
  /// graph gives the same bytes. Throws MethodNotDefined like make_thunk.
  static std::string generate_source(const FunctionGraph& fgraph, const LinkOptions& options = {},
                                     bool perform_fallback = true, bool opwise = false);
  /// The CUDA translation unit of `fgraph`'s GPU nodes (the kernels NVRTC
  /// compiles; "" when the graph has none); the same graph gives the same bytes.
  static std::string generate_cuda_source(const FunctionGraph& fgraph, const LinkOptions& options = {});
  /// The embedded prelude (ABI structs, prototypes, helpers), ending with
  /// its kPreludeEnd line.
  static std::string_view prelude();

  /// options_ with what `options` and THEANO_FLAGS add (fast_compile's -O0,
  /// cxxflags, codegen_threads, the precompiled prelude's store).
  CompileOptions compile_options(const LinkOptions& options) const;

 private:
  CompileOptions options_;
  std::string name_;
  bool opwise_ = false;
  bool perform_fallback_ = true;
};

/// Returns once the optimized code of every function compiled so far in
/// this process under THEANO_FLAGS tiered_compile has been compiled and has
/// taken over (or failed to). A process also waits for it at exit, so the
/// optimized objects reach the compiledir.
void wait_for_optimized_code();

/// Registers "cpp", "c" (the same) and "opwise" in the compiler's linker registry. Idempotent and
/// thread-safe; also run by a static registrar (see the file comment).
void register_linkers();

}  // namespace theano::codegen
