/// \file
/// `ReplaceValidate`: transactional replacement (Theano's
/// `toolbox.ReplaceValidate`), attached to every FunctionGraph.
///
/// Why: a rewrite proposes replacements; some Feature (DestroyHandler, say)
/// may find the result unacceptable. `replace_all_validate` applies the
/// replacements, calls `fg.validate()`, and on any failure reverts every change
/// through History before rethrowing, so the graph is left exactly as it was.
///
/// Invariants: attaching it attaches a History and a Validator when the graph
/// has none; one ReplaceValidate per graph (a second raises AlreadyThere).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "theano/fgraph/feature.h"

namespace theano {

/// The replacement succeeded and validated, but a node that the rewrite meant
/// to remove is still in the graph (the change was reverted).
class ReplacementDidNotRemoveError : public InconsistencyError {
 public:
  using InconsistencyError::InconsistencyError;
};

class ReplaceValidate : public Feature {
 public:
  std::string_view name() const override { return "ReplaceValidate"; }
  void on_attach(FunctionGraph& fg) override;
  FeaturePtr clone_for(const Equiv& equiv) const override;

  /// `replace_all_validate(fg, {{var, new_var}}, reason)`.
  std::size_t replace_validate(FunctionGraph& fg, const Var& var, const Var& new_var, std::string_view reason = {});
  /// Replaces each pair in order, then validates. On any exception (a type
  /// error, a missing input, an InconsistencyError from validate) every change
  /// is reverted and the exception rethrown. Returns the History checkpoint
  /// taken before the changes.
  std::size_t replace_all_validate(FunctionGraph& fg, const std::vector<std::pair<Var, Var>>& pairs,
                                   std::string_view reason = {});
  /// As `replace_all_validate`, then reverts and throws
  /// ReplacementDidNotRemoveError when a node of `remove` is still in the graph.
  std::size_t replace_all_validate_remove(FunctionGraph& fg, const std::vector<std::pair<Var, Var>>& pairs,
                                          const std::vector<Apply*>& remove, std::string_view reason = {});
};

}  // namespace theano
