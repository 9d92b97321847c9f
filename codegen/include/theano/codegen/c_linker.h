/// \file
/// `CLinker`: the whole-graph C++ linker (first slice of issue 4). It lowers a
/// FunctionGraph into ONE translation unit, compiles it in-process with Clang
/// (ClangCompiler) and loads it with ORC (JitLoader); the Thunk calls
/// `extern "C" int theano_entry(TheanoContext*)`.
///
/// What it lowers today: Elemwise (any ScalarOp with a C expression, Composite
/// included), DimShuffle (a view: only shape and strides change) and Constants
/// (passed as pointers to host-held arrays). Any other op makes `make_thunk`
/// throw MethodNotDefined naming the op; nothing silently falls back to perform.
/// float16 and complex dtypes are refused the same way.
///
/// Generated code (DESIGN.md 3.7, 3.8): no standard headers (an embedded prelude
/// holds the ABI structs, `extern "C"` libm prototypes and the helpers the scalar
/// table's C expressions name), no exceptions, static constructors or TLS. Each
/// Elemwise node becomes a function with run-time shape checks, a contiguous fast
/// path and a strided/broadcast path; it computes in int64 when perform does
/// (integer inputs and output) and in double otherwise, then converts to the
/// output dtype, so results match perform within floating-point tolerance.
/// Outputs and intermediates are allocated through a host callback in the
/// context (no memory planning yet: intermediates live until the call returns).
/// Names derive from toposort position only, so the same graph gives
/// byte-identical source in any process. Integer arithmetic wraps like perform's
/// (compiled with -fwrapv). Known difference: integer `pow` with a negative
/// exponent gives 1 instead of perform's ValueError.
///
/// Errors inside generated code return a code and a message naming the node
/// (toposort index), its op and the input shapes; the Thunk rethrows them as
/// ShapeError (shape mismatch) or ValueError. Never a crash.
///
/// Registration: linkers "cpp" and "c" are registered by `register_linkers()`,
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
  /// -fwrapv is always added.
  explicit CLinker(CompileOptions options = {}, std::string name = "cpp");
  std::string_view name() const override { return name_; }
  /// Generates, compiles and loads the graph. MethodNotDefined for an op the
  /// linker cannot lower; CompileError if the generated source does not compile
  /// (a bug).
  std::unique_ptr<Thunk> make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                    const LinkOptions& options = {}) const override;
  /// The complete translation unit (prelude included) for `fgraph`; the same
  /// graph gives the same bytes. Throws MethodNotDefined like make_thunk.
  static std::string generate_source(const FunctionGraph& fgraph, const LinkOptions& options = {});
  /// The embedded prelude (ABI structs, prototypes, helpers).
  static std::string_view prelude();

 private:
  CompileOptions options_;
  std::string name_;
};

/// Registers "cpp" and "c" in the compiler's linker registry. Idempotent and
/// thread-safe; also run by a static registrar (see the file comment).
void register_linkers();

}  // namespace theano::codegen
