// clone_get_equiv / clone / clone_replace (see clone.h).
#include "theano/graph/clone.h"
#include "theano/graph/equiv.h"

#include "theano/graph/toposort.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"

namespace theano {

const Var& Equiv::at(const Var& v) const {
  auto it = vars.find(v);
  THEANO_USER_CHECK(it != vars.end(), ValueError) << "variable " << v.str() << " is not part of the cloned graph";
  return it->second;
}

const ApplyPtr& Equiv::at(const Apply* node) const {
  auto it = nodes.find(ApplyPtr(const_cast<Apply*>(node)));
  THEANO_USER_CHECK(it != nodes.end(), ValueError) << "node " << *node << " is not part of the cloned graph";
  return it->second;
}

Equiv clone_get_equiv(const std::vector<Var>& inputs, const std::vector<Var>& outputs, bool copy_inputs,
                      bool copy_orphans, Equiv memo) {
  for (const Var& in : inputs) {
    if (copy_inputs)
      memo.vars.try_emplace(in, in->clone());
    else
      memo.vars.try_emplace(in, in);
  }
  for (Apply* node : io_toposort(inputs, outputs)) {
    std::vector<Var> new_inputs;
    new_inputs.reserve(node->inputs().size());
    for (const Var& in : node->inputs()) {
      auto it = memo.vars.find(in);
      if (it == memo.vars.end()) it = memo.vars.emplace(in, copy_orphans ? in->clone() : in).first;
      new_inputs.push_back(it->second);
    }
    ApplyPtr copy = node->clone_with_new_inputs(std::move(new_inputs));
    auto slot = memo.nodes.try_emplace(ApplyPtr(node), copy).first;
    const ApplyPtr& used = slot->second;
    for (int i = 0; i < node->nout(); ++i) memo.vars.try_emplace(node->output(i), used->output(i));
  }
  for (const Var& o : outputs) memo.vars.try_emplace(o, o->clone());
  return memo;
}

std::pair<std::vector<Var>, std::vector<Var>> clone(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                                    bool copy_inputs, std::optional<bool> copy_orphans) {
  const Equiv equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans.value_or(copy_inputs));
  std::pair<std::vector<Var>, std::vector<Var>> r;
  for (const Var& i : inputs) r.first.push_back(equiv.at(i));
  for (const Var& o : outputs) r.second.push_back(equiv.at(o));
  return r;
}

std::vector<Var> clone_replace(const std::vector<Var>& outputs, const std::vector<std::pair<Var, Var>>& replacements) {
  Equiv memo;
  for (const auto& [from, to] : replacements) {
    THEANO_USER_CHECK(*from.type() == *to.type() || from.type()->convert_variable(to), TypeError)
        << "clone_replace: cannot replace " << from.str() << " (" << from.type()->str() << ") by " << to.str() << " ("
        << to.type()->str() << "): the types differ";
    memo.vars.emplace(from, to);
  }
  const Equiv equiv = clone_get_equiv(inputs(outputs), outputs, false, false, std::move(memo));
  std::vector<Var> r;
  for (const Var& o : outputs) r.push_back(equiv.at(o));
  return r;
}

}  // namespace theano
