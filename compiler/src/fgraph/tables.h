/// \file
/// FunctionGraph's membership tables (private to compiler/src/fgraph): its
/// variables with their clients, its Apply nodes, its inputs as a set. Out of
/// function_graph.h so that the public header (in every user translation unit)
/// needs no hash containers.
#pragma once

#include <unordered_map>
#include <unordered_set>

#include "theano/fgraph/function_graph.h"

namespace theano {

struct FunctionGraph::Tables {
  std::unordered_set<const Variable*> input_set;
  std::unordered_map<const Variable*, VarEntry> vars;
  std::unordered_map<const Apply*, ApplyPtr> nodes;
};

}  // namespace theano
