// lazy_schedule (compile/lazy_schedule.h): guards from the clients, outputs
// first, then a toposort with the extra "condition before guarded node" edges.
#include "theano/compile/lazy_schedule.h"

#include <functional>
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "theano/control/ifelse.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/toposort.h"

namespace theano {
namespace {

/// A guard as a set: (IfElse node, branch) sorted by node id, then branch.
using TermSet = std::vector<std::pair<const Apply*, bool>>;

bool term_less(const std::pair<const Apply*, bool>& a, const std::pair<const Apply*, bool>& b) {
  return a.first->id() != b.first->id() ? a.first->id() < b.first->id() : a.second < b.second;
}

TermSet intersect(const TermSet& a, const TermSet& b) {
  TermSet r;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r), term_less);
  return r;
}

}  // namespace

bool LazySchedule::lazy() const {
  return std::any_of(guards.begin(), guards.end(), [](const auto& g) { return !g.empty(); });
}

LazySchedule lazy_schedule(const FunctionGraph& fg, const std::function<bool(const Apply&)>& lazy_ok) {
  LazySchedule s;
  const std::vector<Apply*> base = fg.toposort();
  auto lazy_ifelse = [&](const Apply& node) -> const IfElse* {
    const IfElse* ie = as_ifelse(node);
    return ie && (!lazy_ok || lazy_ok(node)) ? ie : nullptr;
  };
  auto eager = [&] {
    s.order = base;
    s.guards.assign(base.size(), {});
    return s;
  };
  if (std::none_of(base.begin(), base.end(), [&](const Apply* n) { return lazy_ifelse(*n) != nullptr; }))
    return eager();

  std::unordered_map<const Apply*, TermSet> guard;
  for (auto it = base.rbegin(); it != base.rend(); ++it) {
    const Apply* node = *it;
    std::optional<TermSet> g;
    for (int o = 0; o < node->nout() && (!g || !g->empty()); ++o) {
      for (const Client& c : fg.clients(node->output(o))) {
        TermSet e;
        if (!c.is_output()) {
          e = guard.at(c.node);
          if (const IfElse* ie = lazy_ifelse(*c.node); ie && c.index >= 1) {
            const std::pair<const Apply*, bool> term{c.node, c.index <= ie->n_outs()};
            e.insert(std::upper_bound(e.begin(), e.end(), term, term_less), term);
          }
        }
        g = g ? intersect(*g, e) : std::move(e);
        if (g->empty()) break;
      }
    }
    guard[node] = g.value_or(TermSet{});
  }

  Orderings ords = fg.orderings();
  bool any = false;
  for (const Apply* node : base)
    for (const auto& [ie, truth] : guard.at(node)) {
      any = true;
      if (Apply* producer = ie->input(0).owner())
        ords[const_cast<Apply*>(node)].push_back(producer);
    }
  if (!any) return eager();
  try {
    s.order = io_toposort(fg.inputs(), fg.outputs(), ords);
  } catch (const ValueError&) {
    return eager();  // the guards' orderings cycle with an in-place op's: run every node
  }
  std::unordered_map<const Apply*, std::size_t> pos;
  for (std::size_t t = 0; t < s.order.size(); ++t) pos[s.order[t]] = t;
  for (const Apply* node : s.order) {
    TermSet terms = guard.at(node);
    // Outer conditions first: a term's IfElse is guarded by a strict subset of the terms.
    std::stable_sort(terms.begin(), terms.end(), [&](const auto& a, const auto& b) {
      return guard.at(a.first).size() < guard.at(b.first).size();
    });
    std::vector<LazySchedule::Term> g;
    for (const auto& [ie, truth] : terms) g.push_back(LazySchedule::Term{pos.at(ie), truth});
    s.guards.push_back(std::move(g));
  }
  return s;
}

}  // namespace theano
