/// \file
/// A tiny reference interpreter for DebugMode (private to
/// compiler/src/compile): evaluates variables of any graph with `perform`,
/// from values bound to some variables.
///
/// Why: DebugMode evaluates graphs that no Thunk was built for: each node's
/// `infer_shape` graph (bound to the node's real input values and shapes) and
/// both sides of every replacement a rewrite made (the replaced variable lives
/// in a subgraph the optimized graph no longer holds). A memo shared across
/// calls makes each node run once however many variables are asked for.
///
/// Invariants: bound values are never written (an input an op destroys is
/// copied first); constants evaluate to their data; a variable that depends on
/// an unbound non-constant leaf, or on an op without `perform`, has no value
/// (an undefined NDArray), which callers treat as "cannot check".
#pragma once

#include <unordered_map>

#include "theano/graph/basic.h"

namespace theano::detail {

using ValueMemo = std::unordered_map<const Variable*, NDArray>;

/// The value of `v`; computed values are added to `memo`. Exceptions from an
/// op's perform propagate.
NDArray reference_eval(const Var& v, ValueMemo& memo);

}  // namespace theano::detail
