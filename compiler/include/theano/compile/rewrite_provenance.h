/// \file
/// `RewriteProvenance`: a Feature recording which rewrite introduced each node
/// of a FunctionGraph and every replacement the rewrites made.
///
/// Why: the checking modes (debug_mode.h, nan_guard.h) name, in their errors,
/// the rewrite that produced the failing node, and DebugMode re-checks each
/// replacement (old variable vs new variable, Theano's BadOptimization). The
/// FunctionGraph passes the rewrite's name as the `reason` of every import and
/// change (rewriter.cpp's apply_replacements, merge, fusion), so listening is
/// enough.
///
/// Invariants: nodes already in the graph when the feature is attached come
/// from the user's graph (no rewrite). The replacement log holds strong
/// references to both variables, so a replaced subgraph stays alive (and
/// evaluable) as long as the feature does. Each (old, new) pair is logged once,
/// in the order the rewrites made them.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "theano/fgraph/feature.h"

namespace theano {

class RewriteProvenance : public Feature {
 public:
  struct Replacement {
    Var old_var;
    Var new_var;
    std::string rewrite;
  };

  std::string_view name() const override { return "RewriteProvenance"; }
  void on_attach(FunctionGraph& fg) override;
  void on_import(FunctionGraph& fg, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fg, Apply& node, std::string_view reason) override;
  void on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                       std::string_view reason) override;

  /// The rewrite that imported `node`, or "" when it comes from the user's graph.
  std::string rewrite_of(const Apply& node) const;
  /// "introduced by rewrite X" or "from the user's graph (no rewrite)", for messages.
  std::string describe(const Apply& node) const;
  /// Every replacement made since attach, in order.
  const std::vector<Replacement>& replacements() const noexcept { return log_; }

 private:
  std::unordered_map<const Apply*, std::string> introduced_;
  std::vector<Replacement> log_;
};

}  // namespace theano
