// FunctionGraph's self-check (check_integrity), copies (clone,
// clone_get_equiv) and printing.
#include <unordered_set>
#include <algorithm>
#include <ostream>
#include <sstream>

#include "theano/graph/equiv.h"
#include "membership.h"
#include "tables.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/as_string.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"

namespace theano {
namespace {

// Names of up to a few items, for messages.
template <class It, class Str>
std::string list_of(It begin, It end, Str str) {
  std::string r;
  int n = 0;
  for (It it = begin; it != end; ++it, ++n) {
    if (n == 8) return r + ", ...";
    r += (n ? ", " : "") + str(*it);
  }
  return r;
}

std::string node_text(const Apply* n) {
  std::ostringstream os;
  os << *n;
  return os.str();
}

}  // namespace

void FunctionGraph::check_integrity() const {
  // Nodes: exactly those between the inputs and the outputs.
  std::unordered_set<const Apply*> expected_nodes;
  for (const ApplyPtr& n : ops(inputs_, outputs_)) expected_nodes.insert(n.get());
  {
    std::vector<const Apply*> missing, excess;
    for (const Apply* n : expected_nodes)
      if (!tables_->nodes.count(n)) missing.push_back(n);
    for (const auto& [n, ptr] : tables_->nodes)
      if (!expected_nodes.count(n)) excess.push_back(n);
    THEANO_INTERNAL_CHECK(missing.empty() && excess.empty())
        << "FunctionGraph::check_integrity: the cached nodes differ from the nodes between the inputs and the "
        << "outputs; missing: [" << list_of(missing.begin(), missing.end(), node_text) << "], in excess: ["
        << list_of(excess.begin(), excess.end(), node_text) << "]";
  }
  // Variables: the inputs plus everything between inputs and outputs.
  std::unordered_set<const Variable*> expected_vars;
  for (const Var& v : ::theano::variables(inputs_, outputs_)) expected_vars.insert(v.get());
  for (const Var& v : inputs_) expected_vars.insert(v.get());
  {
    std::vector<const Variable*> missing, excess;
    for (const Variable* v : expected_vars)
      if (!tables_->vars.count(v)) missing.push_back(v);
    for (const auto& [v, entry] : tables_->vars)
      if (!expected_vars.count(v)) excess.push_back(v);
    auto name = [](const Variable* v) { return v->str(); };
    THEANO_INTERNAL_CHECK(missing.empty() && excess.empty())
        << "FunctionGraph::check_integrity: the cached variables differ from the variables between the inputs "
        << "and the outputs; missing: [" << list_of(missing.begin(), missing.end(), name) << "], in excess: ["
        << list_of(excess.begin(), excess.end(), name) << "]";
  }
  // Inputs are owner-less, listed once, and mirrored by tables_->input_set.
  THEANO_INTERNAL_CHECK(tables_->input_set.size() == inputs_.size())
      << "FunctionGraph::check_integrity: " << inputs_.size() << " inputs but " << tables_->input_set.size()
      << " distinct ones are recorded";
  for (const Var& in : inputs_)
    THEANO_INTERNAL_CHECK(!in.owner() && tables_->input_set.count(in.get()))
        << "FunctionGraph::check_integrity: input " << in.str() << " has an owner or is not recorded as an input";
  // Every use is recorded once, and every record is a use.
  for (const auto& [n, ptr] : tables_->nodes) {
    for (int i = 0; i < n->nin(); ++i) {
      const std::vector<Client>& cl = clients(n->input(i));
      THEANO_INTERNAL_CHECK(std::count(cl.begin(), cl.end(), Client{const_cast<Apply*>(n), i}) == 1)
          << "FunctionGraph::check_integrity: input " << i << " (" << n->input(i).str() << ") of " << node_text(n)
          << " is not recorded exactly once among that variable's clients";
    }
    THEANO_INTERNAL_CHECK(fgraph_membership::owner(n) == this)
        << "FunctionGraph::check_integrity: node " << node_text(n) << " is not registered as belonging to this graph";
  }
  for (std::size_t j = 0; j < outputs_.size(); ++j) {
    const std::vector<Client>& cl = clients(outputs_[j]);
    THEANO_INTERNAL_CHECK(std::count(cl.begin(), cl.end(), Client::output(static_cast<int>(j))) == 1)
        << "FunctionGraph::check_integrity: output " << j << " (" << outputs_[j].str()
        << ") does not carry exactly one output sentinel " << j << " among its clients";
  }
  for (const auto& [v, entry] : tables_->vars) {
    THEANO_INTERNAL_CHECK(entry.var.get() == v) << "FunctionGraph::check_integrity: variable entry mismatch";
    for (const Client& c : entry.clients) {
      if (c.is_output()) {
        THEANO_INTERNAL_CHECK(c.index >= 0 && c.index < static_cast<int>(outputs_.size()) &&
                              outputs_[static_cast<std::size_t>(c.index)].get() == v)
            << "FunctionGraph::check_integrity: " << v->str() << " lists output slot " << c.index
            << " among its clients but that slot holds something else";
      } else {
        THEANO_INTERNAL_CHECK(tables_->nodes.count(c.node) && c.index >= 0 && c.index < c.node->nin() &&
                              c.node->input(c.index).get() == v)
            << "FunctionGraph::check_integrity: " << v->str() << " lists input " << c.index << " of "
            << node_text(c.node) << " among its clients, but that node is not in the graph or does not use it there";
      }
    }
    if (!entry.var.owner() && !entry.var.is_constant()) {
      THEANO_INTERNAL_CHECK(fgraph_membership::owner(v) == this && tables_->input_set.count(v))
          << "FunctionGraph::check_integrity: owner-less variable " << v->str()
          << " is not an input registered with this graph";
    }
  }
}

std::pair<std::unique_ptr<FunctionGraph>, Equiv> FunctionGraph::clone_get_equiv(bool check_integrity,
                                                                                bool attach_feature) const {
  if (check_integrity) this->check_integrity();
  Equiv equiv = ::theano::clone_get_equiv(inputs_, outputs_, /*copy_inputs=*/true, /*copy_orphans=*/true);
  std::vector<Var> ins, outs;
  for (const Var& v : inputs_) ins.push_back(equiv.at(v));
  for (const Var& v : outputs_) outs.push_back(equiv.at(v));
  auto copy = std::make_unique<FunctionGraph>(std::move(ins), std::move(outs), std::vector<FeaturePtr>{},
                                              /*clone=*/false);
  if (check_integrity) copy->check_integrity();
  if (attach_feature)
    for (const FeaturePtr& f : features_)
      if (FeaturePtr c = f->clone_for(equiv)) copy->attach_feature(std::move(c));
  return {std::move(copy), std::move(equiv)};
}

std::unique_ptr<FunctionGraph> FunctionGraph::clone(bool check_integrity) const {
  return clone_get_equiv(check_integrity, true).first;
}

std::string FunctionGraph::str() const {
  std::string r = "FunctionGraph(";
  const std::vector<std::string> outs = as_string(inputs_, outputs_);
  for (std::size_t i = 0; i < outs.size(); ++i) r += (i ? ", " : "") + outs[i];
  return r + ")";
}

std::ostream& operator<<(std::ostream& os, const FunctionGraph& fg) { return os << fg.str(); }

}  // namespace theano
