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
///   generated loop's argument count and register pressure) and at most
///   `kMaxNodes` scalar nodes (a Composite counts its inner nodes), so no
///   node function grows with the graph: a chain of 10^4 tanh becomes
///   ceil(10^4 / kMaxNodes) fused nodes, which the C++ linker spreads over
///   its translation units (code generation keeps each large body linear in
///   its size, emit/lower/elemwise_blocked.cpp). Splitting costs one more pass
///   over memory per kMaxNodes ops, nothing next to their arithmetic.
/// Broadcastable (size-1 in every dimension) constants are folded into the
/// Composite as scalar constants. Nodes are visited from the outputs back, so
/// each fused node takes the largest tree it can; the pass repeats until
/// nothing changes. Composites met on the way are inlined (nested fusion).
/// Inputs of different broadcast patterns are fine (the fused Elemwise
/// broadcasts them, `tanh(dot(x, W) + b)` is one loop); only a producer that
/// the consumer would broadcast stays a node of its own.
///
/// Multi-output fusion then takes what the tree rule cannot: a result needed
/// by several elementwise clients (or by one and elsewhere) is computed once,
/// in one loop with those clients, by an Elemwise over a multi-output
/// Composite:
///
///   a = (x+y)*2; b = (x+y)*3   ==>   a, b = Elemwise{Composite{mul(add(i0, i1), 2), mul(add(i0, i1), 3)}}(x, y)
///
/// A client joins only when it has the producer's broadcast pattern, its
/// other inputs are all computed before the producer's first client or by
/// clients that joined (so the fused node fits in the order: no cycle can
/// form), and the input budget holds. So a client of a client joins too when
/// it reads the producer's result beside its sibling's, as a gradient does:
///
///   t = tanh(x); s = sqr(t); sum(s); g = t * (1 - s)
///     ==>   s, g = Elemwise{Composite{*1 -> sqr(*2 -> tanh(i0)), mul(*2, sub(1, *1))}}(x)
///
/// A result becomes an output when something outside the fused node reads
/// it (the producer's too). Multi-output nodes are not fused further and are
/// not made in place.
///
/// Last, an elementwise result that only a reduction reads is computed inside
/// the reduction's loop (PyTensor's local_careduce_fusion, here with any
/// number of inputs of the result's broadcast pattern):
///
///   sum(x * y, axis=1)   ==>   Sum{axes=(1,), fused=Composite{mul(i0, i1)}}(x, y)
#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rewrites.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/clone.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {
namespace {

using tensor::Composite;
using tensor::Elemwise;
using tensor::ScalarType;
using tensor::TensorType;

constexpr std::size_t kMaxInputs = 32;
/// Far above any expression written by hand (the workloads' largest fused
/// body has a few dozen nodes); see the file comment.
constexpr std::size_t kMaxNodes = 256;

/// The scalar nodes an elementwise node puts into a fused body.
std::size_t body_size(const Elemwise& e) {
  if (const auto* c = dynamic_cast<const Composite*>(e.scalar_op().get())) return c->inner_size();
  return 1;
}

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

/// The inputs of a fused node's scalar graph: each tensor variable once, as a
/// ScalarType input (`tensors[i]` feeds `scalars[i]`), or as a scalar constant
/// when it is a broadcastable constant.
struct ScalarInputs {
  std::vector<Var> tensors, scalars;
  std::unordered_map<const Variable*, Var> memo;  // tensor variable -> its scalar

  Var leaf(const Var& v) {
    if (auto it = memo.find(v.get()); it != memo.end()) return it->second;
    Var s;
    if (auto value = broadcast_scalar_constant(v)) {
      s = ScalarType::make(value->dtype())->make_constant(*value);
    } else {
      s = ScalarType::make(tensor::tensor_type(v)->dtype())->make_variable();
      tensors.push_back(v);
      scalars.push_back(s);
    }
    memo.emplace(v.get(), s);
    return s;
  }
};

/// Builds the scalar graph of one fused node.
class FusedBuilder {
 public:
  FusedBuilder(const FunctionGraph& fg, const Apply& root)
      : fg_(fg),
        root_(root),
        planned_(static_cast<std::size_t>(root.nin())),
        nodes_(body_size(*plain_elemwise(&root))) {}

  /// The scalar expression for tensor variable `v` (an input of the tree).
  /// A depth-first walk over the absorbed producers with an explicit stack
  /// (a chain of n elementwise ops is one tree n deep: the recursion this
  /// replaces overflowed an 8 MB stack near n = 4*10^4), in the order of the
  /// recursive definition: a producer is planned before its inputs are
  /// visited, left to right, and built after them.
  Var scalar_of(const Var& v, bool may_absorb) {
    struct Frame {
      Var v;
      const Apply* p;
      int next = 0;
      std::vector<Var> args;
    };
    std::vector<Frame> stack;
    // The value of `u` at once, or null after opening a frame for it.
    auto open = [&](const Var& u, bool absorb) -> Var {
      if (auto it = in_.memo.find(u.get()); it != in_.memo.end()) return it->second;
      if (!absorb || !absorbable(u)) return in_.leaf(u);
      planned_ += static_cast<std::size_t>(u.owner()->nin()) - 1;
      nodes_ += body_size(*plain_elemwise(u.owner()));
      stack.push_back(Frame{u, u.owner(), 0, {}});
      return {};
    };
    if (Var s = open(v, may_absorb)) return s;
    for (;;) {
      Frame& top = stack.back();
      if (top.next < top.p->nin()) {
        const Var in = top.p->input(top.next++);
        if (Var s = open(in, true)) stack.back().args.push_back(std::move(s));
        continue;
      }
      Var s = apply_scalar(*plain_elemwise(top.p)->scalar_op(), top.args);
      ++absorbed_;
      in_.memo.emplace(top.v.get(), s);
      stack.pop_back();
      if (stack.empty()) return s;
      stack.back().args.push_back(std::move(s));
    }
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
    // the producer's inputs replace its one slot. Body budget: its nodes.
    return planned_ + static_cast<std::size_t>(p->nin()) - 1 <= kMaxInputs &&
           nodes_ + body_size(*plain_elemwise(p)) <= kMaxNodes;
  }

  ScalarInputs in_;
  int absorbed_ = 0;

 private:
  const FunctionGraph& fg_;
  const Apply& root_;
  std::size_t planned_;  // tensor inputs the fused node would have, at most
  std::size_t nodes_;    // scalar nodes of its body so far
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
  if (b.in_.tensors.empty()) return {};  // all constant: constant folding's job
  tensor::ScalarOpPtr comp(new Composite(b.in_.scalars, inner));
  Var out = tensor::elemwise(comp, b.in_.tensors);
  if (!(*out.type() == *node.output(0).type())) return {};
  return out;
}

/// Positions of a valid topological order, kept valid across fusions: a
/// fused node gets a position strictly between its inputs' and its clients'.
using Positions = std::unordered_map<const Apply*, double>;

double position_of(const Var& v, const Positions& pos) {
  if (!v.owner()) return -1.0;  // graph inputs and constants come first
  auto it = pos.find(v.owner());
  THEANO_INTERNAL_CHECK(it != pos.end()) << "elemwise_fusion: a node without a position";
  return it->second;
}

/// Multi-output fusion of `p` with its elementwise clients (see the file
/// comment); the new node, or null when nothing was fused. The fused node
/// must fit in the order `pos`: every input placed before every client of
/// what it replaces (so no cycle can form, and no search is needed).
ApplyPtr fuse_siblings(FunctionGraph& fg, Apply& p, Positions& pos) {
  const Elemwise* pe = plain_elemwise(&p);
  if (!pe) return {};
  const Var pv = p.output(0);
  const TensorType* pt = tensor::tensor_type(pv);
  if (!pt) return {};
  // Candidates: p's elementwise clients of its broadcast pattern, and theirs
  // in turn (a client that reads p's result and another candidate's:
  // tanh'(x) = t * (1 - sqr(t)) beside sqr(t)); `outside`: p's other clients.
  std::vector<Apply*> members, outside;
  std::unordered_set<const Apply*> candidate;
  bool needed_outside = false;
  auto reads_pv = [&](const Apply& n) {
    return std::find(n.inputs().begin(), n.inputs().end(), pv) != n.inputs().end();
  };
  auto same_pattern = [&](const Apply* n) {
    const TensorType* nt = plain_elemwise(n) ? tensor::tensor_type(n->output(0)) : nullptr;
    return nt && nt->broadcastable() == pt->broadcastable();
  };
  for (const Client& c : fg.clients(pv)) {
    if (c.is_output()) {
      needed_outside = true;
      continue;
    }
    Apply* n = c.node;
    if (candidate.count(n) || std::find(outside.begin(), outside.end(), n) != outside.end()) continue;
    if (same_pattern(n)) {
      members.push_back(n);
      candidate.insert(n);
    } else {
      outside.push_back(n);
    }
  }
  for (std::size_t k = 0; k < members.size(); ++k)
    for (const Client& c : fg.clients(members[k]->output(0)))
      if (!c.is_output() && !candidate.count(c.node) && same_pattern(c.node)) {
        members.push_back(c.node);
        candidate.insert(c.node);
      }
  // The fused node takes a place before its first client (the earliest member
  // or other client of p; a member's other clients come after the member), so
  // every member's other inputs must come before that, or be computed in the
  // fused node.
  double limit = 0;
  for (bool changed = true; changed;) {
    changed = false;
    limit = std::numeric_limits<double>::infinity();
    for (const Apply* n : members) limit = std::min(limit, pos.at(n));
    for (const Apply* n : outside) limit = std::min(limit, pos.at(n));
    for (std::size_t k = 0; k < members.size(); ++k) {
      bool fits = true;
      for (const Var& in : members[k]->inputs())
        fits = fits && (in == pv || candidate.count(in.owner()) || position_of(in, pos) < limit);
      if (fits) continue;
      candidate.erase(members[k]);
      if (reads_pv(*members[k])) outside.push_back(members[k]);
      members.erase(members.begin() + static_cast<std::ptrdiff_t>(k));
      changed = true;
      break;
    }
  }
  if (!outside.empty()) needed_outside = true;
  // Input and body budgets: members join in the order found (p's clients
  // first; one that reads a member not joined before it stays out) while the
  // distinct tensor inputs (scalar constants are folded in) stay within
  // kMaxInputs and the scalar nodes within kMaxNodes.
  std::unordered_set<const Apply*> joined = {&p};
  std::unordered_set<const Variable*> budget;
  auto count_inputs = [&](const Apply& n, std::unordered_set<const Variable*>& into) {
    for (const Var& in : n.inputs())
      if (!joined.count(in.owner()) && !broadcast_scalar_constant(in)) into.insert(in.get());
  };
  count_inputs(p, budget);
  std::size_t nodes = body_size(*pe);
  std::vector<Apply*> within;
  auto reads_left_out = [&](const Apply& m) {
    for (const Var& in : m.inputs())
      if (candidate.count(in.owner()) && !joined.count(in.owner())) return true;
    return false;
  };
  for (Apply* m : members) {
    std::unordered_set<const Variable*> more = budget;
    count_inputs(*m, more);
    const std::size_t m_nodes = body_size(*plain_elemwise(m));
    if (reads_left_out(*m) || more.size() > kMaxInputs || nodes + m_nodes > kMaxNodes) {
      needed_outside = needed_outside || reads_pv(*m);
      continue;
    }
    budget = std::move(more);
    nodes += m_nodes;
    within.push_back(m);
    joined.insert(m);
  }
  members = std::move(within);
  if (members.empty() || (members.size() == 1 && !needed_outside)) return {};

  // The scalar graph: p's expression once, each member's over it and the
  // members before it. The results: every member's that something outside
  // the fused node reads, and p's when needed.
  ScalarInputs in;
  auto apply_node = [&](const Apply& n) {
    std::vector<Var> args;
    for (const Var& v : n.inputs()) args.push_back(in.leaf(v));
    return FusedBuilder::apply_scalar(*plain_elemwise(&n)->scalar_op(), args);
  };
  in.memo.emplace(pv.get(), apply_node(p));
  std::vector<Apply*> in_order = members;  // each after the members it reads
  std::sort(in_order.begin(), in_order.end(), [&](const Apply* x, const Apply* y) { return pos.at(x) < pos.at(y); });
  for (const Apply* m : in_order) in.memo.emplace(m->output(0).get(), apply_node(*m));
  std::vector<Var> replaced, inner;
  for (Apply* m : members) {
    const Var mv = m->output(0);
    bool read_outside = false;
    for (const Client& c : fg.clients(mv)) read_outside = read_outside || c.is_output() || !joined.count(c.node);
    if (!read_outside) continue;
    replaced.push_back(mv);
    inner.push_back(in.memo.at(mv.get()));
  }
  if (needed_outside) {
    replaced.push_back(pv);
    inner.push_back(in.memo.at(pv.get()));
  }
  if (in.tensors.empty()) return {};  // all constant: constant folding's job
  for (std::size_t k = 0; k < replaced.size(); ++k)
    if (dynamic_cast<const ScalarType*>(inner[k].type().get())->dtype() != tensor::tensor_type(replaced[k])->dtype())
      return {};
  // Its place: after every input, before every client.
  double after = -1.0;
  for (const Var& v : in.tensors) after = std::max(after, position_of(v, pos));
  const double place = after + (limit - after) / 2;
  if (!(place > after && place < limit)) return {};  // no room left between the two (rounding)
  tensor::ScalarOpPtr comp(new Composite(in.scalars, inner));
  ApplyPtr fused = OpPtr(new Elemwise(comp))->make_node(in.tensors);
  std::vector<std::pair<Var, Var>> pairs;
  for (std::size_t k = 0; k < replaced.size(); ++k) {
    Var out = fused->output(static_cast<int>(k));
    if (!(*out.type() == *replaced[k].type())) return {};
    if (!replaced[k].name().empty()) out->set_name(replaced[k].name());
    if (replaced[k]->creation_site()) out->set_creation_site(replaced[k]->creation_site());
    pairs.emplace_back(replaced[k], out);
  }
  fg.replace_all(pairs, "elemwise_fusion");
  pos[fused.get()] = place;
  return fused;
}

/// The reduction fusion of `node` (see the file comment), or null.
ApplyPtr fuse_into_reduction(const FunctionGraph& fg, const Apply& node) {
  const auto* red = dynamic_cast<const tensor::CAReduce*>(node.op().get());
  if (!red || red->pre() || node.nin() != 1) return {};
  const Var& x = node.input(0);
  const Apply* p = x.owner();
  const Elemwise* e = plain_elemwise(p);
  if (!e || !fg.contains(p)) return {};
  const auto& clients = fg.clients(x);
  if (clients.size() != 1 || clients[0].is_output()) return {};
  const TensorType* xt = tensor::tensor_type(x);
  ScalarInputs in;
  std::vector<Var> args;
  for (const Var& v : p->inputs()) {
    const TensorType* t = tensor::tensor_type(v);
    if (!broadcast_scalar_constant(v) && (!t || t->broadcastable() != xt->broadcastable()))
      return {};  // the loop would have to broadcast it
    args.push_back(in.leaf(v));
  }
  if (in.tensors.empty() || in.tensors.size() > kMaxInputs) return {};
  Var inner = FusedBuilder::apply_scalar(*e->scalar_op(), args);
  if (dynamic_cast<const ScalarType*>(inner.type().get())->dtype() != xt->dtype()) return {};
  ApplyPtr fused = red->with_pre(tensor::ScalarOpPtr(new Composite(in.scalars, inner)))->make_node(in.tensors);
  if (!(*fused->output(0).type() == *node.output(0).type())) return {};
  return fused;
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
    // Multi-output fusion, once the trees are as large as they get.
    const std::vector<Apply*> order = fg.toposort();
    // The handles keep the visited nodes alive: a freed node's address could
    // come back as a new node's, with a stale position.
    std::vector<Var> keep;
    Positions pos;
    for (std::size_t t = 0; t < order.size(); ++t) {
      keep.push_back(order[t]->output(0));
      pos.emplace(order[t], static_cast<double>(t));
    }
    for (Apply* node : order) {
      if (!fg.contains(node) || !plain_elemwise(node) || fg.clients(node->output(0)).size() < 2) continue;
      auto& entry = stats.entries["elemwise_fusion"];
      ++entry.tried;
      ApplyPtr fused = fuse_siblings(fg, *node, pos);
      if (!fused) continue;
      keep.push_back(fused->output(0));
      ++entry.applied;
      changed_any = true;
    }
    // Elementwise results read only by a reduction: into the reduction's loop.
    for (Apply* node : fg.toposort()) {
      if (!fg.contains(node) || !dynamic_cast<const tensor::CAReduce*>(node->op().get())) continue;
      auto& entry = stats.entries["elemwise_fusion"];
      ++entry.tried;
      ApplyPtr fused = fuse_into_reduction(fg, *node);
      if (!fused) continue;
      Var out = fused->output(0);
      const Var& old = node->output(0);
      if (!old.name().empty()) out->set_name(old.name());
      if (old->creation_site()) out->set_creation_site(old->creation_site());
      fg.replace(old, out, "elemwise_fusion");
      ++entry.applied;
      changed_any = true;
    }
    return changed_any;
  });
  return r;
}

}  // namespace theano::rewrite::detail
