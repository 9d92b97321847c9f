/// \file
/// Text assembly for generated C++: `CodeWriter` (lines with indentation and
/// named brace blocks) and `NodeCode` (Theano's CodeBlock idea: each Apply node
/// contributes an init, a compute and a cleanup fragment).
///
/// Why: every op writes only its own fragment, and the linker decides where the
/// fragments go (declarations first, computations in toposort order, cleanups in
/// reverse order). The writer only concatenates text, so the output depends on
/// nothing but the calls made: deterministic source (docs/architecture.md, "Deterministic generated code").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen {

class CodeWriter {
 public:
  /// One line at the current indentation (an empty `text` writes an empty line).
  CodeWriter& line(std::string_view text);
  /// Several lines (split at '\n'), each at the current indentation.
  CodeWriter& lines(std::string_view text);
  /// Writes `header {` and indents; `name` (optional) becomes a trailing
  /// `// name` comment on the closing brace.
  CodeWriter& open(std::string_view header, std::string_view name = {});
  /// Closes the innermost block: `}` followed by `trailer` (e.g. ";").
  CodeWriter& close(std::string_view trailer = {});
  /// Appends `other`'s text, re-indented to the current level.
  CodeWriter& append(const CodeWriter& other);
  /// Appends raw text verbatim (no indentation), e.g. an embedded prelude.
  CodeWriter& raw(std::string_view text);
  int depth() const noexcept { return static_cast<int>(open_.size()); }
  bool empty() const noexcept { return text_.empty(); }
  /// The text; throws InternalError when blocks are still open.
  const std::string& str() const;

 private:
  std::string text_;
  std::vector<std::string> open_;  // names of the open blocks
};

/// The fragments one node contributes (Theano's CodeBlock).
struct NodeCode {
  std::string name;     ///< e.g. "node3 Elemwise{add,no_inplace}" (a comment only)
  CodeWriter init;      ///< declarations, run before any compute block
  CodeWriter compute;   ///< the node's work, in toposort order
  CodeWriter cleanup;   ///< run after all compute blocks, in reverse node order
};

/// Writes the blocks of `nodes` into `out`: all inits, then the computes, then
/// the cleanups in reverse order, each preceded by a `// name` comment.
void assemble(CodeWriter& out, const std::vector<NodeCode>& nodes);

}  // namespace theano::codegen
