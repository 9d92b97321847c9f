// The memory planner (memory_plan.h): buffer lives from each producer to the
// last reader of any view of it, then slots reused greedily in toposort order.
#include "memory_plan.h"

#include <unordered_map>
#include <algorithm>
#include <functional>

namespace theano::codegen {
namespace {

/// The inputs whose buffers output k of `node` lives in (a view, or an input
/// overwritten in place): one, or several for a view of whichever input a
/// value picks (IfElse); empty for a fresh buffer.
std::vector<const Variable*> aliases_of(const Apply& node, int k) {
  std::vector<const Variable*> r;
  for (const ViewMap& m : {node.op()->view_map(), node.op()->destroy_map()}) {
    auto it = m.find(k);
    if (it == m.end()) continue;
    for (int i : it->second) r.push_back(node.input(i).get());
  }
  return r;
}

}  // namespace

MemoryPlan plan_memory(const FunctionGraph& fg, const std::vector<Apply*>& order, const LinkOptions& options) {
  MemoryPlan plan;
  auto root_of = [&](const Variable* v) {
    auto it = plan.root.find(v);
    return it == plan.root.end() ? v : it->second;
  };
  // Every buffer a variable may live in (several through an IfElse).
  std::unordered_map<const Variable*, std::vector<const Variable*>> roots;
  auto roots_of = [&](const Variable* v) -> std::vector<const Variable*> {
    auto it = roots.find(v);
    return it == roots.end() ? std::vector<const Variable*>{v} : it->second;
  };
  for (Apply* node : order)
    for (int k = 0; k < node->nout(); ++k) {
      const std::vector<const Variable*> a = aliases_of(*node, k);
      if (a.empty()) continue;
      plan.root[node->output(k).get()] = root_of(a.front());
      std::vector<const Variable*>& r = roots[node->output(k).get()];
      for (const Variable* in : a)
        for (const Variable* x : roots_of(in))
          if (std::find(r.begin(), r.end(), x) == r.end()) r.push_back(x);
    }
  // Graph inputs overwritten in place (the host passes a copy unless mutable).
  for (Apply* node : order)
    for (const auto& [k, ins] : node->op()->destroy_map())
      for (int i : ins)
        for (const Variable* r : roots_of(node->input(i).get()))
          for (std::size_t j = 0; j < fg.inputs().size(); ++j)
            if (fg.inputs()[j].get() == r &&
                std::find(plan.destroyed_inputs.begin(), plan.destroyed_inputs.end(), j) == plan.destroyed_inputs.end())
              plan.destroyed_inputs.push_back(j);
  std::sort(plan.destroyed_inputs.begin(), plan.destroyed_inputs.end());
  // Last use of each buffer (toposort index); graph outputs live past the end.
  std::unordered_map<const Variable*, std::size_t> last;
  for (std::size_t t = 0; t < order.size(); ++t) {
    for (const Var& in : order[t]->inputs())
      for (const Variable* r : roots_of(in.get())) last[r] = t;
    for (int k = 0; k < order[t]->nout(); ++k)
      for (const Variable* r : roots_of(order[t]->output(k).get())) last[r] = std::max(last[r], t);
  }
  std::unordered_map<const Variable*, bool> borrowed;  // buffers reaching an output: borrowed by all?
  for (std::size_t o = 0; o < fg.outputs().size(); ++o) {
    const bool b = o < options.borrow_outputs.size() && options.borrow_outputs[o];
    for (const Variable* r : roots_of(fg.outputs()[o].get())) {
      auto [it, fresh] = borrowed.emplace(r, b);
      if (!fresh) it->second = it->second && b;
    }
  }
  std::vector<std::int64_t> free_slots;  // kept sorted descending: back() is the smallest
  std::vector<std::vector<std::int64_t>> release(order.size());
  for (std::size_t t = 0; t < order.size(); ++t) {
    const Apply& node = *order[t];
    for (int k = 0; k < node.nout(); ++k) {
      const Variable* v = node.output(k).get();
      if (roots.count(v)) continue;  // a view or an in-place result
      auto b = borrowed.find(v);
      if (b != borrowed.end()) {
        if (b->second) plan.slot[v] = plan.nslots++;  // recycled between calls, never shared
        continue;
      }
      std::int64_t s;
      if (!free_slots.empty()) {
        s = free_slots.back();
        free_slots.pop_back();
      } else {
        s = plan.nslots++;
      }
      plan.slot[v] = s;
      release[last[v]].push_back(s);
    }
    for (std::int64_t s : release[t]) free_slots.push_back(s);
    std::sort(free_slots.begin(), free_slots.end(), std::greater<>());
  }
  return plan;
}

}  // namespace theano::codegen
