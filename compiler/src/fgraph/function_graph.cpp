// FunctionGraph construction and the mutation API: import, change_input,
// replace, client removal and pruning (see function_graph.h for invariants).
#include "tables.h"
#include "theano/fgraph/function_graph.h"

#include <unordered_set>
#include <algorithm>
#include <iostream>
#include <sstream>

#include "membership.h"
#include "theano/fgraph/replace_validate.h"
#include "theano/graph/clone.h"
#include "theano/graph/equiv.h"
#include "theano/graph/toposort.h"
#include "theano/runtime/error.h"

namespace theano {
namespace {

// Owner-less non-constant variables are registered on their own; an owned
// variable belongs wherever its owner does; constants are shared freely.
bool registers(const Var& v) { return !v.owner() && !v.is_constant(); }

const std::vector<Client>& no_clients() {
  static const std::vector<Client> empty;
  return empty;
}

// Refuses `key` when another graph holds it; `what()` names it (built only on failure).
template <class What>
void check_not_elsewhere(const void* key, const FunctionGraph* self, What&& what) {
  const FunctionGraph* other = fgraph_membership::owner(key);
  THEANO_USER_CHECK(other == nullptr || other == self, ValueError)
      << what() << " already belongs to another FunctionGraph; a graph built with clone=false takes its nodes, "
      << "so build this one with clone=true or call disown() on the other one first";
}

}  // namespace

// ---------------------------------------------------------------- construction

FunctionGraph::FunctionGraph(std::vector<Var> inputs, std::vector<Var> outputs, std::vector<FeaturePtr> features,
                             bool clone)
    : tables_(std::make_unique<Tables>()) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    THEANO_USER_CHECK(inputs[i], ValueError) << "FunctionGraph: input " << i << " is a null Var";
  for (std::size_t i = 0; i < outputs.size(); ++i)
    THEANO_USER_CHECK(outputs[i], ValueError) << "FunctionGraph: output " << i << " is a null Var";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    THEANO_USER_CHECK(!inputs[i].owner(), ValueError)
        << "FunctionGraph: input " << i << " (" << inputs[i].str() << ") is the output of a node ("
        << inputs[i].owner()->op()->name() << "); inputs must be owner-less variables (clone the graph or "
        << "use a fresh variable)";
    for (std::size_t j = 0; j < i; ++j)
      THEANO_USER_CHECK(!(inputs[j] == inputs[i]), ValueError)
          << "FunctionGraph: variable " << inputs[i].str() << " is listed twice as an input (positions " << j
          << " and " << i << ")";
  }
  if (clone) {
    const Equiv equiv = ::theano::clone_get_equiv(inputs, outputs, /*copy_inputs=*/true, /*copy_orphans=*/true);
    for (Var& v : inputs) v = equiv.at(v);
    for (Var& v : outputs) v = equiv.at(v);
  }
  try {
    for (FeaturePtr& f : features) attach_feature(std::move(f));
    attach_feature(std::make_shared<ReplaceValidate>());
    for (const Var& in : inputs) add_input(in, /*check=*/false);
    for (const Var& out : outputs) add_output(out, "init");
  } catch (...) {
    release_all();
    throw;
  }
}

FunctionGraph::~FunctionGraph() { release_all(); }

void FunctionGraph::release_all() noexcept {
  // Features first: they may still look at the graph in on_detach.
  while (!features_.empty()) {
    FeaturePtr f = std::move(features_.back());
    features_.pop_back();
    try {
      f->on_detach(*this);
    } catch (...) {  // a destructor path: nothing sensible to do with it
    }
  }
  for (const auto& [node, ptr] : tables_->nodes) fgraph_membership::release(node, this);
  for (const auto& [var, entry] : tables_->vars)
    if (registers(entry.var)) fgraph_membership::release(var, this);
  for (const Var& in : inputs_) fgraph_membership::release(in.get(), this);
  topo_.reset();
  tables_->nodes.clear();
  tables_->vars.clear();
  tables_->input_set.clear();
  outputs_.clear();
  inputs_.clear();
}

void FunctionGraph::disown() { release_all(); }

// ---------------------------------------------------------------- contents

std::size_t FunctionGraph::num_apply_nodes() const noexcept { return tables_->nodes.size(); }
std::size_t FunctionGraph::num_variables() const noexcept { return tables_->vars.size(); }
bool FunctionGraph::contains(const Apply* node) const { return tables_->nodes.count(node) != 0; }
bool FunctionGraph::contains(const Var& var) const { return tables_->vars.count(var.get()) != 0; }
bool FunctionGraph::is_input(const Var& var) const { return tables_->input_set.count(var.get()) != 0; }

std::vector<Apply*> FunctionGraph::apply_nodes() const {
  std::vector<Apply*> r;
  r.reserve(tables_->nodes.size());
  for (const auto& [node, ptr] : tables_->nodes) r.push_back(ptr.get());
  std::sort(r.begin(), r.end(), [](const Apply* a, const Apply* b) { return a->id() < b->id(); });
  return r;
}

std::vector<Var> FunctionGraph::variables() const {
  std::vector<Var> r;
  r.reserve(tables_->vars.size());
  for (const auto& [var, entry] : tables_->vars) r.push_back(entry.var);
  std::sort(r.begin(), r.end(), [](const Var& a, const Var& b) { return a.id() < b.id(); });
  return r;
}

const std::vector<Client>& FunctionGraph::clients(const Var& var) const {
  auto it = tables_->vars.find(var.get());
  return it == tables_->vars.end() ? no_clients() : it->second.clients;
}

std::string FunctionGraph::describe(const Apply* node) const {
  if (!node) return "the graph's outputs";
  std::ostringstream os;
  os << *node;
  return os.str();
}

// ---------------------------------------------------------------- import

FunctionGraph::VarEntry& FunctionGraph::setup_var(const Var& var) {
  auto [it, fresh] = tables_->vars.try_emplace(var.get(), VarEntry{var, {}});
  if (fresh && registers(var)) fgraph_membership::claim(var.get(), this);
  return it->second;
}

void FunctionGraph::add_input(const Var& var, bool check) {
  THEANO_USER_CHECK(var, ValueError) << "add_input: null Var";
  THEANO_USER_CHECK(!var.owner(), ValueError)
      << "add_input: " << var.str() << " is the output of a node (" << var.owner()->op()->name()
      << "); an input must be owner-less";
  if (check && is_input(var)) return;
  if (registers(var)) check_not_elsewhere(var.get(), this, [&] { return "variable " + var.str(); });
  inputs_.push_back(var);
  tables_->input_set.insert(var.get());
  setup_var(var);
  topo_.reset();
}

void FunctionGraph::add_output(const Var& var, std::string_view reason, bool import_missing) {
  THEANO_USER_CHECK(var, ValueError) << "add_output: null Var";
  import_var(var, reason, import_missing);
  outputs_.push_back(var);
  tables_->vars.at(var.get()).clients.push_back(Client::output(static_cast<int>(outputs_.size()) - 1));
  topo_.reset();
}

void FunctionGraph::import_var(const Var& var, std::string_view reason, bool import_missing) {
  THEANO_USER_CHECK(var, ValueError) << "import_var: null Var";
  if (Apply* owner = var.owner()) {
    if (!contains(owner)) import_node(*owner, /*check=*/true, reason, import_missing);
  } else if (!var.is_constant() && !is_input(var)) {
    THEANO_USER_CHECK(import_missing, MissingInputError)
        << "Undeclared input: " << var.str() << " (" << var.type()->str()
        << ") is needed by the graph but is neither an input nor a constant; add it to the inputs";
    add_input(var);
  }
  setup_var(var);
}

void FunctionGraph::import_node(Apply& node, bool check, std::string_view reason, bool import_missing) {
  if (contains(&node)) return;
  // The new nodes in dependency order: walk inputs, stopping at nodes already here.
  auto deps = [this](Apply* n) {
    std::vector<Apply*> d;
    for (const Var& in : n->inputs())
      if (Apply* p = in.owner(); p && !contains(p)) d.push_back(p);
    return d;
  };
  const std::vector<Apply*> new_nodes = general_toposort<Apply*>({&node}, deps);

  // Check everything before changing anything, so a refused import leaves the
  // graph as it was.
  std::vector<Var> missing;
  for (Apply* n : new_nodes) {
    check_not_elsewhere(n, this, [&] { return "node " + describe(n); });
    for (int i = 0; i < n->nin(); ++i) {
      const Var& in = n->input(i);
      if (!registers(in)) continue;
      check_not_elsewhere(in.get(), this, [&] { return "variable " + in.str(); });
      if (!check || is_input(in)) continue;
      if (!import_missing) {
        std::ostringstream os;
        os << "Input " << i << " (" << in.str() << ") of " << describe(n)
           << " (indices start from 0) is neither an input of the graph nor a constant; add " << in.str()
           << " to the inputs or give it a value";
        throw MissingInputError(os.str());
      }
      if (std::find(missing.begin(), missing.end(), in) == missing.end()) missing.push_back(in);
    }
  }
  for (const Var& m : missing) add_input(m);

  for (Apply* n : new_nodes) {
    tables_->nodes.emplace(n, ApplyPtr(n));
    fgraph_membership::claim(n, this);
    for (int o = 0; o < n->nout(); ++o) setup_var(n->output(o));
    for (int i = 0; i < n->nin(); ++i) setup_var(n->input(i)).clients.push_back(Client{n, i});
    topo_.reset();
    execute_callbacks(&Feature::on_import, *n, reason);
  }
}

// ---------------------------------------------------------------- change

void FunctionGraph::change_input(Apply* node, int i, const Var& new_var, std::string_view reason,
                                 bool import_missing, bool check) {
  THEANO_USER_CHECK(new_var, ValueError) << "change_input: the new variable is a null Var";
  Var old;
  if (!node) {
    THEANO_USER_CHECK(i >= 0 && i < static_cast<int>(outputs_.size()), IndexError)
        << "change_input: the graph has " << outputs_.size() << " outputs; output " << i << " does not exist";
    old = outputs_[static_cast<std::size_t>(i)];
  } else {
    THEANO_USER_CHECK(contains(node), ValueError)
        << "change_input: node " << describe(node) << " is not part of this FunctionGraph";
    THEANO_USER_CHECK(i >= 0 && i < node->nin(), IndexError)
        << "change_input: node " << describe(node) << " has " << node->nin() << " inputs; input " << i
        << " does not exist";
    old = node->input(i);
  }
  if (check) {
    THEANO_USER_CHECK(old.type()->is_super(*new_var.type()), TypeError)
        << "change_input: cannot replace " << old.str() << " of type " << old.type()->str() << " by "
        << new_var.str() << " of type " << new_var.type()->str() << " as "
        << (node ? "input " + std::to_string(i) + " of " + describe(node) : "output " + std::to_string(i))
        << ": the types differ" << (reason.empty() ? "" : " (reason: ") << reason << (reason.empty() ? "" : ")");
  }
  if (old == new_var) return;

  import_var(new_var, reason, import_missing);  // may throw; nothing changed yet
  if (node)
    node->set_input(i, new_var);
  else
    outputs_[static_cast<std::size_t>(i)] = new_var;
  const Client use{node, i};
  tables_->vars.at(new_var.get()).clients.push_back(use);
  topo_.reset();
  remove_client(old, use, reason);
  execute_callbacks(&Feature::on_change_input, node, i, old, new_var, reason);
}

void FunctionGraph::replace(const Var& var, const Var& new_var, std::string_view reason, bool verbose,
                            bool import_missing) {
  THEANO_USER_CHECK(var && new_var, ValueError) << "replace: null Var";
  if (verbose)
    std::cerr << "rewriting: rewrite " << reason << " replaces " << var.str() << " of "
              << (var.owner() ? describe(var.owner()) : std::string("None")) << " with " << new_var.str() << " of "
              << (new_var.owner() ? describe(new_var.owner()) : std::string("None")) << "\n";
  Var nv = var.type()->convert_variable(new_var);
  THEANO_USER_CHECK(nv, TypeError) << "replace: cannot replace " << var.str() << " of type " << var.type()->str()
                                   << " by " << new_var.str() << " of type " << new_var.type()->str()
                                   << ": the types differ and cannot be converted"
                                   << (reason.empty() ? "" : " (reason: ") << reason << (reason.empty() ? "" : ")");
  if (!contains(var) || nv == var) return;
  const std::vector<Client> uses = clients(var);  // copy: the list changes below
  for (const Client& c : uses) {
    // An earlier change may have pruned this client or rewired it already.
    if (c.is_output()) {
      if (c.index >= static_cast<int>(outputs_.size()) || !(outputs_[static_cast<std::size_t>(c.index)] == var))
        continue;
    } else if (!contains(c.node) || !(c.node->input(c.index) == var)) {
      continue;
    }
    change_input(c.node, c.index, nv, reason, import_missing);
  }
}

void FunctionGraph::replace_all(const std::vector<std::pair<Var, Var>>& pairs, std::string_view reason,
                                bool verbose) {
  for (const auto& [var, new_var] : pairs) replace(var, new_var, reason, verbose);
}

void FunctionGraph::replace_validate(const Var& var, const Var& new_var, std::string_view reason) {
  auto* rv = find_feature<ReplaceValidate>();
  THEANO_USER_CHECK(rv, ValueError) << "replace_validate: no ReplaceValidate feature is attached to this graph";
  rv->replace_validate(*this, var, new_var, reason);
}

void FunctionGraph::replace_all_validate(const std::vector<std::pair<Var, Var>>& pairs, std::string_view reason) {
  auto* rv = find_feature<ReplaceValidate>();
  THEANO_USER_CHECK(rv, ValueError) << "replace_all_validate: no ReplaceValidate feature is attached to this graph";
  rv->replace_all_validate(*this, pairs, reason);
}

// ---------------------------------------------------------------- removal

void FunctionGraph::erase_client(const Var& var, const Client& client) {
  auto it = tables_->vars.find(var.get());
  if (it == tables_->vars.end()) return;
  std::vector<Client>& cl = it->second.clients;
  if (auto pos = std::find(cl.begin(), cl.end(), client); pos != cl.end()) cl.erase(pos);
}

void FunctionGraph::drop_var(const Variable* var) {
  auto it = tables_->vars.find(var);
  if (it == tables_->vars.end()) return;
  if (registers(it->second.var)) fgraph_membership::release(var, this);
  tables_->vars.erase(it);
}

void FunctionGraph::remove_client(const Var& var, Client client, std::string_view reason) {
  erase_client(var, client);
  prune_unused({var}, reason);
}

// Walks up from `check`, removing variables without clients and nodes none of
// whose outputs has a client. Inputs stay (they are declared).
void FunctionGraph::prune_unused(std::vector<Var> check, std::string_view reason) {
  while (!check.empty()) {
    const Var v = std::move(check.back());
    check.pop_back();
    auto it = tables_->vars.find(v.get());
    if (it == tables_->vars.end() || !it->second.clients.empty()) continue;
    Apply* n = v.owner();
    if (!n) {
      if (!is_input(v)) drop_var(v.get());
      continue;
    }
    if (!contains(n)) continue;
    bool used = false;
    for (int o = 0; o < n->nout() && !used; ++o) used = !clients(n->output(o)).empty();
    if (used) continue;
    const ApplyPtr keep(n);  // the entries erased below may hold the last references
    tables_->nodes.erase(n);
    fgraph_membership::release(n, this);
    for (int o = 0; o < n->nout(); ++o) drop_var(n->output(o).get());
    for (int i = 0; i < n->nin(); ++i) erase_client(n->input(i), Client{n, i});
    // Visit the first input first (the stack pops from the back).
    for (int i = n->nin() - 1; i >= 0; --i) check.push_back(n->input(i));
    topo_.reset();
    execute_callbacks(&Feature::on_prune, *n, reason);
  }
}

void FunctionGraph::remove_output(int i, std::string_view reason) {
  THEANO_USER_CHECK(i >= 0 && i < static_cast<int>(outputs_.size()), IndexError)
      << "remove_output: the graph has " << outputs_.size() << " outputs; output " << i << " does not exist";
  const Var var = outputs_[static_cast<std::size_t>(i)];
  erase_client(var, Client::output(i));
  outputs_.erase(outputs_.begin() + i);
  for (std::size_t j = static_cast<std::size_t>(i); j < outputs_.size(); ++j) {
    std::vector<Client>& cl = tables_->vars.at(outputs_[j].get()).clients;
    auto pos = std::find(cl.begin(), cl.end(), Client::output(static_cast<int>(j) + 1));
    THEANO_INTERNAL_CHECK(pos != cl.end()) << "output " << j + 1 << " has no output sentinel in its clients";
    *pos = Client::output(static_cast<int>(j));
  }
  topo_.reset();
  prune_unused({var}, reason);
}

void FunctionGraph::remove_node(Apply& node, std::string_view reason) {
  if (!contains(&node)) return;
  const ApplyPtr keep(&node);
  // Everything downstream of `node`, consumers before producers.
  std::unordered_set<Apply*> doomed{&node};
  std::vector<Apply*> frontier{&node};
  while (!frontier.empty()) {
    Apply* n = frontier.back();
    frontier.pop_back();
    for (int o = 0; o < n->nout(); ++o)
      for (const Client& c : clients(n->output(o)))
        if (!c.is_output() && doomed.insert(c.node).second) frontier.push_back(c.node);
  }
  std::vector<ApplyPtr> order;  // strong: pruning below may drop the graph's references
  for (Apply* n : io_toposort(inputs_, outputs_))
    if (doomed.count(n)) order.emplace_back(n);
  std::reverse(order.begin(), order.end());
  // Graph outputs computed by doomed nodes go first (highest slot first, so
  // the slots still to visit keep their numbers).
  for (int j = static_cast<int>(outputs_.size()) - 1; j >= 0; --j)
    if (Apply* o = outputs_[static_cast<std::size_t>(j)].owner(); o && doomed.count(o)) remove_output(j, reason);
  // Then each doomed node that is still here, detached from its clients.
  for (const ApplyPtr& n : order) {
    if (!contains(n.get()) || n->nout() == 0) continue;
    for (int o = 0; o < n->nout(); ++o) {
      auto it = tables_->vars.find(n->output(o).get());
      if (it != tables_->vars.end()) it->second.clients.clear();
    }
    prune_unused({n->output(0)}, reason);
  }
}

}  // namespace theano
