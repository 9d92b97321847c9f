// The C++ lowering of the convolution ops (CorrMM / Corr3dMM and their
// gradients; the abstract ops too, for a graph compiled without the rewrite):
// a thin call of perform's kernels, theano/runtime/kernels/conv.h, compiled
// once into the host and called through ctx->kernels (host_kernels.h); the
// unit embeds conv.h for its rules. It applies the same rule (theano_conv_rule and the top-gradient
// and hint rules, with their messages), allocates the output and a scratch
// buffer from the host allocator (lives for the call) and calls the
// algorithm; the inputs are read through their strides (a flipped filter is
// a pointer to its last tap with negated spatial strides, as in perform).
// The images are split across the loop threads (THEANO_FLAGS threads), each
// part with its own scratch and its gemms on one BLAS thread; the weights'
// gradient sums one partial result a part, in part order (the cut depends
// only on the batch and the threads).
#include "lowering.h"
#include "parallel_part.h"

#include <theano/runtime/kernels/conv.h>
#include <theano/tensor/conv.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {

namespace {

namespace N = tensor::nnet;

std::string c_array(const std::vector<std::int64_t>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + str(v[i]) + "LL";
  return s + "}";
}

}  // namespace

void emit_conv_geometry(NodeLowering& L) {
  const auto& op = static_cast<const N::ConvBase&>(L.op);
  const int n = op.convdim(), nd = n + 2;
  const N::ConvDirection dir = op.direction();
  const DType dt = L.out(0).dtype();
  const std::string item = item_of(dt);
  const std::string ns = str(n), nds = str(nd), G = str(op.num_groups()) + "LL";
  L.need("conv kernels", kernel_text("conv.h"));  // the host's table is in the prelude
  CodeWriter& w = L.body;
  const std::vector<std::int64_t> pads = op.border_mode().pad_spec(n, op.type_name());
  w.line("const int64_t pads[" + ns + "] = " + c_array(pads) + ", st[" + ns + "] = " + c_array(op.subsample()) +
         ", dl[" + ns + "] = " + c_array(op.filter_dilation()) + ";");
  w.line("int64_t ish[" + nds + "], wsh[" + nds + "], bad = 0;");
  w.line("int rc = THEANO_CONV_OK;");
  w.line("TheanoConvGeom g;");
  if (dir == N::ConvDirection::Forward) {
    w.line("for (int d = 0; d < " + nds + "; ++d) { ish[d] = x0->shape[d]; wsh[d] = x1->shape[d]; }");
  } else {
    // The shape input: `n` integers, read through its dtype.
    w.line("if (x2->shape[0] != " + ns + ") " +
           L.fail_int(kErrValue, "the shape input must have " + ns + " entries, got ", "x2->shape[0]"));
    w.line("int64_t sp[" + ns + "];");
    w.line("for (int d = 0; d < " + ns + "; ++d) sp[d] = (int64_t)*(const " + L.in_ctype(2) +
           "*)(x2->data + d * x2->strides[0]);");
    if (dir == N::ConvDirection::GradWeights) {  // (input, top, filter spatial shape)
      w.line("rc = theano_conv_channels_rule(x0->shape[1], " + G + ", &bad);");
      w.line("for (int d = 0; d < " + nds + "; ++d) ish[d] = x0->shape[d];");
      w.line("wsh[0] = x1->shape[1];");
      w.line("wsh[1] = rc == THEANO_CONV_OK ? x0->shape[1] / " + G + " : 0;");
      w.line("for (int d = 0; d < " + ns + "; ++d) wsh[d + 2] = sp[d];");
    } else {  // (filters, top, input spatial shape)
      w.line("for (int d = 0; d < " + nds + "; ++d) wsh[d] = x0->shape[d];");
      w.line("ish[0] = x1->shape[0];");
      w.line("if (theano_checked_mul(x0->shape[1], " + G + ", &ish[1]) != THEANO_RULE_OK) { rc = THEANO_CONV_OVERFLOW; bad = 1; }");
      w.line("for (int d = 0; d < " + ns + "; ++d) ish[d + 2] = sp[d];");
    }
  }
  w.line("if (rc == THEANO_CONV_OK) rc = theano_conv_rule(" + ns + ", ish, wsh, pads, st, dl, " + G + ", &g, &bad);");
  if (dir != N::ConvDirection::Forward)
    w.line("if (rc == THEANO_CONV_OK) rc = theano_conv_top_rule(&g, x1->shape, &bad);");
  if (!op.imshp().empty()) {
    w.line("static const int64_t imshp[" + nds + "] = " + c_array(op.imshp()) + ";");
    w.line("if (rc == THEANO_CONV_OK) rc = theano_conv_hint_rule(" + nds + ", imshp, ish, &bad);");
  }
  if (!op.kshp().empty()) {
    w.line("static const int64_t kshp[" + nds + "] = " + c_array(op.kshp()) + ";");
    w.line("if (rc == THEANO_CONV_OK) rc = theano_conv_hint_rule(" + nds + ", kshp, wsh, &bad);");
  }
  // Each code with its message (conv.h's text, as perform throws it).
  for (int code = THEANO_CONV_STRIDE; code <= THEANO_CONV_NEGATIVE; ++code)
    w.line("if (rc == " + str(code) + ") " + L.fail_int(kErrValue, theano_conv_rule_text(code), "bad"));
  // Element strides (a byte stride that is not a multiple of the item: refused, never misread).
  w.line("int64_t as[" + nds + "], bs[" + nds + "];");
  w.open("for (int d = 0; d < " + nds + "; ++d)");
  w.line("if (x0->strides[d] % " + item + " != 0 || x1->strides[d] % " + item + " != 0) " +
         L.fail(kErrValue, "an input's strides are not a multiple of its item size"));
  w.line("as[d] = x0->strides[d] / " + item + ";");
  w.line("bs[d] = x1->strides[d] / " + item + ";");
  w.close();
  if (dir == N::ConvDirection::Forward) {
    w.line("o0->shape[0] = g.batch;");
    w.line("o0->shape[1] = g.filters;");
    w.line("for (int d = 0; d < " + ns + "; ++d) o0->shape[d + 2] = g.out[d];");
  } else {
    w.line("for (int d = 0; d < " + nds + "; ++d) o0->shape[d] = " +
           (dir == N::ConvDirection::GradWeights ? "wsh[d];" : "ish[d];"));
  }
}

namespace {

void lower_conv(NodeLowering& L) {
  const auto& op = static_cast<const N::ConvBase&>(L.op);
  const int n = op.convdim(), nd = n + 2;
  const N::ConvDirection dir = op.direction();
  const DType dt = L.out(0).dtype();
  const std::string T = c_type(dt), S = dt == DType::Float64 ? "f64" : "f32";
  const std::string nds = str(nd);
  CodeWriter& w = L.body;
  emit_conv_geometry(L);
  w.line("const " + T + "* pa = (const " + T + "*)x0->data;");
  w.line("const " + T + "* pb = (const " + T + "*)x1->data;");
  const bool flip = op.filter_flip();
  // The filters (input 1 forward, input 0 for the inputs' gradient) reversed along the spatial axes.
  if (flip && dir != N::ConvDirection::GradWeights) {
    const std::string fp = dir == N::ConvDirection::Forward ? "pb" : "pa", fs = dir == N::ConvDirection::Forward ? "bs" : "as",
                      fx = dir == N::ConvDirection::Forward ? "x1" : "x0";
    w.open("for (int d = 2; d < " + nds + "; ++d)");
    w.line("if (" + fx + "->shape[d] > 0) " + fp + " += (" + fx + "->shape[d] - 1) * " + fs + "[d];");
    w.line(fs + "[d] = -" + fs + "[d];");
    w.close();
  }
  w.line(L.alloc(0));
  const int dcode = dir == N::ConvDirection::Forward ? 0 : dir == N::ConvDirection::GradWeights ? 1 : 2;
  const bool gw = dir == N::ConvDirection::GradWeights;
  // The images are split across the loop threads (theano_parallel), each part with its own scratch
  // (and, for the weights' gradient, its own partial sum, added up in part order afterwards).
  const std::string fn = L.fn, args_t = fn + "_args";
  L.loops_outlined = true;  // the parts and the sum of their weights' gradients are file-scope functions
  L.file.open("struct " + args_t);
  L.file.line("const TheanoHostKernels* k;");
  L.file.line("const TheanoConvGeom* g;");
  L.file.line("const " + T + "* pa;");
  L.file.line("const int64_t* as;");
  L.file.line("const " + T + "* pb;");
  L.file.line("const int64_t* bs;");
  L.file.line(T + "* po;");
  L.file.line(T + "* work;");
  L.file.line("int64_t wn;");
  L.file.line("int64_t dn;");
  L.file.close(";");
  const ParallelPart part{fn + "_part", args_t, "a", "part", true};
  part.open(L.file);
  const std::string algo = dir == N::ConvDirection::Forward ? "fwd" : gw ? "grad_weights" : "grad_inputs";
  L.file.line("a->k->corr_" + algo + "_" + S + "(a->g, lo / 64, hi / 64, a->pa, a->as, a->pb, a->bs, a->po" +
              (gw ? " + part * a->dn" : "") + ", a->work + part * a->wn);");
  L.file.close();
  w.line("const int64_t nparts = ctx->threads > 1 ? ctx->threads : 1;");
  w.line("int64_t wn = 0, dwn = " + std::string(gw ? "theano_size(o0)" : "0") + ", nscratch = 0, nall = 0;");
  w.line("if (theano_conv_scratch_size(&g, " + str(dcode) + ", &wn) != THEANO_CONV_OK || "
         "theano_checked_add(wn, dwn, &nscratch) != THEANO_RULE_OK || "
         "theano_checked_mul(nscratch, nparts, &nall) != THEANO_RULE_OK) " +
         L.fail(kErrValue, "the scratch buffer's size does not fit in int64"));
  emit_scratch_buffer(L, "o0->dtype", "nall", "the column buffer");
  w.line(T + "* work = (" + T + "*)scratch.data;");
  w.line(T + "* po = (" + T + "*)o0->data;");
  w.line(T + "* sums = work + nparts * wn;  // the weights' gradient: one partial sum a part");
  w.line(args_t + " args = {ctx->kernels, &g, pa, as, pb, bs, " + std::string(gw ? "sums" : "po") + ", work, wn, dwn};");
  // The pool cuts ranges at multiples of 64 indices (runtime/thread_pool.h): 64 indices an image, so
  // a part is whole images (at least 4) and a batch of 64 splits too.
  w.line("int64_t nidx = 0;");
  w.line("if (theano_checked_mul(g.batch, 64, &nidx) != THEANO_RULE_OK) " +
         L.fail(kErrValue, "the batch is too large to split across threads"));
  // Every batch is split, and the parts' gemms run on one BLAS thread each (OpenBLAS's count set to 1
  // for the call, as PyTorch does inside its parallel regions): BLAS's own threads beside ours
  // oversubscribed the 2 cores. Measured on W10 (bench/run --only W10, 2 idle cores, float64 / float32
  // ms a training step): only the small layer split, BLAS threaded 57.7 / 38.3; both layers split, BLAS
  // threaded 32.5 / 22.4; both split, one BLAS thread 20.4 / 13.2.
  // A batch too small for two parts of at least 4 images runs as one part, its gemms on BLAS's threads.
  w.line("const int split = nparts > 1 && g.batch >= 8;");
  w.line("const int blas_nt = split ? ctx->kernels->blas_threads() : 1;");
  w.line("if (blas_nt > 1) ctx->kernels->set_blas_threads(1);");
  w.line("const int64_t used = " + part.run("nidx", "split ? 4 * 64 : nidx", "args") + ";");
  w.line("if (blas_nt > 1) ctx->kernels->set_blas_threads(blas_nt);");
  if (gw) {
    // dw = the parts' sums in part order, then (filter_flip) reversed along the spatial axes.
    L.file.open("__attribute__((noinline)) static void " + fn + "_sum_parts(" + T + "* dw, const " + T +
                "* sums, int64_t dn, int64_t used)");
    L.file.line("if (dw != sums) for (int64_t i = 0; i < dn; ++i) dw[i] = sums[i];");
    L.file.line("for (int64_t k = 1; k < used; ++k) for (int64_t i = 0; i < dn; ++i) dw[i] += sums[k * dn + i];");
    L.file.close();
    w.line("const int64_t dn = theano_size(o0);");
    w.line(T + "* dw = " + std::string(flip ? "sums" : "po") + ";");
    w.line(fn + "_sum_parts(dw, sums, dn, used);");
    if (flip) {
      w.line("int64_t ts[" + nds + "];");
      w.line("ts[" + str(nd - 1) + "] = 1;");
      w.line("for (int d = " + str(nd - 2) + "; d >= 0; --d) ts[d] = ts[d + 1] * wsh[d + 1];");
      w.line("const " + T + "* last = dw;");
      w.open("for (int d = 2; d < " + nds + "; ++d)");
      w.line("if (wsh[d] > 0) last += (wsh[d] - 1) * ts[d];");
      w.line("ts[d] = -ts[d];");
      w.close();
      w.line("if (dn > 0) ctx->kernels->conv_pack_" + S + "(" + nds + ", wsh, last, ts, po);");
    }
  } else {
    w.line("(void)used;");
    w.line("(void)sums;");
  }
  w.line("return 0;");
}

}  // namespace

void add_conv_lowerings(LoweringTable& t) {
  t.add<N::CorrMM>(Target::Cpu, &lower_conv);
  t.add<N::AbstractConv>(Target::Cpu, &lower_conv);
}

}  // namespace theano::codegen::lower
