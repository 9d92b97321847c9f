// as_string (see as_string.h): Theano's describe(), iterative.
#include "theano/graph/as_string.h"

#include <unordered_map>
#include <unordered_set>

#include "theano/graph/traversal.h"

namespace theano {

std::string default_leaf_formatter(const Var& leaf) { return leaf.str(); }

std::string default_node_formatter(const Apply& node, const std::vector<std::string>& args) {
  std::string r = node.op()->name() + "(";
  for (std::size_t k = 0; k < args.size(); ++k) r += (k ? ", " : "") + args[k];
  return r + ")";
}

std::vector<std::string> as_string(const std::vector<Var>& i, const std::vector<Var>& o,
                                   const LeafFormatter& leaf_formatter, const NodeFormatter& node_formatter) {
  const std::unordered_set<Var> in(i.begin(), i.end());
  const std::vector<Var> orph = orphans(i, o);
  const std::unordered_set<Var> orph_set(orph.begin(), orph.end());

  // Nodes reached more than once get a `*k` label.
  std::unordered_set<const Apply*> seen, multi;
  for (const Var& out : o)
    if (const Apply* a = out.owner(); a && !seen.insert(a).second) multi.insert(a);
  for (const ApplyPtr& node : ops(i, o))
    for (const Var& input : node->inputs()) {
      const Apply* p = input.owner();
      if (in.count(input) || orph_set.count(input) || !p) continue;
      if (!seen.insert(p).second) multi.insert(p);
    }

  std::unordered_map<const Apply*, int> label;  // assigned in order of first print
  int next_label = 1;
  struct Frame {
    const Apply* node;
    std::size_t next = 0;
    std::vector<std::string> args;
  };
  auto is_leaf = [&](const Var& r) { return !r.owner() || in.count(r) || orph_set.count(r); };
  auto suffix = [](const Var& r) { return r.owner()->nout() == 1 ? std::string() : "::" + std::to_string(*r.index()); };

  std::vector<std::string> result;
  for (const Var& out : o) {
    std::vector<Frame> stack;
    std::string value;
    // Describes `r`: either yields a string at once or opens a frame.
    auto open = [&](const Var& r) -> bool {
      if (is_leaf(r)) {
        value = leaf_formatter(r);
        return false;
      }
      const Apply* node = r.owner();
      if (auto it = label.find(node); it != label.end()) {
        value = "*" + std::to_string(it->second) + suffix(r);
        return false;
      }
      label.emplace(node, multi.count(node) ? next_label++ : 0);
      stack.push_back(Frame{node, 0, {}});
      return true;
    };
    // Unlabelled nodes are marked done with label 0, so a second visit of a
    // node that is not in `multi` cannot happen (it would be in multi).
    if (open(out)) {
      while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next < top.node->inputs().size()) {
          const Var& input = top.node->inputs()[top.next++];
          if (!open(input)) stack.back().args.push_back(value);
          continue;
        }
        std::string s = node_formatter(*top.node, top.args);
        if (const int k = label.at(top.node); k > 0) s = "*" + std::to_string(k) + " -> " + s;
        stack.pop_back();
        if (stack.empty())
          value = std::move(s);
        else
          stack.back().args.push_back(std::move(s));
      }
    }
    result.push_back(std::move(value));
  }
  return result;
}

}  // namespace theano
