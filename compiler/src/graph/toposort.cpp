// io_toposort: general_toposort over Apply nodes whose dependencies are the
// owners of their inputs (stopping at the given inputs) plus extra orderings.
#include "theano/graph/toposort.h"

#include <unordered_set>

namespace theano {

std::vector<Apply*> io_toposort(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                const Orderings& orderings) {
  const std::unordered_set<Var> in(inputs.begin(), inputs.end());
  std::vector<Apply*> roots;
  for (const Var& o : outputs)
    if (Apply* a = o.owner(); a && !in.count(o)) roots.push_back(a);
  auto deps = [&](Apply* node) {
    std::vector<Apply*> d;
    for (const Var& i : node->inputs())
      if (Apply* p = i.owner(); p && !in.count(i)) d.push_back(p);
    if (!orderings.empty())
      if (auto it = orderings.find(node); it != orderings.end()) d.insert(d.end(), it->second.begin(), it->second.end());
    return d;
  };
  try {
    return general_toposort<Apply*>(roots, deps);
  } catch (const ValueError& e) {
    throw ValueError(std::string("io_toposort: ") + e.what() +
                     (orderings.empty() ? "" : "; the extra orderings given by Features may be contradictory"));
  }
}

}  // namespace theano
