// io_toposort: general_toposort's order over Apply nodes whose dependencies
// are the owners of their inputs (stopping at the given inputs) plus extra
// orderings. Written for Apply* directly: a frame walks its node's inputs by
// index instead of holding a list of dependencies, so the walk allocates
// nothing per node (every function() sorts its graph two or three times; the
// generic form was 8 % of a warm start's instructions; pointer_map.h's flat
// tables hold the states).
#include "theano/graph/toposort.h"

#include "pointer_map.h"

namespace theano {

std::vector<Apply*> io_toposort(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                const Orderings& orderings) {
  detail::PointerMap<char> in(inputs.size());
  for (const Var& i : inputs) in.try_emplace(i.get(), 0);
  enum : char { kOpen = 1, kDone = 2 };
  detail::PointerMap<char> state(256);
  struct Frame {
    Apply* node;
    std::size_t next;                 // inputs first, then the extra orderings
    const std::vector<Apply*>* extra;  // the node's orderings, or null
  };
  auto extra_of = [&](Apply* node) -> const std::vector<Apply*>* {
    if (orderings.empty()) return nullptr;
    auto it = orderings.find(node);
    return it == orderings.end() ? nullptr : &it->second;
  };
  // The dependency at `f.next` (advanced past it), or null when there is none left.
  auto next_dep = [&](Frame& f) -> Apply* {
    const std::vector<Var>& ins = f.node->inputs();
    while (f.next < ins.size()) {
      const Var& i = ins[f.next++];
      if (Apply* p = i.owner(); p && !in.contains(i.get())) return p;
    }
    if (f.extra && f.next - ins.size() < f.extra->size()) return (*f.extra)[f.next++ - ins.size()];
    return nullptr;
  };
  std::vector<Apply*> order;
  std::vector<Frame> stack;
  for (const Var& o : outputs) {
    Apply* root = o.owner();
    if (!root || in.contains(o.get()) || !state.try_emplace(root, kOpen).second) continue;
    stack.push_back(Frame{root, 0, extra_of(root)});
    while (!stack.empty()) {
      if (Apply* dep = next_dep(stack.back())) {
        auto [st, fresh] = state.try_emplace(dep, kOpen);
        if (fresh) {
          stack.push_back(Frame{dep, 0, extra_of(dep)});
        } else if (*st == kOpen) {
          throw ValueError(std::string("io_toposort: general_toposort: the graph contains a cycle (found while "
                                       "visiting a node that depends on itself through ") +
                           std::to_string(stack.size()) + " nodes)" +
                           (orderings.empty() ? "" : "; the extra orderings given by Features may be contradictory"));
        }
        continue;
      }
      Apply* done = stack.back().node;
      *state.find(done) = kDone;
      order.push_back(done);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace theano
