/// \file
/// `DestroyHandler`: the Feature that makes in-place operations safe (Theano's
/// `gof/destroyhandler.py`).
///
/// Why: an Op with a `destroy_map` overwrites an input; an Op with a
/// `view_map` returns an output sharing an input's memory. Once such nodes are
/// in a graph, the schedule matters and some graphs are simply wrong. This
/// feature tracks the nodes that destroy or view, and
/// * adds orderings so that every other reader of a destroyed variable, or of
///   any view of it, runs before the destroyer;
/// * refuses (InconsistencyError from `validate` and `orderings`, naming the
///   nodes involved):
///   - two nodes destroying the same variable, counting views: destroying a
///     view of `x` destroys `x` (its *root*, found by following view_map);
///   - destroying a graph input that is not marked mutable (Theano's
///     Supervisor / `In(mutable=True)`), and destroying a constant;
///   - a destroyer that also reads the destroyed variable (or a view of it)
///     through another input;
///   - orderings that form a cycle with the data dependencies (a reader that
///     needs the destroyer's result).
///
/// Invariants: nodes are tracked incrementally (on_import / on_prune) together
/// with their view_map / destroy_map; roots and views are derived from the
/// graph on demand, so `on_change_input` needs no bookkeeping. Like Theano,
/// only view_map creates aliases: the output of a destroyer is a new value.
/// A view output must alias exactly one input. One DestroyHandler per graph
/// (a second raises AlreadyThere); a DestroyHandler serves one graph.
///
/// Mutable inputs are the graph's own input Variables: with `clone = true`,
/// pass `fg.inputs()[k]` to `set_mutable` after building the graph.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "theano/fgraph/feature.h"
#include "theano/graph/op.h"

namespace theano {

class DestroyHandler : public Feature {
 public:
  /// `mutable_inputs`: graph inputs that may be destroyed.
  explicit DestroyHandler(std::vector<Var> mutable_inputs = {});

  std::string_view name() const override { return "DestroyHandler"; }
  void on_attach(FunctionGraph& fg) override;
  void on_detach(FunctionGraph& fg) override;
  void on_import(FunctionGraph& fg, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fg, Apply& node, std::string_view reason) override;
  Orderings orderings(const FunctionGraph& fg) override;
  void validate(const FunctionGraph& fg) override;
  FeaturePtr clone_for(const Equiv& equiv) const override;

  /// Allows (or forbids again) destroying graph input `input`.
  void set_mutable(const Var& input, bool is_mutable = true);
  bool is_mutable(const Var& input) const { return mutable_.count(input) != 0; }

  /// The nodes destroying `var`, i.e. destroying the root of `var` when `var`
  /// is that root or a view of it (empty when nothing does; several only in a
  /// graph that `validate` refuses).
  std::vector<Apply*> destroyers(const Var& var) const;
  /// The variable whose memory `var` shares through view_map chains (`var`
  /// itself when it is not a view).
  Var view_root(const Var& var) const;
  /// Every variable whose memory `var` may share: one root, or several when
  /// a view's op picks one of several inputs at run time (IfElse); a
  /// destroyer of `var` counts as destroying each of them.
  std::vector<Var> view_roots(const Var& var) const;
  /// `var` and every variable of the graph that is a view of it, transitively.
  std::vector<Var> views_of(const Var& var) const;
  /// Whether any tracked node destroys an input.
  bool has_destroyers() const noexcept { return !destroy_maps_.empty(); }

 private:
  FunctionGraph* fg_ = nullptr;
  std::unordered_set<Var> mutable_;
  std::unordered_map<const Apply*, ViewMap> view_maps_;     // only nodes with a non-empty view_map
  std::unordered_map<const Apply*, ViewMap> destroy_maps_;  // only nodes with a non-empty destroy_map
};

}  // namespace theano
