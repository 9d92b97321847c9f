/// \file
/// Walking graphs: Theano's `graph` module functions over Variables and Applies
/// (`stack_search`, `ancestors`, `inputs`, `variables_and_orphans`, `variables`,
/// `orphans`, `ops`, `list_of_nodes`). Everything is iterative so a chain of a
/// million nodes walks without deep recursion, and every result is in a
/// deterministic order that depends only on the graph's structure.
#pragma once

#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

enum class SearchMode { BFS, DFS };

/// Theano's `stack_search`: starting from `start`, visit each item once, in BFS
/// (pop front) or DFS (pop back) order, extending the frontier with `expand(item)`.
/// When `inverse` is given it receives, for each expanded item, the items that
/// listed it (Theano's `build_inv`).
template <class T, class Expand, class Hash = std::hash<T>>
std::vector<T> stack_search(std::deque<T> start, Expand&& expand, SearchMode mode = SearchMode::BFS,
                            std::unordered_map<T, std::vector<T>, Hash>* inverse = nullptr) {
  std::vector<T> order;
  std::unordered_set<T, Hash> seen;
  while (!start.empty()) {
    T item;
    if (mode == SearchMode::BFS) {
      item = std::move(start.front());
      start.pop_front();
    } else {
      item = std::move(start.back());
      start.pop_back();
    }
    if (!seen.insert(item).second) continue;
    order.push_back(item);
    std::vector<T> more = expand(item);
    for (T& m : more) {
      if (inverse) (*inverse)[m].push_back(item);
      start.push_back(std::move(m));
    }
  }
  return order;
}

/// Every Variable that `outputs` depend on (themselves included), in DFS order,
/// not walking past `blockers`.
std::vector<Var> ancestors(const std::vector<Var>& outputs, const std::vector<Var>& blockers = {});
/// The owner-less ancestors of `outputs` (free inputs and constants).
std::vector<Var> inputs(const std::vector<Var>& outputs, const std::vector<Var>& blockers = {});

struct VariablesAndOrphans {
  std::vector<Var> variables;  ///< every variable between `i` and `o`, both ends included
  std::vector<Var> orphans;    ///< owner-less variables reached that are not in `i`
};
/// The variables of the subgraph from `i` to `o`, and its orphans.
VariablesAndOrphans variables_and_orphans(const std::vector<Var>& i, const std::vector<Var>& o);
std::vector<Var> variables(const std::vector<Var>& i, const std::vector<Var>& o);
std::vector<Var> orphans(const std::vector<Var>& i, const std::vector<Var>& o);
/// The Apply nodes of the subgraph from `i` to `o`, in discovery order.
std::vector<ApplyPtr> ops(const std::vector<Var>& i, const std::vector<Var>& o);
/// The Apply nodes from the owners of `outputs` back to (not past) nodes that
/// compute one of `inputs`, breadth first.
std::vector<ApplyPtr> list_of_nodes(const std::vector<Var>& inputs, const std::vector<Var>& outputs);

}  // namespace theano
