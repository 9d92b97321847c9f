/// \file
/// `Feature`: an observer attached to a FunctionGraph (Theano's `gof/toolbox.py`,
/// PyTensor's `graph/features.py`).
///
/// Why: every mutation of a FunctionGraph goes through its API, which announces
/// it to each attached Feature, so a Feature can keep derived state up to date
/// (History, DestroyHandler, shape tracking), add scheduling constraints
/// (`orderings`) or veto a state (`validate`). All callbacks default to no-ops.
///
/// Invariants: callbacks are invoked after the FunctionGraph has reached a
/// consistent state for the event (a pruned node is already gone from
/// `apply_nodes()`, an imported node is already present). Callbacks must not
/// throw from `on_import` / `on_prune` / `on_change_input` (a change half
/// announced cannot be undone); refusals belong in `validate`, which
/// ReplaceValidate turns into a rollback.
#pragma once

#include <memory>
#include <string_view>

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

class FunctionGraph;
struct Equiv;
struct Orderings;  // graph/toposort.h

/// Thrown by `Feature::on_attach` to say "an equivalent feature is already
/// attached": `FunctionGraph::attach_feature` then silently skips this one.
class AlreadyThere : public Error {
 public:
  using Error::Error;
};

class Feature {
 public:
  Feature() = default;
  Feature(const Feature&) = delete;
  Feature& operator=(const Feature&) = delete;
  virtual ~Feature() = default;

  /// A short name for messages and debugging.
  virtual std::string_view name() const { return "Feature"; }

  /// Called when attached. The graph may already hold nodes: features that
  /// track nodes walk `fg.toposort()` / `fg.apply_nodes()` here. Throw
  /// AlreadyThere to refuse being a duplicate.
  virtual void on_attach(FunctionGraph& fg) {}
  /// Called when removed, and when the graph is disowned or destroyed.
  virtual void on_detach(FunctionGraph& fg) {}
  /// `node` has just been added to the graph (its inputs were already there).
  virtual void on_import(FunctionGraph& fg, Apply& node, std::string_view reason) {}
  /// `node` has just left the graph (no output of it has a client any more).
  virtual void on_prune(FunctionGraph& fg, Apply& node, std::string_view reason) {}
  /// Input `i` of `node` changed from `old_var` to `new_var`. `node == nullptr`
  /// stands for the graph's output slot `i` (Theano's `"output"`).
  virtual void on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                               std::string_view reason) {}
  /// Extra scheduling constraints: node -> nodes that must run before it.
  /// Lists must be in a deterministic order (the toposort depends on them).
  virtual Orderings orderings(const FunctionGraph& fg);
  /// Throw InconsistencyError when the current graph is unacceptable.
  virtual void validate(const FunctionGraph& fg) {}

  /// A fresh feature of the same configuration for the copy of a graph made by
  /// `FunctionGraph::clone_get_equiv`; `equiv` maps this graph's variables and
  /// nodes to the copy's. nullptr (the default) means "do not re-attach".
  virtual std::shared_ptr<Feature> clone_for(const Equiv& equiv) const { return nullptr; }
};

using FeaturePtr = std::shared_ptr<Feature>;

}  // namespace theano
