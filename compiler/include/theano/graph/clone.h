/// \file
/// Copying graphs: `clone_get_equiv` builds the map from every old Variable and
/// Apply to its copy; `clone` returns copied inputs and outputs. Theano's
/// semantics: inputs (and orphans such as constants) are copied or kept as the
/// flags say, every Apply between them is rebuilt with `clone_with_new_inputs`,
/// and a pre-filled `memo` substitutes variables while copying.
#pragma once

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

/// Old -> new correspondence produced by cloning.
struct Equiv {
  std::unordered_map<Var, Var> vars;
  std::unordered_map<ApplyPtr, ApplyPtr> nodes;

  /// The copy of `v` (ValueError naming `v` when it was not part of the clone).
  const Var& at(const Var& v) const;
  const ApplyPtr& at(const Apply* node) const;
  bool contains(const Var& v) const { return vars.count(v) != 0; }
};

/// Copies the graph from `inputs` to `outputs`. `copy_inputs`: make new
/// owner-less inputs (else reuse them). `copy_orphans`: copy constants and other
/// owner-less variables that are not inputs. Entries already in `memo` are used
/// as given (a substitution).
Equiv clone_get_equiv(const std::vector<Var>& inputs, const std::vector<Var>& outputs, bool copy_inputs = true,
                      bool copy_orphans = true, Equiv memo = {});

/// Cloned (inputs, outputs). `copy_orphans` defaults to `copy_inputs`.
std::pair<std::vector<Var>, std::vector<Var>> clone(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                    bool copy_inputs = true,
                                                    std::optional<bool> copy_orphans = std::nullopt);

/// The graph of `outputs` with each key of `replacements` replaced by its value
/// (types must match); inputs and orphans are shared with the original.
std::vector<Var> clone_replace(const std::vector<Var>& outputs, const std::vector<std::pair<Var, Var>>& replacements);

}  // namespace theano
