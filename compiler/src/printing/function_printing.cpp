/// \file
/// The printers applied to a compiled `Function` (Theano's `debugprint(f)` and
/// `pydotprint(f)`): they print the function's FunctionGraph, and the Graphviz
/// view draws each update as an `UPDATE` edge from the shared variable (the
/// graph's input) to the expression computing its new value (the graph's
/// trailing outputs).
#include <ostream>
#include <sstream>

#include "printing_internal.h"
#include "theano/compile/function.h"
#include "theano/compile/shared.h"
#include "theano/fgraph/function_graph.h"
#include "theano/printing.h"

namespace theano {

std::ostream& debugprint(std::ostream& os, const Function& f, const DebugPrintOptions& options) {
  return debugprint(os, f.fgraph(), options);
}

std::string debugprint(const Function& f, const DebugPrintOptions& options) {
  std::ostringstream os;
  debugprint(os, f, options);
  return os.str();
}

namespace {

/// (shared input of f.fgraph(), its update output), matched through the
/// container the user's shared variable and the graph's clone share.
std::vector<std::pair<Var, Var>> graph_updates(const Function& f) {
  const FunctionGraph& fg = f.fgraph();
  const auto& updates = f.updates();
  const auto& outs = fg.outputs();
  THEANO_INTERNAL_CHECK(outs.size() >= updates.size())
      << "to_dot: the function's graph has fewer outputs (" << outs.size() << ") than updates (" << updates.size()
      << ")";
  const std::size_t first = outs.size() - updates.size();
  std::vector<std::pair<Var, Var>> r;
  for (std::size_t k = 0; k < updates.size(); ++k) {
    const SharedVariable* user = as_shared(updates[k].first);
    Var graph_input;
    for (const Var& in : fg.inputs())
      if (const SharedVariable* s = as_shared(in); s && user && s->storage() == user->storage()) graph_input = in;
    THEANO_INTERNAL_CHECK(graph_input) << "to_dot: the shared variable " << updates[k].first.str()
                                       << " updated by the function is not an input of its graph";
    r.emplace_back(graph_input, outs[first + k]);
  }
  return r;
}

}  // namespace

std::string to_dot(const Function& f, const DotOptions& options) {
  DotOptions opt = options;
  opt.updates = graph_updates(f);
  return to_dot(f.fgraph(), opt);
}

void write_graph(const std::string& path, const Function& f, const DotOptions& options) {
  printing_detail::write_dot(path, to_dot(f, options));
}

}  // namespace theano
