/// \file
/// Topological orders: `general_toposort` over any node kind with a
/// dependency function, and `io_toposort` over the Apply nodes between inputs
/// and outputs, honouring extra `orderings` (node -> nodes that must run first,
/// as Features such as DestroyHandler request).
///
/// The order is the post-order of an iterative depth-first walk from the
/// outputs, visiting dependencies in input order: it depends only on the graph's
/// structure, so equal graphs give equal orders (and equal generated source) in
/// every process. A cycle raises ValueError.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

/// Nodes that must precede a node, beyond its data dependencies. (A struct,
/// not an alias, so that feature.h and function_graph.h can declare it
/// without <unordered_map>.)
struct Orderings : std::unordered_map<Apply*, std::vector<Apply*>> {
  using std::unordered_map<Apply*, std::vector<Apply*>>::unordered_map;
};

/// Every node reachable from `outputs` through `deps`, each after all of its
/// dependencies. `deps(n)` lists what `n` depends on.
template <class T, class Deps, class Hash = std::hash<T>>
std::vector<T> general_toposort(const std::vector<T>& outputs, Deps&& deps) {
  enum : char { kOpen = 1, kDone = 2 };
  std::unordered_map<T, char, Hash> state;
  struct Frame {
    T node;
    std::vector<T> pending;
    std::size_t next = 0;
  };
  std::vector<T> order;
  std::vector<Frame> stack;
  for (const T& root : outputs) {
    if (state.count(root)) continue;
    state[root] = kOpen;
    stack.push_back(Frame{root, deps(root)});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.pending.size()) {
        T dep = top.pending[top.next++];
        auto [it, fresh] = state.try_emplace(dep, kOpen);
        if (fresh) {
          std::vector<T> next = deps(dep);
          stack.push_back(Frame{std::move(dep), std::move(next)});
        } else if (it->second == kOpen) {
          throw ValueError("general_toposort: the graph contains a cycle (found while visiting a node that " +
                           std::string("depends on itself through ") + std::to_string(stack.size()) + " nodes)");
        }
        continue;
      }
      state[top.node] = kDone;
      order.push_back(std::move(top.node));
      stack.pop_back();
    }
  }
  return order;
}

/// The Apply nodes that compute `outputs` from `inputs` (not walking past an
/// input), in dependency order; `orderings` adds edges.
std::vector<Apply*> io_toposort(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                const Orderings& orderings = {});

}  // namespace theano
