// The GPU form of expm (linalg::Expm, docs/linalg.md "On the GPU"): the CPU
// kernel's scaling and squaring (kernels/linalg_expm.h, Higham 2005) step by
// step on the device, in double for float32 and float64 alike as on the CPU.
// Per batch entry: the gather (kernels/linalg_gpu.h, flagging a NaN or an
// infinity), the 1-norm (a column-sum kernel, then a one-thread maximum),
// ONE read back of that norm and the flag (it synchronizes), the degree m
// and the squarings s chosen on the host by the CPU's own rule
// (kernels/linalg_expm_rules.h's degree), then the scaling, the even powers,
// U and V (the rules' poly_at, one element a thread) with the products
// through ctx->gpu_gemm (cuBLAS, or OpenBLAS on the emulated device), q X = p
// through gpu_lapack's GETRF and GETRS, s squarings, and the store. The
// solver's infos go to a status array downloaded once at the end; a failure
// (or a flagged input) is worded by the CPU kernel rerun on the host
// (gpu_linalg_host.h's explain), so the messages are the CPU form's.
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/linalg.h>
#include <theano/runtime/kernels/linalg_gpu.h>
#include <theano/tensor/linalg_expm.h>
#include <theano/tensor/type.h>

#include "../../thunk_abi.h"
#include "../cuda_unit.h"
#include "gpu_linalg_host.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

namespace LA = tensor::linalg;

// The status array: per batch entry, slot 0 the gather's non-finite flag, slot 1 GETRF's info, slot 2 GETRS's.
constexpr int kSlots = 3;

/// The parameter block all of the node's kernels share.
struct ExpmParams {
  explicit ExpmParams(const std::string& t)
      : cnt(pb.int64("cnt", "0")),
        r(pb.int64("r", "0")),
        rs(pb.int64("rs", "0")),
        cs(pb.int64("cs", "0")),
        mode(pb.int64("mode", "0")),
        deg(pb.int64("deg", "0")),
        odd(pb.int64("odd", "0")),
        high(pb.int64("high", "0")),
        scale(pb.real("scale", "1.0")),
        src(pb.pointer("src", "const char*", "0")),
        dst(pb.pointer("dst", t + "*", "0")),
        flag(pb.pointer("flag", "int*", "0")),
        a2(pb.pointer("a2", "const double*", "0")),
        a4(pb.pointer("a4", "const double*", "0")),
        a6(pb.pointer("a6", "const double*", "0")),
        a8(pb.pointer("a8", "const double*", "0")),
        plus(pb.pointer("plus", "const double*", "0")),
        u(pb.pointer("u", "const double*", "0")),
        d(pb.pointer("d", "double*", "0")),
        d2(pb.pointer("d2", "double*", "0")) {}
  cuda::ParamBlock pb;
  cuda::Param cnt, r, rs, cs, mode, deg, odd, high, scale, src, dst, flag, a2, a4, a6, a8, plus, u, d, d2;
};

void lower_gpu_expm(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto* op = dynamic_cast<const LA::Expm*>(&L.op);
  THEANO_INTERNAL_CHECK(op != nullptr) << L.label << ": not Expm";
  const DType dt = L.in(0).dtype();
  if (dt != DType::Float64 && dt != DType::Float32)
    refuse(L.node, LoweringReason::Dtype, " (GPU expm of " + std::string(dtype_name(dt)) + ")");
  L.cold = true;
  const bool f64 = dt == DType::Float64;
  const std::string S = f64 ? "f64" : "f32", T = c_type(dt), D = str(static_cast<int>(DType::Float64));
  need_linalg_kernels(L);  // the host side: the rule, and the CPU kernel wording errors (ctx->kernels)
  L.need("linalg expm rules", kernel_text("linalg_expm_rules.h"));  // the degree rule, on the host
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  L.cuda->need("linalg gpu rules", std::string(kernel_text("linalg_gpu.h")));
  L.cuda->need("linalg expm rules", std::string(kernel_text("linalg_expm_rules.h")));

  const ExpmParams P(T);
  auto make = [&](const std::string& suffix, const std::vector<cuda::Param>& reads, const std::string& body) {
    cuda::Kernel k(P.pb, L.fn + "_expm_" + suffix, reads);
    cuda::grid_stride_loop(k.w, "e", "cnt");
    k.w.line(body);
    k.w.close();
    return L.cuda->add_kernel(k, L.label);
  };
  const int k_gather = make("gather", {P.cnt, P.r, P.src, P.rs, P.cs, P.mode, P.dst, P.flag},
                            "if (theano_la_gpu_gather_" + S + "(e, r, src, rs, cs, mode, dst)) flag[0] = 1;");
  const int k_colsum = make("colsum", {P.cnt, P.r, P.u, P.d}, "d[e] = theano_la_expm_colsum(e, r, u);");
  // The CPU kernel's fold of the column sums (ascending, a NaN never the best), and the gather's flag beside it.
  const int k_norm = make("norm", {P.cnt, P.r, P.u, P.flag, P.d},
                          "{ double best = 0; for (int64_t j = 0; j < r; ++j) if (u[j] > best) best = u[j]; "
                          "d[0] = best; d[1] = (double)flag[0]; }");
  const int k_scale = make("scale", {P.cnt, P.scale, P.d}, "d[e] *= scale;");  // a power of two: exact
  const int k_poly = make("poly", {P.cnt, P.r, P.deg, P.odd, P.high, P.a2, P.a4, P.a6, P.a8, P.plus, P.d},
                          "d[e] = theano_la_expm_poly_at(e, r, (int)deg, (int)odd, (int)high, a2, a4, a6, a8, plus);");
  const int k_pq = make("pq", {P.cnt, P.u, P.a2, P.d, P.d2}, "theano_la_expm_pq_at(e, u, a2, d, d2);");
  const int k_store = make("store", {P.cnt, P.r, P.src, P.dst},
                           "theano_la_gpu_store_" + S + "(e, r, r, (const " + T + "*)src, dst, 0);");
  const int k_to_f64 = f64 ? -1 : make("to_f64", {P.cnt, P.src, P.d}, "d[e] = (double)((const float*)src)[e];");
  const int k_from_f64 = f64 ? -1 : make("from_f64", {P.cnt, P.u, P.dst}, "dst[e] = (float)u[e];");

  CodeWriter& w = L.body;
  // The CPU lowering's host part: the call record, the shape rule (a square core: the CPU's ShapeError), the output.
  w.line("TheanoLaCall c;");
  w.line("theano_la_init(&c, " + str(THEANO_LA_EXPM) + ", 1, 1);");
  w.line("c.in[0] = " + L.x(0) + "->data; c.in_nd[0] = " + L.x(0) + "->ndim; c.in_shape[0] = " + L.x(0) +
         "->shape; c.in_strides[0] = " + L.x(0) + "->strides;");
  w.line("int rc = ctx->kernels->la_rule(&c);");
  w.line("if (rc != THEANO_LA_OK) " + kernel_fail(L, "c", "rc"));
  w.line("for (int64_t d = 0; d < c.out_nd[0]; ++d) " + L.o(0) + "->shape[d] = c.out_shape[0][d];");
  w.line(L.alloc(0));
  w.line("int64_t n = 0, rs0 = 0, cs0 = 0, nn = 0, nw = 0, nst = 0;");
  w.line("theano_la_core(&c, 0, &n, &n, &rs0, &cs0);");
  w.line("{ int fits = 0; rc = theano_la_int(&c, n, &fits); if (rc != THEANO_LA_OK) " + kernel_fail(L, "c", "rc") +
         " }");
  w.line("if (c.nbatch == 0 || n == 0) return 0;");
  // n < 2^31 (checked); n^2 and the 8 n^2 doubles of the work buffer checked.
  w.line("if (theano_checked_mul(n, n, &nn) != THEANO_RULE_OK || theano_checked_mul(nn, 8, &nw) != THEANO_RULE_OK || "
         "theano_checked_mul(c.nbatch, " +
         str(kSlots) + ", &nst) != THEANO_RULE_OK) " + L.fail(kErrValue, "the work buffers' sizes overflow int64"));
  // The work buffers: the input's copy (float32), A A2 A4 A6 U V T T2 in double, the pivots, the norm and flag.
  gpu_buffer(L, "wa", dt, "nn");
  gpu_buffer(L, "wd", DType::Float64, "nw");
  gpu_buffer(L, "wp", DType::Int32, "n");
  gpu_buffer(L, "wn", DType::Float64, "2");
  gpu_buffer(L, "wst", DType::Int32, "nst");
  w.line("TheanoArray hn, hst;");
  w.line("hn.ndim = 1; hn.dtype = " + D + "; hn.owner = -1; hn.shape[0] = 2;");
  w.line("hst.ndim = 1; hst.dtype = " + str(static_cast<int>(DType::Int32)) + "; hst.owner = -1; hst.shape[0] = nst;");
  w.line("if (ctx->alloc(ctx->host, &hn, -1) != 0 || ctx->alloc(ctx->host, &hst, -1) != 0) " +
         L.fail(kErrValue, "could not allocate the host's copy of the norm or the status array"));
  // The status array starts at zero: an upload.
  w.line("for (int64_t e = 0; e < nst; ++e) ((int*)hst.data)[e] = 0;");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &wst, &hst, 0)) return e;");
  P.pb.declare(w);
  auto set = [&](cuda::Param a, const std::string& v) { w.line(P.pb.set(a, v)); };
  auto launch = [&](int kernel, const std::string& count) {
    set(P.cnt, count);
    w.line("if (int e = " + P.pb.launch(kernel, count) + ") return e;");
  };
  emit_explain(L, dt, S);
  // Column-major z <- x y: row-major gemm of the transposes, z^T = y^T x^T.
  auto mm = [&](const std::string& x, const std::string& y, const std::string& z) {
    w.line("if (int e = ctx->gpu_gemm(ctx->host, " + D + ", 0, 0, n, n, n, 1.0, (const char*)(" + y +
           "), n, (const char*)(" + x + "), n, 0.0, (char*)(" + z + "), n)) return e;");
  };
  auto poly = [&](int odd, int high, const std::string& plus, const std::string& dst) {
    set(P.odd, str(odd));
    set(P.high, str(high));
    set(P.plus, plus);
    set(P.d, dst);
    launch(k_poly, "nn");
  };

  w.line("double* const A = (double*)wd.data;");
  w.line("double *const A2 = A + nn, *const A4 = A + 2 * nn, *const A6 = A + 3 * nn, *const U = A + 4 * nn, "
         "*const V = A + 5 * nn, *const Tq = A + 6 * nn, *const T2 = A + 7 * nn;");
  w.line("int* const st = (int*)wst.data;");
  w.open("for (int64_t b = 0; b < c.nbatch; ++b)");
  // A, column-major in double; the flag in the entry's slot 0.
  set(P.src, "theano_la_in_at(&c, 0, b)");
  set(P.r, "n");
  set(P.rs, "rs0");
  set(P.cs, "cs0");
  set(P.mode, str(THEANO_LA_GPU_PLAIN));
  set(P.dst, f64 ? "A" : "(" + T + "*)wa.data");
  set(P.flag, "st + " + str(kSlots) + " * b");
  launch(k_gather, "nn");
  if (!f64) {
    set(P.src, "wa.data");
    set(P.d, "A");
    launch(k_to_f64, "nn");
  }
  // ||A||_1 and the flag: one read back, which waits for the device.
  set(P.u, "A");
  set(P.d, "T2");
  launch(k_colsum, "n");
  set(P.u, "T2");
  set(P.d, "(double*)wn.data");
  launch(k_norm, "1");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hn, &wn, 1)) return e;");
  w.line("if (((const double*)hn.data)[1] != 0) return explain(b, (int64_t)((const double*)hn.data)[1]);");
  w.line("int s = 0; double scale = 1;");
  w.line("const int deg = theano_la_expm_degree(((const double*)hn.data)[0], &s, &scale);");
  w.open("if (s > 0)");
  set(P.scale, "scale");
  set(P.d, "A");
  launch(k_scale, "nn");
  w.close();
  mm("A", "A", "A2");
  w.open("if (deg >= 5)");
  mm("A2", "A2", "A4");
  w.close();
  w.open("if (deg >= 7)");
  mm("A4", "A2", "A6");
  w.close();
  set(P.r, "n");
  set(P.deg, "deg");
  set(P.a2, "A2");
  set(P.a4, "A4");
  set(P.a6, "A6");
  set(P.a8, "T2");
  w.open("if (deg < 13)");
  w.open("if (deg == 9)");
  mm("A6", "A2", "T2");  // A^8
  w.close();
  poly(1, 0, "0", "Tq");
  mm("A", "Tq", "U");
  poly(0, 0, "0", "V");
  w.close();
  w.open("else");
  poly(1, 1, "0", "Tq");
  mm("A6", "Tq", "T2");
  poly(1, 0, "T2", "Tq");
  mm("A", "Tq", "U");
  poly(0, 1, "0", "Tq");
  mm("A6", "Tq", "T2");
  poly(0, 0, "T2", "V");
  w.close();
  // q = V - U in Tq, p = V + U in A; q X = p.
  set(P.u, "U");
  set(P.a2, "V");
  set(P.d, "Tq");
  set(P.d2, "A");
  launch(k_pq, "nn");
  const std::string pre = "if (int e = ctx->gpu_lapack(ctx->host, ";
  w.line(pre + "THEANO_GPU_LA_GETRF, " + D + ", 0, n, 0, (char*)Tq, n, (char*)A, n, wp.data, (char*)(st + " +
         str(kSlots) + " * b + 1))) return e;");
  w.line(pre + "THEANO_GPU_LA_GETRS, " + D + ", 0, n, n, (char*)Tq, n, (char*)A, n, wp.data, (char*)(st + " +
         str(kSlots) + " * b + 2))) return e;");
  // s squarings, between A and Tq.
  w.line("double *x = A, *y = Tq;");
  w.open("for (int k = 0; k < s; ++k)");
  mm("x", "x", "y");
  w.line("double* t = x; x = y; y = t;");
  w.close();
  // The row-major output entry.
  const std::string out = "(" + T + "*)" + L.o(0) + "->data + b * nn";
  if (!f64) {
    set(P.u, "x");
    set(P.dst, "(float*)wa.data");
    launch(k_from_f64, "nn");
  }
  set(P.src, f64 ? "(const char*)x" : "wa.data");
  set(P.r, "n");
  set(P.dst, out);
  launch(k_store, "nn");
  w.close();
  // One download of the solver's infos; a failure is worded by the CPU kernel.
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hst, &wst, 1)) return e;");
  w.open("for (int64_t b = 0; b < c.nbatch; ++b)");
  w.line("const int* sb = (const int*)hst.data + " + str(kSlots) + " * b;");
  w.line("if (sb[1] != 0 || sb[2] != 0) return explain(b, sb[1] != 0 ? sb[1] : sb[2]);");
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_gpu_expm_lowerings(LoweringTable& t) { t.add<LA::Expm>(Target::Cuda, &lower_gpu_expm); }

}  // namespace theano::codegen::lower
