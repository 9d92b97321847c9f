/// \file
/// MergeOptimizer and its MergeFeature: equal constants become one, and nodes
/// applying equal ops to the same inputs become one (`(x+y)*2, (x+y)*3`
/// computes `x+y` once).
///
/// Why a feature: merge runs at the start of every equilibrium pass of every
/// stage. Scanning the whole graph each time made it the largest cost of
/// optimizing a 10^5-node graph. The MergeFeature (Theano's, in spirit) keeps
/// a table of the nodes and constants already checked, and a worklist of the
/// nodes imported or given new inputs since the last merge; a merge only
/// looks at the worklist. A replacement announces its clients' input
/// changes, so merges cascade through the same worklist.
///
/// Table entries are keyed by the op's hash and the input identities at the
/// time they were checked; an entry whose node has left the graph or whose
/// inputs have changed since is skipped (the node is back on the worklist).
/// Nodes are held as plain pointers and used only after `fg.contains` says
/// they are in the graph (a pruned node's address may be reused by a new
/// node: it is then compared by content, which is still right), so the
/// feature keeps no pruned subgraph alive.
#include <functional>
#include <deque>
#include <unordered_map>

#include "rewrites.h"
#include "theano/rewrite/rewriter.h"

namespace theano::rewrite::detail {
namespace {

std::size_t node_key(const Apply& node) {
  std::size_t h = node.op()->hash();
  for (const Var& in : node.inputs()) h = h * 1000003u ^ std::hash<const void*>()(in.get());
  return h;
}

class MergeFeature final : public Feature {
 public:
  std::string_view name() const override { return "MergeFeature"; }

  void on_attach(FunctionGraph& fg) override {
    for (Apply* n : fg.toposort()) pending_.push_back(n);
    for (const Var& v : fg.variables())
      if (v.is_constant()) constants_.push_back(v);
  }
  void on_detach(FunctionGraph&) override {
    pending_.clear();
    constants_.clear();
    nodes_.clear();
    seen_constants_.clear();
  }
  void on_import(FunctionGraph&, Apply& node, std::string_view) override {
    pending_.push_back(&node);
    for (const Var& in : node.inputs())
      if (in.is_constant()) constants_.push_back(in);
  }
  void on_change_input(FunctionGraph&, Apply* node, int, const Var&, const Var& new_var, std::string_view) override {
    if (node) pending_.push_back(node);
    if (new_var.is_constant()) constants_.push_back(new_var);
  }

  /// Merges what changed since the last call; true when the graph changed.
  bool merge(FunctionGraph& fg) {
    bool changed = merge_constants(fg);
    while (!pending_.empty()) {
      Apply* const node = pending_.front();
      pending_.pop_front();
      if (!fg.contains(node) || !node->op()->destroy_map().empty()) continue;
      auto& bucket = nodes_[node_key(*node)];
      bool merged = false, listed = false;
      for (std::size_t k = 0; k < bucket.size();) {
        Apply* const cand = bucket[k];
        if (!fg.contains(cand)) {  // left the graph: drop the entry
          bucket[k] = bucket.back();
          bucket.pop_back();
          continue;
        }
        if (cand == node) {
          listed = true;
        } else if (*cand->op() == *node->op() && cand->inputs() == node->inputs() &&
                   apply_replacements(fg, *node, cand->outputs(), "merge")) {
          merged = changed = true;
          break;
        }
        ++k;
      }
      if (!merged && !listed) bucket.push_back(node);
    }
    return changed;
  }

 private:
  // c1 == c2 (same type and values) -> the one checked first
  bool merge_constants(FunctionGraph& fg) {
    bool changed = false;
    std::vector<Var> fresh;
    fresh.swap(constants_);
    for (const Var& v : fresh) {
      if (!fg.contains(v) || fg.clients(v).empty()) continue;
      const Constant* c = v.as_constant();
      auto& bucket = seen_constants_[c->signature()];
      Var same;
      for (const Var& o : bucket)
        if (o == v || (fg.contains(o) && !fg.clients(o).empty() && o.as_constant()->equals(*c))) {
          same = o;
          break;
        }
      if (!same) {
        bucket.push_back(v);
        continue;
      }
      if (same == v) continue;
      try {
        fg.replace_validate(v, same, "merge");
        changed = true;
      } catch (const InconsistencyError&) {
      }
    }
    return changed;
  }

  std::deque<Apply*> pending_;
  std::vector<Var> constants_;
  std::unordered_map<std::size_t, std::vector<Apply*>> nodes_;
  std::unordered_map<std::size_t, std::vector<Var>> seen_constants_;
};

}  // namespace

GraphRewriterPtr merge_optimizer() {
  static const GraphRewriterPtr r = make_graph_rewriter("merge", [](FunctionGraph& fg, RewriteStats& stats) {
    MergeFeature* m = fg.find_feature<MergeFeature>();
    if (!m) {
      auto f = std::make_shared<MergeFeature>();
      fg.attach_feature(f);
      m = f.get();
    }
    const bool changed = m->merge(fg);
    if (changed) ++stats.entries["merge"].applied;
    return changed;
  });
  return r;
}

}  // namespace theano::rewrite::detail
