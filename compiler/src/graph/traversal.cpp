// Theano's graph walkers (see traversal.h), written over stack_search.
#include "theano/graph/stack_search.h"
#include "theano/graph/traversal.h"

#include "pointer_map.h"

#include <deque>
#include <unordered_set>
#include <algorithm>

namespace theano {
namespace {

std::unordered_set<Var> as_set(const std::vector<Var>& vs) { return {vs.begin(), vs.end()}; }

}  // namespace

/// stack_search's DFS from `outputs` (the last one first; a node's inputs
/// pushed in reverse, so its first input is visited next), not expanding
/// `blockers`: each variable reached, once, in visiting order, passed to
/// `visit`. Written over raw pointers (the outputs keep the graph alive): a
/// function() walks its graph this way twice, and stack_search's Var copies,
/// per-node vectors and hashed Vars were 8 % of a warm start's instructions
/// (pointer_map.h: flat tables, nothing allocated per variable).
template <class Visit>
void walk_ancestors(const std::vector<Var>& outputs, const std::vector<Var>& blockers, Visit&& visit) {
  detail::PointerMap<char> blocked(blockers.size());
  for (const Var& b : blockers) blocked.try_emplace(b.get(), 0);
  std::vector<Variable*> stack;
  stack.reserve(outputs.size() + 64);
  for (const Var& o : outputs) stack.push_back(o.get());
  detail::PointerMap<char> seen(256);
  while (!stack.empty()) {
    Variable* v = stack.back();
    stack.pop_back();
    if (!seen.try_emplace(v, 0).second) continue;
    visit(v);
    if (Apply* o = v->owner(); o && !blocked.contains(v)) {
      const std::vector<Var>& ins = o->inputs();
      for (auto it = ins.rbegin(); it != ins.rend(); ++it) stack.push_back(it->get());
    }
  }
}

std::vector<Var> ancestors(const std::vector<Var>& outputs, const std::vector<Var>& blockers) {
  std::vector<Var> r;
  walk_ancestors(outputs, blockers, [&](Variable* v) { r.emplace_back(v); });
  return r;
}

std::vector<Var> inputs(const std::vector<Var>& outputs, const std::vector<Var>& blockers) {
  std::vector<Var> r;
  walk_ancestors(outputs, blockers, [&](Variable* v) {
    if (!v->owner()) r.emplace_back(v);
  });
  return r;
}

VariablesAndOrphans variables_and_orphans(const std::vector<Var>& i, const std::vector<Var>& o) {
  const auto in = as_set(i);
  auto expand = [&](const Var& r) {
    std::vector<Var> next;
    if (Apply* node = r.owner(); node && !in.count(r)) {
      next = node->inputs();
      for (Var& out : node->outputs()) next.push_back(std::move(out));
      std::reverse(next.begin(), next.end());
    }
    return next;
  };
  VariablesAndOrphans result;
  result.variables = stack_search<Var>(std::deque<Var>(o.begin(), o.end()), expand, SearchMode::DFS);
  for (const Var& v : result.variables)
    if (!v.owner() && !in.count(v)) result.orphans.push_back(v);
  return result;
}

std::vector<Var> variables(const std::vector<Var>& i, const std::vector<Var>& o) {
  return variables_and_orphans(i, o).variables;
}

std::vector<Var> orphans(const std::vector<Var>& i, const std::vector<Var>& o) {
  return variables_and_orphans(i, o).orphans;
}

std::vector<ApplyPtr> ops(const std::vector<Var>& i, const std::vector<Var>& o) {
  const auto in = as_set(i);
  std::vector<ApplyPtr> result;
  std::unordered_set<Apply*> seen;
  for (const Var& v : variables_and_orphans(i, o).variables)
    if (Apply* node = v.owner(); node && !in.count(v) && seen.insert(node).second) result.emplace_back(node);
  return result;
}

std::vector<ApplyPtr> list_of_nodes(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  const auto in = as_set(inputs);
  auto computes_an_input = [&](const Apply* node) {
    for (const Var& out : node->outputs())
      if (in.count(out)) return true;
    return false;
  };
  std::deque<ApplyPtr> start;
  for (const Var& o : outputs)
    if (o.owner()) start.emplace_back(o.owner());
  auto expand = [&](const ApplyPtr& node) {
    std::vector<ApplyPtr> next;
    for (const Var& inp : node->inputs())
      if (Apply* p = inp.owner(); p && !computes_an_input(p)) next.emplace_back(p);
    return next;
  };
  return stack_search<ApplyPtr>(std::move(start), expand, SearchMode::BFS);
}

}  // namespace theano
