/// \file
/// The destroy handler stage and the inplace rewrites (Theano's
/// `add_destroy_handler`, `inplace_elemwise`, `inplace_setsubtensor`, the
/// inplace BLAS stage): ops that may overwrite an input get their inplace
/// form when that is safe. Which forms exist each op states itself
/// (Op::inplace_variants, naming the stage that offers it).
///
/// Why a pass with its own safety test instead of "replace, validate, roll
/// back" per node: DestroyHandler::validate sorts the whole graph, so trying
/// every node that way is quadratic (Theano's inplace optimizer was notorious
/// for minutes on big graphs). Here one toposort gives every node a position;
/// node n may overwrite input v (whose memory belongs to root r) when
///   * v has the output's exact type (same dtype and static shape: no broadcast),
///   * r is not a constant, not a protected graph input (only inputs marked
///     mutable: updated shared variables, In(mutable=True)), and nothing else
///     destroys it,
///   * no graph output is r or a view of r, n reads r through no other input,
///   * every other reader of r or of a view of r comes before n in the order.
/// The last rule means the readers-before-destroyer orderings the
/// DestroyHandler adds agree with an existing topological order, so they
/// cannot form a cycle: the replacement needs no whole-graph validation.
/// Nodes created by the pass take the position of the node they replace.
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "rewrites.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/fgraph/mutable_inputs.h"

namespace theano::rewrite::detail {

namespace {

/// An inplace form of a node: the op whose output 0 overwrites input `input`.
struct Candidate {
  int input;
  OpPtr op;
  bool op_checks_shape = false;  // the op itself requires the input's shape (types may differ in static detail)
};
using CandidatesFn = std::function<std::vector<Candidate>(const Apply&)>;

class InplacePass {
 public:
  InplacePass(FunctionGraph& fg, DestroyHandler& dh) : fg_(fg), dh_(dh) {
    int k = 0;
    for (Apply* n : fg.toposort()) {
      order_.emplace_back(n);
      pos_[n] = k++;
      const ViewMap dm = n->op()->destroy_map();
      for (const auto& [o, ins] : dm)
        for (int i : ins)
          for (const Var& r : dh.view_roots(n->input(i))) destroyed_.insert(r);
    }
  }

  /// Makes every node `candidates` offers inplace where safe; returns how many.
  int run(const CandidatesFn& candidates, std::string_view reason) {
    int changed = 0;
    for (const ApplyPtr& node : order_) {
      if (!fg_.contains(node.get()) || !node->op()->destroy_map().empty()) continue;
      for (const Candidate& c : candidates(*node)) {
        if (!safe(*node, c)) continue;
        ApplyPtr fresh = c.op->make_node(node->inputs());
        std::vector<std::pair<Var, Var>> pairs;
        for (int o = 0; o < node->nout(); ++o) {
          Var nv = fresh->output(o);
          if (!node->output(o).name().empty() && nv.name().empty()) nv->set_name(node->output(o).name());
          nv->set_creation_site(node->output(o)->creation_site());
          pairs.emplace_back(node->output(o), nv);
        }
        for (const Var& r : dh_.view_roots(node->input(c.input))) destroyed_.insert(r);
        pos_[fresh.get()] = pos_.at(node.get());
        fg_.replace_all(pairs, reason);
        ++changed;
        break;
      }
    }
    return changed;
  }

 private:
  bool safe(const Apply& node, const Candidate& c) {
    const int input = c.input;
    const Var& in = node.input(input);
    if (!(*in.type() == *node.output(0).type()) && !c.op_checks_shape) return false;
    const int here = pos_.at(&node);
    for (const Var& root : dh_.view_roots(in)) {  // several for a view an IfElse picks
      if (root.is_constant() || destroyed_.count(root)) return false;
      if (!root.owner() && !dh_.is_mutable(root)) return false;  // a protected graph input
      if (!readers_done(node, input, root, here)) return false;
    }
    return true;
  }

  /// Whether every reader of `root` or of a view of it, other than `node`
  /// through `input`, runs before `node` (position `here`) and none is a graph output.
  bool readers_done(const Apply& node, int input, const Var& root, int here) const {
    for (const Var& v : dh_.views_of(root)) {
      for (const Client& c : fg_.clients(v)) {
        if (c.is_output()) return false;  // the caller would see the overwritten value
        if (c.node == &node) {
          if (c.index != input) return false;  // reads it again through another input
          continue;
        }
        auto p = pos_.find(c.node);
        if (p == pos_.end() || p->second >= here) return false;  // a later reader needs the old value
      }
    }
    return true;
  }

  FunctionGraph& fg_;
  DestroyHandler& dh_;
  std::vector<ApplyPtr> order_;  // strong references: replaced nodes stay valid while we walk
  std::unordered_map<const Apply*, int> pos_;
  std::unordered_set<Var> destroyed_;
};

GraphRewriterPtr inplace_stage(std::string name, CandidatesFn candidates) {
  return make_graph_rewriter(name, [name, candidates](FunctionGraph& fg, RewriteStats& stats) {
    DestroyHandler* dh = fg.find_feature<DestroyHandler>();
    if (!dh) return false;  // no add_destroy_handler stage ran: nothing may be destroyed
    const int n = InplacePass(fg, *dh).run(candidates, name);
    stats.entries[name].applied += n;
    return n > 0;
  });
}

// The inplace forms `stage` offers: those each op states (Op::inplace_variants,
// beside the op), e.g. Elemwise{op,no_inplace}(x, ...) -> Elemwise{op,inplace}(x, ...).
CandidatesFn candidates_of(InplaceStage stage) {
  return [stage](const Apply& node) {
    std::vector<Candidate> out;
    for (InplaceVariant& v : node.op()->inplace_variants(node))
      if (v.stage == stage) out.push_back({v.input, std::move(v.op), v.op_checks_shape});
    return out;
  };
}

}  // namespace

// Attaches the DestroyHandler, with the inputs the MutableInputs feature (set
// by function()) allows to be overwritten.
GraphRewriterPtr add_destroy_handler() {
  static const GraphRewriterPtr r = make_graph_rewriter("add_destroy_handler", [](FunctionGraph& fg, RewriteStats&) {
    if (fg.find_feature<DestroyHandler>()) return false;
    std::vector<Var> mutable_inputs;
    if (const MutableInputs* m = fg.find_feature<MutableInputs>()) mutable_inputs = m->inputs();
    auto dh = std::make_shared<DestroyHandler>(mutable_inputs);
    fg.attach_feature(dh);
    try {
      fg.validate();
    } catch (const InconsistencyError&) {
      // The user's graph already overwrites a protected input or a constant
      // with an inplace op of its own. The linkers copy such values first, so
      // it runs correctly; but no further inplace rewrite can be proven safe.
      fg.remove_feature(dh.get());
    }
    return false;  // the graph itself is unchanged
  });
  return r;
}

GraphRewriterPtr inplace_setsubtensor() {
  return inplace_stage("inplace_setsubtensor", candidates_of(InplaceStage::SetSubtensor));
}
GraphRewriterPtr blas_opt_inplace() { return inplace_stage("blas_opt_inplace", candidates_of(InplaceStage::Blas)); }
GraphRewriterPtr inplace_elemwise() { return inplace_stage("inplace_elemwise", candidates_of(InplaceStage::Elemwise)); }
GraphRewriterPtr inplace_random() { return inplace_stage("inplace_random", candidates_of(InplaceStage::Random)); }

}  // namespace theano::rewrite::detail
