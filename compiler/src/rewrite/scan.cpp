/// \file
/// The Scan rewrites (Theano's scan_opt.py, PyTensor's scan/rewriting.py):
///
///   scan_prune        outputs nobody reads (and the recurrent ones only they
///                     need) leave the scan; so do the sequences and
///                     non-sequences the remaining step no longer reads     canonicalize
///   scan_pushout      loop-invariant work (a step node reading only
///                     non-sequences and constants) is computed once before
///                     the loop; sequence-only work (an elementwise node on
///                     one sequence's rows and non-sequences, or dot(row, W))
///                     is computed on the whole sequence at once, as one
///                     elementwise op or one big dot, and read row by row  canonicalize
///   scan_save_mem     a recurrent output read only as its last value (x[-1],
///                     its length) keeps only that value: the loop keeps
///                     K + 1 rows instead of K + steps (gradients'
///                     accumulators, reduce, foldl)                           specialize (global)
///   scan_pushout_add  an accumulator that keeps only its last value,
///                     acc' = acc + dot(a^T, b) or acc + sum(b, axis 0)
///                     (gradients of weights and biases in BPTT), is summed
///                     after the loop as one big dot (or one sum) of the
///                     per-step a and b, read from sequences or made map
///                     outputs (Theano's scan_pushout_dot1 / add)          specialize
///   scan_merge        scans over the same number of steps and direction
///                     that do not depend on each other become one loop;
///                     a sequence they both read is read once                specialize (global)
///
/// All tagged fast_run and scan; tests: tests/compiler/control.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "../control/scan_parts.h"
#include "rewrites.h"
#include "theano/control/scan.h"
#include "theano/graph/clone.h"
#include "theano/graph/traversal.h"
#include "theano/rewrite/optdb.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {
namespace {

using theano::detail::ScanParts;
namespace T = theano::tensor;

/// The inner inputs `outs` depend on.
std::unordered_set<Var> inner_reads(const std::vector<Var>& outs) {
  std::unordered_set<Var> r;
  for (const Var& v : ancestors(outs)) r.insert(v);
  return r;
}

bool has_clients(const FunctionGraph& fg, const Var& v) { return !v || !fg.clients(v).empty(); }

/// Replacements of the old node's outputs by the new node's (null for dropped ones).
std::vector<Var> map_outputs(const Apply& node, const ScanParts& p, const std::vector<Var>& fresh) {
  std::vector<Var> r(static_cast<std::size_t>(node.nout()));
  std::size_t k = 0;
  auto place = [&](const Var& old) {
    if (old) r[static_cast<std::size_t>(*old.index())] = fresh[k];
    ++k;
  };
  for (const auto& c : p.recs) place(c.outer_out);
  for (const auto& m : p.maps) place(m.outer_out);
  return r;
}

/// fg.replace_all of the pairs whose old variable is still read (the old
/// node goes away with its readers).
void replace_read(FunctionGraph& fg, const std::vector<std::pair<Var, Var>>& pairs, std::string_view reason) {
  std::vector<std::pair<Var, Var>> live;
  for (const auto& pr : pairs)
    if (!fg.clients(pr.first).empty()) live.push_back(pr);
  fg.replace_all(live, reason);
}

/// `q` with its inner outputs replaced by `outs` (recurrent, map, until: the
/// order of ScanParts::inner_outputs).
void set_inner_outputs(ScanParts& q, const std::vector<Var>& outs) {
  std::size_t k = 0;
  for (auto& c : q.recs) c.inner_out = outs[k++];
  for (auto& m : q.maps) m.inner_out = outs[k++];
  if (q.until) q.until = outs[k++];
}

/// A fresh inner variable of `v`'s type.
Var fresh_like(const Var& v, const std::string& name) { return v.type()->make_variable(name); }

}  // namespace

NodeRewriterPtr scan_prune() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "scan_prune", {"Scan"}, "Scan outputs nobody reads, and inputs the step no longer reads, removed",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        ScanParts p = ScanParts::of(node);
        // Needed recurrent outputs: read outside, or read (through their taps) by a needed one.
        std::vector<bool> need_rec(p.recs.size());
        for (std::size_t r = 0; r < p.recs.size(); ++r) need_rec[r] = has_clients(fg, p.recs[r].outer_out);
        std::vector<Var> roots;
        for (const auto& m : p.maps)
          if (has_clients(fg, m.outer_out)) roots.push_back(m.inner_out);
        if (p.until) roots.push_back(p.until);
        for (bool more = true; more;) {
          more = false;
          std::vector<Var> live = roots;
          for (std::size_t r = 0; r < p.recs.size(); ++r)
            if (need_rec[r]) live.push_back(p.recs[r].inner_out);
          const auto reads = inner_reads(live);
          for (std::size_t r = 0; r < p.recs.size(); ++r)
            if (!need_rec[r])
              for (const Var& tap : p.recs[r].inner)
                if (reads.count(tap)) need_rec[r] = more = true;
        }
        ScanParts q = p;
        q.recs.clear();
        q.maps.clear();
        for (std::size_t r = 0; r < p.recs.size(); ++r)
          if (need_rec[r]) q.recs.push_back(p.recs[r]);
        for (const auto& m : p.maps)
          if (has_clients(fg, m.outer_out)) q.maps.push_back(m);
        const auto reads = inner_reads(q.inner_outputs());
        q.seqs.clear();
        for (const auto& s : p.seqs)
          if (std::any_of(s.inner.begin(), s.inner.end(), [&](const Var& v) { return reads.count(v) > 0; }))
            q.seqs.push_back(s);
        q.nonseqs.clear();
        for (const auto& n : p.nonseqs)
          if (reads.count(n.inner)) q.nonseqs.push_back(n);
        if (q.recs.size() == p.recs.size() && q.maps.size() == p.maps.size() && q.seqs.size() == p.seqs.size() &&
            q.nonseqs.size() == p.nonseqs.size())
          return RewriteResult::fail("every output is read and every input used");
        if (q.recs.empty() && q.maps.empty()) return RewriteResult::fail("no output is read");
        return map_outputs(node, q, q.build());
      });
  return r;
}

NodeRewriterPtr scan_pushout() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "scan_pushout", {"Scan"},
      "step work on non-sequences only, or on one sequence's rows, computed before the loop",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        ScanParts p = ScanParts::of(node);
        std::unordered_map<Var, Var> outer_of;  // non-sequence inner -> outer
        for (const auto& n : p.nonseqs) outer_of[n.inner] = n.outer;
        std::unordered_map<Var, std::size_t> seq_of;  // inner slice of a single-tap-0 sequence -> its index
        for (std::size_t s = 0; s < p.seqs.size(); ++s)
          if (p.seqs[s].taps == std::vector<std::int64_t>{0}) seq_of[p.seqs[s].inner[0]] = s;
        const std::vector<Var> outs = p.inner_outputs();
        // Walk the step graph from its inputs; the first node that qualifies moves out.
        for (const Var& v : ancestors(outs)) {
          Apply* n = v.owner();
          if (!n || n->nout() != 1) continue;
          bool invariant = true;
          std::optional<std::size_t> seq;
          bool one_seq = true;
          std::vector<Var> outer_ins;
          for (const Var& in : n->inputs()) {
            if (in.is_constant()) {
              outer_ins.push_back(in);
            } else if (auto it = outer_of.find(in); it != outer_of.end()) {
              outer_ins.push_back(it->second);
            } else if (auto s = seq_of.find(in); s != seq_of.end()) {
              invariant = false;
              if (seq && *seq != s->second) one_seq = false;
              seq = s->second;
              outer_ins.push_back(p.seqs[s->second].outer);
            } else {
              invariant = false;
              one_seq = false;
              break;
            }
          }
          const Var& out = n->output(0);
          if (invariant) {
            // Computed once: a new non-sequence.
            const Var outer = n->clone_with_new_inputs(outer_ins, /*strict=*/false)->output(0);
            const Var inner = fresh_like(out, out.name().empty() ? "pushed" : out.name());
            ScanParts q = p;
            q.nonseqs.push_back({outer, inner});
            set_inner_outputs(q, clone_replace(outs, {{out, inner}}));
            return map_outputs(node, q, q.build());
          }
          if (!seq || !one_seq) continue;
          // Sequence-only: an elementwise op over the whole sequence, or one big dot.
          Var whole;
          if (dynamic_cast<const T::Elemwise*>(n->op().get())) {
            whole = n->clone_with_new_inputs(outer_ins, /*strict=*/false)->output(0);
          } else if (dynamic_cast<const T::Dot*>(n->op().get()) && n->input(0) != n->input(1) &&
                     seq_of.count(n->input(0)) && !seq_of.count(n->input(1))) {
            const Var& X = outer_ins[0];
            const Var& W = outer_ins[1];
            const int xd = T::tensor_type(X)->ndim(), wd = T::tensor_type(W)->ndim();
            if (wd != 2 || (xd != 2 && xd != 3)) continue;
            if (xd == 2) {
              whole = T::dot(X, W);
            } else {
              const Var rows = T::mul(T::shape_i(X, 0), T::shape_i(X, 1));
              const Var flat = T::reshape(X, T::make_vector({rows, T::shape_i(X, 2)}), 2);
              whole = T::reshape(T::dot(flat, W),
                                 T::make_vector({T::shape_i(X, 0), T::shape_i(X, 1), T::shape_i(W, 1)}), 3);
            }
          } else {
            continue;
          }
          const T::TensorType* tw = T::tensor_type(whole);
          const T::TensorType* to = T::tensor_type(out);
          if (!tw || !to || tw->dtype() != to->dtype() || tw->ndim() != to->ndim() + 1) continue;
          const Var inner = T::TensorType::make(to->dtype(), T::StaticShape(tw->shape().begin() + 1, tw->shape().end()))
                                ->make_variable(out.name().empty() ? "pushed[t]" : out.name() + "[t]");
          // Errors about the new sequence's length name the sequence it was computed from.
          if (whole.name().empty()) whole->set_name(p.seqs[*seq].outer.name());
          ScanParts q = p;
          q.seqs.push_back({whole, {0}, {inner}});
          // The row has the static sizes the whole result knows; the step's graph may know more.
          const Var row = *inner.type() == *out.type() ? inner : T::specify_shape(inner, to->shape());
          set_inner_outputs(q, clone_replace(outs, {{out, row}}));
          return map_outputs(node, q, q.build());
        }
        return RewriteResult::fail("no step node reads only non-sequences, or only one sequence's rows");
      });
  return r;
}

namespace {

/// Whether `c` reads `v` as its last row (`v[-1]`).
bool is_last_row(const Client& c) {
  if (c.is_output()) return false;
  const auto* s = dynamic_cast<const T::Subtensor*>(c.node->op().get());
  if (!s || c.index != 0 || s->idx_list().size() != 1) return false;
  const T::IdxEntry& e = s->idx_list()[0];
  return !e.is_slice && e.index.is_constant() && e.index.value == -1;
}

bool is_length(const Client& c) {
  if (c.is_output()) return false;
  const auto* s = dynamic_cast<const T::Shape_i*>(c.node->op().get());
  return s && s->i() == 0;
}

}  // namespace

GraphRewriterPtr scan_save_mem() {
  static const GraphRewriterPtr r = make_graph_rewriter("scan_save_mem", [](FunctionGraph& fg, RewriteStats& stats) {
    bool changed = false;
    for (Apply* node : fg.toposort()) {
      if (!as_scan(*node) || as_scan(*node)->info().until) continue;
      ScanParts p = ScanParts::of(*node);
      bool any = false;
      for (auto& c : p.recs) {
        if (c.last) continue;
        bool ok = true;  // (nobody reads it: the step reads its earlier values only)
        for (const Client& cl : fg.clients(c.outer_out)) ok = ok && (is_last_row(cl) || is_length(cl));
        if (ok) c.last = any = true;
      }
      if (!any) continue;
      auto& entry = stats.entries["scan_save_mem"];
      ++entry.tried;
      const std::vector<Var> fresh = p.build();
      std::vector<std::pair<Var, Var>> pairs;
      std::size_t k = 0;
      for (const auto& c : p.recs) {
        const Var& now = fresh[k++];
        if (!c.last || as_scan(*node)->info().last_only(static_cast<int>(&c - &p.recs[0]))) {
          pairs.emplace_back(c.outer_out, now);
          continue;
        }
        for (const Client& cl : fg.clients(c.outer_out)) {
          const Var read = cl.node->output(0);
          pairs.emplace_back(read, is_last_row(cl) ? now : T::cast(p.n_steps, T::tensor_type(read)->dtype()));
        }
      }
      for (const auto& m : p.maps) pairs.emplace_back(m.outer_out, fresh[k++]);
      replace_read(fg, pairs, "scan_save_mem");
      ++entry.applied;
      changed = true;
    }
    return changed;
  });
  return r;
}

GraphRewriterPtr scan_merge() {
  static const GraphRewriterPtr r = make_graph_rewriter("scan_merge", [](FunctionGraph& fg, RewriteStats& stats) {
    bool changed = false;
    for (bool again = true; again;) {
      again = false;
      std::vector<Apply*> scans;
      for (Apply* n : fg.toposort())
        if (const Scan* s = as_scan(*n); s && !s->info().until) scans.push_back(n);
      for (std::size_t i = 0; i < scans.size() && !again; ++i)
        for (std::size_t j = i + 1; j < scans.size() && !again; ++j) {
          Apply& a = *scans[i];
          Apply& b = *scans[j];
          const ScanInfo &ia = as_scan(a)->info(), &ib = as_scan(b)->info();
          if (a.input(0) != b.input(0) || ia.go_backwards != ib.go_backwards ||
              ia.truncate_gradient != ib.truncate_gradient)
            continue;
          if (depends_on(a, b) || depends_on(b, a)) continue;  // neither may read the other's results
          auto& entry = stats.entries["scan_merge"];
          ++entry.tried;
          ScanParts pa = ScanParts::of(a), pb = ScanParts::of(b);
          // b's step, with a sequence (or non-sequence) a also reads read through a's inner variables.
          std::vector<std::pair<Var, Var>> share;
          ScanParts m = pa;
          m.info.name = ia.name + "+" + ib.name;
          for (const auto& s : pb.seqs) {
            auto same = std::find_if(pa.seqs.begin(), pa.seqs.end(),
                                     [&](const auto& t) { return t.outer == s.outer && t.taps == s.taps; });
            if (same == pa.seqs.end()) {
              m.seqs.push_back(s);
              continue;
            }
            for (std::size_t k = 0; k < s.inner.size(); ++k) share.emplace_back(s.inner[k], same->inner[k]);
          }
          for (const auto& n : pb.nonseqs) {
            auto same = std::find_if(pa.nonseqs.begin(), pa.nonseqs.end(), [&](const auto& t) { return t.outer == n.outer; });
            if (same == pa.nonseqs.end()) m.nonseqs.push_back(n);
            else share.emplace_back(n.inner, same->inner);
          }
          std::vector<Var> b_outs;
          for (const auto& c : pb.recs) b_outs.push_back(c.inner_out);
          for (const auto& mo : pb.maps) b_outs.push_back(mo.inner_out);
          if (!share.empty()) b_outs = clone_replace(b_outs, share);
          std::size_t k = 0;
          for (auto c : pb.recs) {
            c.inner_out = b_outs[k++];
            m.recs.push_back(c);
          }
          for (auto mo : pb.maps) {
            mo.inner_out = b_outs[k++];
            m.maps.push_back(mo);
          }
          // Outputs: a's recurrent, b's recurrent, a's maps, b's maps.
          ScanParts ordered = m;
          ordered.recs.clear();
          ordered.maps.clear();
          for (const auto& c : pa.recs) ordered.recs.push_back(c);
          for (std::size_t c = 0; c < pb.recs.size(); ++c) ordered.recs.push_back(m.recs[pa.recs.size() + c]);
          for (const auto& mo : pa.maps) ordered.maps.push_back(mo);
          for (std::size_t c = 0; c < pb.maps.size(); ++c) ordered.maps.push_back(m.maps[pa.maps.size() + c]);
          const std::vector<Var> fresh = ordered.build();
          std::vector<std::pair<Var, Var>> pairs;
          std::size_t f = 0;
          for (const auto& c : ordered.recs) pairs.emplace_back(c.outer_out, fresh[f++]);
          for (const auto& mo : ordered.maps) pairs.emplace_back(mo.outer_out, fresh[f++]);
          replace_read(fg, pairs, "scan_merge");
          ++entry.applied;
          changed = again = true;
        }
    }
    return changed;
  });
  return r;
}

namespace {

/// How many times `v` is read by the nodes of the graph of `outs`.
int uses_in(const std::vector<Var>& outs, const Var& v) {
  int n = 0;
  std::unordered_set<const Apply*> seen;
  for (const Var& a : ancestors(outs))
    if (Apply* node = a.owner(); node && seen.insert(node).second)
      for (const Var& in : node->inputs()) n += in == v;
  return n;
}

/// `v` without a chain of two DimShuffles that compose to the identity
/// (gradients of broadcasts leave DimShuffle{1}(DimShuffle{x,0}(s))).
Var strip_identity_dimshuffles(Var v) {
  for (;;) {
    const Apply* outer = v.owner();
    const auto* d1 = outer ? dynamic_cast<const T::DimShuffle*>(outer->op().get()) : nullptr;
    const Apply* inner = d1 ? outer->input(0).owner() : nullptr;
    const auto* d0 = inner ? dynamic_cast<const T::DimShuffle*>(inner->op().get()) : nullptr;
    if (!d0) return v;
    const Var& w = inner->input(0);
    const auto& o0 = d0->new_order();
    const auto& o1 = d1->new_order();
    std::vector<int> composed;
    for (int j : o1) composed.push_back(j == T::kNewAxis ? T::kNewAxis : o0[static_cast<std::size_t>(j)]);
    for (std::size_t j = 0; j < composed.size(); ++j)
      if (composed[j] != static_cast<int>(j)) return v;
    if (static_cast<int>(composed.size()) != T::tensor_type(w)->ndim()) return v;
    v = w;
  }
}

bool is_add(const Apply& node) {
  const auto keys = dispatch_keys(node);
  return std::find(keys.begin(), keys.end(), "Elemwise:add") != keys.end();
}

}  // namespace

NodeRewriterPtr scan_pushout_add() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "scan_pushout_add", {"Scan"},
      "acc' = acc + dot(a^T, b) | acc + sum(b, 0) kept as its last value -> acc0 + dot(A^T, B) | acc0 + sum(B) after "
      "the loop",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const ScanParts p = ScanParts::of(node);
        const std::vector<Var> outs = p.inner_outputs();
        for (std::size_t r = 0; r < p.recs.size(); ++r) {
          const auto& c = p.recs[r];
          if (!c.last || c.taps != std::vector<std::int64_t>{-1} || !c.inner_out.owner()) continue;
          const Apply& add = *c.inner_out.owner();
          const Var& acc = c.inner[0];
          if (!is_add(add) || add.nout() != 1 || uses_in(outs, acc) != 1) continue;
          if (std::count(add.inputs().begin(), add.inputs().end(), acc) != 1 || add.nin() != 2) continue;
          if (uses_in(outs, c.inner_out) != 0) continue;  // the new value is read by the step itself
          const Var term = strip_identity_dimshuffles(add.input(0) == acc ? add.input(1) : add.input(0));
          const T::TensorType* tt = T::tensor_type(term);
          const T::TensorType* ta = T::tensor_type(acc);
          if (!tt || tt->dtype() != ta->dtype() || tt->ndim() != ta->ndim()) continue;
          const Apply* t = term.owner();
          if (!t) continue;
          // The per-step operands.
          std::vector<Var> per_step;
          enum { kDot, kSum } kind;
          if (const auto* d = dynamic_cast<const T::Dot*>(t->op().get()); d && t->input(0).owner()) {
            const auto* ds = dynamic_cast<const T::DimShuffle*>(t->input(0).owner()->op().get());
            if (!ds || !ds->is_transpose() || T::tensor_type(t->input(1))->ndim() != 2) continue;
            per_step = {t->input(0).owner()->input(0), t->input(1)};
            kind = kDot;
          } else if (const auto* red = dynamic_cast<const T::CAReduce*>(t->op().get());
                     red && red->kind() == T::ReduceKind::Add && !red->pre() && red->axes() == std::vector<int>{0} &&
                     T::tensor_type(t->input(0))->dtype() == tt->dtype()) {
            per_step = {t->input(0)};
            kind = kSum;
          } else {
            continue;
          }
          // Each operand's values over the steps: a sequence's rows in step
          // order, or a (new) map output; operands that do not vary are left to scan_pushout.
          ScanParts q = p;
          q.recs.erase(q.recs.begin() + static_cast<std::ptrdiff_t>(r));
          std::vector<std::optional<Var>> rows_of(per_step.size());
          std::vector<std::size_t> new_map(per_step.size(), SIZE_MAX);
          bool ok = true;
          for (std::size_t k = 0; k < per_step.size() && ok; ++k) {
            const Var& v = per_step[k];
            for (const auto& s : p.seqs)
              if (s.taps == std::vector<std::int64_t>{0} && s.inner[0] == v) {
                const Var len = T::shape_i(s.outer, 0);
                rows_of[k] = p.info.go_backwards
                                 ? T::subtensor(T::subtensor(s.outer, {T::Index(T::slice(T::Bound(T::sub(len, p.n_steps)), {}))}),
                                                {T::Index(T::slice({}, {}, T::Bound(std::int64_t{-1})))})
                                 : T::subtensor(s.outer, {T::Index(T::slice({}, T::Bound(p.n_steps)))});
              }
            if (rows_of[k]) continue;
            if (v.is_constant() || std::any_of(p.nonseqs.begin(), p.nonseqs.end(), [&](const auto& n) { return n.inner == v; })) {
              ok = false;
              break;
            }
            auto same = std::find_if(q.maps.begin(), q.maps.end(), [&](const auto& m) { return m.inner_out == v; });
            if (same != q.maps.end()) {
              new_map[k] = static_cast<std::size_t>(same - q.maps.begin());
            } else {
              new_map[k] = q.maps.size();
              q.maps.push_back({v, Var()});
            }
          }
          if (!ok) continue;
          const std::vector<Var> fresh = q.build();
          std::vector<Var> repl(static_cast<std::size_t>(node.nout()));
          std::size_t f = 0;
          for (const auto& rc : q.recs) repl[static_cast<std::size_t>(*rc.outer_out.index())] = fresh[f++];
          const std::size_t first_map = f;
          for (const auto& m : q.maps) {
            if (m.outer_out) repl[static_cast<std::size_t>(*m.outer_out.index())] = fresh[f];
            ++f;
          }
          std::vector<Var> whole;
          for (std::size_t k = 0; k < per_step.size(); ++k)
            whole.push_back(rows_of[k] ? *rows_of[k] : fresh[first_map + new_map[k]]);
          Var total;
          if (kind == kDot) {
            // sum_t a_t^T b_t = A^T B with the steps stacked along the rows.
            auto flat = [](const Var& x) {
              const Var rows = T::mul(T::shape_i(x, 0), T::shape_i(x, 1));
              return T::reshape(x, T::make_vector({rows, T::shape_i(x, 2)}), 2);
            };
            if (T::tensor_type(whole[0])->ndim() != 3 || T::tensor_type(whole[1])->ndim() != 3) continue;
            total = T::dot(T::transpose(flat(whole[0])), flat(whole[1]));
          } else {
            total = T::sum(whole[0], T::Axes({0, 1}));
          }
          Var final_value = T::add(c.init, total);
          if (!(*final_value.type() == *c.outer_out.type()))
            final_value = T::specify_shape(final_value, T::tensor_type(c.outer_out)->shape());
          repl[static_cast<std::size_t>(*c.outer_out.index())] = final_value;
          return repl;
        }
        return RewriteResult::fail("no last-value accumulator of a dot(a^T, b) or a sum over axis 0");
      });
  return r;
}

}  // namespace theano::rewrite::detail
