/// \file
/// `scan()` and its helpers (control/scan.h): builds the step's inner graph
/// from fresh inner variables (the outer variables themselves for the
/// non-sequences, then replaced by placeholders, as Theano does), finds the
/// outer variables it closes over (made non-sequences, as Theano does; an
/// error under ScanArgs::strict), carries shared-variable updates
/// (explicit ones and random streams' default updates) as recurrent
/// outputs, and wires one Scan node.
#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "scan_parts.h"
#include "theano/compile/shared.h"
#include "theano/control/ifelse.h"
#include "theano/control/scan.h"
#include "theano/gradient.h"
#include "theano/graph/clone.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano {

using tensor::StaticShape;
using tensor::TensorType;

namespace {

const TensorType& tensor_of(const Var& v, const std::string& what) {
  const TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t != nullptr, TypeError) << what << " " << v.str() << " must be a tensor, got " << v.type()->str();
  return *t;
}

/// A fresh variable of `t`'s dtype with the first `drop` dimensions removed.
Var inner_var(const TensorType& t, int drop, const std::string& name) {
  StaticShape s(t.shape().begin() + drop, t.shape().end());
  return TensorType::make(t.dtype(), std::move(s))->make_variable(name);
}

std::string label(const Var& v, const std::string& fallback) { return v.name().empty() ? fallback : v.name(); }

}  // namespace

ScanResult scan(const StepFn& step, const ScanArgs& args) { return detail::scan(step, detail::kVectorStep, args); }

const Var& ScanResult::output() const {
  THEANO_USER_CHECK(outputs.size() == 1, ValueError)
      << "ScanResult::output(): the scan has " << outputs.size()
      << " outputs; use `outputs[i]` (output() is for a scan with one output)";
  return outputs[0];
}

namespace {

/// The options scan() checks before building anything (the others as it reads them).
void check_options(const ScanArgs& args) {
  const std::string& nm = args.name();
  THEANO_USER_CHECK(args.truncate_gradient() >= -1, ValueError)
      << nm << ": truncate_gradient is " << args.truncate_gradient()
      << "; it must be -1 (backpropagate through every step) or a number of steps >= 0";
  THEANO_USER_CHECK(!args.save_every_N() && !args.padding(), ValueError)
      << nm << ": " << (args.save_every_N() ? "save_every_N" : "padding")
      << " is an option of scan_checkpoints, not of scan";
}

/// "2 sequence slices, 1 previous output, 1 non-sequence": what the step receives.
std::string argument_kinds(std::size_t slices, std::size_t taps, std::size_t nonseqs) {
  auto part = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return part(slices, "sequence slice", "sequence slices") + ", " + part(taps, "previous output", "previous outputs") +
         ", " + part(nonseqs, "non-sequence", "non-sequences");
}

}  // namespace

ScanResult detail::scan(const StepFn& step, std::size_t arity, const ScanArgs& args) {
  const std::string& nm = args.name();
  check_options(args);
  ScanInfo info;
  info.name = nm;
  info.go_backwards = args.go_backwards();
  info.truncate_gradient = args.truncate_gradient();

  std::vector<Var> step_args;  // what the step receives, Theano's order
  std::vector<Var> seq_inner, rec_inner, nonseq_inner;
  std::vector<Var> outer_seqs, outer_inits, outer_nonseqs;
  for (std::size_t s = 0; s < args.sequences().size(); ++s) {
    const SeqInfo& q = args.sequences()[s];
    const std::string what = nm + ": sequence " + std::to_string(s);
    THEANO_USER_CHECK(q.value, ValueError) << what << " is null";
    Var v = tensor::as_tensor_variable(q.value);
    const TensorType& t = tensor_of(v, what);
    THEANO_USER_CHECK(t.ndim() >= 1, TypeError)
        << what << " (" << v.str() << ") must have at least one dimension to iterate over, got " << t.str();
    ScanInfo::check_tap_list(q.taps, /*recurrent=*/false, what);
    for (std::int64_t tap : q.taps) {
      Var in = inner_var(t, 1, label(v, "seq" + std::to_string(s)) + "[t" + (tap >= 0 ? "+" : "") +
                                   std::to_string(tap) + "]");
      seq_inner.push_back(in);
      step_args.push_back(in);
    }
    info.seq_taps.push_back(q.taps);
    outer_seqs.push_back(v);
  }
  // Outputs: recurrent ones keep the user's order among themselves, maps after.
  std::vector<int> rec_of, map_of;  // user output index -> position in its group (-1: other group)
  std::vector<Var> rec_out(args.outputs_info().size()), map_out;
  for (std::size_t k = 0; k < args.outputs_info().size(); ++k) {
    const OutputInfo& o = args.outputs_info()[k];
    const std::string what = nm + ": output " + std::to_string(k);
    if (!o.initial) {
      rec_of.push_back(-1);
      map_of.push_back(info.n_map++);
      continue;
    }
    map_of.push_back(-1);
    rec_of.push_back(info.n_rec());
    ScanInfo::check_tap_list(o.taps, /*recurrent=*/true, what);
    Var init = tensor::as_tensor_variable(o.initial);
    const TensorType& t = tensor_of(init, what + ": the initial value");
    const bool plain = o.taps.size() == 1 && o.taps[0] == -1;
    const std::int64_t K = -*std::min_element(o.taps.begin(), o.taps.end());
    if (!plain) {
      THEANO_USER_CHECK(t.ndim() >= 1, TypeError)
          << what << ": with taps down to " << -K << " the initial value stacks " << K
          << " states (one more dimension), but " << init.str() << " has type " << t.str();
      THEANO_USER_CHECK(!t.shape()[0] || *t.shape()[0] >= K, ValueError)
          << what << ": taps down to " << -K << " need " << K << " initial states, but " << init.str() << " has "
          << *t.shape()[0];
    }
    for (std::int64_t tap : o.taps) {
      Var in = inner_var(t, plain ? 0 : 1, label(init, "out" + std::to_string(k)) + "[t" + std::to_string(tap) + "]");
      rec_inner.push_back(in);
      step_args.push_back(in);
    }
    info.rec_taps.push_back(o.taps);
    outer_inits.push_back(init);
  }
  rec_out.resize(static_cast<std::size_t>(info.n_rec()));
  // Non-sequences: the step receives the outer variables themselves (as in
  // Theano), so it may differentiate through them (grad(y[i], x) with y and x
  // non-sequences); its graph is then moved onto inner placeholders.
  std::vector<std::pair<Var, Var>> nonseq_repl;
  for (std::size_t k = 0; k < args.non_sequences().size(); ++k) {
    THEANO_USER_CHECK(args.non_sequences()[k], ValueError) << nm << ": non-sequence " << k << " is null";
    Var v = tensor::as_tensor_variable(args.non_sequences()[k]);
    const TensorType& t = tensor_of(v, nm + ": non-sequence " + std::to_string(k));
    Var in = inner_var(t, 0, label(v, "nonseq" + std::to_string(k)));
    nonseq_inner.push_back(in);
    step_args.push_back(v);
    outer_nonseqs.push_back(v);
    if (std::none_of(nonseq_repl.begin(), nonseq_repl.end(), [&](const auto& p) { return p.first == v; }))
      nonseq_repl.emplace_back(v, in);
  }

  if (arity != detail::kVectorStep)
    THEANO_USER_CHECK(arity == step_args.size(), ValueError)
        << nm << ": the step takes " << arity << (arity == 1 ? " argument" : " arguments") << " but scan gives it "
        << step_args.size() << " (" << argument_kinds(seq_inner.size(), rec_inner.size(), outer_nonseqs.size())
        << ", in that order: one per tap of each sequence and of each output in outputs_info, then the "
           "non_sequences)";
  StepResult res;
  try {
    res = step(step_args);
  } catch (const DisconnectedInputError& e) {
    throw DisconnectedInputError(
        nm + ": in the step function: " + e.what() +
        "\nscan gives the step fresh variables for the sequences' slices and the outputs' earlier values, and "
        "the outer variables themselves for non_sequences: to differentiate an outer expression inside the step, "
        "pass it and the variables to differentiate with respect to in ScanArgs::non_sequences (Theano's "
        "jacobian: scan over arange(n) with non_sequences = {y, x}); ignoring the error would give zeros");
  }
  if (!nonseq_repl.empty()) {  // the step's graph over the placeholders instead of the outer non-sequences
    std::vector<Var> returned;
    for (const Var& v : res.outputs) returned.push_back(v ? tensor::as_tensor_variable(v) : v);
    for (const auto& [sv, upd] : res.updates) returned.push_back(upd ? tensor::as_tensor_variable(upd) : upd);
    if (res.until) returned.push_back(tensor::as_tensor_variable(res.until));
    std::vector<Var> present;
    for (const Var& v : returned)
      if (v) present.push_back(v);
    const std::vector<Var> moved = clone_replace(present, nonseq_repl);
    std::size_t at = 0, k = 0;
    auto next = [&](Var& slot) {
      if (returned[k++]) slot = moved[at++];
    };
    for (Var& v : res.outputs) next(v);
    std::vector<std::pair<Var, Var>> updates = res.updates.pairs();
    for (auto& [sv, upd] : updates) next(upd);
    res.updates = Updates(std::move(updates));
    if (res.until) next(res.until);
  }
  std::vector<OutputInfo> outputs_info = args.outputs_info();
  if (outputs_info.empty())  // Theano's outputs_info=None: every output is a map output
    for (std::size_t k = 0; k < res.outputs.size(); ++k) {
      outputs_info.push_back(OutputInfo::none());
      rec_of.push_back(-1);
      map_of.push_back(info.n_map++);
    }
  map_out.resize(static_cast<std::size_t>(info.n_map));
  THEANO_USER_CHECK(res.outputs.size() == outputs_info.size(), ValueError)
      << nm << ": the step returned " << res.outputs.size() << " outputs but outputs_info lists "
      << args.outputs_info().size() << " (give OutputInfo::none() for an output without recurrence)";
  for (std::size_t k = 0; k < res.outputs.size(); ++k) {
    THEANO_USER_CHECK(res.outputs[k], ValueError) << nm << ": the step's output " << k << " is null";
    Var v = tensor::as_tensor_variable(res.outputs[k]);
    if (rec_of[k] >= 0) rec_out[static_cast<std::size_t>(rec_of[k])] = v;
    else map_out[static_cast<std::size_t>(map_of[k])] = v;
  }
  // Check each recurrent output against its state, naming the user's output.
  {
    std::size_t tap_at = 0;
    for (std::size_t k = 0; k < res.outputs.size(); ++k) {
      if (rec_of[k] < 0) continue;
      const int r = rec_of[k];
      const Var& state = rec_inner[tap_at];
      tap_at += info.rec_taps[static_cast<std::size_t>(r)].size();
      const Var& v = rec_out[static_cast<std::size_t>(r)];
      const TensorType& ts = *tensor::tensor_type(state);
      const TensorType& tv = tensor_of(v, nm + ": the step's output " + std::to_string(k));
      THEANO_USER_CHECK(tv.dtype() == ts.dtype() && tv.ndim() == ts.ndim(), TypeError)
          << nm << ": output " << k << ": the step returns " << v.str() << " of type " << tv.str()
          << " but outputs_info gives states of type " << ts.str()
          << "; a recurrent output keeps its dtype and number of dimensions (cast the step's result or the initial "
             "value)";
    }
  }

  // Shared variables updated by the step, explicitly or by their default
  // update (random streams): carried as recurrent outputs with tap -1.
  std::vector<std::pair<Var, Var>> carried;  // (shared variable, its new value in the step)
  std::unordered_set<const Variable*> explicit_upd;
  for (const auto& [sv, upd] : res.updates) {
    THEANO_USER_CHECK(is_shared(sv), TypeError)
        << nm << ": the step updates " << sv.str() << ", which is not a shared variable";
    THEANO_USER_CHECK(upd, ValueError) << nm << ": the step's update of " << sv.str() << " is a null Var";
    explicit_upd.insert(sv.get());  // Updates holds each key once
    carried.emplace_back(sv, tensor::as_tensor_variable(upd));
  }
  std::vector<Var> roots = rec_out;
  roots.insert(roots.end(), map_out.begin(), map_out.end());
  if (res.until) roots.push_back(tensor::as_tensor_variable(res.until));
  for (const auto& [sv, upd] : carried) roots.push_back(upd);
  std::unordered_set<Var> given(seq_inner.begin(), seq_inner.end());
  given.insert(rec_inner.begin(), rec_inner.end());
  given.insert(nonseq_inner.begin(), nonseq_inner.end());
  // Default updates of shared variables the step reads (until none is new).
  for (bool more = true; more;) {
    more = false;
    for (const Var& v : inputs(roots)) {
      const SharedVariable* sv = as_shared(v);
      if (!sv || explicit_upd.count(v.get()) || !sv->default_update()) continue;
      const Var u = sv->default_update();
      const std::vector<Var> deps = ancestors({u});
      // Only an update computed inside the step (it depends on the value read there) is carried.
      if (std::find(deps.begin(), deps.end(), v) == deps.end()) continue;
      explicit_upd.insert(v.get());
      carried.emplace_back(v, u);
      roots.push_back(u);
      more = true;
    }
  }
  // Replace each carried shared variable by an inner state, and every other
  // outer variable the step closes over by an inner non-sequence.
  std::vector<std::pair<Var, Var>> repl;
  std::vector<Var> carried_inner;
  for (const auto& [sv, upd] : carried) {
    const TensorType& t = tensor_of(sv, nm + ": updated shared variable");
    Var in = inner_var(t, 0, label(sv, "shared") + "[t-1]");
    repl.emplace_back(sv, in);
    carried_inner.push_back(in);
    const TensorType& tu = tensor_of(upd, nm + ": the update of " + sv.str());
    THEANO_USER_CHECK(tu.dtype() == t.dtype() && tu.ndim() == t.ndim(), TypeError)
        << nm << ": the update of " << sv.str() << " (" << t.str() << ") has type " << tu.str();
  }
  std::vector<Var> implicit_outer, implicit_inner;
  for (const Var& v : inputs(roots)) {
    if (v.is_constant() || given.count(v)) continue;
    if (std::any_of(carried.begin(), carried.end(), [&](const auto& p) { return p.first == v; })) continue;
    THEANO_USER_CHECK(!args.strict(), ValueError)
        << nm << ": strict: the step reads " << v.str() << (is_shared(v) ? " (a shared variable)" : "")
        << ", which scan does not give it; pass it in non_sequences (or as a sequence or outputs_info entry)";
    const TensorType& t = tensor_of(v, nm + ": the step reads the outer variable");
    Var in = inner_var(t, 0, label(v, "outer"));
    repl.emplace_back(v, in);
    implicit_outer.push_back(v);
    implicit_inner.push_back(in);
  }
  std::vector<Var> inner_outs = rec_out;
  for (const auto& [sv, upd] : carried) inner_outs.push_back(upd);
  inner_outs.insert(inner_outs.end(), map_out.begin(), map_out.end());
  if (res.until) inner_outs.push_back(tensor::as_tensor_variable(res.until));
  inner_outs = clone_replace(inner_outs, repl);
  for (std::size_t c = 0; c < carried.size(); ++c) info.rec_taps.push_back({-1});
  info.until = static_cast<bool>(res.until);
  info.n_nonseq = static_cast<int>(outer_nonseqs.size() + implicit_outer.size());

  std::vector<Var> inner_ins = seq_inner;
  inner_ins.insert(inner_ins.end(), rec_inner.begin(), rec_inner.end());
  inner_ins.insert(inner_ins.end(), carried_inner.begin(), carried_inner.end());
  inner_ins.insert(inner_ins.end(), nonseq_inner.begin(), nonseq_inner.end());
  inner_ins.insert(inner_ins.end(), implicit_inner.begin(), implicit_inner.end());

  // The number of steps: given, else what the sequences allow.
  Var n_steps;
  if (args.n_steps()) {
    n_steps = detail::checked_n_steps(args.n_steps(), nm);
  } else {
    THEANO_USER_CHECK(!outer_seqs.empty(), ValueError)
        << nm << ": without sequences the number of steps must be given (ScanArgs::n_steps)";
    for (std::size_t s = 0; s < outer_seqs.size(); ++s) {
      const std::int64_t span = info.seq_span(static_cast<int>(s));  // checked above
      Var avail = tensor::maximum(tensor::sub(tensor::shape_i(outer_seqs[s], 0), span), std::int64_t{0});
      n_steps = n_steps ? tensor::minimum(n_steps, avail) : avail;
    }
    n_steps = tensor::cast(n_steps, DType::Int64);
  }

  std::vector<Var> outer{n_steps};
  outer.insert(outer.end(), outer_seqs.begin(), outer_seqs.end());
  outer.insert(outer.end(), outer_inits.begin(), outer_inits.end());
  for (const auto& [sv, upd] : carried) outer.push_back(sv);
  outer.insert(outer.end(), outer_nonseqs.begin(), outer_nonseqs.end());
  outer.insert(outer.end(), implicit_outer.begin(), implicit_outer.end());
  const std::vector<Var> outs = (*OpPtr(new Scan(info, inner_ins, inner_outs)))(outer);

  ScanResult result;
  const std::size_t n_user_rec = rec_out.size();
  for (std::size_t k = 0; k < outputs_info.size(); ++k) {
    Var v = rec_of[k] >= 0 ? outs[static_cast<std::size_t>(rec_of[k])]
                           : outs[info.rec_taps.size() + static_cast<std::size_t>(map_of[k])];
    v->set_name(nm + "[" + std::to_string(k) + "]");
    result.outputs.push_back(v);
  }
  // The value after the last step; the shared value itself when no step ran.
  for (std::size_t c = 0; c < carried.size(); ++c)
    result.updates.insert(carried[c].first, last_value(outs[n_user_rec + c], carried[c].first));
  return result;
}

Var detail::checked_n_steps(const Var& n, const std::string& nm) {
  Var v = tensor::as_tensor_variable(n);
  const TensorType& t = tensor_of(v, nm + ": n_steps");
  THEANO_USER_CHECK(t.ndim() == 0 && (is_integer(t.dtype()) || is_bool(t.dtype())), TypeError)
      << nm << ": n_steps must be an integer scalar, got " << v.str() << " of type " << t.str();
  if (const Constant* c = v.as_constant())
    THEANO_USER_CHECK(c->data().item<std::int64_t>() >= 0, ValueError)
        << nm << ": n_steps is " << c->data().item<std::int64_t>() << "; it must be >= 0";
  return t.dtype() == DType::Int64 ? v : tensor::cast(v, DType::Int64);
}

Var last_value(const Var& stacked, const Var& if_empty) {
  return ifelse(tensor::gt(tensor::shape_i(stacked, 0), std::int64_t{0}),
                tensor::subtensor(stacked, {tensor::Index(std::int64_t{-1})}), if_empty);
}


std::vector<Var> scan_map(const StepFn& f, const std::vector<SeqInfo>& sequences,
                          const std::vector<Var>& non_sequences, const std::string& name) {
  // No outputs_info: every output of f is a map output.
  return scan(f, ScanArgs().sequences(sequences).non_sequences(non_sequences).name(name)).outputs;
}

ScanArgs detail::reduce_args(const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                             const std::vector<Var>& non_sequences, bool go_backwards, const std::string& name) {
  return ScanArgs()
      .sequences(sequences)
      .outputs_info(std::vector<OutputInfo>(outputs_info.begin(), outputs_info.end()))
      .non_sequences(non_sequences)
      .go_backwards(go_backwards)
      .name(name);
}

std::vector<Var> detail::last_values(const ScanResult& r, const std::vector<Var>& outputs_info) {
  std::vector<Var> last;
  for (std::size_t k = 0; k < r.outputs.size(); ++k) last.push_back(last_value(r.outputs[k], outputs_info[k]));
  return last;
}

std::vector<Var> scan_reduce(const StepFn& f, const std::vector<SeqInfo>& sequences,
                             const std::vector<Var>& outputs_info, const std::vector<Var>& non_sequences,
                             bool go_backwards, const std::string& name) {
  return detail::last_values(scan(f, detail::reduce_args(sequences, outputs_info, non_sequences, go_backwards, name)),
                             outputs_info);
}

}  // namespace theano
