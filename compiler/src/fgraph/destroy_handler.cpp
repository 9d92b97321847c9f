// DestroyHandler: tracking of viewing/destroying nodes, the reader-before-
// destroyer orderings and the consistency rules (see destroy_handler.h).
#include "theano/fgraph/destroy_handler.h"

#include <unordered_map>
#include <unordered_set>
#include <algorithm>
#include <sstream>

#include "theano/fgraph/function_graph.h"
#include "theano/graph/clone.h"
#include "theano/graph/equiv.h"
#include "theano/graph/toposort.h"

namespace theano {
namespace {

std::string text(const Apply* node) {
  std::ostringstream os;
  os << *node;
  return os.str();
}

bool by_id(const Apply* a, const Apply* b) { return a->id() < b->id(); }

}  // namespace

DestroyHandler::DestroyHandler(std::vector<Var> mutable_inputs) : mutable_(mutable_inputs.begin(), mutable_inputs.end()) {}

void DestroyHandler::on_attach(FunctionGraph& fg) {
  if (DestroyHandler* other = fg.find_feature<DestroyHandler>(); other && other != this)
    throw AlreadyThere("FunctionGraph already has a DestroyHandler");
  THEANO_USER_CHECK(fg_ == nullptr || fg_ == &fg, ValueError)
      << "a DestroyHandler serves one FunctionGraph; this one is already attached to another";
  fg_ = &fg;
  view_maps_.clear();
  destroy_maps_.clear();
  for (Apply* node : fg.apply_nodes()) on_import(fg, *node, "on_attach");
}

void DestroyHandler::on_detach(FunctionGraph& fg) {
  view_maps_.clear();
  destroy_maps_.clear();
  fg_ = nullptr;
}

void DestroyHandler::on_import(FunctionGraph& fg, Apply& node, std::string_view reason) {
  if (ViewMap vm = node.op()->view_map(); !vm.empty()) view_maps_[&node] = std::move(vm);
  if (ViewMap dm = node.op()->destroy_map(); !dm.empty()) destroy_maps_[&node] = std::move(dm);
}

void DestroyHandler::on_prune(FunctionGraph& fg, Apply& node, std::string_view reason) {
  view_maps_.erase(&node);
  destroy_maps_.erase(&node);
}

void DestroyHandler::set_mutable(const Var& input, bool is_mutable) {
  if (is_mutable)
    mutable_.insert(input);
  else
    mutable_.erase(input);
}

Var DestroyHandler::view_root(const Var& var) const {
  Var v = var;
  while (Apply* owner = v.owner()) {
    auto node = view_maps_.find(owner);
    if (node == view_maps_.end()) break;
    auto out = node->second.find(*v.index());
    if (out == node->second.end() || out->second.empty()) break;
    v = owner->input(out->second.front());
  }
  return v;
}

std::vector<Var> DestroyHandler::view_roots(const Var& var) const {
  std::vector<Var> roots;
  std::vector<Var> pending{var};
  while (!pending.empty()) {
    Var v = std::move(pending.back());
    pending.pop_back();
    const Apply* owner = v.owner();
    auto node = owner ? view_maps_.find(owner) : view_maps_.end();
    auto out = node != view_maps_.end() ? node->second.find(*v.index()) : ViewMap::const_iterator();
    if (node == view_maps_.end() || out == node->second.end() || out->second.empty()) {
      if (std::find(roots.begin(), roots.end(), v) == roots.end()) roots.push_back(std::move(v));
      continue;
    }
    for (auto i = out->second.rbegin(); i != out->second.rend(); ++i) pending.push_back(owner->input(*i));
  }
  return roots;
}

std::vector<Var> DestroyHandler::views_of(const Var& var) const {
  std::vector<Var> result{var};
  if (!fg_) return result;
  std::unordered_set<Var> seen{var};
  for (std::size_t k = 0; k < result.size(); ++k) {
    const Var v = result[k];
    for (const Client& c : fg_->clients(v)) {
      if (c.is_output()) continue;
      auto node = view_maps_.find(c.node);
      if (node == view_maps_.end()) continue;
      for (const auto& [o, ins] : node->second)
        if (std::find(ins.begin(), ins.end(), c.index) != ins.end())
          if (Var view = c.node->output(o); seen.insert(view).second) result.push_back(view);
    }
  }
  return result;
}

std::vector<Apply*> DestroyHandler::destroyers(const Var& var) const {
  const std::vector<Var> roots = view_roots(var);
  std::vector<Apply*> result;
  for (const auto& [node, dm] : destroy_maps_) {
    bool hit = false;
    for (const auto& [o, ins] : dm)
      for (int i : ins)
        for (const Var& r : view_roots(node->input(i)))
          hit = hit || std::find(roots.begin(), roots.end(), r) != roots.end();
    if (hit) result.push_back(const_cast<Apply*>(node));
  }
  std::sort(result.begin(), result.end(), by_id);
  return result;
}

Orderings DestroyHandler::orderings(const FunctionGraph& fg) {
  Orderings ords;
  if (destroy_maps_.empty()) return ords;

  std::vector<Apply*> nodes;
  for (const auto& [node, dm] : destroy_maps_) nodes.push_back(const_cast<Apply*>(node));
  std::sort(nodes.begin(), nodes.end(), by_id);

  struct Destroyed {
    Apply* node;
    int input;
    Var root;
  };
  std::vector<Destroyed> destroyed;
  std::unordered_map<const Variable*, Apply*> root_destroyer;
  for (Apply* d : nodes) {
    for (const auto& [o, ins] : destroy_maps_.at(d)) {
      for (int idx : ins) {
        THEANO_USER_CHECK(idx >= 0 && idx < d->nin(), InconsistencyError)
            << "DestroyHandler: the destroy_map of " << text(d) << " names input " << idx << " but the node has "
            << d->nin() << " inputs";
        const Var victim = d->input(idx);
        // A view of one of several inputs (IfElse) may be any of them: all count as destroyed.
        for (const Var& root : view_roots(victim)) {
          const std::string via = victim == root ? "" : " (through its view " + victim.str() + ")";
          THEANO_USER_CHECK(!root.is_constant(), InconsistencyError)
              << "DestroyHandler: " << text(d) << " destroys the constant " << root.str() << via
              << "; constants are immutable (use the non-inplace op)";
          THEANO_USER_CHECK(!fg.is_input(root) || is_mutable(root), InconsistencyError)
              << "DestroyHandler: " << text(d) << " destroys the graph input " << root.str() << via
              << ", which is not marked mutable; mark it mutable (DestroyHandler::set_mutable, In(mutable=true)) "
              << "or use the non-inplace op";
          auto [it, fresh] = root_destroyer.emplace(root.get(), d);
          THEANO_USER_CHECK(fresh || it->second == d, InconsistencyError)
              << "DestroyHandler: multiple destroyers of " << root.str() << ": " << text(it->second) << " and "
              << text(d) << via << " both overwrite it (directly or through a view)";
          destroyed.push_back(Destroyed{d, idx, root});
        }
      }
    }
  }

  for (const Destroyed& x : destroyed) {
    const std::vector<Var> impact = views_of(x.root);
    const std::unordered_set<Var> impact_set(impact.begin(), impact.end());
    for (int j = 0; j < x.node->nin(); ++j) {
      if (j == x.input) continue;
      THEANO_USER_CHECK(!impact_set.count(x.node->input(j)), InconsistencyError)
          << "DestroyHandler: " << text(x.node) << " destroys its input " << x.input << " ("
          << x.node->input(x.input).str() << ") but also reads it, or a view of it, as input " << j << " ("
          << x.node->input(j).str() << ")";
    }
    std::vector<Apply*>& before = ords[x.node];
    std::unordered_set<Apply*> listed(before.begin(), before.end());
    std::vector<Apply*> readers;
    for (const Var& v : impact)
      for (const Client& c : fg.clients(v))
        if (!c.is_output() && c.node != x.node && listed.insert(c.node).second) readers.push_back(c.node);
    std::sort(readers.begin(), readers.end(), by_id);
    before.insert(before.end(), readers.begin(), readers.end());
  }
  for (auto it = ords.begin(); it != ords.end();) it = it->second.empty() ? ords.erase(it) : std::next(it);
  return ords;
}

void DestroyHandler::validate(const FunctionGraph& fg) {
  if (destroy_maps_.empty()) return;  // without destroyers, no extra edge, no cycle
  const Orderings ords = orderings(fg);
  try {
    io_toposort(fg.inputs(), fg.outputs(), ords);
    return;
  } catch (const ValueError&) {
  }
  // Name a culprit: a reader that must precede a destroyer it depends on.
  for (const auto& [d, readers] : ords) {
    std::unordered_set<const Apply*> downstream;
    std::vector<const Apply*> todo{d};
    while (!todo.empty()) {
      const Apply* n = todo.back();
      todo.pop_back();
      for (int o = 0; o < n->nout(); ++o)
        for (const Client& c : fg.clients(n->output(o)))
          if (!c.is_output() && downstream.insert(c.node).second) todo.push_back(c.node);
    }
    for (Apply* r : readers)
      THEANO_USER_CHECK(!downstream.count(r), InconsistencyError)
          << "DestroyHandler: " << text(r) << " reads a variable that " << text(d)
          << " destroys, so it must run first, but it also depends on that node's result";
  }
  throw InconsistencyError(
      "DestroyHandler: the in-place orderings (readers before destroyers) form a cycle with the data dependencies");
}

FeaturePtr DestroyHandler::clone_for(const Equiv& equiv) const {
  std::vector<Var> mapped;
  for (const Var& v : mutable_)
    if (equiv.contains(v)) mapped.push_back(equiv.at(v));
  return std::make_shared<DestroyHandler>(std::move(mapped));
}

}  // namespace theano
