/// \file
/// Elemwise fusion (Theano's `local_elemwise_fusion` / PyTensor's
/// FusionOptimizer, position 49, tag `fusion`): a tree of elementwise ops whose
/// intermediate results feed only one another becomes ONE Elemwise over a
/// Composite scalar op, so the generated code makes one pass over memory
/// instead of one per op.
///
///   out = exp(x)*y + tanh(z)   ==>   out = Elemwise{Composite{i0*e(i1)+tanh(i2)}}(y, x, z)
///
/// An Elemwise producer is absorbed into its consumer when
/// * it has one output, no in-place pattern, and that output has exactly one
///   client (the consumer) and is not a graph output (else it must still be
///   materialized, and the fused loop would compute it twice);
/// * its output type has the consumer's output broadcast pattern (a producer
///   that the consumer broadcasts would be recomputed per broadcast element);
/// * the fused node keeps at most `kMaxInputs` distinct tensor inputs (the
///   generated loop's argument count and register pressure).
/// Broadcastable (size-1 in every dimension) constants are folded into the
/// Composite as scalar constants. Nodes are visited from the outputs back, so
/// each fused node takes the largest tree it can; the pass repeats until
/// nothing changes. Composites met on the way are inlined (nested fusion).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rewrites.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/clone.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {
namespace {

using tensor::Composite;
using tensor::Elemwise;
using tensor::ScalarType;
using tensor::TensorType;

constexpr std::size_t kMaxInputs = 32;

const Elemwise* plain_elemwise(const Apply* node) {
  if (!node || node->nout() != 1) return nullptr;
  const auto* e = dynamic_cast<const Elemwise*>(node->op().get());
  return e && e->inplace_pattern().empty() ? e : nullptr;
}

/// A constant all of whose dimensions are statically 1: its single value.
std::optional<NDArray> broadcast_scalar_constant(const Var& v) {
  const Constant* c = v.as_constant();
  if (!c) return std::nullopt;
  const TensorType* t = tensor::tensor_type(v);
  if (!t) return std::nullopt;
  for (const auto& d : t->shape())
    if (!d || *d != 1) return std::nullopt;
  return c->data().reshape({});
}

/// Builds the scalar graph of one fused node.
class FusedBuilder {
 public:
  FusedBuilder(const FunctionGraph& fg, const Apply& root)
      : fg_(fg), root_(root), planned_(static_cast<std::size_t>(root.nin())) {}

  /// The scalar expression for tensor variable `v` (an input of the tree).
  Var scalar_of(const Var& v, bool may_absorb) {
    if (auto it = memo_.find(v.get()); it != memo_.end()) return it->second;
    Var s;
    if (may_absorb && absorbable(v)) {
      const Apply& p = *v.owner();
      planned_ += static_cast<std::size_t>(p.nin()) - 1;
      std::vector<Var> args;
      for (const Var& in : p.inputs()) args.push_back(scalar_of(in, true));
      s = apply_scalar(*plain_elemwise(&p)->scalar_op(), args);
      ++absorbed_;
    } else if (auto value = broadcast_scalar_constant(v)) {
      s = ScalarType::make(value->dtype())->make_constant(*value);
    } else {
      s = ScalarType::make(tensor::tensor_type(v)->dtype())->make_variable();
      inputs_.push_back(v);
      scalar_inputs_.push_back(s);
    }
    memo_.emplace(v.get(), s);
    return s;
  }

  /// Applies `op` to scalar args; a Composite is inlined.
  static Var apply_scalar(const tensor::ScalarOp& op, const std::vector<Var>& args) {
    if (const auto* comp = dynamic_cast<const Composite*>(&op)) {
      std::vector<std::pair<Var, Var>> repl;
      for (std::size_t i = 0; i < args.size(); ++i) repl.emplace_back(comp->inner_inputs()[i], args[i]);
      return clone_replace({comp->inner_output()}, repl)[0];
    }
    return op.apply1(args);
  }

  bool absorbable(const Var& v) {
    const Apply* p = v.owner();
    if (!plain_elemwise(p) || !fg_.contains(p)) return false;
    const auto& clients = fg_.clients(v);
    if (clients.size() != 1 || clients[0].is_output()) return false;
    const TensorType* pt = tensor::tensor_type(v);
    const TensorType* rt = tensor::tensor_type(root_.output(0));
    if (!pt || !rt || pt->broadcastable() != rt->broadcastable()) return false;
    // Input budget (an upper bound: repeated inputs count once in the end):
    // the producer's inputs replace its one slot.
    return planned_ + static_cast<std::size_t>(p->nin()) - 1 <= kMaxInputs;
  }

  std::vector<Var> inputs_, scalar_inputs_;
  int absorbed_ = 0;

 private:
  const FunctionGraph& fg_;
  const Apply& root_;
  std::unordered_map<const Variable*, Var> memo_;
  std::size_t planned_;  // tensor inputs the fused node would have, at most
};

/// Fuses the tree rooted at `node`; returns the replacement or a null Var.
Var fuse(const FunctionGraph& fg, const Apply& node) {
  const Elemwise* e = plain_elemwise(&node);
  if (!e) return {};
  FusedBuilder b(fg, node);
  std::vector<Var> args;
  for (const Var& in : node.inputs()) args.push_back(b.scalar_of(in, true));
  if (b.absorbed_ == 0) return {};  // nothing to fuse into this node
  Var inner = FusedBuilder::apply_scalar(*e->scalar_op(), args);
  const DType want = tensor::tensor_type(node.output(0))->dtype();
  if (dynamic_cast<const ScalarType*>(inner.type().get())->dtype() != want) return {};
  if (b.inputs_.empty()) return {};  // all constant: constant folding's job
  tensor::ScalarOpPtr comp(new Composite(b.scalar_inputs_, inner));
  Var out = tensor::elemwise(comp, b.inputs_);
  if (!(*out.type() == *node.output(0).type())) return {};
  return out;
}

}  // namespace

GraphRewriterPtr elemwise_fusion() {
  static const GraphRewriterPtr r = make_graph_rewriter("elemwise_fusion", [](FunctionGraph& fg, RewriteStats& stats) {
    bool changed_any = false;
    // After the first round only the fused nodes and their clients can fuse
    // further (nothing else changed): later rounds visit just those.
    std::unordered_set<const Apply*> dirty;
    for (int round = 0; round < 8; ++round) {
      bool changed = false;
      std::unordered_set<const Apply*> next;
      std::vector<Apply*> order = fg.toposort();
      std::reverse(order.begin(), order.end());  // outputs first: the largest trees
      for (Apply* node : order) {
        if (!fg.contains(node)) continue;  // absorbed by an earlier fusion
        if (round > 0 && !dirty.count(node)) continue;
        auto& entry = stats.entries["elemwise_fusion"];
        ++entry.tried;
        Var out = fuse(fg, *node);
        if (!out) continue;
        if (!node->output(0).name().empty() && out.name().empty()) out->set_name(node->output(0).name());
        if (node->output(0)->creation_site()) out->set_creation_site(node->output(0)->creation_site());
        fg.replace(node->output(0), out, "elemwise_fusion");
        next.insert(out.owner());
        for (const Client& c : fg.clients(out))
          if (!c.is_output()) next.insert(c.node);
        ++entry.applied;
        changed = true;
      }
      changed_any = changed_any || changed;
      if (!changed) break;
      dirty = std::move(next);
    }
    return changed_any;
  });
  return r;
}

}  // namespace theano::rewrite::detail
