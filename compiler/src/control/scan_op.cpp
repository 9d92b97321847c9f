/// \file
/// The Scan op (control/scan.h): type checks, the reference `perform` (a
/// host loop over the inner graph, optimized once and run by the reference
/// VM), shapes and identity. The builder is scan_build.cpp, the gradient
/// scan_grad.cpp.
#include <mutex>
#include <algorithm>
#include <set>

#include "theano/compile/linker.h"
#include "theano/control/ifelse.h"
#include "theano/control/scan.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/equality.h"
#include "theano/graph/op_registry.h"
#include "theano/rewrite/optdb.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano {

using tensor::StaticShape;
using tensor::TensorType;

std::int64_t ScanInfo::lag(int r) const {
  const auto& t = rec_taps.at(static_cast<std::size_t>(r));
  std::int64_t K = 0;
  THEANO_INTERNAL_CHECK(!t.empty() && theano_scan_span_rule(*std::min_element(t.begin(), t.end()), 0, &K) ==
                                         THEANO_RULE_OK)
      << name << ": output " << r << "'s taps were not checked";
  return K;
}

std::int64_t ScanInfo::seq_span(int s) const {
  const auto& t = seq_taps.at(static_cast<std::size_t>(s));
  THEANO_INTERNAL_CHECK(!t.empty()) << name << ": sequence " << s << " has no taps";
  const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
  std::int64_t span = 0;
  THEANO_INTERNAL_CHECK(theano_scan_span_rule(*lo, *hi, &span) == THEANO_RULE_OK)
      << name << ": sequence " << s << "'s taps were not checked";
  return span;
}

void ScanInfo::check_tap_list(const std::vector<std::int64_t>& taps, bool recurrent, const std::string& what) {
  THEANO_USER_CHECK(!taps.empty(), ValueError) << what << ": no taps";
  std::set<std::int64_t> seen(taps.begin(), taps.end());
  THEANO_USER_CHECK(seen.size() == taps.size(), ValueError) << what << ": a tap is listed twice";
  const std::int64_t lo = *seen.begin(), hi = recurrent ? 0 : *seen.rbegin();
  if (recurrent)
    THEANO_USER_CHECK(*seen.rbegin() < 0, ValueError)
        << what << ": the taps of a recurrent output must be negative (earlier steps), got " << *seen.rbegin();
  std::int64_t span = 0;
  THEANO_USER_CHECK(theano_scan_span_rule(lo, hi, &span) == THEANO_RULE_OK, ValueError)
      << what << ": taps from " << lo << " to " << hi
      << (recurrent ? " (the step's own row)" : "")
      << " span more rows than int64 holds; a step reads rows t + tap - min(taps), so the taps must lie within "
         "2^63 - 2 of each other"
      << (recurrent ? " and of 0" : "");
}

void ScanInfo::check_taps() const {
  for (int s = 0; s < n_seq(); ++s)
    check_tap_list(seq_taps[static_cast<std::size_t>(s)], false, name + ": sequence " + std::to_string(s));
  for (int r = 0; r < n_rec(); ++r)
    check_tap_list(rec_taps[static_cast<std::size_t>(r)], true, name + ": output " + std::to_string(r));
}

bool ScanInfo::plain_state(int r) const {
  const auto& t = rec_taps.at(static_cast<std::size_t>(r));
  return t.size() == 1 && t[0] == -1;
}

int ScanInfo::n_inner_inputs() const {
  std::size_t n = static_cast<std::size_t>(n_nonseq);
  for (const auto& t : seq_taps) n += t.size();
  for (const auto& t : rec_taps) n += t.size();
  return static_cast<int>(n);
}

const Scan* as_scan(const Apply& node) { return dynamic_cast<const Scan*>(node.op().get()); }

struct Scan::Program {
  std::shared_ptr<const FunctionGraph> fg;
  std::unique_ptr<Thunk> thunk;
};

struct Scan::LazyProgram {
  std::once_flag once;
  std::shared_ptr<const Program> program;
};

Scan::Scan(ScanInfo info, std::vector<Var> inner_inputs, std::vector<Var> inner_outputs)
    : info_(std::move(info)),
      inner_inputs_(std::move(inner_inputs)),
      inner_outputs_(std::move(inner_outputs)),
      program_(std::make_unique<LazyProgram>()) {
  // One spelling of "every output stacked", so equal scans compare equal.
  info_.check_taps();
  if (std::none_of(info_.rec_last.begin(), info_.rec_last.end(), [](bool b) { return b; })) info_.rec_last.clear();
  else info_.rec_last.resize(static_cast<std::size_t>(info_.n_rec()), false);
  THEANO_USER_CHECK(static_cast<int>(inner_inputs_.size()) == info_.n_inner_inputs(), ValueError)
      << info_.name << ": the inner graph has " << inner_inputs_.size() << " inputs, its description "
      << info_.n_inner_inputs();
  const std::size_t nout = static_cast<std::size_t>(info_.n_rec() + info_.n_map + (info_.until ? 1 : 0));
  THEANO_USER_CHECK(inner_outputs_.size() == nout, ValueError)
      << info_.name << ": the inner graph has " << inner_outputs_.size() << " outputs, its description " << nout;
  for (const Var& v : inner_inputs_)
    THEANO_USER_CHECK(tensor::tensor_type(v) != nullptr, TypeError)
        << info_.name << ": inner input " << v.str() << " is not a tensor (" << v.type()->str() << ")";
  for (const Var& v : inner_outputs_)
    THEANO_USER_CHECK(tensor::tensor_type(v) != nullptr, TypeError)
        << info_.name << ": the step returned " << v.str() << " of type " << v.type()->str()
        << "; scan steps return tensors";
}

Scan::~Scan() = default;

std::string Scan::name() const { return "Scan{" + info_.name + "}"; }

Props Scan::props() const {
  // Plain string appends, no ostringstream: a warm start keys every Scan's
  // props, and a stream's locale set-up was most of this function's time.
  auto taps = [](const std::vector<std::vector<std::int64_t>>& all) {
    std::string s = "[";
    for (std::size_t i = 0; i < all.size(); ++i) {
      s += i ? ",(" : "(";
      for (std::size_t j = 0; j < all[i].size(); ++j) s += (j ? "," : "") + std::to_string(all[i][j]);
      s += ")";
    }
    return s + "]";
  };
  std::vector<std::int64_t> last;
  for (int r = 0; r < info_.n_rec(); ++r) last.push_back(info_.last_only(r) ? 1 : 0);
  return {{"name", info_.name},
          {"seq_taps", taps(info_.seq_taps)},
          {"rec_taps", taps(info_.rec_taps)},
          {"n_map", static_cast<std::int64_t>(info_.n_map)},
          {"n_nonseq", static_cast<std::int64_t>(info_.n_nonseq)},
          {"go_backwards", info_.go_backwards},
          {"until", info_.until},
          {"truncate_gradient", info_.truncate_gradient},
          {"rec_last", last}};
}

bool Scan::equals(const Op& other) const {
  if (this == &other) return true;
  const auto* o = dynamic_cast<const Scan*>(&other);
  if (!o || !(o->info_ == info_) || o->inner_inputs_.size() != inner_inputs_.size()) return false;
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i)
    if (!(*inner_inputs_[i].type() == *o->inner_inputs_[i].type())) return false;
  return equal_computations(inner_outputs_, o->inner_outputs_, inner_inputs_, o->inner_inputs_);
}

std::size_t Scan::hash() const { return Op::hash() ^ (inner_outputs_.size() * 0x9e3779b97f4a7c15ULL); }

const Scan::Program& Scan::program() const {
  std::call_once(program_->once, [this] {
    auto p = std::make_shared<Program>();
    auto fg = std::make_shared<FunctionGraph>(inner_inputs_, inner_outputs_, std::vector<FeaturePtr>{}, /*clone=*/true);
    rewrite::optimize(*fg, rewrite::mode_query("fast_run"));
    p->thunk = make_perform_linker()->make_thunk(fg, LinkOptions{});
    p->fg = std::move(fg);
    program_->program = std::move(p);
  });
  return *program_->program;
}

std::shared_ptr<const FunctionGraph> Scan::optimized_inner() const { return program().fg; }

namespace {

/// The dtype and rank `v` must have, for error messages.
std::string type_str(const Var& v) { return v.type()->str(); }

bool same_kind(const TensorType* a, const TensorType* b, int rank_offset) {
  return a && b && a->dtype() == b->dtype() && a->ndim() == b->ndim() + rank_offset;
}

StaticShape with_steps(const std::optional<std::int64_t>& steps, const StaticShape& row) {
  StaticShape s{steps};
  s.insert(s.end(), row.begin(), row.end());
  return s;
}

}  // namespace

THEANO_REGISTER_OP(
    Scan,
    .no_cpp =
        "lowered by the source generator itself (codegen/src/emit/scan_lowering.cpp: the step needs an inner Generator), "
        "not through the lowering table",
    .no_cuda = "a scan step over GPU arrays or with GPU nodes is refused (LoweringReason::Gpu) and runs on the host");

ApplyPtr Scan::make_node(std::vector<Var> inputs) const {
  const int ns = info_.n_seq(), nr = info_.n_rec(), nn = info_.n_nonseq;
  THEANO_USER_CHECK(static_cast<int>(inputs.size()) == 1 + ns + nr + nn, TypeError)
      << name() << " takes 1 + " << ns << " + " << nr << " + " << nn
      << " inputs (n_steps, sequences, initial values, non-sequences), got " << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const TensorType* tn = tensor::tensor_type(inputs[0]);
  THEANO_USER_CHECK(tn && tn->ndim() == 0 && (is_integer(tn->dtype()) || is_bool(tn->dtype())), TypeError)
      << info_.name << ": n_steps must be an integer scalar, got " << inputs[0].str() << " of type "
      << type_str(inputs[0]);
  if (tn->dtype() != DType::Int64) inputs[0] = tensor::cast(inputs[0], DType::Int64);
  std::size_t inner = 0;
  for (int s = 0; s < ns; ++s) {
    const Var& seq = inputs[static_cast<std::size_t>(1 + s)];
    for (std::size_t k = 0; k < info_.seq_taps[static_cast<std::size_t>(s)].size(); ++k, ++inner)
      THEANO_USER_CHECK(same_kind(tensor::tensor_type(seq), tensor::tensor_type(inner_inputs_[inner]), 1), TypeError)
          << info_.name << ": sequence " << s << " (" << seq.str() << ", " << type_str(seq)
          << ") does not fit its step slice of type " << type_str(inner_inputs_[inner])
          << " (a sequence has one more dimension than its slices, the same dtype)";
  }
  std::vector<Var> outs;
  const Constant* steps_c = inputs[0].as_constant();
  std::optional<std::int64_t> steps;
  if (steps_c && !info_.until) steps = steps_c->data().item<std::int64_t>();
  if (steps && *steps < 0) steps = std::nullopt;  // perform reports it
  for (int r = 0; r < nr; ++r) {
    const Var& init = inputs[static_cast<std::size_t>(1 + ns + r)];
    const Var& tap = inner_inputs_[inner];
    inner += info_.rec_taps[static_cast<std::size_t>(r)].size();
    const int offset = info_.plain_state(r) ? 0 : 1;
    THEANO_USER_CHECK(same_kind(tensor::tensor_type(init), tensor::tensor_type(tap), offset), TypeError)
        << info_.name << ": output " << r << ": the initial value " << init.str() << " has type " << type_str(init)
        << " but the step reads states of type " << type_str(tap)
        << (offset ? " (with several taps, or a tap other than -1, the initial value stacks the states: one more "
                     "dimension)"
                   : "");
    const TensorType* to = tensor::tensor_type(inner_outputs_[static_cast<std::size_t>(r)]);
    THEANO_USER_CHECK(to->dtype() == tensor::tensor_type(tap)->dtype() && to->ndim() == tensor::tensor_type(tap)->ndim(),
                      TypeError)
        << info_.name << ": output " << r << ": the step returns " << inner_outputs_[static_cast<std::size_t>(r)].str()
        << " of type " << to->str() << " but its outputs_info state has type " << type_str(tap)
        << "; a recurrent output keeps its dtype and number of dimensions (cast the step's result)";
    const StaticShape& state = tensor::tensor_type(tap)->shape();
    outs.push_back(
        TensorType::make(to->dtype(), info_.last_only(r) ? state : with_steps(steps, state))->make_variable());
  }
  for (int m = 0; m < info_.n_map; ++m) {
    const TensorType* to = tensor::tensor_type(inner_outputs_[static_cast<std::size_t>(nr + m)]);
    outs.push_back(TensorType::make(to->dtype(), with_steps(steps, to->shape()))->make_variable());
  }
  if (info_.until) {
    const TensorType* tu = tensor::tensor_type(inner_outputs_.back());
    THEANO_USER_CHECK(tu->ndim() == 0 && !is_complex(tu->dtype()), TypeError)
        << info_.name << ": the until condition must be a scalar, got " << inner_outputs_.back().str() << " of type "
        << tu->str();
  }
  for (int k = 0; k < nn; ++k) {
    const Var& v = inputs[static_cast<std::size_t>(1 + ns + nr + k)];
    const Var& in = inner_inputs_[inner + static_cast<std::size_t>(k)];
    THEANO_USER_CHECK(same_kind(tensor::tensor_type(v), tensor::tensor_type(in), 0), TypeError)
        << info_.name << ": non-sequence " << k << " (" << v.str() << ", " << type_str(v)
        << ") does not fit the step's input of type " << type_str(in);
  }
  return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
}

void Scan::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const Program& prog = program();
  const int ns = info_.n_seq(), nr = info_.n_rec(), nm = info_.n_map, nn = info_.n_nonseq;
  const std::string& nm_s = info_.name;
  const std::int64_t n_steps = inputs[0].item<std::int64_t>();
  THEANO_USER_CHECK(n_steps >= 0, ValueError) << nm_s << ": n_steps is " << n_steps << "; it must be >= 0";
  // Sequences: step t reads row t + tap - min(taps) (from the end with go_backwards).
  struct Seq {
    NDArray value;
    std::int64_t min_tap;
  };
  std::vector<Seq> seqs;
  for (int s = 0; s < ns; ++s) {
    const auto& taps = info_.seq_taps[static_cast<std::size_t>(s)];
    const NDArray& v = inputs[static_cast<std::size_t>(1 + s)];
    const auto [lo, hi] = std::minmax_element(taps.begin(), taps.end());
    std::int64_t need = 0;
    THEANO_USER_CHECK(theano_scan_rows_rule(v.shape()[0], n_steps, info_.seq_span(s), &need) == THEANO_RULE_OK,
                      ValueError)
        << nm_s << ": sequence " << s << " (" << node.input(1 + s).str() << ") has " << v.shape()[0]
        << " rows, but " << n_steps << " steps with taps [" << *lo << ".." << *hi << "] read " << need;
    seqs.push_back(Seq{v, *lo});
  }
  // Recurrent buffers: K rows of initial states, then one row per step.
  std::vector<NDArray> bufs;
  std::vector<std::vector<std::int64_t>> state_shape(static_cast<std::size_t>(nr));
  for (int r = 0; r < nr; ++r) {
    const NDArray& init = inputs[static_cast<std::size_t>(1 + ns + r)];
    const std::int64_t K = info_.lag(r);
    std::vector<std::int64_t> st = init.shape();
    if (!info_.plain_state(r)) {
      THEANO_USER_CHECK(init.shape()[0] >= K, ValueError)
          << nm_s << ": output " << r << ": taps down to " << -K << " need " << K
          << " initial states, but the initial value " << node.input(1 + ns + r).str() << " has "
          << init.shape()[0];
      st.erase(st.begin());
    }
    state_shape[static_cast<std::size_t>(r)] = st;
    std::vector<std::int64_t> shape{0};
    THEANO_USER_CHECK(theano_checked_add(K, n_steps, &shape[0]) == THEANO_RULE_OK, ValueError) << nm_s << ": too many steps";
    shape.insert(shape.end(), st.begin(), st.end());
    NDArray buf = NDArray::empty(shape, init.dtype());
    if (info_.plain_state(r)) buf.index(0, 0).assign(init);
    else buf.slice(0, 0, K).assign(init.slice(0, 0, K));
    bufs.push_back(std::move(buf));
  }
  std::vector<NDArray> maps(static_cast<std::size_t>(nm));
  std::vector<NDArray> in(static_cast<std::size_t>(info_.n_inner_inputs()));
  std::vector<NDArray> out(prog.fg->outputs().size());
  for (int k = 0; k < nn; ++k) in[in.size() - static_cast<std::size_t>(nn - k)] = inputs[static_cast<std::size_t>(1 + ns + nr + k)];
  std::int64_t ran = n_steps;
  for (std::int64_t t = 0; t < n_steps; ++t) {
    std::size_t i = 0;
    for (int s = 0; s < ns; ++s) {
      const Seq& q = seqs[static_cast<std::size_t>(s)];
      for (std::int64_t tap : info_.seq_taps[static_cast<std::size_t>(s)]) {
        const std::int64_t row = t + (tap - q.min_tap);  // within the rows the rule checked
        in[i++] = q.value.index(0, info_.go_backwards ? q.value.shape()[0] - 1 - row : row);
      }
    }
    for (int r = 0; r < nr; ++r) {
      const std::int64_t K = info_.lag(r);
      for (std::int64_t tap : info_.rec_taps[static_cast<std::size_t>(r)])
        in[i++] = bufs[static_cast<std::size_t>(r)].index(0, K + t + tap);
    }
    try {
      prog.thunk->run(in, out);
    } catch (Error& e) {
      e.add_context(nm_s + ": in step " + std::to_string(t) + " of " + std::to_string(n_steps));
      throw;
    }
    for (int r = 0; r < nr; ++r) {
      const NDArray& v = out[static_cast<std::size_t>(r)];
      THEANO_USER_CHECK(v.shape() == state_shape[static_cast<std::size_t>(r)], ValueError)
          << nm_s << ": step " << t << ": output " << r << " has shape " << shape_to_string(v.shape())
          << " but its state has shape " << shape_to_string(state_shape[static_cast<std::size_t>(r)])
          << " (a recurrent output keeps its shape)";
      bufs[static_cast<std::size_t>(r)].index(0, info_.lag(r) + t).assign(v);
    }
    for (int m = 0; m < nm; ++m) {
      const NDArray& v = out[static_cast<std::size_t>(nr + m)];
      NDArray& dst = maps[static_cast<std::size_t>(m)];
      if (!dst.defined()) {
        std::vector<std::int64_t> shape{n_steps};
        shape.insert(shape.end(), v.shape().begin(), v.shape().end());
        dst = NDArray::empty(shape, v.dtype());
      }
      std::vector<std::int64_t> row(dst.shape().begin() + 1, dst.shape().end());
      THEANO_USER_CHECK(v.shape() == row, ValueError)
          << nm_s << ": step " << t << ": output " << nr + m << " has shape " << shape_to_string(v.shape())
          << " but step 0 gave " << shape_to_string(row) << " (the steps of an output must have one shape)";
      dst.index(0, t).assign(v);
    }
    if (info_.until && IfElse::truth(out.back())) {
      ran = t + 1;
      break;
    }
  }
  for (int r = 0; r < nr; ++r) {
    const std::int64_t K = info_.lag(r);
    const NDArray& buf = bufs[static_cast<std::size_t>(r)];
    outputs[static_cast<std::size_t>(r)] = info_.last_only(r) ? buf.index(0, K + ran - 1) : buf.slice(0, K, K + ran);
  }
  for (int m = 0; m < nm; ++m) {
    NDArray& v = maps[static_cast<std::size_t>(m)];
    if (!v.defined()) {  // no step ran: (0, static sizes, else 0)
      const TensorType* t = tensor::tensor_type(node.output(nr + m));
      std::vector<std::int64_t> shape;
      for (const auto& d : t->shape()) shape.push_back(d.value_or(0));
      shape[0] = 0;
      v = NDArray::empty(shape, t->dtype());
    }
    outputs[static_cast<std::size_t>(nr + m)] = v.slice(0, 0, ran);
  }
}

std::vector<std::vector<Var>> Scan::infer_shape(const Apply& node,
                                                const std::vector<std::vector<Var>>& input_shapes) const {
  const int ns = info_.n_seq(), nr = info_.n_rec();
  const Var steps = info_.until ? Var() : node.input(0);
  std::vector<std::vector<Var>> r;
  for (int k = 0; k < nr; ++k) {
    std::vector<Var> s;
    if (!info_.last_only(k)) s.push_back(steps);
    const auto& init = input_shapes[static_cast<std::size_t>(1 + ns + k)];
    s.insert(s.end(), init.begin() + (info_.plain_state(k) ? 0 : 1), init.end());
    r.push_back(std::move(s));
  }
  for (int m = 0; m < info_.n_map; ++m) {
    // Static sizes of the step's output; the others from Shape_i of the result.
    const TensorType* t = tensor::tensor_type(node.output(nr + m));
    std::vector<Var> s{steps};
    for (std::size_t d = 1; d < t->shape().size(); ++d)
      s.push_back(t->shape()[d] ? tensor::constant(NDArray::scalar<std::int64_t>(*t->shape()[d])) : Var());
    r.push_back(std::move(s));
  }
  return r;
}

std::vector<std::vector<bool>> Scan::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> p(static_cast<std::size_t>(node.nin()),
                                   std::vector<bool>(static_cast<std::size_t>(node.nout()), true));
  return p;
}

}  // namespace theano
