/// \file
/// `as_string`: Theano's one-line text of a graph, `add(x, mul(y, z))`, where
/// a node used several times is printed once as `*1 -> op(...)` and referred to
/// later as `*1`. Formatters choose how leaves and nodes are written.
#pragma once

#include <string>
#include <vector>

#include "theano/function_ref.h"
#include "theano/graph/basic.h"

namespace theano {

using LeafFormatter = FunctionRef<std::string(const Var&)>;
using NodeFormatter = FunctionRef<std::string(const Apply&, const std::vector<std::string>& args)>;

/// `leaf.str()`.
std::string default_leaf_formatter(const Var& leaf);
/// `opname(arg, arg, ...)`.
std::string default_node_formatter(const Apply& node, const std::vector<std::string>& args);

/// One string per output of the graph from `i` to `o`.
std::vector<std::string> as_string(const std::vector<Var>& i, const std::vector<Var>& o,
                                   const LeafFormatter& leaf_formatter = default_leaf_formatter,
                                   const NodeFormatter& node_formatter = default_node_formatter);

}  // namespace theano
