// The GPU lowering of the LAPACK-backed ops with a cuSOLVER form (cholesky,
// solve_triangular, cho_solve, solve, inv, det, slogdet, lu_factor, eigh,
// qr, svd and pinv (gesvd on the matrix or its transpose), CholeskyGrad (cuBLAS's
// trmm and trsm);
// LapackOp::gpu_form lists the kinds): the host part is the C++ lowering's
// (kernels/linalg.h's shape rule and size checks, so the same ShapeErrors),
// then, per batch entry, kernels gather each core matrix into a column-major
// GPU buffer (flagging a NaN or an infinity as the CPU's load does), the
// library routines run through ctx->gpu_lapack (thunk_abi.h: cuSOLVER / cuBLAS
// on a GPU, the CPU form's LAPACK routines on the emulated device) with their
// info left in a GPU status array, and kernels store the results row-major
// (det / slogdet: the diagonal reduction of the LU factors; kernels/linalg_gpu.h
// holds these per-element rules). One download of the status array at the
// end finds any failure; the error is then worded by the CPU kernel itself,
// rerun on the host on the downloaded inputs, so the GPU form's messages are
// the CPU form's (the one source of their text, kernels/linalg.h).
// cholesky(on_error="nan") fills a failed entry with NaNs on the device and
// never downloads. docs/linalg.md, "On the GPU".
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/linalg.h>
#include <theano/runtime/kernels/linalg_gpu.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/type.h>

#include "../../thunk_abi.h"
#include "../cuda_unit.h"
#include "gpu_linalg_host.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

namespace LA = tensor::linalg;

// The status array: per batch entry, slot 0 the gathers' non-finite flag or
// the first zero on a triangular matrix's diagonal, slot 1 the
// factorization's info, slot 2 the solve's, slot 3 the info that is no error
// (getrf of det, slogdet and lu_factor: a singular matrix has a determinant
// and an LU factorization).
constexpr int kSlots = 4;

/// The kernels' parameter block (all of a node's kernels share it).
struct LaParams {
  explicit LaParams(const std::string& t)
      : cnt(pb.int64("cnt", "0")),
        r(pb.int64("r", "0")),
        k(pb.int64("k", "0")),
        rs(pb.int64("rs", "0")),
        cs(pb.int64("cs", "0")),
        mode(pb.int64("mode", "0")),
        src(pb.pointer("src", "const char*", "0")),
        dst(pb.pointer("dst", t + "*", "0")),
        aux(pb.pointer("aux", t + "*", "0")),
        flag(pb.pointer("flag", "int*", "0")),
        piv(pb.pointer("piv", "const int*", "0")),
        ipo(pb.pointer("ipo", "int*", "0")) {}
  cuda::ParamBlock pb;
  cuda::Param cnt, r, k, rs, cs, mode, src, dst, aux, flag, piv, ipo;
};

/// The node's kernels, numbered for ctx->gpu_launch.
struct LaKernels {
  int gather = -1, eye = -1, store = -1, det = -1, zero_diag = -1, piv0 = -1, nan_fill = -1, mirror = -1, grad_out = -1,
      pinv = -1;
};

LaKernels add_kernels(NodeLowering& L, const LaParams& P, const std::string& T, const std::string& S, int kind) {
  LaKernels K;
  auto make = [&](const std::string& suffix, const std::vector<cuda::Param>& reads, const std::string& body) {
    cuda::Kernel k(P.pb, L.fn + "_la_" + suffix, reads);
    cuda::grid_stride_loop(k.w, "e", "cnt");
    k.w.line(body);
    k.w.close();
    return L.cuda->add_kernel(k, L.label);
  };
  K.gather = make("gather", {P.cnt, P.r, P.src, P.rs, P.cs, P.mode, P.dst, P.flag},
                  "if (theano_la_gpu_gather_" + S + "(e, r, src, rs, cs, mode, dst)) flag[0] = 1;");
  K.eye = make("eye", {P.cnt, P.r, P.dst}, "theano_la_gpu_eye_" + S + "(e, r, dst);");
  K.store = make("store", {P.cnt, P.r, P.k, P.src, P.dst, P.mode},
                 "theano_la_gpu_store_" + S + "(e, r, k, (const " + T + "*)src, dst, mode);");
  K.det = make("det", {P.cnt, P.r, P.src, P.piv, P.mode, P.dst, P.aux},
               "theano_la_gpu_lu_det_" + S + "((const " + T + "*)src, piv, r, (int)mode, dst, aux);");
  K.zero_diag = make(
      "zero_diag", {P.cnt, P.r, P.src, P.flag},
      "{ const int64_t z = theano_la_gpu_zero_diag_" + S + "((const " + T + "*)src, r); if (z) flag[0] = (int)z; }");
  K.piv0 = make("piv0", {P.cnt, P.piv, P.ipo}, "ipo[e] = piv[e] - 1;");
  K.nan_fill =
      make("nan_fill", {P.cnt, P.flag, P.dst}, "if (flag[0] != 0 || flag[1] > 0) dst[e] = (" + T + ")THEANO_NAN;");
  if (kind == THEANO_LA_CHOLESKY_GRAD) {
    K.mirror = make("mirror", {P.cnt, P.r, P.dst}, "theano_la_gpu_mirror_" + S + "(e, r, dst);");
    K.grad_out = make("grad_out", {P.cnt, P.r, P.src, P.dst, P.mode},
                      "theano_la_gpu_chol_grad_out_" + S + "(e, r, (const " + T + "*)src, dst, mode);");
  }
  if (kind == THEANO_LA_PINV)  // U at src, Vt after it (gesvd's layout: M x kk, then kk x kk or kk x n)
    K.pinv = make("pinv", {P.cnt, P.r, P.k, P.src, P.aux, P.mode, P.dst},
                  "theano_la_gpu_pinv_" + S + "(e, r, k, aux, (const " + T + "*)src, (const " + T +
                      "*)src + (r > k ? r : k) * (r < k ? r : k), mode, dst);");
  return K;
}

}  // namespace

// The host steps gpu_linalg_host.h shares with the GPU form of expm (emit/lower/gpu_expm.cpp).

/// Declares the GPU buffer `name` of `count` (a C expression) elements of `dt`.
void gpu_buffer(NodeLowering& L, const std::string& name, DType dt, const std::string& count) {
  CodeWriter& w = L.body;
  w.line("TheanoArray " + name + ";");
  w.line(name + ".ndim = 1; " + name + ".dtype = " + str(static_cast<int>(dt)) + "; " + name + ".owner = -1; " + name +
         ".shape[0] = " + count + ";");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &" + name + ", -1, " + item_of(dt) + ", " +
         c_string(L.label + ": a work buffer: ") + ", all, " + str(L.nin()) + ")) return e;");
}

/// The statement failing with the CPU kernel's words in `call`.msg after the node's label.
std::string kernel_fail(NodeLowering& L, const std::string& call, const std::string& rc) {
  return "{ char m[512]; theano_la_cat(m, 512, " + c_string(L.label + ": ") + ", " + call +
         ".msg); return theano_fail(ctx, " + rc + " == THEANO_LA_SHAPE ? " + str(kErrShape) + " : " + str(kErrValue) +
         ", m, all, " + str(L.nin()) + "); }";
}

/// The lambda `explain(b, v)`: the inputs downloaded, the CPU kernel rerun on
/// them on the host; its error, or (it finds none) an error naming batch entry
/// b and the status v the GPU reported.
void emit_explain(NodeLowering& L, DType dt, const std::string& S) {
  CodeWriter& w = L.body;
  w.open("auto explain = [&](int64_t bad_entry, int64_t bad_status) -> int");
  w.line("TheanoLaCall h = c;");
  w.line("TheanoArray hin[" + str(L.nin()) + "], hout[" + str(L.nout()) + "];");
  for (int i = 0; i < L.nin(); ++i) {
    const std::string x = L.x(i), si = str(i), nd = str(L.in(i).ndim());
    w.open("");
    w.line("TheanoArray g;");
    w.line("g.ndim = " + nd + "; g.dtype = " + x + "->dtype; g.owner = -1;");
    w.line("for (int64_t d = 0; d < " + nd + "; ++d) g.shape[d] = " + x + "->shape[d];");
    w.line("if (int e = theano_gpu_alloc_checked(ctx, &g, -1, " + item_of(dt) + ", " +
           c_string(L.label + ": a contiguous copy of input " + si + ": ") + ", all, " + str(L.nin()) + ")) return e;");
    emit_gpu_copy(L, dt, L.in(i).ndim(), "g.data", "g.strides", x + "->data", x + "->strides", x + "->shape");
    w.line("hin[" + si + "] = g;");
    w.line("if (ctx->alloc(ctx->host, &hin[" + si + "], -1) != 0) " +
           L.fail(kErrValue, "could not allocate a host copy of an input to word an error"));
    w.line("if (int e = ctx->gpu_copy(ctx->host, &hin[" + si + "], &g, 1)) return e;");
    w.line("h.in[" + si + "] = hin[" + si + "].data; h.in_strides[" + si + "] = hin[" + si + "].strides;");
    w.close();
  }
  for (int k = 0; k < L.nout(); ++k) {
    const std::string ks = str(k);
    w.line("hout[" + ks + "].ndim = c.out_nd[" + ks + "]; hout[" + ks +
           "].dtype = " + str(static_cast<int>(L.out(k).dtype())) + "; hout[" + ks + "].owner = -1;");
    w.line("for (int64_t d = 0; d < c.out_nd[" + ks + "]; ++d) hout[" + ks + "].shape[d] = c.out_shape[" + ks +
           "][d];");
    w.line("if (ctx->alloc(ctx->host, &hout[" + ks + "], -1) != 0) " +
           L.fail(kErrValue, "could not allocate a host output to word an error"));
    w.line("h.out[" + ks + "] = hout[" + ks + "].data;");
  }
  w.line("int64_t wbytes = 0;");
  w.line("int hrc = ctx->kernels->la_work_" + S + "(&h, &wbytes);");
  w.line("if (hrc != THEANO_LA_OK) " + kernel_fail(L, "h", "hrc"));
  w.line("TheanoArray scratch;");
  w.line("scratch.ndim = 1; scratch.dtype = " + str(static_cast<int>(dt)) + "; scratch.owner = -1;");
  w.line("scratch.shape[0] = wbytes / " + item_of(dt) + " + 4;");
  w.line("if (ctx->alloc(ctx->host, &scratch, -1) != 0) " + L.fail(kErrValue, "could not allocate LAPACK's workspace"));
  w.line("h.work = scratch.data;");
  w.line("hrc = ctx->kernels->la_run_" + S + "(&h);");
  w.line("if (hrc != THEANO_LA_OK) " + kernel_fail(L, "h", "hrc"));
  w.line(L.fail_int2(kErrValue, "the GPU's solver reported a failure at batch entry ", "bad_entry", " (status ",
                     "bad_status", ") that LAPACK, rerun on the host on the same input to word it, does not find"));
  w.close(";");
}

namespace {

void lower_gpu_lapack(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto* op = dynamic_cast<const LA::LapackOp*>(&L.op);
  THEANO_INTERNAL_CHECK(op != nullptr) << L.label << ": not a LAPACK-backed op";
  const int kind = op->la_kind();
  const DType dt = L.in(0).dtype();
  if (dt != DType::Float64 && dt != DType::Float32)
    refuse(L.node, LoweringReason::Dtype, " (GPU linear algebra of " + std::string(dtype_name(dt)) + ")");
  L.cold = true;
  const std::string S = dt == DType::Float64 ? "f64" : "f32", T = c_type(dt), item = item_of(dt),
                    dcode = str(static_cast<int>(dt));
  const std::vector<std::int64_t> opts = op->la_options();
  need_linalg_kernels(L);  // the host side: the rule, and the CPU kernel wording errors
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  L.cuda->need("linalg gpu rules", std::string(kernel_text("linalg_gpu.h")));
  const LaParams P(T);
  const LaKernels K = add_kernels(L, P, T, S, kind);
  const bool grad = kind == THEANO_LA_CHOLESKY_GRAD;  // two n x n inputs, no failure
  const bool rhs = kind == THEANO_LA_SOLVE_TRIANGULAR || kind == THEANO_LA_CHO_SOLVE || kind == THEANO_LA_SOLVE || grad;
  const bool nan_on_error = kind == THEANO_LA_CHOLESKY && opts[1] != 0;
  // qr and svd: an m x n matrix; svd factors it as it is when m >= n, its transpose (M x kk) otherwise.
  const bool qr = kind == THEANO_LA_QR, svd = kind == THEANO_LA_SVD || kind == THEANO_LA_PINV, rect = qr || svd;

  CodeWriter& w = L.body;
  // The CPU lowering's host part: the call record, the shape rule, the outputs.
  w.line("TheanoLaCall c;");
  w.line("theano_la_init(&c, " + str(kind) + ", " + str(L.nin()) + ", " + str(L.nout()) + ");");
  for (std::size_t i = 0; i < opts.size(); ++i)
    w.line("c.opt[" + str(static_cast<std::int64_t>(i)) + "] = " + str(opts[i]) + ";");
  for (int i = 0; i < L.nin(); ++i) {
    const std::string k = str(i), x = L.x(i);
    w.line("c.in[" + k + "] = " + x + "->data; c.in_nd[" + k + "] = " + x + "->ndim; c.in_shape[" + k + "] = " + x +
           "->shape; c.in_strides[" + k + "] = " + x + "->strides;");
  }
  w.line("int rc = ctx->kernels->la_rule(&c);");
  w.line("if (rc != THEANO_LA_OK) " + kernel_fail(L, "c", "rc"));
  for (int k = 0; k < L.nout(); ++k) {
    const std::string ks = str(k), o = L.o(k);
    w.line("for (int64_t d = 0; d < c.out_nd[" + ks + "]; ++d) " + o + "->shape[d] = c.out_shape[" + ks + "][d];");
    w.line(L.alloc(k));
  }
  // The sizes, checked against the 32-bit interface as the CPU kernel's workspace step does.
  w.line("int64_t m = 0, n = 0, r = 0, k = 0, rs0 = 0, cs0 = 0, rs1 = 0, cs1 = 0;");
  w.line("theano_la_core(&c, 0, &m, &n, &rs0, &cs0);");
  if (rhs)
    w.line("theano_la_core(&c, 1, &r, &k, &rs1, &cs1);");
  else
    w.line("r = n; k = n;");
  w.line(
      "{ int fits = 0; rc = theano_la_int(&c, n, &fits); if (rc == THEANO_LA_OK) rc = theano_la_int(&c, k, &fits); "
      "if (rc == THEANO_LA_OK) rc = theano_la_int(&c, m, &fits); if (rc != THEANO_LA_OK) " +
      kernel_fail(L, "c", "rc") + " }");
  // m, n < 2^31 (checked): the products below fit int64.
  w.line("const int64_t kk = m < n ? m : n, M = m > n ? m : n, tr = " + std::string(svd ? "m < n" : "0") + ";");
  w.line("(void)kk; (void)M; (void)tr;");
  w.line("if (c.nbatch == 0) return 0;");
  // The work buffers: the matrix, the right-hand side / solution, the eigenvalues / singular values / tau, the
  // pivots (svd: U and Vt), the status array.
  if (rect) {
    gpu_buffer(L, "wa", dt, "m * M + 1");
    gpu_buffer(L, "wx", dt, "1");
    gpu_buffer(L, "ww", dt, "kk + 1");
    if (svd)
      gpu_buffer(L, "wp", dt, "M * M + kk * kk + 1");
    else
      gpu_buffer(L, "wp", DType::Int32, "1");
  } else {
    gpu_buffer(L, "wa", dt, "n * n + 1");
    gpu_buffer(L, "wx", dt, "r * k + 1");
    gpu_buffer(L, "ww", dt, "n + 1");
    gpu_buffer(L, "wp", DType::Int32, "n + 1");
  }
  w.line("int64_t nst = 0;");
  w.line("if (theano_checked_mul(c.nbatch, " + str(kSlots) + ", &nst) != THEANO_RULE_OK) " +
         L.fail(kErrValue, "the status array's size overflows int64"));
  gpu_buffer(L, "wst", DType::Int32, "nst");
  P.pb.declare(w);
  auto set = [&](cuda::Param a, const std::string& v) { w.line(P.pb.set(a, v)); };
  auto launch = [&](int kernel, const std::string& count) {
    set(P.cnt, count);
    w.line("if (int e = " + P.pb.launch(kernel, count) + ") return e;");
  };
  // The status array starts at zero: an upload.
  w.open("");
  w.line("TheanoArray z;");
  w.line("z.ndim = 1; z.dtype = " + str(static_cast<int>(DType::Int32)) + "; z.owner = -1; z.shape[0] = nst;");
  w.line("if (ctx->alloc(ctx->host, &z, -1) != 0) " + L.fail(kErrValue, "could not allocate the status array"));
  w.line("for (int64_t e = 0; e < nst; ++e) ((int*)z.data)[e] = 0;");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &wst, &z, 0)) return e;");
  w.close();

  const std::string lower = str(opts.empty() ? 0 : opts[0]);
  // The routine on wa, `rows` x nrhs (its leading dimension).
  auto call = [&](const std::string& which, const std::string& flags, const std::string& rows, const std::string& nrhs,
                  const std::string& b, const std::string& ldb, const std::string& slot) {
    w.line("if (int e = ctx->gpu_lapack(ctx->host, " + which + ", " + dcode + ", " + flags + ", " + rows + ", " + nrhs +
           ", wa.data, " + rows + " > 1 ? " + rows + " : 1, " + b + ", " + ldb + ", wp.data, (char*)(st + " +
           str(kSlots) + " * b + " + slot + "))) return e;");
  };
  auto routine = [&](const std::string& which, const std::string& flags, const std::string& nrhs, const std::string& b,
                     const std::string& ldb, const std::string& slot) { call(which, flags, "n", nrhs, b, ldb, slot); };
  // Row-major output entry `o` (rows x cols) <- the column-major buffer `src` (leading dimension `ld`, rows by
  // default); tri as the CPU's store (3: a plain copy, the transpose's column-major layout).
  auto store = [&](const std::string& src, const std::string& rows, const std::string& cols, const std::string& out,
                   const std::string& tri, const std::string& ld = "") {
    set(P.src, src);
    set(P.r, ld.empty() ? rows : ld);
    set(P.k, cols);
    set(P.dst, out);
    set(P.mode, tri);
    launch(K.store, rows + " * " + cols);
  };
  // Row-major output entry `out` (rows x cols) <- the identity.
  auto eye = [&](const std::string& rows, const std::string& cols, const std::string& out) {
    set(P.r, cols);
    set(P.dst, out);
    launch(K.eye, rows + " * " + cols);
  };
  auto entry = [&](int k) {
    return "(" + L.out_ctype(k) + "*)" + L.o(k) + "->data + b * theano_la_out_core(&c, " + str(k) + ")";
  };

  w.line("int* st = (int*)wst.data;");
  w.open("for (int64_t b = 0; b < c.nbatch; ++b)");
  // The matrix, column-major, its symmetric fill for solve(assume_a="sym").
  const std::string mode =
      str(kind == THEANO_LA_SOLVE && opts[0] == 1 ? (opts[1] ? THEANO_LA_GPU_SYM_LOWER : THEANO_LA_GPU_SYM_UPPER)
                                                  : THEANO_LA_GPU_PLAIN);
  set(P.src, "theano_la_in_at(&c, 0, b)");
  set(P.r, "n");
  // CholeskyGrad: U = L^T (a lower op's L read transposed) and X, the upper triangles alone, no flag.
  const bool swap = grad && opts[0] != 0;
  set(P.rs, swap ? "cs0" : svd ? "tr ? cs0 : rs0" : "rs0");
  set(P.cs, swap ? "rs0" : svd ? "tr ? rs0 : cs0" : "cs0");
  set(P.mode, grad ? str(THEANO_LA_GPU_UPPER) : mode);
  set(P.dst, "wa.data");
  set(P.flag, "st + " + str(kSlots) + " * b" + (grad ? " + 3" : ""));
  if (rect) set(P.r, svd ? "M" : "m");
  launch(K.gather, qr ? "m * n" : svd ? "M * kk" : "n * n");
  if (grad) {
    set(P.src, "theano_la_in_at(&c, 1, b)");
    set(P.rs, swap ? "cs1" : "rs1");
    set(P.cs, swap ? "rs1" : "cs1");
    set(P.dst, "wx.data");
    launch(K.gather, "n * n");
  } else if (rhs) {
    set(P.src, "theano_la_in_at(&c, 1, b)");
    set(P.r, "r");
    set(P.rs, "rs1");
    set(P.cs, "cs1");
    set(P.mode, str(THEANO_LA_GPU_PLAIN));
    set(P.dst, "wx.data");
    launch(K.gather, "r * k");
  } else if (kind == THEANO_LA_INV) {
    set(P.r, "n");
    set(P.dst, "wx.data");
    launch(K.eye, "n * n");
  }
  const std::string F_LOWER = "THEANO_GPU_LA_F_LOWER";
  switch (kind) {
    case THEANO_LA_CHOLESKY:
      w.open("if (n > 0)");
      routine("THEANO_GPU_LA_POTRF", lower + " ? " + F_LOWER + " : 0", "0", "wx.data", "1", "1");
      store("wa.data", "n", "n", entry(0), lower + " ? 1 : 2");
      if (nan_on_error) {
        set(P.flag, "st + " + str(kSlots) + " * b");
        set(P.dst, entry(0));
        launch(K.nan_fill, "n * n");
      }
      w.close();
      break;
    case THEANO_LA_SOLVE_TRIANGULAR: {
      const std::string flags = "(" + lower + " ? " + F_LOWER + " : 0) | (" + str(opts[1]) +
                                " ? THEANO_GPU_LA_F_TRANS : 0) | (" + str(opts[2]) + " ? THEANO_GPU_LA_F_UNIT : 0)";
      w.open("if (n > 0 && k > 0)");
      if (!opts[2]) {  // trtrs's check of the diagonal, which trsm does not make
        set(P.src, "wa.data");
        set(P.r, "n");
        launch(K.zero_diag, "1");
      }
      routine("THEANO_GPU_LA_TRSM", flags, "k", "wx.data", "n > 1 ? n : 1", "3");
      store("wx.data", "r", "k", entry(0), "0");
      w.close();
      break;
    }
    case THEANO_LA_CHO_SOLVE:
      w.open("if (n > 0 && k > 0)");
      routine("THEANO_GPU_LA_POTRS", lower + " ? " + F_LOWER + " : 0", "k", "wx.data", "n > 1 ? n : 1", "2");
      store("wx.data", "r", "k", entry(0), "0");
      w.close();
      break;
    case THEANO_LA_SOLVE:
    case THEANO_LA_INV:
      w.open("if (n > 0 && k > 0)");
      if (kind == THEANO_LA_SOLVE && opts[0] == 2) {  // pos: Cholesky
        const std::string fl = str(opts[1]) + " ? " + F_LOWER + " : 0";
        routine("THEANO_GPU_LA_POTRF", fl, "0", "wx.data", "1", "1");
        routine("THEANO_GPU_LA_POTRS", fl, "k", "wx.data", "n > 1 ? n : 1", "2");
      } else {
        routine("THEANO_GPU_LA_GETRF", "0", "0", "wx.data", "1", "1");
        routine("THEANO_GPU_LA_GETRS", "0", "k", "wx.data", "n > 1 ? n : 1", "2");
      }
      store("wx.data", "r", "k", entry(0), "0");
      w.close();
      break;
    case THEANO_LA_DET:
    case THEANO_LA_SLOGDET:
      w.open("if (n > 0)");
      routine("THEANO_GPU_LA_GETRF", "0", "0", "wx.data", "1", "3");
      w.close();
      set(P.src, "wa.data");
      set(P.piv, "(const int*)wp.data");
      set(P.r, "n");
      set(P.mode, kind == THEANO_LA_SLOGDET ? "1" : "0");
      set(P.dst, entry(0));
      set(P.aux, kind == THEANO_LA_SLOGDET ? entry(1) : std::string("0"));
      launch(K.det, "1");
      break;
    case THEANO_LA_LU_FACTOR:
      w.open("if (n > 0)");
      routine("THEANO_GPU_LA_GETRF", "0", "0", "wx.data", "1", "3");
      store("wa.data", "n", "n", entry(0), "0");
      set(P.piv, "(const int*)wp.data");
      set(P.ipo, "(int*)" + L.o(1) + "->data + b * n");
      launch(K.piv0, "n");
      w.close();
      break;
    case THEANO_LA_EIGH: {
      const bool vectors = opts[1] != 0;
      w.open("if (n > 0)");
      routine("THEANO_GPU_LA_SYEVD",
              "(" + lower + " ? " + F_LOWER + " : 0)" + (vectors ? " | THEANO_GPU_LA_F_VECTORS" : ""), "0", "ww.data",
              "1", "1");
      store("ww.data", "n", "1", entry(0), "0");
      if (vectors) store("wa.data", "n", "n", entry(1), "0");
      w.close();
      break;
    }
    case THEANO_LA_CHOLESKY_GRAD: {
      // kernels/linalg.h's theano_la_cholesky_grad: X <- X U^T; X's lower triangle <- its upper;
      // X <- U^-1 X U^-T; the result Phi(X) in the op's triangle.
      const std::string rt = "THEANO_GPU_LA_F_RIGHT | THEANO_GPU_LA_F_TRANS";
      w.open("if (n > 0)");
      routine("THEANO_GPU_LA_TRMM", rt, "n", "wx.data", "n", "3");
      set(P.r, "n");
      set(P.dst, "wx.data");
      launch(K.mirror, "n * n");
      routine("THEANO_GPU_LA_TRSM", "0", "n", "wx.data", "n", "3");
      routine("THEANO_GPU_LA_TRSM", rt, "n", "wx.data", "n", "3");
      set(P.src, "wx.data");
      set(P.dst, entry(0));
      set(P.mode, lower);
      launch(K.grad_out, "n * n");
      w.close();
      break;
    }
    case THEANO_LA_QR: {
      // kernels/linalg.h's QR: geqrf, R from its upper triangle, Q by orgqr (the identity of an empty matrix).
      const std::int64_t mode_qr = opts[0];
      const std::string qcols = mode_qr == 1 ? "m" : "kk", rrows = mode_qr == 1 ? "m" : "kk";
      w.open("if (kk > 0)");
      call("THEANO_GPU_LA_GEQRF", "0", "m", "n", "ww.data", "1", "1");
      w.close();
      store("wa.data", rrows, "n", entry(mode_qr == 2 ? 0 : 1), "2", "(m > 1 ? m : 1)");
      if (mode_qr != 2) {
        w.open("if (kk > 0)");
        call("THEANO_GPU_LA_ORGQR", "0", "m", qcols, "ww.data", "kk", "2");
        store("wa.data", "m", qcols, entry(0), "0");
        w.close();
        w.open("else");
        eye("m", qcols, entry(0));
        w.close();
      }
      break;
    }
    case THEANO_LA_SVD: {
      // kernels/linalg.h's SVD on a (m >= n) or a^T (M x kk): a^T = U' S V'^T gives U = V' and Vt = U'^T, whose
      // row-major forms are the column-major buffers of Vt' and U' as they lie (store's plain copy).
      const bool full = opts[0] != 0, uv = opts[1] != 0;
      const std::string ucols = full ? "m" : "kk", vrows = full ? "n" : "kk";
      const std::string uo = uv ? entry(0) : "", so = entry(uv ? 1 : 0), vo = uv ? entry(2) : "";
      const std::string up = "(" + T + "*)wp.data", vp = "(" + T + "*)wp.data + M * " + (full ? "M" : "kk");
      w.open("if (kk > 0)");
      call("THEANO_GPU_LA_GESVD",
           std::string(uv ? "THEANO_GPU_LA_F_VECTORS" : "0") + (full ? " | THEANO_GPU_LA_F_FULL" : ""), "M", "kk",
           "ww.data", "1", "1");
      store("ww.data", "kk", "1", so, "0");
      if (uv) {
        w.open("if (!tr)");
        store(up, "m", ucols, uo, "0");
        store(vp, "n", "n", vo, "0");
        w.close();
        w.open("else");
        store(vp, "m", "m", uo, "3");
        store(up, vrows, "n", vo, "3");
        w.close();
      }
      w.close();
      if (uv) {  // an empty matrix: U and Vt of a full SVD are identities
        w.open("else");
        eye("m", ucols, uo);
        eye(vrows, "n", vo);
        w.close();
      }
      break;
    }
    case THEANO_LA_PINV:
      // kernels/linalg.h's PINV: the thin SVD (of a or a^T), then V diag(s+) U^T one element a thread.
      w.open("if (kk > 0)");
      call("THEANO_GPU_LA_GESVD", "THEANO_GPU_LA_F_VECTORS", "M", "kk", "ww.data", "1", "1");
      w.close();
      set(P.src, "wp.data");
      set(P.aux, "ww.data");
      set(P.r, "m");
      set(P.k, "n");
      set(P.mode, "tr");
      set(P.dst, entry(0));
      launch(K.pinv, "n * m");
      break;
    default:
      THEANO_INTERNAL_CHECK(false) << L.label << ": no GPU form for linear algebra kind " << kind;
  }
  w.close();
  if (nan_on_error || grad) {  // failures became NaNs on the device / none possible: nothing to download
    w.line("return 0;");
    return;
  }
  // One download of the status array; a failure is worded by the CPU kernel.
  emit_explain(L, dt, S);
  w.line("TheanoArray hst;");
  w.line("hst.ndim = 1; hst.dtype = " + str(static_cast<int>(DType::Int32)) + "; hst.owner = -1; hst.shape[0] = nst;");
  w.line("if (ctx->alloc(ctx->host, &hst, -1) != 0) " + L.fail(kErrValue, "could not allocate the status array"));
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hst, &wst, 1)) return e;");
  w.open("for (int64_t b = 0; b < c.nbatch; ++b)");
  w.line("const int* s = (const int*)hst.data + " + str(kSlots) + " * b;");
  w.line("if (s[0] != 0 || s[1] != 0 || s[2] != 0) return explain(b, s[0] != 0 ? s[0] : s[1] != 0 ? s[1] : s[2]);");
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_gpu_linalg_lowerings(LoweringTable& t) {
  t.add<LA::Cholesky>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::SolveTriangular>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::CholeskySolve>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::Solve>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::MatrixInverse>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::Det>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::SLogDet>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::LUFactor>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::Eigh>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::CholeskyGrad>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::QR>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::SVD>(Target::Cuda, &lower_gpu_lapack);
  t.add<LA::MatrixPinv>(Target::Cuda, &lower_gpu_lapack);
}

}  // namespace theano::codegen::lower
