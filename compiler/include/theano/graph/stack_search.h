/// \file
/// `stack_search`: Theano's generic breadth- or depth-first walk over any node
/// kind, with an optional inverse (node -> nodes that expanded to it). The
/// graph walks of traversal.h are built on it. Its own header, with <deque> and
/// the hash containers, so that traversal.h (in theano.hpp) stays light.
#pragma once

#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

}  // namespace theano
