/// \file
/// Walking graphs: Theano's `graph` module functions over Variables and Applies
/// (`ancestors`, `inputs`, `variables_and_orphans`, `variables`,
/// `orphans`, `ops`, `list_of_nodes`; `stack_search`, the walk they use, is in
/// stack_search.h). Everything is iterative so a chain of a
/// million nodes walks without deep recursion, and every result is in a
/// deterministic order that depends only on the graph's structure.
#pragma once

#include <vector>

#include "theano/graph/basic.h"

namespace theano {

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
