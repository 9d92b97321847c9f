// Theano's graph walkers (see traversal.h), written over stack_search.
#include "theano/graph/stack_search.h"
#include "theano/graph/traversal.h"

#include <deque>
#include <unordered_set>
#include <algorithm>

namespace theano {
namespace {

std::unordered_set<Var> as_set(const std::vector<Var>& vs) { return {vs.begin(), vs.end()}; }

}  // namespace

std::vector<Var> ancestors(const std::vector<Var>& outputs, const std::vector<Var>& blockers) {
  const auto blocked = as_set(blockers);
  auto expand = [&](const Var& r) {
    std::vector<Var> next;
    if (Apply* o = r.owner(); o && !blocked.count(r)) next.assign(o->inputs().rbegin(), o->inputs().rend());
    return next;
  };
  return stack_search<Var>(std::deque<Var>(outputs.begin(), outputs.end()), expand, SearchMode::DFS);
}

std::vector<Var> inputs(const std::vector<Var>& outputs, const std::vector<Var>& blockers) {
  std::vector<Var> r;
  for (Var& v : ancestors(outputs, blockers))
    if (!v.owner()) r.push_back(std::move(v));
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
