/// \file
/// MergeOptimizer: equal constants become one, and nodes applying equal ops
/// to the same inputs become one (`(x+y)*2, (x+y)*3` computes `x+y` once).
#include <unordered_map>

#include "rewrites.h"
#include "theano/rewrite/rewriter.h"

namespace theano::rewrite::detail {
namespace {

// c1 == c2 (same type and values) -> c1 (the oldest)
bool merge_constants(FunctionGraph& fg) {
  bool changed = false;
  std::unordered_map<std::size_t, std::vector<Var>> buckets;
  for (const Var& v : fg.variables()) {  // creation-id order: the oldest survives
    const Constant* c = v.as_constant();
    if (!c || !fg.contains(v) || fg.clients(v).empty()) continue;
    auto& bucket = buckets[c->signature()];
    Var same;
    for (const Var& o : bucket)
      if (o.as_constant()->equals(*c)) {
        same = o;
        break;
      }
    if (!same) {
      bucket.push_back(v);
      continue;
    }
    try {
      fg.replace_validate(v, same, "merge");
      changed = true;
    } catch (const InconsistencyError&) {
    }
  }
  return changed;
}

std::size_t node_key(const Apply& node) {
  std::size_t h = node.op()->hash();
  for (const Var& in : node.inputs()) h = h * 1000003u ^ std::hash<const void*>()(in.get());
  return h;
}

// op(a, b) and op(a, b) -> one node
bool merge_nodes(FunctionGraph& fg) {
  bool changed = false;
  std::unordered_map<std::size_t, std::vector<ApplyPtr>> seen;
  std::vector<ApplyPtr> order;
  for (Apply* n : fg.toposort()) order.emplace_back(n);
  for (const ApplyPtr& node : order) {
    if (!fg.contains(node.get()) || !node->op()->destroy_map().empty()) continue;
    auto& bucket = seen[node_key(*node)];
    bool merged = false;
    for (const ApplyPtr& cand : bucket) {
      if (!fg.contains(cand.get()) || !(*cand->op() == *node->op()) || cand->inputs() != node->inputs()) continue;
      if (apply_replacements(fg, *node, cand->outputs(), "merge")) {
        merged = changed = true;
        break;
      }
    }
    if (!merged) bucket.push_back(node);
  }
  return changed;
}

}  // namespace

GraphRewriterPtr merge_optimizer() {
  static const GraphRewriterPtr r = make_graph_rewriter("merge", [](FunctionGraph& fg, RewriteStats& stats) {
    bool c = merge_constants(fg);
    bool n = merge_nodes(fg);
    if (c || n) ++stats.entries["merge"].applied;
    return c || n;
  });
  return r;
}

}  // namespace theano::rewrite::detail
