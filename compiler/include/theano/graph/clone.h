/// \file
/// Copying graphs: `clone` returns copied inputs and outputs, `clone_replace`
/// a graph with substitutions (`clone_get_equiv`, the map from every old
/// Variable and Apply to its copy, is in graph/equiv.h). Theano's
/// semantics: inputs (and orphans such as constants) are copied or kept as the
/// flags say, every Apply between them is rebuilt with `clone_with_new_inputs`,
/// and a pre-filled `memo` substitutes variables while copying.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

/// Cloned (inputs, outputs). `copy_orphans` defaults to `copy_inputs`.
std::pair<std::vector<Var>, std::vector<Var>> clone(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                    bool copy_inputs = true,
                                                    std::optional<bool> copy_orphans = std::nullopt);

/// The graph of `outputs` with each key of `replacements` replaced by its value
/// (types must match); inputs and orphans are shared with the original.
std::vector<Var> clone_replace(const std::vector<Var>& outputs, const std::vector<std::pair<Var, Var>>& replacements);

}  // namespace theano
