/// \file
/// The reference interpreter of DebugMode (see reference_eval.h): an explicit
/// stack instead of recursion, so deep graphs cannot overflow the C++ stack.
#include "reference_eval.h"

#include <unordered_set>
#include <vector>

namespace theano::detail {
namespace {

/// Runs `node`'s perform on memoized inputs and stores its outputs; false when
/// it cannot run (an input has no value, or the op has no perform).
bool run_node(const Apply& node, ValueMemo& memo) {
  if (!node.op()->has_perform()) return false;
  std::vector<bool> destroyed(static_cast<std::size_t>(node.nin()), false);
  for (const auto& [out, ins] : node.op()->destroy_map())
    for (int i : ins)
      if (i >= 0 && i < node.nin()) destroyed[static_cast<std::size_t>(i)] = true;
  std::vector<NDArray> in;
  for (int i = 0; i < node.nin(); ++i) {
    auto it = memo.find(node.input(i).get());
    if (it == memo.end() || !it->second.defined()) return false;
    in.push_back(destroyed[static_cast<std::size_t>(i)] ? it->second.copy() : it->second);
  }
  std::vector<NDArray> out(static_cast<std::size_t>(node.nout()));
  node.op()->perform(node, in, out);
  for (int k = 0; k < node.nout(); ++k) memo[node.output(k).get()] = out[static_cast<std::size_t>(k)];
  return true;
}

}  // namespace

NDArray reference_eval(const Var& v, ValueMemo& memo) {
  if (!v) return {};
  std::vector<std::pair<const Apply*, bool>> stack;  // (node, inputs pushed)
  std::unordered_set<const Apply*> failed;
  auto known = [&](const Var& x) {
    if (memo.count(x.get())) return true;
    if (const Constant* c = x.as_constant()) {
      memo[x.get()] = c->data();
      return true;
    }
    return false;
  };
  if (known(v)) return memo[v.get()];
  if (!v.owner()) return {};
  stack.emplace_back(v.owner(), false);
  while (!stack.empty()) {
    auto& [node, expanded] = stack.back();
    const Apply* n = node;
    if (n->nout() == 0 || memo.count(n->output(0).get()) || failed.count(n)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      expanded = true;
      bool missing_leaf = false;
      std::vector<const Apply*> pending;
      for (const Var& in : n->inputs()) {
        if (known(in)) continue;
        if (!in.owner() || failed.count(in.owner())) {
          missing_leaf = true;
          break;
        }
        pending.push_back(in.owner());
      }
      if (missing_leaf) {
        failed.insert(n);
        stack.pop_back();
        continue;
      }
      for (const Apply* p : pending) stack.emplace_back(p, false);
      continue;
    }
    stack.pop_back();
    if (!run_node(*n, memo)) failed.insert(n);
  }
  auto it = memo.find(v.get());
  return it == memo.end() ? NDArray() : it->second;
}

}  // namespace theano::detail
