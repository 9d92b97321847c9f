// Lowerings of the nnet ops: Softmax, LogSoftmax, CrossentropyCategorical1Hot
// and CrossentropyCategorical1HotGrad (see lowering.h for the node function
// protocol).
//
// Softmax / LogSoftmax run perform's kernels, theano/runtime/kernels/softmax.h
// (the stable passes in double, 16 accumulators; the column path for another
// axis than the last of a C-contiguous input), instantiated per node for its
// element type: the two compute in the same order. A non-contiguous input is
// copied first, so a node compiles the unit-stride lane only.
//
// The cross-entropies read the labels through their dtype as int64, check
// them with perform's rules and messages (theano/runtime/kernels/
// crossentropy_rules.h; row count: ShapeError; label outside [0, k):
// IndexError) and compute in double.
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/runtime/kernels/crossentropy_rules.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {

namespace {

void lower_softmax_common(NodeLowering& L, int axis, bool log) {
  const std::string in_t = L.in_ctype(0), out_t = L.out_ctype(0);
  THEANO_INTERNAL_CHECK(in_t == out_t) << L.label << ": softmax's output has its input's dtype";
  const int nd = L.in(0).ndim();
  const std::string fn = L.fn;
  const std::string isz = str(static_cast<std::int64_t>(dtype_size(L.in(0).dtype())));
  L.need("softmax kernels", kernel_text("softmax.h"));
  L.file.line("THEANO_SOFTMAX_CONTIGUOUS_KERNELS(" + in_t + ", " + fn + ", " + (log ? "1" : "0") + ")");

  CodeWriter& w = L.body;
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.line("if (theano_size(x0) == 0) return 0;");
  // A non-contiguous input is copied into a C-contiguous scratch array (the
  // host's theano_scratch_copy): every lane then has unit strides, as the output's
  // (fresh, C-contiguous) do, and one lane kernel serves.
  w.line("const TheanoArray* x = x0;");
  emit_scratch_copy_if(L, "!theano_c_contiguous(x0, " + isz + ")", "x", "x_copy", "x0", isz,
                       "a contiguous copy of the input");
  const std::string as = str(axis);
  w.line("const int64_t n = x->shape[" + as + "];");
  // The walk over the lanes is a file-scope function (the node function is
  // then unoptimized: loops_outlined), as are the lane kernels it calls.
  L.loops_outlined = true;
  w.line(fn + "_lanes(x, o0, n);");
  w.line("return 0;");
  CodeWriter& f = L.file;
  f.open("__attribute__((noinline)) static void " + fn + "_lanes(const TheanoArray* x, TheanoArray* o0, int64_t n)");
  if (axis < nd - 1) {
    // A C-contiguous input seen as (outer, n, inner), inner > 1: chunks of
    // columns go through the passes row by row (softmax.h's column path).
    f.open("if (theano_softmax_cols_layout(x->shape, x->strides, (int64_t)x->ndim, " + as + ", " + isz + "))");
    f.line("int64_t outer = 1, inner = 1;");
    for (int d = 0; d < axis; ++d) f.line("outer *= x->shape[" + str(d) + "];");
    for (int d = axis + 1; d < nd; ++d) f.line("inner *= x->shape[" + str(d) + "];");
    f.line("const " + in_t + "* __restrict px = (const " + in_t + "*)x->data;");
    f.line(out_t + "* __restrict po = (" + out_t + "*)o0->data;");
    f.line("double m[THEANO_SOFTMAX_CHUNK], t[THEANO_SOFTMAX_CHUNK];");
    f.open("for (int64_t o = 0; o < outer; ++o)");
    f.open("for (int64_t j0 = 0; j0 < inner; j0 += THEANO_SOFTMAX_CHUNK)");
    f.line("const int64_t mm = inner - j0 < THEANO_SOFTMAX_CHUNK ? inner - j0 : THEANO_SOFTMAX_CHUNK;");
    f.line(fn + "_cols(px + o * n * inner + j0, po + o * n * inner + j0, n, inner, mm, m, t);");
    f.close();
    f.close();
    f.line("return;");
    f.close();
  }
  // The lane's elements are adjacent in both arrays: the axis is the last, or
  // every dimension after it has size 1 (else the column path ran).
  std::string xoff, ooff;
  for (int d = 0; d < nd; ++d) {
    if (d == axis) continue;
    const std::string ds = str(d);
    f.open("for (int64_t i" + ds + " = 0; i" + ds + " < x->shape[" + ds + "]; ++i" + ds + ")");
    xoff += " + i" + ds + " * x->strides[" + ds + "]";
    ooff += " + i" + ds + " * o0->strides[" + ds + "]";
  }
  f.line(fn + "_lane_c((const " + in_t + "*)(x->data" + xoff + "), (" + out_t + "*)(o0->data" + ooff + "), n);");
  for (int d = 0; d < nd - 1; ++d) f.close();
  f.close();
}

void lower_softmax(NodeLowering& L) {
  lower_softmax_common(L, static_cast<const tensor::nnet::Softmax&>(*L.node.op()).axis(), false);
}

void lower_log_softmax(NodeLowering& L) {
  lower_softmax_common(L, static_cast<const tensor::nnet::LogSoftmax&>(*L.node.op()).axis(), true);
}

/// Reads label i of input `li` (an integer vector) as int64 into `lab`.
std::string label_expr(const NodeLowering& L, int li, const std::string& i) {
  const std::string x = L.x(li);
  return "(int64_t)*(const " + L.in_ctype(li) + "*)(" + x + "->data + " + i + " * " + x + "->strides[0])";
}

/// Emits perform's label checks (crossentropy_rules.h, with its messages): one
/// label per row of coding_dist (input `ci`), each in [0, k).
void emit_label_checks(NodeLowering& L, int ci, int li) {
  L.need("crossentropy rules", kernel_text("crossentropy_rules.h"));
  CodeWriter& w = L.body;
  const std::string c = L.x(ci), l = L.x(li);
  w.line("if (!theano_xent_rows_ok(" + c + "->shape[0], " + l + "->shape[0])) " +
         L.fail_int3(kErrShape, THEANO_XENT_ROWS_TEXT1, c + "->shape[0]", THEANO_XENT_ROWS_TEXT2, c + "->shape[1]",
                     THEANO_XENT_ROWS_TEXT3, l + "->shape[0]", THEANO_XENT_ROWS_TEXT4));
  w.line("const int64_t rows = " + c + "->shape[0], k = " + c + "->shape[1];");
  w.open("for (int64_t i = 0; i < rows; ++i)");
  w.line("const int64_t lab = " + label_expr(L, li, "i") + ";");
  w.line("if (!theano_xent_label_ok(lab, k)) " + L.fail_int3(kErrIndex, THEANO_XENT_LABEL_TEXT1, "lab",
                                                            THEANO_XENT_LABEL_TEXT2, "i", THEANO_XENT_LABEL_TEXT3, "k",
                                                            THEANO_XENT_LABEL_TEXT4));
  w.close();
}

void lower_crossentropy(NodeLowering& L) {
  const std::string ct = L.in_ctype(0), ot = L.out_ctype(0);
  CodeWriter& w = L.body;
  emit_label_checks(L, 0, 1);
  w.line("o0->shape[0] = rows;");
  w.line(L.alloc(0));
  w.line(ot + "* __restrict po = (" + ot + "*)o0->data;");
  w.open("for (int64_t i = 0; i < rows; ++i)");
  w.line("const int64_t lab = " + label_expr(L, 1, "i") + ";");
  w.line("const double v = (double)*(const " + ct + "*)(x0->data + i * x0->strides[0] + lab * x0->strides[1]);");
  w.line("po[i] = (" + ot + ")(-log(v));");
  w.close();
  w.line("return 0;");
}

void lower_crossentropy_grad(NodeLowering& L) {
  const std::string gt = L.in_ctype(0), ct = L.in_ctype(1), ot = L.out_ctype(0);
  CodeWriter& w = L.body;
  emit_label_checks(L, 1, 2);
  w.line("if (!theano_xent_rows_ok(rows, x0->shape[0])) " +
         L.fail_int3(kErrShape, THEANO_XENT_GY_TEXT1, "x0->shape[0]", THEANO_XENT_GY_TEXT2, "rows",
                     THEANO_XENT_GY_TEXT3, "k", THEANO_XENT_GY_TEXT4));
  w.line("o0->shape[0] = rows;");
  w.line("o0->shape[1] = k;");
  w.line(L.alloc(0));
  w.line(ot + "* __restrict po = (" + ot + "*)o0->data;");
  w.line("const int64_t n = rows * k;");
  w.line("for (int64_t j = 0; j < n; ++j) po[j] = 0;");
  w.open("for (int64_t i = 0; i < rows; ++i)");
  w.line("const int64_t lab = " + label_expr(L, 2, "i") + ";");
  w.line("const double g = (double)*(const " + gt + "*)(x0->data + i * x0->strides[0]);");
  w.line("const double c = (double)*(const " + ct + "*)(x1->data + i * x1->strides[0] + lab * x1->strides[1]);");
  w.line("po[i * k + lab] = (" + ot + ")(-g / c);");
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_nnet_lowerings(LoweringTable& t) {
  t.add<tensor::nnet::Softmax>(Target::Cpu, &lower_softmax);
  t.add<tensor::nnet::LogSoftmax>(Target::Cpu, &lower_log_softmax);
  t.add<tensor::nnet::CrossentropyCategorical1Hot>(Target::Cpu, &lower_crossentropy);
  t.add<tensor::nnet::CrossentropyCategorical1HotGrad>(Target::Cpu, &lower_crossentropy_grad);
}

}  // namespace theano::codegen::lower
