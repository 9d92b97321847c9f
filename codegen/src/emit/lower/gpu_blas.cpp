// GPU lowerings of the BLAS ops (Dot of vectors and matrices, Dot22, Gemm,
// Gemv, Ger; float32 / float64) through one host callback, ctx->gpu_gemm
// (thunk_abi.h): cuBLAS on a GPU (run/cuda/cublas.h), OpenBLAS on the emulated
// device. Every op is a row-major gemm C (m x n) <- alpha op(A) op(B) + beta C
// over 2-d views of its operands: a vector is a k x 1 column (its stride the
// row stride) or a 1 x k row. An operand BLAS cannot read in place (the CPU
// lowering's rule, theano_blas_matrix: zero, negative or non-unit inner
// strides) is first gathered into a contiguous GPU buffer by a copy kernel.
// As perform: alpha == 0 or an empty inner dimension only scales by beta (a
// scale kernel), beta == 0 never reads the old values; the non-inplace ops
// write a fresh output, copied from Z / y / A first where it is read.
#include <theano/runtime/error.h>
#include <theano/tensor/batched_blas.h>
#include <theano/tensor/blas.h>

#include "../cuda_unit.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

/// Declares `const char* P; int64_t P_t, P_ld;`: the rows x cols operand at
/// `data` with byte strides (s0, s1) as BLAS reads it, gathered into a
/// contiguous GPU buffer when it cannot be read in place.
void emit_operand(NodeLowering& L, const std::string& P, const std::string& data, const std::string& rows,
                  const std::string& cols, const std::string& s0, const std::string& s1) {
  CodeWriter& w = L.body;
  const DType dt = L.out(0).dtype();
  const std::string item = item_of(dt);
  w.line("const char* " + P + " = " + data + ";");
  w.line("int64_t " + P + "_t = 0, " + P + "_ld = 1;");
  w.open("");
  w.line("int tr = 0, ld = 0;");
  w.open("if (theano_blas_matrix(" + rows + ", " + cols + ", " + s0 + ", " + s1 + ", " + item + ", &tr, &ld))");
  w.line(P + "_t = tr == CblasTrans;");
  w.line(P + "_ld = ld;");
  w.close();
  w.open("else");
  w.line("TheanoArray t;");
  w.line("t.ndim = 2; t.dtype = " + str(static_cast<int>(dt)) + "; t.owner = -1; t.shape[0] = " + rows +
         "; t.shape[1] = " + cols + ";");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &t, -1, " + item + ", " +
         c_string(L.label + ": a contiguous copy of operand " + P + ": ") + ", all, " + str(L.nin()) + ")) return e;");
  w.line("const int64_t src_st[2] = {" + s0 + ", " + s1 + "};");
  w.line("const int64_t src_shape[2] = {" + rows + ", " + cols + "};");
  emit_gpu_copy(L, dt, 2, "t.data", "t.strides", data, "src_st", "src_shape");
  w.line(P + " = t.data;");
  w.line(P + "_ld = theano_blas_contiguous_ld(" + cols + ");");
  w.close();
  w.close();
}

/// The parameters of the kernel scaling n contiguous elements of C type `t`
/// by beta: host values the C expressions `n`, `c`, `beta`.
struct ScaleParams {
  ScaleParams(const std::string& t, const std::string& n_host, const std::string& c_host,
              const std::string& beta_host)
      : n(pb.int64("n", n_host)), c(pb.pointer("c", t + "*", c_host)), beta(pb.real("beta", beta_host)) {}
  cuda::ParamBlock pb;
  cuda::Param n, c, beta;
};

/// The kernel scaling by beta (0 clears without reading), shared by the
/// unit's nodes of the output's dtype.
int scale_kernel(NodeLowering& L) {
  const DType dt = L.out(0).dtype();
  const std::string t = c_type(dt), name = "theano_scale_" + t;
  if (const int k = L.cuda->find_kernel(name); k >= 0) return k;
  const ScaleParams sp(t, "0", "0", "0");
  cuda::Kernel k(sp.pb, name, {sp.n, sp.c, sp.beta});
  cuda::grid_stride_loop(k.w, "k", "n");
  k.w.line("c[k] = beta == 0 ? (" + t + ")0 : c[k] * (" + t + ")beta;");
  k.w.close();
  return L.cuda->add_kernel(k, "the BLAS ops' scaling by beta");
}

/// Emits the gemm of the op: output o0 (fresh, C-contiguous, m x n seen
/// row-major with leading dimension `ldc`) <- alpha A (m x k) B (k x n) +
/// beta o0, A and B declared by emit_operand; m, n, k are C expressions,
/// `alpha` / `beta` C doubles in scope.
void emit_gemm(NodeLowering& L, const std::string& m, const std::string& n, const std::string& k,
               const std::string& ldc) {
  CodeWriter& w = L.body;
  const int scale = scale_kernel(L);
  const std::string mn = "(" + m + ") * (" + n + ")";  // an existing output's size: no overflow
  w.open("if ((" + k + ") == 0 || alpha == 0)");
  w.line("if (beta == 1 || " + mn + " == 0) return 0;");
  const ScaleParams sp(c_type(L.out(0).dtype()), mn, "o0->data", "beta");
  sp.pb.declare(w);
  w.line("return " + sp.pb.launch(scale, sp.pb.host(sp.n)) + ";");
  w.close();
  w.line("return ctx->gpu_gemm(ctx->host, " + str(static_cast<int>(L.out(0).dtype())) + ", A_t, B_t, " + m + ", " + n +
         ", " + k + ", alpha, A, A_ld, B, B_ld, beta, o0->data, " + ldc + ");");
}

/// o0 (fresh) <- a copy of input i where `copy_if` holds (beta != 0).
void emit_output_copy(NodeLowering& L, int i, const std::string& copy_if) {
  CodeWriter& w = L.body;
  const int nd = L.in(i).ndim();
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = " + L.x(i) + "->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.open("if (" + copy_if + ")");
  emit_gpu_copy(L, L.out(0).dtype(), nd, "o0->data", "o0->strides", L.x(i) + "->data", L.x(i) + "->strides",
                L.x(i) + "->shape");
  w.close();
}

void prologue(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const DType od = L.out(0).dtype();
  if (od != DType::Float32 && od != DType::Float64)
    refuse(L.node, LoweringReason::Dtype, " (GPU BLAS of " + std::string(dtype_name(od)) + ")");
  L.cold = true;
  need_blas_layout(L);
}

void lower_gpu_dot(NodeLowering& L) {
  prologue(L);
  CodeWriter& w = L.body;
  const int ndx = L.in(0).ndim(), ndy = L.in(1).ndim();
  const std::string item = item_of(L.out(0).dtype());
  emit_dot_output(L);
  w.line("const double alpha = 1, beta = 0;");
  if (ndx == 2)
    emit_operand(L, "A", "x0->data", "m", "k", "x0->strides[0]", "x0->strides[1]");
  else
    emit_operand(L, "A", "x0->data", "1", "k", item, "x0->strides[0]");
  if (ndy == 2)
    emit_operand(L, "B", "x1->data", "k", "n", "x1->strides[0]", "x1->strides[1]");
  else
    emit_operand(L, "B", "x1->data", "k", "1", "x1->strides[0]", item);
  emit_gemm(L, "m", "n", "k", ndy == 2 ? "theano_blas_contiguous_ld(n)" : "1");
}

void lower_gpu_gemm(NodeLowering& L) {
  prologue(L);
  emit_gemm_checks(L);
  emit_output_copy(L, 0, "beta != 0");
  emit_operand(L, "A", "x2->data", "m", "k", "x2->strides[0]", "x2->strides[1]");
  emit_operand(L, "B", "x3->data", "k", "n", "x3->strides[0]", "x3->strides[1]");
  emit_gemm(L, "m", "n", "k", "theano_blas_contiguous_ld(n)");
}

void lower_gpu_gemv(NodeLowering& L) {
  prologue(L);
  const std::string item = item_of(L.out(0).dtype());
  // y (m) <- beta y + alpha A (m x n) x (n): a gemm of m x n by n x 1.
  emit_gemv_checks(L);
  emit_output_copy(L, 0, "beta != 0");
  emit_operand(L, "A", "x2->data", "m", "n", "x2->strides[0]", "x2->strides[1]");
  emit_operand(L, "B", "x3->data", "n", "1", "x3->strides[0]", item);
  emit_gemm(L, "m", "1", "n", "1");
}

void lower_gpu_ger(NodeLowering& L) {
  prologue(L);
  CodeWriter& w = L.body;
  const std::string item = item_of(L.out(0).dtype());
  // A (m x n) <- A + alpha x (m x 1) y^T (1 x n): a gemm with k = 1, beta = 1.
  emit_ger_checks(L);
  w.line("const double beta = 1;");
  emit_output_copy(L, 0, "1");
  emit_operand(L, "A", "x2->data", "m", "1", "x2->strides[0]", item);
  emit_operand(L, "B", "x3->data", "1", "n", item, "x3->strides[0]");
  emit_gemm(L, "m", "n", "1", "theano_blas_contiguous_ld(n)");
}

/// Declares `const TheanoArray* P` (input i, or a contiguous GPU copy of it
/// when its items cannot be read in place) and `int64_t P_t, P_ld`: how BLAS
/// reads each rows x cols item (stride names as emit_batched_dot_checks').
void emit_batch_operand(NodeLowering& L, const std::string& P, int i, const std::string& rows,
                        const std::string& cols, const std::string& s0, const std::string& s1) {
  CodeWriter& w = L.body;
  const DType dt = L.out(0).dtype();
  const int nd = L.in(i).ndim();
  const std::string item = item_of(dt), x = L.x(i);
  w.line("const TheanoArray* " + P + " = " + x + ";");
  w.line("TheanoArray " + P + "_copy;");
  w.line("int64_t " + P + "_t = 0, " + P + "_ld = 1;");
  w.open("");
  w.line("int tr = 0, ld = 0;");
  w.open("if (theano_blas_matrix(" + rows + ", " + cols + ", " + s0 + ", " + s1 + ", " + item + ", &tr, &ld))");
  w.line(P + "_t = tr == CblasTrans;");
  w.line(P + "_ld = ld;");
  w.close();
  w.open("else");
  w.line(P + "_copy.ndim = " + str(nd) + "; " + P + "_copy.dtype = " + str(static_cast<int>(dt)) + "; " + P +
         "_copy.owner = -1;");
  w.line("for (int d = 0; d < " + str(nd) + "; ++d) " + P + "_copy.shape[d] = " + x + "->shape[d];");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &" + P + "_copy, -1, " + item + ", " +
         c_string(L.label + ": a contiguous copy of operand " + P + ": ") + ", all, " + str(L.nin()) + ")) return e;");
  emit_gpu_copy(L, dt, nd, P + "_copy.data", P + "_copy.strides", x + "->data", x + "->strides", x + "->shape");
  w.line(P + " = &" + P + "_copy;");
  w.line(P + "_ld = theano_blas_contiguous_ld(" + cols + ");");
  w.close();
  w.close();
}

/// BatchedDot: the shape rule (blas.cpp's text), then, into the fresh
/// C-contiguous output, one ctx->gpu_gemm_batched (cuBLAS's
/// ?gemmStridedBatched) when the operands' batch walks each have one stride
/// (a 3-d batch, a broadcast one with stride 0, collapsible batch dims), else
/// one ctx->gpu_gemm per item, queued on the function's stream. An empty
/// inner dimension clears the output (the scale kernel with beta 0).
void lower_gpu_batched_dot(NodeLowering& L) {
  prologue(L);
  CodeWriter& w = L.body;
  const std::string nd = str(L.in(0).ndim());
  emit_batched_dot_checks(L);
  w.line("const int64_t out_size = nbatch * m * n;  // the rule checked it");
  w.line("if (out_size == 0) return 0;");
  w.open("if (k == 0)");
  const ScaleParams sp(c_type(L.out(0).dtype()), "out_size", "o0->data", "0.0");
  sp.pb.declare(w);
  w.line("return " + sp.pb.launch(scale_kernel(L), sp.pb.host(sp.n)) + ";");
  w.close();
  emit_batch_operand(L, "A", 0, "m", "k", "as0", "as1");
  emit_batch_operand(L, "B", 1, "k", "n", "bs0", "bs1");
  // One strided-batched call when both walks have one non-negative stride
  // (in whole elements); the output is C-contiguous, its items m * n apart.
  const std::string item = item_of(L.out(0).dtype());
  w.line("int64_t sa = 0, sb = 0;");
  w.open("if (theano_batch_uniform_stride(" + nd + ", o0->shape, A->shape, A->strides, &sa) && "
         "theano_batch_uniform_stride(" + nd + ", o0->shape, B->shape, B->strides, &sb) && sa >= 0 && sb >= 0 && "
         "sa % " + item + " == 0 && sb % " + item + " == 0)");
  w.line("return ctx->gpu_gemm_batched(ctx->host, " + str(static_cast<int>(L.out(0).dtype())) +
         ", A_t, B_t, m, n, k, 1.0, A->data, A_ld, sa / " + item + ", B->data, B_ld, sb / " + item +
         ", 0.0, o0->data, theano_blas_contiguous_ld(n), m * n, nbatch);");
  w.close();
  w.open("for (int64_t i = 0; i < nbatch; ++i)");
  w.line("const int64_t oa = theano_batch_offset(" + nd + ", o0->shape, A->shape, A->strides, i);");
  w.line("const int64_t ob = theano_batch_offset(" + nd + ", o0->shape, B->shape, B->strides, i);");
  w.line("if (int e = ctx->gpu_gemm(ctx->host, " + str(static_cast<int>(L.out(0).dtype())) +
         ", A_t, B_t, m, n, k, 1.0, A->data + oa, A_ld, B->data + ob, B_ld, 0.0, o0->data + i * m * n * " +
         item_of(L.out(0).dtype()) + ", theano_blas_contiguous_ld(n))) return e;");
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_gpu_blas_lowerings(LoweringTable& t) {
  t.add<tensor::Dot>(Target::Cuda, &lower_gpu_dot);
  t.add<tensor::Dot22>(Target::Cuda, &lower_gpu_dot);
  t.add<tensor::Gemm>(Target::Cuda, &lower_gpu_gemm);
  t.add<tensor::Gemv>(Target::Cuda, &lower_gpu_gemv);
  t.add<tensor::Ger>(Target::Cuda, &lower_gpu_ger);
  t.add<tensor::BatchedDot>(Target::Cuda, &lower_gpu_batched_dot);
}

}  // namespace theano::codegen::lower
