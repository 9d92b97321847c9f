/// \file
/// DebugMode (Theano's `compile/debugmode.py`): a function that checks, on
/// every call, that its compiled program agrees with the reference
/// implementations.
///
/// Why: a wrong lowering, an op that writes into an input it did not declare,
/// a shape function that lies or a rewrite that changes values gives wrong
/// numbers silently in the fast modes. DebugMode turns each into an error that
/// names the culprit. It optimizes as fast_run and links with the mode's
/// linker ("cpp" when codegen/ is linked in, which then runs node by node;
/// else "py"), and on every call:
///
///  - runs every node of the optimized graph by its compiled code and by its
///    `perform` on C-contiguous copies of the same inputs, and compares the
///    outputs with Theano's dtype-aware tolerances (value_checks.h)
///    -> Kind::BadThunkOutput (also when only one side raises);
///  - checks that a node whose op declares no destroy_map on an input leaves
///    that input unchanged, in both runs -> Kind::BadDestroyMap;
///  - checks that an output not declared in view_map / destroy_map shares no
///    memory with an input or another output -> Kind::BadViewMap;
///  - evaluates the op's `infer_shape` graph on the real input values and
///    compares it with the real output shapes -> Kind::BadInferShape;
///  - evaluates both sides of every replacement the rewrites made (recorded
///    by RewriteProvenance) and runs the unoptimized graph with the
///    PerformLinker, comparing with the optimized outputs ->
///    Kind::BadOptimization naming the rewrite. Positions where the original
///    value is NaN or infinite are not compared there (stabilizing rewrites
///    are meant to fix those).
///
/// Every message names the node (toposort index and printed Apply), its op,
/// the rewrite that introduced the node (or "from the user's graph"), and up
/// to five differing elements with their index and both values.
///
/// Cost: every node runs at least twice and every input is copied; use it to
/// find bugs, not in production.
#pragma once

#include <memory>
#include <string>

#include "theano/compile/linker.h"
#include "theano/runtime/error.h"

namespace theano {

class FunctionGraph;
class RewriteProvenance;

/// A check of DebugMode failed.
class DebugModeError : public Error {
 public:
  enum class Kind { BadThunkOutput, BadDestroyMap, BadViewMap, BadInferShape, BadOptimization };
  DebugModeError(Kind kind, std::string message) : Error(std::move(message)), kind_(kind) {}
  Kind kind() const noexcept { return kind_; }
  /// "BadThunkOutput", ... (Theano's names).
  static const char* kind_name(Kind k);

 private:
  Kind kind_;
};

/// A Thunk that runs `optimized` with `linker` under DebugMode's per-node
/// checks, `unoptimized` (the same inputs and outputs, before any rewrite)
/// with the PerformLinker, and compares. `provenance` must be the
/// RewriteProvenance that watched `optimized` being rewritten (may be null:
/// then no rewrite is named and replacements are not re-checked). `what`
/// names the function in messages.
std::unique_ptr<Thunk> make_debug_mode_thunk(const Linker& linker, std::shared_ptr<const FunctionGraph> optimized,
                                             std::shared_ptr<const FunctionGraph> unoptimized,
                                             std::shared_ptr<const RewriteProvenance> provenance,
                                             LinkOptions options, std::string what);

}  // namespace theano
