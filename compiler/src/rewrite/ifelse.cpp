/// \file
/// The IfElse rewrites (Theano's ifelse.py optimizations):
///
///   ifelse_constant_condition  ifelse(1, a, b) -> a; ifelse(0, a, b) -> b      canonicalize
///   ifelse_same_branches       ifelse(c, a, a) -> a (per output)              canonicalize
///   ifelse_lift                f(ifelse(c, a, b), ifelse(c, d, e), x)
///                              -> ifelse(c, f(a, d, x), f(b, e, x))            specialize
///                              (elementwise f: the work moves into the branch
///                              that needs it, where fusion can join it; only
///                              for IfElse outputs f alone uses, so nothing is
///                              copied; not when another input of f is
///                              computed from an IfElse on c, which would stay
///                              outside)
///   ifelse_merge               ifelse(c, a, b), ifelse(c, d, e) -> one IfElse
///                              of both (neither depending on the other)       specialize (global)
///
/// All tagged fast_run and ifelse; tests: tests/compiler/control.
#include "rewrites.h"
#include "theano/control/ifelse.h"
#include "theano/graph/traversal.h"
#include "theano/rewrite/optdb.h"
#include "theano/tensor/elemwise.h"

namespace theano::rewrite::detail {
namespace {

int n_of(const Apply& node) { return static_cast<const IfElse&>(*node.op()).n_outs(); }

/// Whether `node` or one of its ancestors is an IfElse on `cond`.
bool depends_on_ifelse(const Apply& node, const Var& cond) {
  for (const Var& v : ancestors(node.outputs()))
    if (const Apply* p = v.owner(); p && as_ifelse(*p) && p->input(0) == cond) return true;
  return false;
}

}  // namespace

bool depends_on(const Apply& a, const Apply& b) {
  for (const Var& v : ancestors(a.inputs()))
    if (v.owner() == &b) return true;
  return false;
}

NodeRewriterPtr ifelse_constant_condition() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "ifelse_constant_condition", {"IfElse"}, "ifelse(1, a, b) -> a; ifelse(0, a, b) -> b",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Constant* c = node.input(0).as_constant();
        if (!c) return RewriteResult::fail("the condition is not a constant");
        const bool truth = IfElse::truth(c->data());
        const int n = n_of(node);
        std::vector<Var> r;
        for (int k = 0; k < n; ++k) r.push_back(node.input(truth ? 1 + k : 1 + n + k));
        return r;
      });
  return r;
}

NodeRewriterPtr ifelse_same_branches() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "ifelse_same_branches", {"IfElse"}, "ifelse(c, a, a) -> a (per output)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const int n = n_of(node);
        std::vector<int> keep;
        for (int k = 0; k < n; ++k)
          if (node.input(1 + k) != node.input(1 + n + k)) keep.push_back(k);
        if (static_cast<int>(keep.size()) == n) return RewriteResult::fail("no output has the same value in both branches");
        std::vector<Var> r(static_cast<std::size_t>(n));
        for (int k = 0; k < n; ++k) r[static_cast<std::size_t>(k)] = node.input(1 + k);
        if (!keep.empty()) {
          std::vector<Var> a, b;
          for (int k : keep) {
            a.push_back(node.input(1 + k));
            b.push_back(node.input(1 + n + k));
          }
          const std::vector<Var> rest = ifelse(node.input(0), a, b);
          for (std::size_t j = 0; j < keep.size(); ++j) r[static_cast<std::size_t>(keep[j])] = rest[j];
        }
        return r;
      });
  return r;
}

NodeRewriterPtr ifelse_lift() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "ifelse_lift", {"Elemwise"}, "f(ifelse(c, a, b), ifelse(c, d, e), x) -> ifelse(c, f(a, d, x), f(b, e, x))",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        if (node.nout() != 1) return RewriteResult::fail("several outputs");
        const auto* e = dynamic_cast<const tensor::Elemwise*>(node.op().get());
        if (!e || !e->inplace_pattern().empty()) return RewriteResult::fail("not a plain Elemwise");
        Var cond;
        std::vector<Var> a = node.inputs(), b = node.inputs();
        for (int i = 0; i < node.nin(); ++i) {
          const Apply* p = node.input(i).owner();
          if (!p || !as_ifelse(*p)) continue;
          if (!cond) cond = p->input(0);
          if (p->input(0) != cond) return RewriteResult::fail("IfElse inputs on different conditions");
          // Only an IfElse output used by this node alone: with other clients
          // the branch values are needed outside too, and each client lifted
          // into the branches copies the IfElses below it (a chain of n
          // ifelse(c_k, h + 1, h * 2) grew exponentially before this check).
          for (const Client& cl : fg.clients(node.input(i)))
            if (cl.node != &node) return RewriteResult::fail("an IfElse output has other clients");
          const int n = n_of(*p), k = *node.input(i).index();
          a[static_cast<std::size_t>(i)] = p->input(1 + k);
          b[static_cast<std::size_t>(i)] = p->input(1 + n + k);
        }
        if (!cond) return RewriteResult::fail("no input is an IfElse output");
        // Another input computed from an IfElse on the same condition would
        // stay outside the branches (and its IfElse with it): not worth it.
        for (int i = 0; i < node.nin(); ++i) {
          const Apply* p = node.input(i).owner();
          if (p && !as_ifelse(*p) && depends_on_ifelse(*p, cond))
            return RewriteResult::fail("another input depends on an IfElse on the same condition");
        }
        const Var fa = e->make_node(a)->output(0), fb = e->make_node(b)->output(0);
        const Var lifted = ifelse(cond, fa, fb);
        const Var& old = node.output(0);
        if (!(*lifted.type() == *old.type()) && !old.type()->is_super(*lifted.type()))
          return RewriteResult::fail("the lifted result's type " + lifted.type()->str() + " does not fit " +
                                     old.type()->str());
        return lifted;
      });
  return r;
}

GraphRewriterPtr ifelse_merge() {
  static const GraphRewriterPtr r = make_graph_rewriter("ifelse_merge", [](FunctionGraph& fg, RewriteStats& stats) {
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      std::vector<Apply*> nodes;
      for (Apply* n : fg.toposort())
        if (as_ifelse(*n)) nodes.push_back(n);
      for (std::size_t i = 0; i < nodes.size() && !again; ++i)
        for (std::size_t j = i + 1; j < nodes.size() && !again; ++j) {
          Apply& x = *nodes[i];
          Apply& y = *nodes[j];
          if (x.input(0) != y.input(0) || depends_on(x, y) || depends_on(y, x)) continue;
          auto& entry = stats.entries["ifelse_merge"];
          ++entry.tried;
          const int nx = n_of(x), ny = n_of(y);
          std::vector<Var> a, b;
          for (int k = 0; k < nx; ++k) a.push_back(x.input(1 + k));
          for (int k = 0; k < ny; ++k) a.push_back(y.input(1 + k));
          for (int k = 0; k < nx; ++k) b.push_back(x.input(1 + nx + k));
          for (int k = 0; k < ny; ++k) b.push_back(y.input(1 + ny + k));
          const std::vector<Var> merged = ifelse(x.input(0), a, b);
          std::vector<std::pair<Var, Var>> pairs;
          for (int k = 0; k < nx; ++k) pairs.emplace_back(x.output(k), merged[static_cast<std::size_t>(k)]);
          for (int k = 0; k < ny; ++k) pairs.emplace_back(y.output(k), merged[static_cast<std::size_t>(nx + k)]);
          for (auto& [old, fresh] : pairs)
            if (!old.name().empty()) fresh->set_name(old.name());
          fg.replace_all(pairs, "ifelse_merge");
          ++entry.applied;
          changed = again = true;
        }
    }
    return changed;
  });
  return r;
}

}  // namespace theano::rewrite::detail
