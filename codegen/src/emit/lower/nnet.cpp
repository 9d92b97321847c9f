// Lowerings of the nnet ops: Softmax, LogSoftmax, CrossentropyCategorical1Hot
// and CrossentropyCategorical1HotGrad (see lowering.h for the node function
// protocol).
//
// Softmax / LogSoftmax follow perform's stable kernel lane by lane (a lane is
// the run of elements along the axis): m = the lane maximum (NaN ignored, as
// std::max(m, v) does), total = sum exp(x - m), then exp(x - m) / total or
// x - (m + log(total)). Values are computed in double (perform computes
// float32 in float32: the results agree within float32 rounding, which for
// LogSoftmax is absolute: x - lse loses about ulp(|x|) where it cancels). The exp
// values are written to the output first (a loop the vectorizer turns into
// libmvec calls), summed with 16 independent accumulators, then rescaled or
// replaced. A lane that is contiguous in input and output (the last axis of a
// C-contiguous input) takes loops with unit strides. For another axis of a
// C-contiguous input, chunks of lanes go through the passes together, row by
// row (contiguous loads); other inputs use lanes with element strides.
//
// The cross-entropies read the labels through their dtype as int64, check
// them as perform does (row count: ShapeError; label outside [0, k): IndexError)
// and compute in double.
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {
namespace {

// The body of one lane of (log-)softmax: {0} the output C type, {1} / {2}
// the input / output element strides ("1" for the contiguous lane), {3} the
// last pass (kSoftmaxLast or kLogSoftmaxLast).
constexpr const char* kLaneBody = R"(// The maximum, NaN ignored (16 lanes; max is exact in any order).
double r[16];
THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = -__builtin_inf();
int64_t k = 0;
for (; k + 16 <= n; k += 16)
  THEANO_LANES for (int j = 0; j < 16; ++j) { const double v = (double)p[(k + j) * {1}]; r[j] = r[j] < v ? v : r[j]; }
double m = -__builtin_inf();
THEANO_UNROLL for (int j = 0; j < 16; ++j) m = m < r[j] ? r[j] : m;
for (; k < n; ++k) { const double v = (double)p[k * {1}]; m = m < v ? v : m; }
// exp(x - m) into the output, then their sum.
for (k = 0; k < n; ++k) o[k * {2}] = ({0})exp((double)p[k * {1}] - m);
THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = 0;
for (k = 0; k + 16 <= n; k += 16)
  THEANO_LANES for (int j = 0; j < 16; ++j) r[j] += (double)o[(k + j) * {2}];
THEANO_UNROLL for (int w = 8; w >= 1; w /= 2)
  THEANO_UNROLL for (int j = 0; j < w; ++j) r[j] += r[j + w];
double total = r[0];
for (; k < n; ++k) total += (double)o[k * {2}];
{3})";
constexpr const char* kSoftmaxLast = "for (k = 0; k < n; ++k) o[k * {2}] = ({0})((double)o[k * {2}] / total);";
constexpr const char* kLogSoftmaxLast = R"(const double lse = m + log(total);
for (k = 0; k < n; ++k) o[k * {2}] = ({0})((double)p[k * {1}] - lse);)";

void emit_lane_body(CodeWriter& f, const std::string& out_t, const std::string& ps, const std::string& os, bool log) {
  const std::string last = expand(log ? kLogSoftmaxLast : kSoftmaxLast, {out_t, ps, os});
  f.lines(expand(kLaneBody, {out_t, ps, os, last}));
}

void lower_softmax_common(NodeLowering& L, int axis, bool log) {
  const std::string in_t = L.in_ctype(0), out_t = L.out_ctype(0);
  const int nd = L.in(0).ndim();
  const std::string fn = L.fn;
  const std::string isz = str(static_cast<std::int64_t>(dtype_size(L.in(0).dtype())));
  const std::string osz = str(static_cast<std::int64_t>(dtype_size(L.out(0).dtype())));
  CodeWriter& f = L.file;
  f.line("// One lane of " + std::string(log ? "log-softmax" : "softmax") +
         ": n elements p[k * ps] -> o[k * os] (element strides; _c: unit strides).");
  f.open("static void " + fn + "_lane_c(const " + in_t + "* __restrict p, " + out_t + "* __restrict o, int64_t n)");
  emit_lane_body(f, out_t, "1", "1", log);
  f.close();
  f.open("static void " + fn + "_lane_s(const " + in_t + "* p, int64_t ps, " + out_t + "* o, int64_t os, int64_t n)");
  emit_lane_body(f, out_t, "ps", "os", log);
  f.close();
  f.open("static void " + fn + "_lane(const " + in_t + "* p, int64_t ps, " + out_t + "* o, int64_t os, int64_t n)");
  f.line("if (n == 0) return;");
  f.line("if (ps == 1 && os == 1) " + fn + "_lane_c(p, o, n);");
  f.line("else " + fn + "_lane_s(p, ps, o, os, n);");
  f.close();

  CodeWriter& w = L.body;
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.line("if (theano_size(x0) == 0) return 0;");
  const std::string as = str(axis);
  w.line("const int64_t n = x0->shape[" + as + "];");
  w.line("const int64_t ps = x0->strides[" + as + "] / " + isz + ";");
  w.line("const int64_t os = o0->strides[" + as + "] / " + osz + ";");
  if (axis < nd - 1) {
    // A C-contiguous input seen as (outer, n, inner), inner > 1: chunks of
    // columns go through the three passes row by row (contiguous, vectorizable
    // inner loops; each column is still folded in perform's order).
    w.line("int64_t outer = 1, inner = 1;");
    for (int d = 0; d < axis; ++d) w.line("outer *= x0->shape[" + str(d) + "];");
    for (int d = axis + 1; d < nd; ++d) w.line("inner *= x0->shape[" + str(d) + "];");
    w.open("if (inner > 1 && theano_c_contiguous(x0, " + isz + "))");
    w.line("const " + in_t + "* __restrict px = (const " + in_t + "*)x0->data;");
    w.line(out_t + "* __restrict po = (" + out_t + "*)o0->data;");
    w.line("enum { CH = 512 };");
    w.line("double m[CH], t[CH];");
    w.open("for (int64_t o = 0; o < outer; ++o)");
    w.open("for (int64_t j0 = 0; j0 < inner; j0 += CH)");
    w.line("const int64_t mm = inner - j0 < CH ? inner - j0 : CH;");
    w.line("const " + in_t + "* __restrict xb = px + o * n * inner + j0;");
    w.line(out_t + "* __restrict ob = po + o * n * inner + j0;");
    w.line("for (int64_t j = 0; j < mm; ++j) { m[j] = -__builtin_inf(); t[j] = 0; }");
    w.open("for (int64_t i = 0; i < n; ++i)");
    w.line("const " + in_t + "* __restrict r = xb + i * inner;");
    w.line("for (int64_t j = 0; j < mm; ++j) { const double v = (double)r[j]; m[j] = m[j] < v ? v : m[j]; }");
    w.close();
    w.open("for (int64_t i = 0; i < n; ++i)");
    w.line("const " + in_t + "* __restrict r = xb + i * inner;");
    w.line(out_t + "* __restrict q = ob + i * inner;");
    w.line("for (int64_t j = 0; j < mm; ++j) q[j] = (" + out_t + ")exp((double)r[j] - m[j]);");
    w.line("for (int64_t j = 0; j < mm; ++j) t[j] += (double)q[j];");
    w.close();
    if (log) w.line("for (int64_t j = 0; j < mm; ++j) t[j] = m[j] + log(t[j]);");
    w.open("for (int64_t i = 0; i < n; ++i)");
    w.line("const " + in_t + "* __restrict r = xb + i * inner;");
    w.line(out_t + "* __restrict q = ob + i * inner;");
    if (log) w.line("for (int64_t j = 0; j < mm; ++j) q[j] = (" + out_t + ")((double)r[j] - t[j]);");
    else w.line("for (int64_t j = 0; j < mm; ++j) q[j] = (" + out_t + ")((double)q[j] / t[j]);");
    w.close();
    w.close();
    w.close();
    w.line("return 0;");
    w.close();
  }
  std::string xoff, ooff;
  for (int d = 0; d < nd; ++d) {
    if (d == axis) continue;
    const std::string ds = str(d);
    w.open("for (int64_t i" + ds + " = 0; i" + ds + " < x0->shape[" + ds + "]; ++i" + ds + ")");
    xoff += " + i" + ds + " * x0->strides[" + ds + "]";
    ooff += " + i" + ds + " * o0->strides[" + ds + "]";
  }
  w.line(fn + "_lane((const " + in_t + "*)(x0->data" + xoff + "), ps, (" + out_t + "*)(o0->data" + ooff +
         "), os, n);");
  for (int d = 0; d < nd - 1; ++d) w.close();
  w.line("return 0;");
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

/// Emits perform's label checks: one label per row of coding_dist (input
/// `ci`), each in [0, k).
void emit_label_checks(NodeLowering& L, int ci, int li) {
  CodeWriter& w = L.body;
  const std::string c = L.x(ci), l = L.x(li);
  w.line("if (" + l + "->shape[0] != " + c + "->shape[0]) " +
         L.fail(kErrShape, "coding_dist and labels have different numbers of rows (one label per row is expected)"));
  w.line("const int64_t rows = " + c + "->shape[0], k = " + c + "->shape[1];");
  w.open("for (int64_t i = 0; i < rows; ++i)");
  w.line("const int64_t lab = " + label_expr(L, li, "i") + ";");
  w.line("if (lab < 0 || lab >= k) " +
         L.fail_int(kErrIndex, "label ", "lab", " is out of range for the number of classes (coding_dist's columns)"));
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
  w.line("if (x0->shape[0] != rows) " +
         L.fail(kErrShape, "g_y and coding_dist have different numbers of rows"));
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
