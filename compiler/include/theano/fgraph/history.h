/// \file
/// `History`: a Feature that records every `change_input` of its graph so the
/// changes can be undone (Theano's `toolbox.History`).
///
/// Why: rewrites are transactions. ReplaceValidate takes a `checkpoint()`,
/// applies replacements and, when a Feature refuses the result, `revert`s to
/// the checkpoint, restoring the graph exactly (same nodes, same inputs).
///
/// Invariants: the log holds strong references to the changed nodes and both
/// variables of each change, so pruned subgraphs stay alive until reverted past
/// or `clear()`ed. Only `change_input` is recorded: `remove_node`,
/// `remove_output` and `add_output` are not undoable. A History serves one
/// graph; a graph takes one History (a second raises AlreadyThere).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "theano/fgraph/feature.h"

namespace theano {

class History : public Feature {
 public:
  std::string_view name() const override { return "History"; }
  void on_attach(FunctionGraph& fg) override;
  void on_detach(FunctionGraph& fg) override;
  void on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                       std::string_view reason) override;
  FeaturePtr clone_for(const Equiv& equiv) const override;

  /// A position in the log to revert to.
  std::size_t checkpoint() const noexcept { return log_.size(); }
  /// Undoes, newest first, every change recorded after `checkpoint`.
  void revert(std::size_t checkpoint);
  /// Forgets the log (the changes can no longer be undone).
  void clear() noexcept { log_.clear(); }
  std::size_t size() const noexcept { return log_.size(); }

 private:
  struct Change {
    ApplyPtr node;  // null: an output slot
    int index;
    Var old_var;
    Var new_var;
    std::string reason;
  };
  FunctionGraph* fg_ = nullptr;
  std::vector<Change> log_;
  bool reverting_ = false;
};

}  // namespace theano
