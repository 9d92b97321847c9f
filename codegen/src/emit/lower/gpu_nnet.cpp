// GPU lowerings of the nnet ops: Softmax and LogSoftmax as lane kernels
// (gpu_lanes.h; a lane is the run along the op's axis), and the categorical
// cross-entropy with its gradient, one thread a row.
//
// Softmax follows perform's stable passes lane by lane, in double, with the
// steps of theano/runtime/kernels/softmax.h (its text is in the CUDA unit):
// m = the lane maximum (NaN ignored), exp(x - m) written to the output and
// summed as stored, then the output divided by the total, or x - (m +
// log(total)) for LogSoftmax. The folds' order is the GPU's own: each thread
// folds its elements, the block joins the threads' partial maxima and totals
// (so results agree with perform within rounding, not bit for bit; perform's
// lane kernel folds 16 accumulators then a tree). Short lanes (<= 32) and many lanes
// along a non-innermost axis take one thread a lane; others one block a
// lane, whose threads split the lane and combine the maximum and the total
// with __syncthreads trees (the association order depends only on the shape).
//
// The cross-entropies check labels on the device with perform's rule
// (theano/runtime/kernels/crossentropy_rules.h, in the CUDA source too): a
// label outside [0, k) makes its row's thread record the smallest such row
// (atomicMin into a one-element GPU buffer), which the host downloads after
// the launch and reports in perform's words: an IndexError naming the label,
// its row and k.
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/crossentropy_rules.h>
#include <theano/tensor/nnet.h>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"

namespace theano::codegen::lower {

namespace {

using cuda::kLaneBlock;

/// Requests the label rules (crossentropy_rules.h) in the host code and the CUDA source.
void need_rules(NodeLowering& L) {
  L.need("crossentropy rules", kernel_text("crossentropy_rules.h"));
  L.cuda->need("crossentropy rules", std::string(kernel_text("crossentropy_rules.h")));
}

/// The ShapeError statement when labels (input `li`) and coding_dist (input `ci`) differ in rows.
std::string rows_check(const NodeLowering& L, int ci, int li) {
  const std::string c = L.x(ci), l = L.x(li);
  return "if (!theano_xent_rows_ok(" + c + "->shape[0], " + l + "->shape[0])) " +
         L.fail_int3(kErrShape, THEANO_XENT_ROWS_TEXT1, c + "->shape[0]", THEANO_XENT_ROWS_TEXT2, c + "->shape[1]",
                     THEANO_XENT_ROWS_TEXT3, l + "->shape[0]", THEANO_XENT_ROWS_TEXT4);
}

/// emit_device_check whose report is perform's IndexError for the label of
/// row `first_bad` (input `li`, downloaded), k classes.
void label_checked(NodeLowering& L, int li, const cuda::ParamBlock& pb, cuda::Param rows, cuda::Param err,
                   const std::function<void(CodeWriter&)>& launch) {
  emit_device_check(L, pb, rows, err, launch, [&](CodeWriter& w) {
    download_element(w, L.x(li), "first_bad * " + L.x(li) + "->strides[0]", L.in_ctype(li), "raw");
    w.line("const int64_t value = (int64_t)raw;");
    w.line(L.fail_int3(kErrIndex, THEANO_XENT_LABEL_TEXT1, "value", THEANO_XENT_LABEL_TEXT2, "first_bad",
                       THEANO_XENT_LABEL_TEXT3, "k", THEANO_XENT_LABEL_TEXT4));
  });
}

void lower_gpu_softmax_any(NodeLowering& L, int axis, bool log) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string it = c_type(L.in(0).dtype()), ot = c_type(L.out(0).dtype()), fn = L.fn;
  CodeWriter& w = L.body;
  const LaneLayout l = emit_axis_lanes(L, axis);
  const cuda::ParamBlock& pb = l.params;
  // The steps are softmax.h's (perform's), embedded in the CUDA unit.
  L.cuda->need("softmax kernels", std::string(kernel_text("softmax.h")));
  const std::string load = "*(const " + it + "*)at0";
  const std::string out = "*(" + ot + "*)at1";
  const std::string last = log ? out + " = THEANO_SOFTMAX_SUB(" + ot + ", " + load + ", lse);"
                               : out + " = THEANO_SOFTMAX_DIV(" + ot + ", " + out + ", total);";
  // One pass over the lane: `loop` opens the element loop, then the statement.
  auto pass = [&](CodeWriter& kw, const std::string& loop, const std::string& stmt) {
    kw.open(loop);
    lane_element(kw, l, "e");
    kw.line(stmt);
    kw.close();
  };
  const std::string max_pass = "m = theano_softmax_max(m, (double)" + load + ");";
  const std::string exp_pass =
      out + " = THEANO_SOFTMAX_EXP(" + ot + ", " + load + ", m); total += (double)" + out + ";";
  const std::string lse = "const double lse = theano_softmax_lse(m, total);";
  // thread: one lane a thread.
  cuda::Kernel t(pb, fn + "_thread", {l.lanes, l.len});
  cuda::grid_stride_loop(t.w, "lane", "lanes");
  lane_bases(t.w, l, "lane");
  t.w.line("double m = -THEANO_INF, total = 0;");
  pass(t.w, "for (int64_t e = 0; e < len; ++e)", max_pass);
  pass(t.w, "for (int64_t e = 0; e < len; ++e)", exp_pass);
  if (log) t.w.line(lse);
  pass(t.w, "for (int64_t e = 0; e < len; ++e)", last);
  t.w.close();
  const int k_thread = L.cuda->add_kernel(t, L.label);
  // block: one lane a block; the maximum and the total through __syncthreads trees.
  cuda::Kernel b(pb, fn + "_block");
  b.w.line("__shared__ double sh[" + str(kLaneBlock) + "];");
  b.w.line(pb.read(l.lanes));
  b.w.line(pb.read(l.len));
  b.w.line("const unsigned t = threadIdx.x;");
  cuda::block_stride_loop(b.w, "lane", "lanes");
  lane_bases(b.w, l, "lane");
  b.w.line("double m = -THEANO_INF;");
  pass(b.w, "for (int64_t e = t; e < len; e += blockDim.x)", max_pass);
  cuda::block_tree_reduce(
      b.w, "m", [](const std::string& x, const std::string& y) { return "theano_softmax_max(" + x + ", " + y + ")"; });
  b.w.line("m = sh[0];");
  b.w.line("__syncthreads();");
  b.w.line("double total = 0;");
  pass(b.w, "for (int64_t e = t; e < len; e += blockDim.x)", exp_pass);
  cuda::block_tree_reduce(b.w, "total", [](const std::string& x, const std::string& y) { return x + " + " + y; });
  b.w.line("total = sh[0];");
  b.w.line("__syncthreads();  // sh is the next lane's");
  if (log) b.w.line(lse);
  pass(b.w, "for (int64_t e = t; e < len; e += blockDim.x)", last);
  b.w.close();
  const int k_block = L.cuda->add_kernel(b, L.label, kLaneBlock);
  pb.declare(w);
  w.line("if (lanes == 0 || len == 0) return 0;");
  w.line("if (" + lane_per_thread_condition() + ") return " + pb.launch(k_thread, "lanes") + ";");
  w.line("return " + pb.launch(k_block, "lanes") + ";");
}

void lower_gpu_softmax(NodeLowering& L) {
  lower_gpu_softmax_any(L, static_cast<const tensor::nnet::Softmax&>(L.op).axis(), false);
}

void lower_gpu_log_softmax(NodeLowering& L) {
  lower_gpu_softmax_any(L, static_cast<const tensor::nnet::LogSoftmax&>(L.op).axis(), true);
}

/// The kernel expression of row i's label (input `li`: the kernels' `labels`, stride `ls`).
std::string label_load(const NodeLowering& L, int li) {
  return "(int64_t)*(const " + L.in_ctype(li) + "*)(labels + i * ls)";
}

void lower_gpu_crossentropy(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string ct = L.in_ctype(0), ot = L.out_ctype(0), fn = L.fn;
  CodeWriter& w = L.body;
  need_rules(L);
  w.line(rows_check(L, 0, 1));
  w.line("const int64_t rows = x0->shape[0], k = x0->shape[1];");
  w.line("o0->shape[0] = rows;");
  w.line(L.alloc(0));
  w.line("if (rows == 0) return 0;");
  cuda::ParamBlock pb;
  const cuda::Param rows = pb.int64("rows", "rows"), k = pb.int64("k", "k");
  const cuda::Param coding = pb.pointer("coding", "const char*", "x0->data");
  const cuda::Param cs0 = pb.int64("cs0", "x0->strides[0]"), cs1 = pb.int64("cs1", "x0->strides[1]");
  const cuda::Param labels = pb.pointer("labels", "const char*", "x1->data"), ls = pb.int64("ls", "x1->strides[0]");
  const cuda::Param o = pb.pointer("o", ot + "*", "o0->data"), err = pb.pointer("err", "long long*", "err.data");
  cuda::Kernel kc(pb, fn + "_rows", {rows, k, coding, cs0, cs1, labels, ls, o, err});
  cuda::grid_stride_loop(kc.w, "i", "rows");
  kc.w.line("const int64_t lab = " + label_load(L, 1) + ";");
  kc.w.line("if (!theano_xent_label_ok(lab, k)) { atomicMin(err, (long long)i); continue; }");
  kc.w.line("const double v = (double)*(const " + ct + "*)(coding + i * cs0 + lab * cs1);");
  kc.w.line("o[i] = (" + ot + ")(-log(v));");
  kc.w.close();
  const int kernel = L.cuda->add_kernel(kc, L.label);
  label_checked(L, 1, pb, rows, err,
                [&](CodeWriter& lw) { lw.line("if (int e = " + pb.launch(kernel, "rows") + ") return e;"); });
  w.line("return 0;");
}

void lower_gpu_crossentropy_grad(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string gt = L.in_ctype(0), ct = L.in_ctype(1), ot = L.out_ctype(0), fn = L.fn;
  CodeWriter& w = L.body;
  need_rules(L);
  w.line(rows_check(L, 1, 2));
  w.line("const int64_t rows = x1->shape[0], k = x1->shape[1];");
  w.line("if (!theano_xent_rows_ok(rows, x0->shape[0])) " +
         L.fail_int3(kErrShape, THEANO_XENT_GY_TEXT1, "x0->shape[0]", THEANO_XENT_GY_TEXT2, "rows",
                     THEANO_XENT_GY_TEXT3, "k", THEANO_XENT_GY_TEXT4));
  w.line("o0->shape[0] = rows;");
  w.line("o0->shape[1] = k;");
  w.line(L.alloc(0));
  w.line("if (rows == 0) return 0;");
  cuda::ParamBlock pb;
  const cuda::Param rows = pb.int64("rows", "rows"), k = pb.int64("k", "k");
  const cuda::Param coding = pb.pointer("coding", "const char*", "x1->data");
  const cuda::Param cs0 = pb.int64("cs0", "x1->strides[0]"), cs1 = pb.int64("cs1", "x1->strides[1]");
  const cuda::Param gy = pb.pointer("gy", "const char*", "x0->data"), gs = pb.int64("gs", "x0->strides[0]");
  const cuda::Param labels = pb.pointer("labels", "const char*", "x2->data"), ls = pb.int64("ls", "x2->strides[0]");
  const cuda::Param o = pb.pointer("o", ot + "*", "o0->data"), err = pb.pointer("err", "long long*", "err.data");
  cuda::Kernel z(pb, fn + "_zero", {rows, k, o});
  z.w.line("const int64_t n = rows * k;");
  cuda::grid_stride_loop(z.w, "j", "n");
  z.w.line("o[j] = 0;");
  z.w.close();
  cuda::Kernel r(pb, fn + "_rows", {rows, k, coding, cs0, cs1, gy, gs, labels, ls, o, err});
  cuda::grid_stride_loop(r.w, "i", "rows");
  r.w.line("const int64_t lab = " + label_load(L, 2) + ";");
  r.w.line("if (!theano_xent_label_ok(lab, k)) { atomicMin(err, (long long)i); continue; }");
  r.w.line("const double g = (double)*(const " + gt + "*)(gy + i * gs);");
  r.w.line("const double c = (double)*(const " + ct + "*)(coding + i * cs0 + lab * cs1);");
  r.w.line("o[i * k + lab] = (" + ot + ")(-g / c);");
  r.w.close();
  const int kz = L.cuda->add_kernel(z, L.label);
  const int kr = L.cuda->add_kernel(r, L.label);
  label_checked(L, 2, pb, rows, err, [&](CodeWriter& lw) {
    lw.line("if (int e = " + pb.launch(kz, "rows * k") + ") return e;");
    lw.line("if (int e = " + pb.launch(kr, "rows") + ") return e;");
  });
  w.line("return 0;");
}

}  // namespace

void add_gpu_nnet_lowerings(LoweringTable& t) {
  t.add<tensor::nnet::Softmax>(Target::Cuda, &lower_gpu_softmax);
  t.add<tensor::nnet::LogSoftmax>(Target::Cuda, &lower_gpu_log_softmax);
  t.add<tensor::nnet::CrossentropyCategorical1Hot>(Target::Cuda, &lower_gpu_crossentropy);
  t.add<tensor::nnet::CrossentropyCategorical1HotGrad>(Target::Cuda, &lower_gpu_crossentropy_grad);
}

}  // namespace theano::codegen::lower
