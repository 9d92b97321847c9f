// The C++ lowering of RowStreamGemv (theano/tensor/blas.h): z = dot(X, w),
// r = fn(z, e...) and g = beta*y + alpha*dot(X^T, r) in one pass over X's
// rows, or, for an X the last-level cache serves fast a second time, by the
// host's gemv twice with r computed between them (two_pass_max_bytes).
//
// The one pass: the rows are split across the loop threads (theano_parallel); a part
// computes, row by row, the row's dot product with w (16 lanes), z's
// element, fn's value r, and adds r times the row (still in L1) to the
// part's own accumulator of n values. The accumulators are added up in part
// order afterwards (the same bits on every call), then scaled by alpha and
// added to beta*y. X is read once from memory where the Dot and the Gemv it
// replaces read it twice (W2 float64: X is 25 MB). perform (two BLAS calls)
// agrees within rounding. Shape rules and messages: row_stream_gemv_rules.h.
#include "lowering.h"
#include "parallel_part.h"

#include <theano/tensor/blas.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/type.h>

#include <theano/config_flags.h>
#include <theano/runtime/kernels/row_stream_gemv_rules.h>

#include <cstdio>
#include <string>

namespace theano::codegen::lower {

namespace {

constexpr int kFixed = 5;  // X, w, y, alpha, beta; then fn's vectors

// The bytes of X under which the two BLAS products beat the one pass: THEANO_FLAGS
// stream_gemv_two_pass_bytes, else by the CPU. The one pass reads each row
// twice (from memory or L3, then from L1); the two products read X twice
// from where it is, the second time from the L3 when it fits. Measured with
// W2's step (X of m x 784, the same X every call, as W2, or 16 in turn):
// - 2-core Zen 4 VM (2026-12-03): m = 4000, float32 (12.5 MB) 0.24-0.34 ms
//   in two products against 0.30-0.44 in one pass; float64 (25 MB)
//   0.98-1.20 against 0.55-0.70: Zen's L3 serves the second read fast;
// - 2-core Intel Xeon VM, 2 MB L2 a core (2026-12-03): the one pass ahead at
//   every size from 0.8 MB (m = 250, float32: 16-17 against 18.5 us) to
//   100 MB, by 1.7-2.5 x from 3 MB up (W2 float32 0.28-0.29 against
//   0.51-0.58 ms): its mesh L3 serves a core no faster than memory.
// Other CPUs were not measured; they take the one pass.
constexpr double kTwoPassMaxBytesAmd = 16777216.0;

double two_pass_max_bytes() {
  if (const std::optional<double> v = flag_number("stream_gemv_two_pass_bytes")) return *v;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_is("amd")) return kTwoPassMaxBytesAmd;
#endif
  return 0;
}

// The two BLAS products with r computed between them, then `return 0`.
void emit_two_products(NodeLowering& L, const ElemwiseExprs& ex, const std::string& T) {
  CodeWriter& w = L.body;
  const std::string& fn = L.fn;
  const int ne = L.nin() - kFixed;
  const std::string t = T == "double" ? "f64" : "f32";
  need_blas_layout(L);
  w.line("ctx->kernels->blas_gemv_" + t + "(m, n, 1.0, x0->data, x0->strides[0], x0->strides[1], x1->data, "
         "x1->strides[0], 0.0, o0->data, o0->strides[0]);");
  {
    // fn over z into r (fresh, contiguous outputs): a vectorizable loop when
    // the vectors of fn are contiguous; one a type broadcasts is read once.
    w.line("const " + T + "* __restrict zc = (const " + T + "*)o0->data;");
    w.line(T + "* __restrict rc = (" + T + "*)o2->data;");
    std::string unit = "1", fast = fn + "_fn((" + ex.arg_types[0] + ")zc[i]", slow = fast;
    for (int j = 0; j < ne; ++j) {
      const std::string xe = L.x(kFixed + j), js = str(j), ct = L.in_ctype(kFixed + j);
      const std::string& at = ex.arg_types[static_cast<std::size_t>(j + 1)];
      if (L.in(kFixed + j).broadcastable()[0]) {
        w.line("const " + at + " b" + js + " = (" + at + ")*(const " + ct + "*)" + xe + "->data;");
        fast += ", b" + js;
        slow += ", b" + js;
      } else {
        w.line("const " + ct + "* __restrict p" + js + " = (const " + ct + "*)" + xe + "->data;");
        unit += " && " + xe + "->strides[0] == (int64_t)sizeof(" + ct + ")";
        fast += ", (" + at + ")p" + js + "[i]";
        slow += ", (" + at + ")*(const " + ct + "*)(" + xe + "->data + i * " + xe + "->strides[0])";
      }
    }
    w.line("if (" + unit + ") for (int64_t i = 0; i < m; ++i) rc[i] = " + fast + ");");
    w.line("else for (int64_t i = 0; i < m; ++i) rc[i] = " + slow + ");");
  }
  w.line("if (beta != 0) for (int64_t k = 0; k < n; ++k) *(" + T + "*)(o1->data + k * o1->strides[0]) = *(const " +
         T + "*)(x2->data + k * x2->strides[0]);");
  w.line("ctx->kernels->blas_gemv_" + t + "(n, m, alpha, x0->data, x0->strides[1], x0->strides[0], o2->data, "
         "(int64_t)sizeof(" + T + "), beta, o1->data, o1->strides[0]);");
  w.line("return 0;");
}

void lower_row_stream_gemv(NodeLowering& L) {
  const auto& op = static_cast<const tensor::RowStreamGemv&>(L.op);
  const DType dt = L.out(0).dtype();
  if (dt != DType::Float32 && dt != DType::Float64)
    refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(dt)) + ")");
  const std::string T = dt == DType::Float64 ? "double" : "float";
  const int ne = L.nin() - kFixed;
  // fn as the Elemwise lowering computes it: a helper of z's element and the vectors' elements.
  std::vector<Var> fn_in{L.out(0).make_variable()};
  for (int j = 0; j < ne; ++j) fn_in.push_back(L.in(kFixed + j).make_variable());
  const ApplyPtr fn_node = OpPtr(new tensor::Elemwise(op.fn()))->make_node(std::move(fn_in));
  const ElemwiseExprs ex = elemwise_exprs(*fn_node);
  L.ns = ex.ns;
  for (const auto& [key, code] : ex.support) L.need(key, code);
  L.need("row stream gemv rules", kernel_text("row_stream_gemv_rules.h"));
  L.loops_outlined = true;  // the part is a file-scope function

  CodeWriter& f = L.file;
  const std::string fn = L.fn, args_t = fn + "_args";
  {
    std::string params;
    for (int i = 0; i <= ne; ++i) params += (i ? ", " : "") + ex.arg_types[static_cast<std::size_t>(i)] + " a" + str(i);
    f.open("static inline " + T + " " + fn + "_fn(" + params + ")");
    for (const std::string& local : ex.locals) f.line(local);
    f.line("return (" + T + ")(" + ex.stores[0] + ");");
    f.close();
  }
  f.open("struct " + args_t);
  f.line("const char* x;");
  f.line("int64_t xs0, xs1;");
  f.line("const char* w;");
  f.line("int64_t ws;");
  f.line("char* z;");
  f.line("int64_t zs;");
  f.line("char* r;");
  f.line("int64_t rs;");
  f.line(T + "* acc;");
  f.line("int64_t n;");
  f.line("const char* e[" + str(ne > 0 ? ne : 1) + "];");
  f.line("int64_t es[" + str(ne > 0 ? ne : 1) + "];");
  f.close(";");
  ParallelPart part{fn + "_rows", args_t};
  part.index = "p";
  part.noinline = true;
  part.open(f);
  f.line("const int64_t n = args->n, xs0 = args->xs0, xs1 = args->xs1, ws = args->ws;");
  f.line(T + "* __restrict acc = args->acc + p * n;");
  f.line("for (int64_t k = 0; k < n; ++k) acc[k] = 0;");
  f.line("const int unit = xs1 == (int64_t)sizeof(" + T + ") && ws == (int64_t)sizeof(" + T + ");");
  f.line("const " + T + "* __restrict wv = (const " + T + "*)args->w;");
  // fn's value for row `i` from its dot product `d`, after storing z's element.
  auto value = [&](const std::string& v, const std::string& i, const std::string& d) {
    f.line("*(" + T + "*)(args->z + " + i + " * args->zs) = " + d + ";");
    std::string call = fn + "_fn((" + ex.arg_types[0] + ")" + d;
    for (int j = 0; j < ne; ++j)
      call += ", (" + ex.arg_types[static_cast<std::size_t>(j + 1)] + ")*(const " + L.in_ctype(kFixed + j) +
              "*)(args->e[" + str(j) + "] + " + i + " * args->es[" + str(j) + "])";
    f.line("const " + T + " " + v + " = " + call + ");");
    f.line("*(" + T + "*)(args->r + " + i + " * args->rs) = " + v + ";");
  };
  // Four rows at a time (unit strides): four independent dot products that
  // share w's loads, then one pass over the accumulator for the four rows.
  f.line("int64_t i = lo;");
  f.open("if (unit) for (; i + 4 <= hi; i += 4)");
  for (int q = 0; q < 4; ++q)
    f.line("const " + T + "* __restrict r" + str(q) + " = (const " + T + "*)(args->x + (i + " + str(q) +
           ") * xs0);");
  f.line(T + " d0 = 0, d1 = 0, d2 = 0, d3 = 0;");
  f.open("THEANO_LANES for (int64_t k = 0; k < n; ++k)");
  f.line("const " + T + " wk = wv[k];");
  f.line("d0 += r0[k] * wk; d1 += r1[k] * wk; d2 += r2[k] * wk; d3 += r3[k] * wk;");
  f.close();
  for (int q = 0; q < 4; ++q) value("v" + str(q), "(i + " + str(q) + ")", "d" + str(q));
  f.line("for (int64_t k = 0; k < n; ++k) acc[k] += v0 * r0[k] + v1 * r1[k] + v2 * r2[k] + v3 * r3[k];");
  f.close();
  // The rest one at a time, any strides.
  f.open("for (; i < hi; ++i)");
  f.line("const char* row = args->x + i * xs0;");
  f.line(T + " d = 0;");
  f.line("if (unit) { const " + T + "* __restrict r = (const " + T +
         "*)row; THEANO_LANES for (int64_t k = 0; k < n; ++k) d += r[k] * wv[k]; }");
  f.line("else for (int64_t k = 0; k < n; ++k) d += *(const " + T + "*)(row + k * xs1) * *(const " + T +
         "*)(args->w + k * ws);");
  value("v", "i", "d");
  f.line("if (unit) { const " + T + "* __restrict r = (const " + T +
         "*)row; for (int64_t k = 0; k < n; ++k) acc[k] += v * r[k]; }");
  f.line("else for (int64_t k = 0; k < n; ++k) acc[k] += v * *(const " + T + "*)(row + k * xs1);");
  f.close();
  f.close();

  CodeWriter& w = L.body;
  w.line("const double alpha = (double)*(const " + L.in_ctype(3) + "*)x3->data;");
  w.line("const double beta = (double)*(const " + L.in_ctype(4) + "*)x4->data;");
  w.line("const int64_t m = x0->shape[0], n = x0->shape[1];");
  w.line("if (!theano_rsg_length_ok(n, x1->shape[0])) " +
         L.fail_int2(kErrShape, THEANO_RSG_W_TEXT1, "n", THEANO_RSG_W_TEXT2, "x1->shape[0]", THEANO_RSG_W_TEXT3));
  w.line("if (!theano_rsg_length_ok(n, x2->shape[0])) " +
         L.fail_int2(kErrShape, THEANO_RSG_Y_TEXT1, "x2->shape[0]", THEANO_RSG_Y_TEXT2, "n", THEANO_RSG_Y_TEXT3));
  for (int j = 0; j < ne; ++j) {
    const std::string xe = L.x(kFixed + j);
    const std::string declared = L.in(kFixed + j).broadcastable()[0] ? "1" : "0";
    w.line("if (!theano_rsg_rows_ok(m, " + xe + "->shape[0], " + declared + ")) " +
           L.fail_int3(kErrShape, THEANO_RSG_E_TEXT1, str(kFixed + j), THEANO_RSG_E_TEXT2, xe + "->shape[0]",
                       THEANO_RSG_E_TEXT3, "m", THEANO_RSG_E_TEXT4));
  }
  w.line("o0->shape[0] = m;");
  w.line(L.alloc(0));
  w.line("o1->shape[0] = n;");
  w.line(L.alloc(1));
  w.line("o2->shape[0] = m;");
  w.line(L.alloc(2));
  // A matrix the cache serves fast a second time: the two BLAS products, r
  // computed between them (none when the threshold is 0).
  if (const double limit = two_pass_max_bytes(); limit > 0) {
    char bytes[32];
    std::snprintf(bytes, sizeof bytes, "%.17g", limit);
    w.open("if ((double)m * (double)n * (double)sizeof(" + T + ") < " + bytes + ")");
    emit_two_products(L, ex, T);
    w.close();
  }
  // One accumulator of n values a part.
  w.line("const int64_t nparts = ctx->threads > 1 ? (ctx->threads < THEANO_MAX_PARTS ? ctx->threads : "
         "THEANO_MAX_PARTS) : 1;");
  w.line("int64_t nall = 0;");
  w.line("if (theano_checked_mul(n, nparts, &nall) != THEANO_RULE_OK) " +
         L.fail(kErrValue, "the accumulators' size does not fit in int64"));
  emit_scratch_buffer(L, "o1->dtype", "nall", "the accumulators");
  w.line(T + "* acc = (" + T + "*)scratch.data;");
  std::string e_ptrs, e_strides;
  for (int j = 0; j < ne; ++j) {
    const std::string xe = L.x(kFixed + j);
    e_ptrs += std::string(j ? ", " : "") + xe + "->data";
    e_strides += std::string(j ? ", " : "") + "(" + xe + "->shape[0] == 1 ? 0 : " + xe + "->strides[0])";
  }
  if (ne == 0) e_ptrs = "0", e_strides = "0";
  w.line(args_t + " args = {x0->data, x0->strides[0], x0->strides[1], x1->data, x1->strides[0], o0->data, "
                  "o0->strides[0], o2->data, o2->strides[0], acc, n, {" + e_ptrs + "}, {" + e_strides + "}};");
  // At least about 32768 multiply-adds a part (two a column of a row).
  w.line("const int64_t used = " + part.run("m", "(16384 + n) / (n + 1)", "args") + ";");
  w.line(T + "* __restrict g = (" + T + "*)o1->data;");
  w.line("const int64_t gs = o1->strides[0] / (int64_t)sizeof(" + T + ");");
  w.open("for (int64_t k = 0; k < n; ++k)");
  w.line(T + " s = acc[k];");
  w.line("for (int64_t q = 1; q < used; ++q) s += acc[q * n + k];");
  w.line(T + " v = alpha != 0 ? (" + T + ")alpha * s : 0;  // alpha == 0: beta * y alone (BLAS's rule)");
  w.line("if (beta != 0) v += (" + T + ")beta * *(const " + T + "*)(x2->data + k * x2->strides[0]);");
  w.line("g[k * gs] = v;");
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_row_stream_gemv_lowering(LoweringTable& t) {
  t.add<tensor::RowStreamGemv>(Target::Cpu, &lower_row_stream_gemv);
}

}  // namespace theano::codegen::lower
