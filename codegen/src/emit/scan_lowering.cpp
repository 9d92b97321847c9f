// The cpp linker's Scan (source_generator.h, Generator::lower_scan): the
// step graph (the op's optimized inner graph) is lowered by an inner
// Generator into node functions and one step function in this node's text,
// in the same translation unit; the node function loops over the steps,
// handing the step views of the sequence rows, of the recurrent outputs'
// earlier rows (one buffer of K + steps rows per recurrent output, K initial
// states first) and the non-sequences, then copies each step's outputs into
// their rows. The step's intermediates live in memory-plan slots after the
// outer graph's, allocated on the first step and reused by every later one;
// the host's record of each step's arrays is released after the step
// (TheanoContext::release), so a loop's memory does not grow with its steps.
// The checks are perform's (control/scan_op.cpp): the same rule for the
// sequence lengths (theano_scan_rows_rule), the same messages.
#include <theano/control/scan.h>
#include <theano/runtime/error.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "source_generator.h"

namespace theano::codegen {

using lower::c_string;
using lower::NodeLowering;
namespace {

/// An int64 as code text: INT64_MIN (a valid sequence tap) as an
/// expression, since "-9223372036854775808" negates a literal that is not an
/// int64 and clang rejects it.
std::string str(std::int64_t v) {
  return v == INT64_MIN ? std::string("(-9223372036854775807LL - 1)") : std::to_string(v);
}

constexpr std::string_view kScanSupport = R"SCAN(
// A view of row `row` of `src` (its first dimension dropped). This and
// theano_scan_same_shape are not inlined into the loop over steps: a call or
// two a step, where each inlined copy of their loops cost -O2 time (W9's
// first unit: 10% of its Clang instructions).
__attribute__((noinline)) static void theano_scan_row(TheanoArray* dst, const TheanoArray* src, int64_t row) {
  dst->data = src->data + row * src->strides[0];
  dst->ndim = src->ndim - 1;
  dst->dtype = src->dtype;
  dst->owner = src->owner;
  for (int64_t d = 1; d < src->ndim; ++d) {
    dst->shape[d - 1] = src->shape[d];
    dst->strides[d - 1] = src->strides[d];
  }
}
__attribute__((noinline)) static int theano_scan_same_shape(const TheanoArray* a, const TheanoArray* b) {
  if (a->ndim != b->ndim) return 0;
  for (int64_t d = 0; d < a->ndim; ++d)
    if (a->shape[d] != b->shape[d]) return 0;
  return 1;
}
// Its error reports, compiled once into the host (unit_errors.cpp) like the
// prelude's theano_fail*: "<msg><t>: output <k> has shape <got><middle><want><tail>",
// "<msg><rows> rows, but <steps> steps with taps [<lo>..<hi>] read <need>"
// (both ValueError), and an error inside step t: the step's message, then
// " (<what> step <t>)".
THEANO_COLD static int theano_scan_fail_shape(TheanoContext* c, const char* msg, int64_t t, int64_t k,
                                              const TheanoArray* got, const char* middle, const TheanoArray* want,
                                              const char* tail) {
  return c->kernels->scan_fail_shape(c, msg, t, k, got, middle, want, tail);
}
THEANO_COLD static int theano_scan_fail_rows(TheanoContext* c, const char* msg, int64_t rows, int64_t steps,
                                             int64_t lo, int64_t hi, int64_t need) {
  return c->kernels->scan_fail_rows(c, msg, rows, steps, lo, hi, need);
}
THEANO_COLD static int theano_scan_step_error(TheanoContext* c, int e, const char* what, int64_t t) {
  return c->kernels->scan_step_error(c, e, what, t);
}
)SCAN";

}  // namespace

void Generator::lower_scan(NodeLowering& L) {
  const auto& op = static_cast<const Scan&>(*L.node.op());
  const ScanInfo& info = op.info();
  const int ns = info.n_seq(), nr = info.n_rec(), nm = info.n_map, nn = info.n_nonseq;
  std::vector<std::size_t> first_tap;  // inner input index of each recurrent output's first tap
  {
    std::size_t at = 0;
    for (const auto& taps : info.seq_taps) at += taps.size();
    for (const auto& taps : info.rec_taps) {
      first_tap.push_back(at);
      at += taps.size();
    }
  }
  for (const Var& v : L.node.outputs())
    if (lower::on_gpu(v)) lower::refuse(L.node, LoweringReason::Gpu, " (GPU outputs)");
  const std::shared_ptr<const FunctionGraph> body_fg = op.optimized_inner();
  if (info.until && !lower::c_type(lower::ttype(body_fg->outputs().back()).dtype()))
    lower::refuse(L.node, LoweringReason::Dtype, " (an until condition of dtype float16)");

  // The step: an inner Generator sharing this one's constants, fallback
  // nodes, support code and slot numbering (committed only on success).
  LinkOptions inner_options;
  inner_options.borrow_outputs.assign(body_fg->outputs().size(), true);  // recycled: copied out every step
  inner_options.fast_compile = options.fast_compile;
  Generator inner{*body_fg, inner_options, allow_fallback, /*opwise=*/false};
  inner.fn_prefix = L.fn + "_";
  inner.label_prefix = L.label + ": step: ";
  inner.slot_base = plan.nslots;
  inner.constants = constants;
  inner.fallback = fallback;
  inner.support_keys = support_keys;
  inner.support = support;
  const std::string step_fn = L.fn + "_step";
  L.file.raw(inner.run_body(step_fn));
  constants = std::move(inner.constants);
  fallback = std::move(inner.fallback);
  support_keys = std::move(inner.support_keys);
  support = std::move(inner.support);
  plan.nslots = inner.plan.nslots;

  L.need("theano_scan", kScanSupport);
  // The loop over the steps only calls (the step function, the host's
  // copies, theano_scan_row): a step's element loops are its node functions'.
  L.loops_outlined = true;
  const std::string msg = L.label + ": " + info.name + ": ";
  CodeWriter& b = L.body;
  b.line("const int64_t n_steps = *(const int64_t*)x0->data;");
  b.line("if (n_steps < 0) " + L.fail_int(lower::kErrValue, info.name + ": n_steps is ", "n_steps", "; it must be >= 0"));
  for (int s = 0; s < ns; ++s) {
    const auto& taps = info.seq_taps[static_cast<std::size_t>(s)];
    const auto [lo, hi] = std::minmax_element(taps.begin(), taps.end());
    const std::string x = L.x(1 + s), need = "need" + str(s), span = "span" + str(s);
    // The Scan checked the taps (ScanInfo::check_taps); the loop's row
    // offsets below are within span, which the same rule bounds here.
    b.line("int64_t " + need + " = 0, " + span + " = 0;");
    b.line("if (theano_scan_span_rule(" + str(*lo) + ", " + str(*hi) + ", &" + span + ") != THEANO_RULE_OK) " +
           L.fail(lower::kErrValue, info.name + ": sequence " + std::to_string(s) + ": taps from " +
                                        std::to_string(*lo) + " to " + std::to_string(*hi) +
                                        " span more rows than int64 holds"));
    b.open("if (theano_scan_rows_rule(" + x + "->shape[0], n_steps, " + span + ", &" + need +
           ") != THEANO_RULE_OK)");
    b.line("return theano_scan_fail_rows(ctx, " +
           c_string(msg + "sequence " + std::to_string(s) + " (" + L.node.input(1 + s).str() + ") has ") + ", " + x +
           "->shape[0], n_steps, " + str(*lo) + ", " + str(*hi) + ", " + need + ");");
    b.close();
  }
  // Recurrent outputs: a buffer of K + n_steps rows (K + 1, used circularly,
  // for an output that keeps only its last value), the first K the initial
  // states; output r is a view of it.
  auto row_of = [&](int r, const std::string& index) {
    const std::int64_t K = info.lag(r);
    return info.last_only(r) ? "(" + index + ") % " + str(K + 1) : index;
  };
  for (int r = 0; r < nr; ++r) {
    const std::string buf = "buf" + str(r), x = L.x(1 + ns + r);
    const std::int64_t K = info.lag(r);
    const tensor::TensorType& state_t = lower::ttype(op.inner_inputs()[first_tap[static_cast<std::size_t>(r)]]);
    const int state_nd = state_t.ndim();
    const std::size_t item = dtype_size(state_t.dtype());
    if (!info.plain_state(r))
      b.line("if (" + x + "->shape[0] < " + str(K) + ") " +
             L.fail_int(lower::kErrValue,
                        info.name + ": output " + std::to_string(r) + ": taps down to " + std::to_string(-K) +
                            " need " + std::to_string(K) + " initial states, but the initial value " +
                            L.node.input(1 + ns + r).str() + " has ",
                        x + "->shape[0]"));
    b.line("TheanoArray " + buf + ";");
    b.line(buf + ".ndim = " + str(state_nd + 1) + "; " + buf + ".dtype = " +
           str(static_cast<int>(state_t.dtype())) + "; " + buf + ".owner = -1;");
    if (info.last_only(r))
      b.line(buf + ".shape[0] = " + str(K + 1) + ";");
    else
      b.line("if (theano_checked_add(" + str(K) + ", n_steps, &" + buf + ".shape[0]) != THEANO_RULE_OK) " +
             L.fail(lower::kErrValue, info.name + ": too many steps"));
    const int off = info.plain_state(r) ? 0 : 1;
    for (int d = 0; d < state_nd; ++d)
      b.line(buf + ".shape[" + str(d + 1) + "] = " + x + "->shape[" + str(d + off) + "];");
    b.line(L.alloc_into(r, "&" + buf));
    if (info.plain_state(r)) {
      b.line(lower::host_copy(buf + ".data", buf + ".strides + 1", x + "->data", x + "->strides", x + "->shape",
                              lower::str(state_nd), item) +
             ";");
    } else {
      b.open("");
      b.line("int64_t rows[" + str(state_nd + 1) + "] = {" + str(K) + "};");
      b.line("for (int d = 0; d < " + str(state_nd) + "; ++d) rows[d + 1] = " + buf + ".shape[d + 1];");
      b.line(lower::host_copy(buf + ".data", buf + ".strides", x + "->data", x + "->strides", "rows",
                              lower::str(state_nd + 1), item) +
             ";");
      b.close();
    }
  }
  const int n_in = info.n_inner_inputs();
  const int n_out = static_cast<int>(body_fg->outputs().size());
  b.line("TheanoArray in_v[" + str(std::max(n_in, 1)) + "];");
  b.line("const TheanoArray* in_p[" + str(std::max(n_in, 1)) + "];");
  b.line("for (int i = 0; i < " + str(n_in) + "; ++i) in_p[i] = &in_v[i];");
  b.line("TheanoArray out_v[" + str(n_out) + "];");
  b.line("TheanoArray* out_p[" + str(n_out) + "];");
  b.line("for (int i = 0; i < " + str(n_out) + "; ++i) out_p[i] = &out_v[i];");
  // A non-sequence outside C order (a transposed weight, a slice) is copied
  // once, before the loop, into a contiguous scratch array that every step
  // reads: each step would otherwise pay for the layout again (an
  // elementwise node's scratch copy; OpenBLAS's packing of a transposed
  // operand, W9's dz Wh^T: 32x256 by 256x256 took 39-67 us against 29-34 us
  // contiguous in a stand-alone loop of calls; W9's step 1-2% less). The
  // copy lives with the call's temporaries, before the loop's `kept` mark.
  for (int k = 0; k < nn; ++k) {
    const Var& v = L.node.input(static_cast<std::size_t>(1 + ns + nr + k));
    const std::string x = L.x(1 + ns + nr + k), at = "in_p[" + str(n_in - nn + k) + "]";
    b.line(at + " = " + x + ";");
    if (lower::ttype(v).ndim() == 0) continue;
    const std::string item = str(static_cast<std::int64_t>(dtype_size(lower::ttype(v).dtype())));
    lower::emit_scratch_copy_if(L, "n_steps > 1 && !theano_c_contiguous(" + x + ", " + item + ")", at,
                                "nonseq_copy" + str(k), x, item,
                                "a contiguous copy of non-sequence " + std::to_string(k) + " (" + v.str() + ")");
  }
  b.line("int64_t ran = n_steps;");
  b.line("int64_t kept = 0;  // the host's arrays once step 0 (and the map outputs' allocation) ran");
  b.open("for (int64_t t = 0; t < n_steps; ++t)", "steps");
  int i = 0;
  for (int s = 0; s < ns; ++s) {
    const auto& taps = info.seq_taps[static_cast<std::size_t>(s)];
    const std::int64_t lo = *std::min_element(taps.begin(), taps.end());
    const std::string x = L.x(1 + s);
    (void)info.seq_span(s);  // tap - lo below cannot wrap (checked)
    for (std::int64_t tap : taps) {
      const std::string row = "t + " + str(tap - lo);
      b.line("theano_scan_row(&in_v[" + str(i++) + "], " + x + ", " +
             (info.go_backwards ? x + "->shape[0] - 1 - (" + row + ")" : row) + ");");
    }
  }
  for (int r = 0; r < nr; ++r)
    for (std::int64_t tap : info.rec_taps[static_cast<std::size_t>(r)])
      b.line("theano_scan_row(&in_v[" + str(i++) + "], &buf" + str(r) + ", " +
             row_of(r, "t + " + str(info.lag(r) + tap)) + ");");
  b.line("if (int e = " + step_fn + "(ctx, in_p, out_p)) return theano_scan_step_error(ctx, e, " +
         c_string(info.name) + ", t);");
  for (int r = 0; r < nr; ++r) {
    const std::string row = "row" + str(r);
    b.line("TheanoArray " + row + ";");
    b.line("theano_scan_row(&" + row + ", &buf" + str(r) + ", " + row_of(r, "t + " + str(info.lag(r))) + ");");
    b.line("if (!theano_scan_same_shape(&out_v[" + str(r) + "], &" + row + ")) return theano_scan_fail_shape(ctx, " +
           c_string(msg + "step ") + ", t, " + str(r) + ", &out_v[" + str(r) + "], " +
           c_string(" but its state has shape ") + ", &" + row + ", " +
           c_string(" (a recurrent output keeps its shape)") + ");");
    b.line(lower::host_copy(row + ".data", row + ".strides", "out_v[" + str(r) + "].data",
                            "out_v[" + str(r) + "].strides", row + ".shape", row + ".ndim",
                            dtype_size(L.out(r).dtype())) +
           ";");
  }
  for (int m = 0; m < nm; ++m) {
    const int k = nr + m;
    const std::string o = L.o(k), ov = "out_v[" + str(k) + "]";
    b.open("if (t == 0)");
    b.line(o + "->shape[0] = n_steps;");
    b.line("for (int64_t d = 0; d < " + ov + ".ndim; ++d) " + o + "->shape[d + 1] = " + ov + ".shape[d];");
    b.line(L.alloc(k));
    b.close();
    const std::string row = "mrow" + str(m);
    b.line("TheanoArray " + row + ";");
    b.line("theano_scan_row(&" + row + ", " + o + ", t);");
    b.line("if (!theano_scan_same_shape(&" + ov + ", &" + row + ")) return theano_scan_fail_shape(ctx, " +
           c_string(msg + "step ") + ", t, " + str(k) + ", &" + ov + ", " + c_string(" but step 0 gave ") + ", &" +
           row + ", " + c_string(" (the steps of an output must have one shape)") + ");");
    b.line(lower::host_copy(row + ".data", row + ".strides", ov + ".data", ov + ".strides", row + ".shape",
                            row + ".ndim", dtype_size(L.out(k).dtype())) +
           ";");
  }
  // The step's outputs are copied out: what later steps allocate is dropped
  // after each, so the host's arrays do not grow with the steps.
  b.line("if (t == 0) kept = ctx->release(ctx->host, -1);");
  b.line("else ctx->release(ctx->host, kept);");
  if (info.until) {
    const tensor::TensorType& tu = lower::ttype(body_fg->outputs().back());
    b.open("if (*(const " + std::string(lower::c_type(tu.dtype())) + "*)out_v[" + str(n_out - 1) + "].data != 0)");
    b.line("ran = t + 1;");
    b.line("break;");
    b.close();
  }
  b.close();
  for (int m = 0; m < nm; ++m) {  // no step ran: (0, static sizes, else 0)
    const int k = nr + m;
    const tensor::TensorType& t = L.out(k);
    b.open("if (n_steps == 0)");
    for (int d = 0; d < t.ndim(); ++d)
      b.line(L.o(k) + "->shape[" + str(d) + "] = " + str(d == 0 ? 0 : t.shape()[static_cast<std::size_t>(d)].value_or(0)) +
             ";");
    b.line(L.alloc(k));
    b.close();
  }
  for (int r = 0; r < nr; ++r) {
    const std::string o = L.o(r), buf = "buf" + str(r);
    const std::int64_t K = info.lag(r);
    if (info.last_only(r)) {
      b.line("theano_scan_row(" + o + ", &" + buf + ", " + row_of(r, str(K) + " + ran - 1") + ");");
    } else {
      b.line("*" + o + " = " + buf + ";");
      b.line(o + "->data += " + str(K) + " * " + o + "->strides[0];");
      b.line(o + "->shape[0] = ran;");
    }
  }
  for (int m = 0; m < nm; ++m) b.line(L.o(nr + m) + "->shape[0] = ran;");
  b.line("return 0;");
}

}  // namespace theano::codegen
