/// \file
/// The errors of the JIT back end: a C++ or CUDA source that does not compile
/// (CompileError), a node the cpp linker cannot lower (LoweringError) and an
/// object that cannot be loaded or linked (LoadError).
///
/// Why: a compile failure is almost always a bug in generated code, and the person
/// debugging it needs the compiler's diagnostics with line numbers *and* the exact
/// source those line numbers refer to. CompileError therefore keeps the failing
/// source on disk (under `<private>/theano-cpp-failed/<hash>.<ext>`, where
/// `<private>` is cache::private_dir(): `$TMPDIR/theano-cpp-<euid>`, 0700 and
/// verified to be this user's) and names that path in its message (docs/jit-and-cache.md,
/// "In-process Clang"). Nothing is written to a shared, predictable /tmp path.
#pragma once

#include <theano/runtime/error.h>

#include <string>
#include <string_view>

namespace theano::codegen {

/// A C++ (Clang) or CUDA (NVRTC) source failed to compile.
class CompileError : public Error {
 public:
  /// `what` = a headline, the kept source path and the diagnostics.
  CompileError(const std::string& headline, std::string diagnostics, std::string source_path);

  /// The compiler's diagnostics text (clang's `file:line:col: error: ...` lines or
  /// the NVRTC log).
  const std::string& diagnostics() const noexcept { return diagnostics_; }
  /// Where the failing source was written; empty when it could not be written.
  const std::string& source_path() const noexcept { return source_path_; }

 private:
  std::string diagnostics_;
  std::string source_path_;
};

/// Why the cpp linker cannot lower a node (LoweringError::reason).
enum class LoweringReason {
  NoLowering,     ///< no lowering is registered for the op (its perform runs, when allowed)
  Dtype,          ///< a dtype the lowering has no C form for (" (dtype complex128)")
  NonTensor,      ///< a variable that is not a dense tensor
  Rank,           ///< more than THEANO_MAX_NDIM dimensions
  NoCExpression,  ///< an elementwise scalar op (or one inside a Composite) without a C expression
  Gpu,            ///< GPU memory where the lowering needs host arrays, or arrays of two GPU contexts
};

/// The cpp linker cannot compile a node. `what()` is the message the user sees
/// ("the cpp linker cannot compile op Foo (dtype complex128); use linker=py");
/// `reason()` classifies it and `detail()` is its parenthesized part
/// (" (dtype complex128)"; " yet" for NoLowering), which the perform
/// fallback writes into the generated code, so nothing parses the message.
class LoweringError : public MethodNotDefined {
 public:
  LoweringError(const std::string& message, LoweringReason reason, std::string detail)
      : MethodNotDefined(message), reason_(reason), detail_(std::move(detail)) {}
  LoweringReason reason() const noexcept { return reason_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  LoweringReason reason_;
  std::string detail_;
};

/// An object could not be added to the JIT, a symbol it needs is missing, or an
/// entry symbol was not found.
class LoadError : public Error {
 public:
  using Error::Error;
};

/// Writes `source` to `<private>/theano-cpp-failed/<hash><extension>` (the hash
/// is over the source text, so the same failing source maps to the same file)
/// and returns the path, or "" when the directory or file cannot be written.
/// `<private>` is cache::private_dir(); the subdirectory is created 0700 and
/// checked, the file written by O_EXCL|O_NOFOLLOW temporary + rename.
std::string keep_failed_source(std::string_view source, std::string_view extension);
/// The same into `<private>/<subdir>/` (one path component; THEANO_FLAGS
/// keep_sources uses "theano-cpp-sources").
std::string keep_source(std::string_view source, std::string_view extension, std::string_view subdir);

}  // namespace theano::codegen
