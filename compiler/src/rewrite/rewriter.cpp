/// \file
/// NodeRewriter helpers, apply_replacements and the EquilibriumRewriter driver.
#include "theano/rewrite/rewriter.h"

#include <functional>
#include <map>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "theano/tensor/elemwise.h"

namespace theano::rewrite {

std::vector<std::string> dispatch_keys(const Apply& node) {
  std::vector<std::string> keys{std::string(node.op()->type_name())};
  if (const tensor::ScalarOp* s = tensor::elemwise_scalar_op(&node)) keys.push_back("Elemwise:" + s->name());
  return keys;
}

namespace {

class FnNodeRewriter final : public NodeRewriter {
 public:
  FnNodeRewriter(std::string name, std::vector<std::string> tracks, std::string algebra, TransformFn fn)
      : name_(std::move(name)), tracks_(std::move(tracks)), algebra_(std::move(algebra)), fn_(std::move(fn)) {}
  std::string_view name() const override { return name_; }
  const std::vector<std::string>& tracks() const override { return tracks_; }
  std::string_view algebra() const override { return algebra_; }
  RewriteResult transform(FunctionGraph& fg, Apply& node) const override { return fn_(fg, node); }

 private:
  std::string name_;
  std::vector<std::string> tracks_;
  std::string algebra_;
  TransformFn fn_;
};

class FnGraphRewriter final : public GraphRewriter {
 public:
  FnGraphRewriter(std::string name, std::function<bool(FunctionGraph&, RewriteStats&)> fn)
      : name_(std::move(name)), fn_(std::move(fn)) {}
  std::string_view name() const override { return name_; }
  bool apply(FunctionGraph& fg, RewriteStats& stats) const override {
    auto start = std::chrono::steady_clock::now();
    bool changed = fn_(fg, stats);
    stats.entries[name_].time += std::chrono::steady_clock::now() - start;
    ++stats.entries[name_].tried;
    return changed;
  }

 private:
  std::string name_;
  std::function<bool(FunctionGraph&, RewriteStats&)> fn_;
};

}  // namespace

NodeRewriterPtr make_node_rewriter(std::string name, std::vector<std::string> tracks, std::string algebra,
                                   TransformFn fn) {
  return std::make_shared<FnNodeRewriter>(std::move(name), std::move(tracks), std::move(algebra), std::move(fn));
}

GraphRewriterPtr make_graph_rewriter(std::string name, std::function<bool(FunctionGraph&, RewriteStats&)> fn) {
  return std::make_shared<FnGraphRewriter>(std::move(name), std::move(fn));
}

std::int64_t RewriteStats::applied(std::string_view rewrite) const {
  auto it = entries.find(std::string(rewrite));
  return it == entries.end() ? 0 : it->second.applied;
}

std::string RewriteStats::summary() const {
  std::ostringstream os;
  std::size_t width = 0;
  for (const auto& [name, e] : entries) width = std::max(width, name.size());
  for (const auto& [name, e] : entries) {
    os << std::left << std::setw(static_cast<int>(width)) << name << "  applied=" << e.applied << " tried=" << e.tried
       << " time=" << std::fixed << std::setprecision(3) << std::chrono::duration<double, std::milli>(e.time).count()
       << " ms\n";
  }
  for (const std::string& c : capped) os << "capped: " << c << "\n";
  return os.str();
}

bool apply_replacements(FunctionGraph& fg, Apply& node, const std::vector<Var>& replacements, std::string_view rewrite) {
  THEANO_INTERNAL_CHECK(replacements.size() == static_cast<std::size_t>(node.nout()))
      << "rewrite " << rewrite << " returned " << replacements.size() << " replacements for " << node << " which has "
      << node.nout() << " outputs";
  std::vector<std::pair<Var, Var>> pairs;
  for (int i = 0; i < node.nout(); ++i) {
    const Var& repl = replacements[static_cast<std::size_t>(i)];
    Var old = node.output(i);
    if (!repl || repl == old) continue;
    Var fitted = repl;
    if (!(*old.type() == *repl.type())) {
      fitted = old.type()->convert_variable(repl);
      THEANO_INTERNAL_CHECK(fitted) << "rewrite " << rewrite << " replaced " << old.str() << " of type "
                                    << old.type()->str() << " by " << repl.str() << " of type " << repl.type()->str()
                                    << " (a rewrite must keep the type; cast or broadcast the replacement)";
    }
    // The user's name follows the value (not onto inputs or shared constants).
    if (!old.name().empty() && fitted.name().empty() && fitted.owner()) fitted->set_name(old.name());
    // So does where the user created it (errors at run time point there).
    if (old->creation_site() && fitted.owner()) fitted->set_creation_site(old->creation_site());
    pairs.emplace_back(old, fitted);
  }
  if (pairs.empty()) return false;
  try {
    fg.replace_all_validate(pairs, rewrite);
  } catch (const InconsistencyError&) {
    return false;  // a Feature refused; the graph was rolled back
  }
  return true;
}

EquilibriumRewriter::EquilibriumRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                         std::vector<GraphRewriterPtr> global, double max_use_ratio, CapPolicy cap)
    : name_(std::move(name)),
      rewriters_(std::move(rewriters)),
      global_(std::move(global)),
      max_use_ratio_(max_use_ratio),
      cap_(cap) {
  for (const NodeRewriterPtr& r : rewriters_) {
    if (r->tracks().empty()) any_.push_back(r.get());
    for (const std::string& k : r->tracks()) by_key_[k].push_back(r.get());
  }
}

bool EquilibriumRewriter::apply(FunctionGraph& fg, RewriteStats& stats) const {
  const auto max_uses = static_cast<std::int64_t>(
      std::ceil(max_use_ratio_ * static_cast<double>(std::max<std::size_t>(fg.num_apply_nodes(), 1))));
  std::map<const NodeRewriter*, std::int64_t> uses;
  bool changed_any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (const GraphRewriterPtr& g : global_) changed |= g->apply(fg, stats);
    // Strong references: a node pruned by a replacement stays alive (and its
    // address unique) until the pass ends.
    std::vector<ApplyPtr> order;
    for (Apply* n : fg.toposort()) order.emplace_back(n);
    for (const ApplyPtr& node : order) {
      if (!fg.contains(node.get())) continue;
      std::vector<const NodeRewriter*> candidates = any_;
      for (const std::string& key : dispatch_keys(*node))
        if (auto it = by_key_.find(key); it != by_key_.end())
          candidates.insert(candidates.end(), it->second.begin(), it->second.end());
      for (const NodeRewriter* r : candidates) {
        if (!fg.contains(node.get())) break;
        auto& entry = stats.entries[std::string(r->name())];
        auto start = std::chrono::steady_clock::now();
        RewriteResult result = r->transform(fg, *node);
        bool done = result.applied() && apply_replacements(fg, *node, result.replacements(), r->name());
        entry.time += std::chrono::steady_clock::now() - start;
        ++entry.tried;
        if (!done) continue;
        ++entry.applied;
        changed = changed_any = true;
        if (++uses[r] > max_uses) {
          stats.capped.emplace_back(r->name());
          std::ostringstream msg;
          msg << name_ << ": rewrite '" << r->name() << "' was applied more than " << max_uses
              << " times (max_use_ratio " << max_use_ratio_ << " x " << fg.num_apply_nodes()
              << " nodes); it probably cycles with another rewrite (" << r->algebra()
              << "). Stopping this stage; exclude it with optimizer_excluding=" << r->name();
          if (cap_ == CapPolicy::Raise) throw RewriteCapError(msg.str());
          std::cerr << "WARNING: " << msg.str() << "\n";
          return true;
        }
      }
    }
  }
  return changed_any;
}

bool SequenceRewriter::apply(FunctionGraph& fg, RewriteStats& stats) const {
  bool changed = false;
  for (const GraphRewriterPtr& r : rewriters_) changed |= r->apply(fg, stats);
  return changed;
}

}  // namespace theano::rewrite
