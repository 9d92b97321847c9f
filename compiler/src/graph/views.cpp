// view_roots and io_connection_pattern (see views.h).
#include "theano/graph/views.h"

#include <unordered_map>

#include "theano/graph/toposort.h"

namespace theano {

std::vector<Var> view_roots(const Var& r) {
  std::vector<Var> roots;
  std::vector<Var> todo{r};
  while (!todo.empty()) {
    Var v = std::move(todo.back());
    todo.pop_back();
    Apply* owner = v.owner();
    const ViewMap vm = owner ? owner->op()->view_map() : ViewMap{};
    auto it = vm.find(*v.index());
    if (!owner || it == vm.end()) {
      roots.push_back(std::move(v));
      continue;
    }
    // Keep Theano's left-to-right order of the aliased inputs.
    for (auto i = it->second.rbegin(); i != it->second.rend(); ++i) todo.push_back(owner->input(*i));
  }
  return roots;
}

std::vector<std::vector<bool>> io_connection_pattern(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  const std::size_t n = inputs.size();
  std::unordered_map<Var, std::vector<bool>> by_var;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<bool> p(n, false);
    p[i] = true;
    by_var.emplace(inputs[i], std::move(p));
  }
  for (Apply* node : io_toposort(inputs, outputs)) {
    const auto op_pattern = node->op()->connection_pattern(*node);
    for (int o = 0; o < node->nout(); ++o) {
      std::vector<bool> out_pattern(n, false);
      for (int i = 0; i < node->nin(); ++i) {
        auto it = by_var.find(node->input(i));
        if (it == by_var.end() || !op_pattern[static_cast<std::size_t>(i)][static_cast<std::size_t>(o)]) continue;
        for (std::size_t k = 0; k < n; ++k) out_pattern[k] = out_pattern[k] || it->second[k];
      }
      by_var[node->output(o)] = std::move(out_pattern);
    }
  }
  std::vector<std::vector<bool>> global(n);
  for (const Var& out : outputs) {
    auto it = by_var.find(out);
    for (std::size_t i = 0; i < n; ++i) global[i].push_back(it != by_var.end() && it->second[i]);
  }
  return global;
}

}  // namespace theano
