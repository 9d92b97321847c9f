/// \file
/// Backpropagation through time: the gradient of a Scan is another Scan
/// that walks the steps backwards (Theano's scan grad, PyTensor's
/// `Scan.L_op`).
///
/// At forward step t the step computed out = F(slices_t, taps_t, W). The
/// backward scan visits t = T-1 .. 0 with, as sequences, the values every
/// inner input had at step t (sequence slices, and the recurrent taps read
/// from the outputs stacked after the initial states) and the cotangents of
/// the outputs at t. It carries, per recurrent output r with taps down to
/// -K, the K pending gradients stacked in one (K, ...) tensor P: P[j - 1] is
/// what the later steps sent to Y_r[t - j + 1], so the total cotangent of
/// Y_r[t] is g_Y_r[t] + P[0], and the next P is P shifted up one row (a zero
/// row last) plus d(tap -j) at row j - 1. One stacked carry keeps the graph's
/// size independent of K (a tap of -2^40 is one tensor, not 2^40 nodes);
/// a plain state (taps {-1}) carries its single pending value unstacked.
/// Non-sequence gradients are
/// summed in carried accumulators; sequence gradients come out per step and
/// are added back at their taps' rows. With truncate_gradient = k only the
/// last k steps are visited (the initial states then get no gradient).
#include <algorithm>
#include <unordered_map>

#include "theano/control/ifelse.h"
#include "theano/control/scan.h"
#include "theano/gradient.h"
#include "theano/graph/clone.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano {

namespace T = theano::tensor;

namespace {

bool is_real(const Var& v) {
  const T::TensorType* t = T::tensor_type(v);
  return t && is_float(t->dtype());
}

Var rows(const Var& x, const Var& start, const Var& stop) {
  return T::subtensor(x, {T::Index(T::slice(T::Bound(start), T::Bound(stop)))});
}

Var reversed(const Var& x) { return T::subtensor(x, {T::Index(T::slice({}, {}, T::Bound(std::int64_t{-1})))}); }

Var i64(std::int64_t v) { return T::constant(NDArray::scalar<std::int64_t>(v)); }

}  // namespace

std::vector<Var> Scan::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const ScanInfo& in = info_;
  for (int r = 0; r < in.n_rec(); ++r)
    THEANO_USER_CHECK(!in.last_only(r), MethodNotDefined)
        << name() << ": no gradient of an optimized scan (output " << r
        << " keeps its last value only); take gradients before compiling";
  THEANO_USER_CHECK(!in.until, MethodNotDefined)
      << name() << ": no gradient through a scan with an until condition (the number of steps depends on the values)";
  const int ns = in.n_seq(), nr = in.n_rec(), nm = in.n_map, nn = in.n_nonseq;
  const Var steps = node.input(0);
  // Steps the backward pass visits: all, or the last truncate_gradient.
  const Var back_steps = in.truncate_gradient >= 0 ? T::minimum(steps, i64(in.truncate_gradient)) : steps;
  const Var skipped = T::sub(steps, back_steps);  // forward steps before the first one visited

  // Sequences of the backward scan: each forward inner input's value per
  // forward step (only the visited ones: rows skipped .. steps-1).
  std::vector<SeqInfo> seqs;
  std::vector<Var> fwd_inner_of_seq;  // the forward inner input each sequence stands for
  std::vector<Var> effective(static_cast<std::size_t>(ns));
  std::size_t inner = 0;
  for (int s = 0; s < ns; ++s) {
    const Var& seq = node.input(1 + s);
    effective[static_cast<std::size_t>(s)] = in.go_backwards ? reversed(seq) : seq;
    const auto& taps = in.seq_taps[static_cast<std::size_t>(s)];
    const std::int64_t lo = *std::min_element(taps.begin(), taps.end());
    for (std::int64_t tap : taps) {
      const Var start = T::add(skipped, i64(tap - lo));
      seqs.emplace_back(rows(effective[static_cast<std::size_t>(s)], start, T::add(start, back_steps)));
      fwd_inner_of_seq.push_back(inner_inputs_[inner++]);
    }
  }
  for (int r = 0; r < nr; ++r) {
    const Var& init = node.input(1 + ns + r);
    const std::int64_t K = in.lag(r);
    const Var head = in.plain_state(r) ? T::shape_padleft(init) : rows(init, i64(0), i64(K));
    const Var buf = T::join(0, {head, node.output(r)});
    for (std::int64_t tap : in.rec_taps[static_cast<std::size_t>(r)]) {
      const Var start = T::add(skipped, i64(K + tap));
      seqs.emplace_back(rows(buf, start, T::add(start, back_steps)));
      fwd_inner_of_seq.push_back(inner_inputs_[inner++]);
    }
  }
  const std::size_t n_values = seqs.size();
  // The outputs' values at each visited step: the gradient graph reads them
  // instead of recomputing the step (tanh's gradient reads tanh's output).
  std::vector<int> stored;  // forward inner outputs given as values
  for (int k = 0; k < nr + nm; ++k)
    if (inner_outputs_[static_cast<std::size_t>(k)].owner()) {
      stored.push_back(k);
      seqs.emplace_back(rows(node.output(k), skipped, steps));
    }
  // Cotangents of the outputs at the visited steps (zeros where none flows).
  std::vector<int> real_rec;  // recurrent outputs that carry gradients
  for (int r = 0; r < nr; ++r)
    if (is_real(node.output(r))) real_rec.push_back(r);
  std::vector<int> real_map;
  for (int m = 0; m < nm; ++m)
    if (is_real(node.output(nr + m)) && output_grads[static_cast<std::size_t>(nr + m)]) real_map.push_back(m);
  for (int r : real_rec) {
    const Var& g = output_grads[static_cast<std::size_t>(r)];
    const Var gy = g ? g : T::zeros_like(node.output(r));
    seqs.emplace_back(rows(gy, skipped, steps));
  }
  for (int m : real_map) seqs.emplace_back(rows(output_grads[static_cast<std::size_t>(nr + m)], skipped, steps));

  // Carried: the pending gradients per real recurrent output (one value, or
  // K stacked), one sum per real non-sequence.
  std::vector<OutputInfo> carried;
  for (int r : real_rec) {
    const Var& init = node.input(1 + ns + r);
    carried.emplace_back(T::zeros_like(in.plain_state(r) ? init : rows(init, i64(0), i64(in.lag(r)))));
  }
  std::vector<int> real_nonseq;
  for (int k = 0; k < nn; ++k)
    if (is_real(node.input(1 + ns + nr + k))) {
      real_nonseq.push_back(k);
      carried.emplace_back(T::zeros_like(node.input(1 + ns + nr + k)));
    }
  // Per-step gradients of the real sequence slices (map outputs).
  std::vector<std::size_t> real_slices;
  std::size_t slice_count = 0;
  for (int s = 0; s < ns; ++s)
    for (std::size_t k = 0; k < in.seq_taps[static_cast<std::size_t>(s)].size(); ++k, ++slice_count)
      if (is_real(fwd_inner_of_seq[slice_count])) {
        real_slices.push_back(slice_count);
        carried.push_back(OutputInfo::none());
      }

  std::vector<Var> nonseqs;
  for (int k = 0; k < nn; ++k) nonseqs.push_back(node.input(1 + ns + nr + k));

  const std::vector<Var> fwd_outputs(inner_outputs_.begin(), inner_outputs_.begin() + nr + nm);
  auto step = [&](const std::vector<Var>& a) -> StepResult {
    std::size_t at = 0;
    std::vector<std::pair<Var, Var>> repl;
    std::vector<Var> values;  // per forward inner input (sequence slices and taps)
    for (std::size_t j = 0; j < n_values; ++j) {
      repl.emplace_back(fwd_inner_of_seq[j], a[at]);
      values.push_back(a[at++]);
    }
    std::vector<Var> stored_values;
    for (std::size_t k = 0; k < stored.size(); ++k) stored_values.push_back(a[at++]);
    std::vector<Var> gy, gm;
    for (std::size_t k = 0; k < real_rec.size(); ++k) gy.push_back(a[at++]);
    for (std::size_t k = 0; k < real_map.size(); ++k) gm.push_back(a[at++]);
    std::vector<Var> pending;  // per real recurrent output: its value, or P stacked
    for (std::size_t k = 0; k < real_rec.size(); ++k) pending.push_back(a[at++]);
    std::vector<Var> gw;
    for (std::size_t k = 0; k < real_nonseq.size(); ++k) gw.push_back(a[at++]);
    std::vector<Var> ns_inner(a.begin() + static_cast<std::ptrdiff_t>(at), a.end());
    for (int k = 0; k < nn; ++k)
      repl.emplace_back(inner_inputs_[n_values + static_cast<std::size_t>(k)], ns_inner[static_cast<std::size_t>(k)]);
    const std::vector<Var> outs = clone_replace(fwd_outputs, repl);

    // Seeds: total cotangent of each output at this step (summed when one
    // variable is several outputs).
    std::unordered_map<Var, Var> seed;
    auto add_seed = [&](const Var& v, const Var& g) {
      auto [it, fresh] = seed.emplace(v, g);
      if (!fresh) it->second = T::add(it->second, g);
    };
    for (std::size_t k = 0; k < real_rec.size(); ++k)
      add_seed(outs[static_cast<std::size_t>(real_rec[k])],
               T::add(gy[k], in.plain_state(real_rec[k]) ? pending[k]
                                                         : T::subtensor(pending[k], {T::Index(std::int64_t{0})})));
    for (std::size_t k = 0; k < real_map.size(); ++k) add_seed(outs[static_cast<std::size_t>(nr + real_map[k])], gm[k]);
    std::vector<Var> wrt = values;
    for (int k : real_nonseq) wrt.push_back(ns_inner[static_cast<std::size_t>(k)]);
    std::vector<Var> real_wrt;
    for (const Var& w : wrt)
      if (is_real(w)) real_wrt.push_back(w);
    GradOptions opt;
    opt.disconnected_inputs = DisconnectedInputs::Ignore;
    for (const auto& [v, g] : seed) opt.known_grads.emplace_back(v, g);
    std::vector<Var> d = real_wrt.empty() || seed.empty() ? std::vector<Var>{} : theano::grad(Var(), real_wrt, opt);
    // Where the gradient reads a step's output, read the stored value.
    std::vector<std::pair<Var, Var>> by_value;
    for (std::size_t k = 0; k < stored.size(); ++k)
      by_value.emplace_back(outs[static_cast<std::size_t>(stored[k])], stored_values[k]);
    std::vector<std::size_t> defined;
    std::vector<Var> present;
    for (std::size_t k = 0; k < d.size(); ++k)
      if (d[k]) {
        defined.push_back(k);
        present.push_back(d[k]);
      }
    if (!present.empty() && !by_value.empty()) {
      present = clone_replace(present, by_value);
      for (std::size_t j = 0; j < defined.size(); ++j) d[defined[j]] = present[j];
    }
    std::unordered_map<Var, Var> d_of;
    for (std::size_t k = 0; k < d.size(); ++k) d_of[real_wrt[k]] = d[k];
    auto d_or_zero = [&](const Var& w) {
      auto it = d_of.find(w);
      return it != d_of.end() && it->second ? it->second : T::zeros_like(w);
    };

    StepResult res;
    std::size_t tap_index = slice_count;  // the first recurrent tap among `values`
    std::size_t rec_k = 0;
    for (int r = 0; r < nr; ++r) {
      const auto& taps = in.rec_taps[static_cast<std::size_t>(r)];
      const bool real = std::find(real_rec.begin(), real_rec.end(), r) != real_rec.end();
      if (real) {
        const Var& P = pending[rec_k++];
        if (in.plain_state(r)) {
          res.outputs.push_back(d_or_zero(values[tap_index]));  // the one tap, -1
        } else {
          // Shift up one row (Y[t] is done), then add each tap's gradient at its row.
          const Var rest = T::subtensor(P, {T::Index(T::slice(T::Bound(std::int64_t{1}), {}))});
          const Var last = T::zeros_like(T::subtensor(P, {T::Index(T::slice({}, T::Bound(std::int64_t{1})))}));
          Var next = T::join(0, {rest, last});
          for (std::size_t i = 0; i < taps.size(); ++i)
            next = T::inc_subtensor(T::subtensor(next, {T::Index(-taps[i] - 1)}), d_or_zero(values[tap_index + i]));
          res.outputs.push_back(next);
        }
      }
      tap_index += taps.size();
    }
    for (std::size_t k = 0; k < real_nonseq.size(); ++k)
      res.outputs.push_back(T::add(gw[k], d_or_zero(ns_inner[static_cast<std::size_t>(real_nonseq[k])])));
    for (std::size_t j : real_slices) res.outputs.push_back(d_or_zero(values[j]));
    // Keep each carried value's exact type (static shapes) across steps.
    for (std::size_t k = 0; k < res.outputs.size() && k < carried.size(); ++k)
      if (carried[k].initial) {
        const T::TensorType* want = T::tensor_type(carried[k].initial);
        Var& o = res.outputs[k];
        if (T::tensor_type(o)->dtype() != want->dtype()) o = T::cast(o, want->dtype());
      }
    return res;
  };

  const ScanResult br = scan(step, ScanArgs()
                                       .sequences(seqs)
                                       .outputs_info(carried)
                                       .non_sequences(nonseqs)
                                       .n_steps(back_steps)
                                       .go_backwards(true)
                                       .name(in.name + "_grad"));

  std::vector<Var> grads(static_cast<std::size_t>(node.nin()));
  std::size_t at = 0;
  for (int r : real_rec) {
    const Var& init = node.input(1 + ns + r);
    const std::int64_t K = in.lag(r);
    // The pending gradient of Y[-1] (plain), or of Y[-1], Y[-2], .., Y[-K] stacked.
    const Var head = in.plain_state(r) ? init : rows(init, i64(0), i64(K));
    const Var finals = last_value(br.outputs[at++], T::zeros_like(head));
    // Init row i is Y[i - K]: the stacked pendings in reverse.
    Var g = in.plain_state(r) ? finals : T::inc_subtensor(rows(T::zeros_like(init), i64(0), i64(K)), reversed(finals));
    // Truncated: the initial states are beyond the steps visited.
    if (in.truncate_gradient >= 0) g = ifelse(T::gt(skipped, std::int64_t{0}), T::zeros_like(init), g);
    grads[static_cast<std::size_t>(1 + ns + r)] = g;
  }
  for (int k : real_nonseq) {
    const Var& seq = br.outputs[at++];
    grads[static_cast<std::size_t>(1 + ns + nr + k)] = last_value(seq, T::zeros_like(node.input(1 + ns + nr + k)));
  }
  // Sequence gradients: per-step slices (visited backwards) added at their rows.
  std::vector<Var> dseq(static_cast<std::size_t>(ns));
  std::size_t slice_at = 0;
  std::size_t real_at = 0;
  for (int s = 0; s < ns; ++s) {
    const auto& taps = in.seq_taps[static_cast<std::size_t>(s)];
    const std::int64_t lo = *std::min_element(taps.begin(), taps.end());
    Var acc_seq;
    for (std::int64_t tap : taps) {
      const bool real = real_at < real_slices.size() && real_slices[real_at] == slice_at;
      ++slice_at;
      if (!real) continue;
      const Var per_step = reversed(br.outputs[at + real_at++]);  // forward step order
      const Var start = T::add(skipped, i64(tap - lo));
      const Var base = acc_seq ? acc_seq : T::zeros_like(effective[static_cast<std::size_t>(s)]);
      acc_seq = T::inc_subtensor(rows(base, start, T::add(start, back_steps)), per_step);
    }
    if (acc_seq) grads[static_cast<std::size_t>(1 + s)] = in.go_backwards ? reversed(acc_seq) : acc_seq;
  }
  return grads;
}

}  // namespace theano
