/// \file
/// Rewriters (Theano's `gof/opt.py`, PyTensor's `graph/rewriting/basic.py`):
/// `NodeRewriter` (match one Apply, return replacements or why not),
/// `GraphRewriter` (a pass over a whole FunctionGraph), and the
/// `EquilibriumRewriter` driver that applies node rewriters until nothing
/// changes (docs/architecture.md, "Rewrites and the optimizer database").
///
/// Invariants of the driver:
/// * deterministic: nodes are visited in `fg.toposort()` order (creation-id
///   tie-breaks), rewriters in registration order;
/// * bounded: each node rewriter may fire at most `max_use_ratio * (nodes at
///   start)` times per run; hitting the cap names the rewrite (warning on
///   stderr, or RewriteCapError with `CapPolicy::Raise`);
/// * type preserving: a replacement whose type differs from the variable it
///   replaces (and that the old type cannot convert) is an InternalError
///   naming the rewrite (a bug in the rewrite);
/// * replacements inherit the user's variable name when they have none.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "theano/fgraph/function_graph.h"
#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano::rewrite {

/// What a node rewriter returns: one replacement per output of the node (a
/// null Var keeps that output), or the reason it did not apply (MLIR's
/// `notifyMatchFailure`).
class RewriteResult {
 public:
  RewriteResult(std::vector<Var> replacements) : replacements_(std::move(replacements)) {}  // NOLINT: implicit
  RewriteResult(Var replacement) : replacements_(std::vector<Var>{std::move(replacement)}) {}  // NOLINT: implicit
  static RewriteResult fail(std::string reason) {
    RewriteResult r{std::vector<Var>{}};
    r.replacements_.reset();
    r.reason_ = std::move(reason);
    return r;
  }
  bool applied() const noexcept { return replacements_.has_value(); }
  explicit operator bool() const noexcept { return applied(); }
  const std::vector<Var>& replacements() const { return *replacements_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::optional<std::vector<Var>> replacements_;
  std::string reason_;
};

/// The key a node is dispatched on: its op's `type_name()` ("Softmax"), and
/// for an Elemwise also `Elemwise:<scalar op>` ("Elemwise:mul").
std::vector<std::string> dispatch_keys(const Apply& node);

/// Makes `type_name` (an Op's `type_name()`) a kind that rewrites may track.
/// The library's ops are known from the start; a program that declares its own
/// op calls this before registering a rewrite that tracks it in an
/// EquilibriumDB, which rejects a track that names no op kind and no
/// `Elemwise:<scalar op>` (ValueError naming the rewrite and the track).
void register_op_kind(std::string_view type_name);

/// Matches one node and returns its replacements. Implementations are small,
/// stateless and carry their one-line algebra.
class NodeRewriter {
 public:
  virtual ~NodeRewriter() = default;
  virtual std::string_view name() const = 0;
  /// Dispatch keys (see `dispatch_keys`) of the nodes it looks at; empty: all.
  virtual const std::vector<std::string>& tracks() const = 0;
  /// The rewrite in one line, e.g. `mul(x, 1) -> x`.
  virtual std::string_view algebra() const = 0;
  virtual RewriteResult transform(FunctionGraph& fg, Apply& node) const = 0;
};
using NodeRewriterPtr = std::shared_ptr<const NodeRewriter>;

using TransformFn = std::function<RewriteResult(FunctionGraph&, Apply&)>;
/// A NodeRewriter from a function.
NodeRewriterPtr make_node_rewriter(std::string name, std::vector<std::string> tracks, std::string algebra,
                                   TransformFn fn);

/// Per-rewrite counters of one optimizer run (or accumulated over several).
struct RewriteStats {
  struct Entry {
    std::int64_t applied = 0;  ///< replacements made
    std::int64_t tried = 0;    ///< transform calls
    std::chrono::nanoseconds time{0};
  };
  std::map<std::string, Entry> entries;  // by rewrite name
  /// Names of the rewrites that hit their use cap.
  std::vector<std::string> capped;
  std::int64_t applied(std::string_view rewrite) const;
  /// One line per rewrite that was tried: `name  applied=N tried=M time=T ms`,
  /// sorted by name.
  std::string summary() const;
};

/// A pass over a whole graph.
class GraphRewriter {
 public:
  virtual ~GraphRewriter() = default;
  virtual std::string_view name() const = 0;
  /// Rewrites `fg`; returns true when it changed something.
  virtual bool apply(FunctionGraph& fg, RewriteStats& stats) const = 0;
};
using GraphRewriterPtr = std::shared_ptr<const GraphRewriter>;

/// Raised when a rewrite exceeds its use cap under CapPolicy::Raise.
class RewriteCapError : public Error {
 public:
  using Error::Error;
};
enum class CapPolicy { Warn, Raise };

/// Replaces `node`'s outputs by `result` in `fg` through replace_all_validate,
/// checking types and copying names; returns false (graph unchanged) when a
/// Feature vetoed the change. InternalError naming `rewrite` on a type change.
bool apply_replacements(FunctionGraph& fg, Apply& node, const std::vector<Var>& replacements, std::string_view rewrite);

/// Applies `rewriters` (plus `global` graph rewriters at the start of every
/// pass) until a full pass changes nothing.
class EquilibriumRewriter final : public GraphRewriter {
 public:
  EquilibriumRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters, std::vector<GraphRewriterPtr> global = {},
                      double max_use_ratio = 8.0, CapPolicy cap = CapPolicy::Warn);
  std::string_view name() const override { return name_; }
  bool apply(FunctionGraph& fg, RewriteStats& stats) const override;
  const std::vector<NodeRewriterPtr>& rewriters() const noexcept { return rewriters_; }

 private:
  std::string name_;
  std::vector<NodeRewriterPtr> rewriters_;
  std::vector<GraphRewriterPtr> global_;
  double max_use_ratio_;
  CapPolicy cap_;
  std::map<std::string, std::vector<const NodeRewriter*>, std::less<>> by_key_;
  std::vector<const NodeRewriter*> any_;  // track every node
};

/// Runs `rewriters` in order, once each.
class SequenceRewriter final : public GraphRewriter {
 public:
  /// `stage_names`: the name of each step in its database (default: the rewriter's own name).
  SequenceRewriter(std::string name, std::vector<GraphRewriterPtr> rewriters, std::vector<std::string> stage_names = {})
      : name_(std::move(name)), rewriters_(std::move(rewriters)), stage_names_(std::move(stage_names)) {}
  std::string_view name() const override { return name_; }
  bool apply(FunctionGraph& fg, RewriteStats& stats) const override;
  const std::vector<GraphRewriterPtr>& rewriters() const noexcept { return rewriters_; }
  std::string stage_name(std::size_t i) const {
    return i < stage_names_.size() ? stage_names_[i] : std::string(rewriters_.at(i)->name());
  }

 private:
  std::string name_;
  std::vector<GraphRewriterPtr> rewriters_;
  std::vector<std::string> stage_names_;
};

/// A GraphRewriter from a function.
GraphRewriterPtr make_graph_rewriter(std::string name, std::function<bool(FunctionGraph&, RewriteStats&)> fn);

}  // namespace theano::rewrite
