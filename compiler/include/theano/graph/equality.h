/// \file
/// Structural equality of computations, the backbone of rewrite tests:
/// `equal_computations` (Theano's semantics: same ops, same output positions,
/// same types, equal constants, leaves identical or paired through in_xs/in_ys)
/// and `is_same_graph` (equality after substituting `givens`).
#pragma once

#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

/// True iff each `xs[i]` computes the same thing as `ys[i]`, treating each
/// `in_xs[j]` as equal to `in_ys[j]`.
bool equal_computations(const std::vector<Var>& xs, const std::vector<Var>& ys, const std::vector<Var>& in_xs = {},
                        const std::vector<Var>& in_ys = {});

/// True iff `var1` and `var2` perform the same computation once each key of
/// `givens` is considered equal to (replaced by) its value. `x * (y * z)` and
/// `(x * y) * z` are different graphs.
bool is_same_graph(const Var& var1, const Var& var2, const std::vector<std::pair<Var, Var>>& givens = {});

}  // namespace theano
