// stream_gemv: a Dot z = dot(X, w) and a Gemv g = beta*y + alpha*dot(X^T, r)
// whose r is an elementwise function of z (and of vectors that do not depend
// on z) become one RowStreamGemv (theano/tensor/blas.h), which reads X once:
//
//   z = Dot(X, w); r = Elemwise{f}(z, e); g = Gemv(y, alpha, DimShuffle{1,0}(X), r, beta)
//   ==>  z, g, r = RowStreamGemv{f}(X, w, y, alpha, beta, e)
//
// r's other clients read the new r (logistic regression's bias gradient
// sums it); the Elemwise nodes between z and r stay for theirs (they now
// read the new z).
// It runs before the elementwise fusion and, with a GPU context, not at all
// (optdb_layout.cpp: tag host_only).
#include <unordered_map>
#include <unordered_set>

#include "rewrites.h"
#include "theano/graph/clone.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

// The elementwise nodes between z and r the walk takes (also its depth): far
// above logistic regression's (a handful), small enough to stay cheap.
constexpr std::size_t kMaxScalarNodes = 256;

const T::Elemwise* plain_elemwise(const Apply* node) {
  const auto* e = node ? dynamic_cast<const T::Elemwise*>(node->op().get()) : nullptr;
  return e && e->inplace_pattern().empty() ? e : nullptr;
}

// Every variable computed from `z` in `fg`.
std::unordered_set<const Variable*> descendants(const FunctionGraph& fg, const Var& z) {
  std::unordered_set<const Variable*> seen{z.get()};
  std::vector<Var> frontier{z};  // reached, clients not yet visited
  while (!frontier.empty()) {
    const Var v = frontier.back();
    frontier.pop_back();
    for (const Client& c : fg.clients(v)) {
      if (c.is_output()) continue;
      for (const Var& o : c.node->outputs())
        if (seen.insert(o.get()).second) frontier.push_back(o);
    }
  }
  return seen;
}

// r as a scalar graph of z's element and of leaves (vectors not computed
// from z), through elementwise nodes only; null when r is not such a function.
class ScalarOfZ {
 public:
  ScalarOfZ(const Var& z, std::unordered_set<const Variable*> from_z)
      : from_z_(std::move(from_z)), z_scalar_(T::ScalarType::make(T::tensor_type(z)->dtype())->make_variable()) {
    memo_.emplace(z.get(), z_scalar_);
  }

  Var of(const Var& v) {
    if (auto it = memo_.find(v.get()); it != memo_.end()) return it->second;
    if (!from_z_.count(v.get())) return leaf(v);
    const Apply* p = v.owner();
    const T::Elemwise* e = plain_elemwise(p);
    const T::TensorType* t = T::tensor_type(v);
    if (!e || !t || t->ndim() != 1 || t->broadcastable()[0] || ++nodes_ > kMaxScalarNodes) return {};
    std::vector<Var> args;
    for (const Var& in : p->inputs()) {
      Var s = of(in);
      if (!s) return {};
      args.push_back(std::move(s));
    }
    std::vector<Var> outs;
    if (const auto* comp = dynamic_cast<const T::Composite*>(e->scalar_op().get())) {
      std::vector<std::pair<Var, Var>> repl;
      for (std::size_t i = 0; i < args.size(); ++i) repl.emplace_back(comp->inner_inputs()[i], args[i]);
      outs = clone_replace(comp->inner_outputs(), repl);
    } else if (e->scalar_op()->nout() == 1) {
      outs = {e->scalar_op()->apply1(args)};
    } else {
      return {};
    }
    for (int k = 0; k < p->nout(); ++k) memo_.emplace(p->output(k).get(), outs[static_cast<std::size_t>(k)]);
    return memo_.at(v.get());
  }

  const Var& z_scalar() const { return z_scalar_; }
  const std::vector<Var>& leaves() const { return leaves_; }
  const std::vector<Var>& leaf_scalars() const { return leaf_scalars_; }
  const std::unordered_set<const Variable*>& from_z() const { return from_z_; }

 private:
  Var leaf(const Var& v) {
    const T::TensorType* t = T::tensor_type(v);
    if (!t || t->ndim() != 1) return {};
    Var s = T::ScalarType::make(t->dtype())->make_variable();
    leaves_.push_back(v);
    leaf_scalars_.push_back(s);
    memo_.emplace(v.get(), s);
    return s;
  }

  std::unordered_set<const Variable*> from_z_;
  Var z_scalar_;
  std::unordered_map<const Variable*, Var> memo_;
  std::vector<Var> leaves_, leaf_scalars_;
  std::size_t nodes_ = 0;
};

// The RowStreamGemv replacing `gemv` and a Dot of its matrix's transpose,
// as (old z, new node); a null node when there is none.
std::pair<Var, ApplyPtr> match(const FunctionGraph& fg, const Apply& gemv) {
  const auto* gv = dynamic_cast<const T::Gemv*>(gemv.op().get());
  if (!gv || gv->inplace()) return {};
  const Apply* ds = gemv.input(2).owner();
  const auto* d = ds ? dynamic_cast<const T::DimShuffle*>(ds->op().get()) : nullptr;
  if (!d || d->new_order() != std::vector<int>{1, 0}) return {};
  const Var& x = ds->input(0);
  const Var& r = gemv.input(3);
  for (const Client& c : fg.clients(x)) {
    if (c.is_output() || c.index != 0 || !dynamic_cast<const T::Dot*>(c.node->op().get())) continue;
    const Var& w = c.node->input(1);
    const Var& z = c.node->output(0);
    const T::TensorType *tw = T::tensor_type(w), *tz = T::tensor_type(z), *tx = T::tensor_type(x);
    if (!tw || !tz || tw->ndim() != 1 || tw->dtype() != tx->dtype() || tz->dtype() != tx->dtype()) continue;
    ScalarOfZ f(z, descendants(fg, z));
    // y, alpha and beta computed from z would make a cycle; r must be.
    if (!f.from_z().count(r.get())) continue;
    bool cycle = false;
    for (int i : {0, 1, 4}) cycle = cycle || f.from_z().count(gemv.input(i).get());
    if (cycle) continue;
    const Var out = f.of(r);
    if (!out) continue;
    std::vector<Var> scalars{f.z_scalar()};
    scalars.insert(scalars.end(), f.leaf_scalars().begin(), f.leaf_scalars().end());
    T::ScalarOpPtr comp(new T::Composite(scalars, std::vector<Var>{out}));
    std::vector<Var> inputs{x, w, gemv.input(0), gemv.input(1), gemv.input(4)};
    inputs.insert(inputs.end(), f.leaves().begin(), f.leaves().end());
    try {
      return {z, OpPtr(new T::RowStreamGemv(comp))->make_node(std::move(inputs))};
    } catch (const TypeError&) {
      continue;  // fn's value of another dtype than X's: the pair stays
    }
  }
  return {};
}

}  // namespace

GraphRewriterPtr stream_gemv() {
  static const GraphRewriterPtr r = make_graph_rewriter("stream_gemv", [](FunctionGraph& fg, RewriteStats& stats) {
    bool changed = false;
    std::vector<ApplyPtr> gemvs;  // held: a replaced node may be pruned before the loop reaches the next
    for (Apply* node : fg.toposort())
      if (dynamic_cast<const T::Gemv*>(node->op().get())) gemvs.emplace_back(node);
    for (const ApplyPtr& node : gemvs) {
      if (!fg.contains(node.get())) continue;
      auto& entry = stats.entries["stream_gemv"];
      ++entry.tried;
      auto [z, fused] = match(fg, *node);
      if (!fused) continue;
      const Var &g = node->output(0), &r = node->input(3);
      const Var &new_z = fused->output(0), &new_g = fused->output(1), &new_r = fused->output(2);
      std::vector<std::pair<Var, Var>> repl{{z, new_z}, {g, new_g}};
      if (r.get() != z.get()) repl.emplace_back(r, new_r);  // r = z: the Gemv's vector is z itself
      for (const auto& [old, now] : repl)
        if (!old.name().empty()) now->set_name(old.name());
      fg.replace_all_validate(repl, "stream_gemv");
      ++entry.applied;
      changed = true;
    }
    return changed;
  });
  return r;
}

}  // namespace theano::rewrite::detail
