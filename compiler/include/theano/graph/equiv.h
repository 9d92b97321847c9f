/// \file
/// `clone_get_equiv`: copies a graph and returns the map from every old
/// Variable and Apply to its copy (`Equiv`), with clone.h's semantics; a
/// pre-filled `memo` substitutes variables while copying. Its own header
/// (with <unordered_map>) so that clone.h, in theano.hpp, stays light.
#pragma once

#include <unordered_map>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/clone.h"

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

}  // namespace theano
