// Lowerings of the BLAS ops (see lowering.h): Dot (vector/matrix in every
// combination, any dtypes), Dot22, Gemm, Gemv and Ger, following the performs
// in compiler/src/tensor/blas/ (blas_kernels.cpp holds the numeric rules).
//
// float32/float64 operands of the output's dtype: the host's BLAS calls
// (theano/runtime/kernels/blas_calls.h, compiled once into the host and
// reached through ctx->kernels): OpenBLAS when perform's layout rule allows
// (blas_layout.h; a column-major output is handled by computing its
// transpose), else plain loops with a double accumulator; they agree with
// perform within rounding. Integer and bool Dot use exact loops (wrapping like perform's add_wrap /
// mul_wrap, computed in uint64_t and truncated). Special cases as in perform:
// alpha == 0 or an empty inner dimension only scales by beta, and beta == 0
// never reads the old values. An inplace op whose other operand overlaps the
// destroyed one copies that operand first (perform's `unaliased`), into a
// buffer from the host allocator.
#include "lowering.h"

#include <theano/tensor/batched_blas.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/type.h>

#include <theano/runtime/kernels/batched_dot_rules.h>

#include <cstdint>
#include <string>

namespace theano::codegen::lower {

// The layout rule and its short forms (theano_blas_matrix, ...) are
// theano/runtime/kernels/blas_layout.h (perform's rule, embedded before
// kLayout by need_blas_layout, for the inplace checks here and the CUDA
// lowering's cuBLAS calls).
namespace {

constexpr std::string_view kLayout = R"(// Whether the memory spans of a and b (elements of `item` bytes) overlap
// (not inlined: see theano_c_contiguous in the prelude).
static __attribute__((noinline)) bool theano_overlap(const TheanoArray* a, const TheanoArray* b, int64_t item) {
  if (theano_size(a) == 0 || theano_size(b) == 0) return false;
  const char* alo = a->data;
  const char* ahi = a->data + item;
  for (int64_t d = 0; d < a->ndim; ++d) {
    const int64_t off = (a->shape[d] - 1) * a->strides[d];
    if (off < 0) alo += off; else ahi += off;
  }
  const char* blo = b->data;
  const char* bhi = b->data + item;
  for (int64_t d = 0; d < b->ndim; ++d) {
    const int64_t off = (b->shape[d] - 1) * b->strides[d];
    if (off < 0) blo += off; else bhi += off;
  }
  return alo < bhi && blo < ahi;
}
)";

/// The suffix of float dtype `d`'s entries in the host's BLAS calls
/// (blas_calls.h through TheanoHostKernels: ctx->kernels->blas_gemm_f64, ...),
/// after embedding the layout helpers the inplace checks use.
std::string need_kernels(NodeLowering& L, DType d) {
  need_blas_layout(L);
  return d == DType::Float64 ? "f64" : "f32";
}

bool blas_dtype(DType d) { return d == DType::Float32 || d == DType::Float64; }

/// `double <name> = <0-d input i as double>;`
std::string read_scalar(const NodeLowering& L, int i, const std::string& name) {
  return "const double " + name + " = (double)*(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data;";
}

/// o0 <- input `i`: a view when `inplace` (declared in destroy_map), else a
/// fresh buffer holding a copy of it when `copy_if` (a C condition) holds.
void emit_output_from(NodeLowering& L, int i, bool inplace, const std::string& copy_if) {
  CodeWriter& w = L.body;
  const int nd = L.in(i).ndim();
  const std::string xi = L.x(i);
  if (inplace) {
    w.line("o0->data = " + xi + "->data;");
    w.line("o0->owner = " + xi + "->owner;");
    for (int d = 0; d < nd; ++d) {
      w.line("o0->shape[" + str(d) + "] = " + xi + "->shape[" + str(d) + "];");
      w.line("o0->strides[" + str(d) + "] = " + xi + "->strides[" + str(d) + "];");
    }
    return;
  }
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = " + xi + "->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.line("if (" + copy_if + ") theano_copy(ctx, o0, " + xi + ", " + item_of(L.in(i).dtype()) + ");");
}

/// For an inplace op: `const TheanoArray* <X>` is input i, or a scratch copy of
/// it when it overlaps the destroyed buffer (o0).
void emit_unaliased(NodeLowering& L, int i, bool inplace, const std::string& name) {
  CodeWriter& w = L.body;
  w.line("const TheanoArray* " + name + " = " + L.x(i) + ";");
  if (!inplace) return;
  const std::string item = item_of(L.in(i).dtype());
  emit_scratch_copy_if(L, "theano_overlap(" + L.x(i) + ", o0, " + item + ")", name, name + "_copy", L.x(i), item,
                       "a copy of input " + str(i) + ", which overlaps the output");
}

void lower_dot(NodeLowering& L) {
  CodeWriter& w = L.body;
  const int ndx = L.in(0).ndim(), ndy = L.in(1).ndim();
  const DType od = L.out(0).dtype();
  const DType dx = L.in(0).dtype(), dy = L.in(1).dtype();
  if (!c_type(od) || !c_type(dx) || !c_type(dy))
    refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  emit_dot_output(L);
  const std::string ot = c_type(od);
  if (blas_dtype(od) && dx == od && dy == od) {
    L.cold = true;  // the host's BLAS calls
    const std::string t = need_kernels(L, od);
    if (ndx == 1 && ndy == 1) {
      w.line("*(" + ot + "*)o0->data = (" + ot + ")ctx->kernels->blas_dot_" + t +
             "(k, x0->data, x0->strides[0], x1->data, x1->strides[0]);");
    } else if (ndx == 2 && ndy == 1) {
      w.line("ctx->kernels->blas_gemv_" + t +
             "(m, k, 1.0, x0->data, x0->strides[0], x0->strides[1], x1->data, x1->strides[0], 0.0, o0->data, "
             "o0->strides[0]);");
    } else if (ndx == 1) {
      // x . Y = Y^T . x
      w.line("ctx->kernels->blas_gemv_" + t +
             "(n, k, 1.0, x1->data, x1->strides[1], x1->strides[0], x0->data, x0->strides[0], 0.0, o0->data, "
             "o0->strides[0]);");
    } else {
      w.line("ctx->kernels->blas_gemm_" + t +
             "(m, n, k, 1.0, x0->data, x0->strides[0], x0->strides[1], x1->data, x1->strides[0], x1->strides[1], "
             "0.0, o0->data, o0->strides[0], o0->strides[1]);");
    }
    w.line("return 0;");
    return;
  }
  // Plain loops over (m, n, k) for every rank combination (a vector is a
  // matrix with one row / column and stride 0 there). Floats: the inputs are
  // converted to the output dtype as perform does, accumulated in double.
  // Integers and bool: exact, wrapping like perform (uint64_t, truncated).
  const bool fl = is_float(od);
  const std::string acc_t = fl ? "double" : "uint64_t";
  auto conv = [&](DType d, const std::string& p) {
    const std::string v = "*(const " + std::string(c_type(d)) + "*)" + p;
    return fl ? "(double)(" + ot + ")" + v : "(uint64_t)" + v;
  };
  w.line("const int64_t xs0 = " + std::string(ndx == 2 ? "x0->strides[0]" : "0") + ", xsk = x0->strides[" +
         str(ndx - 1) + "];");
  w.line("const int64_t ysk = x1->strides[0], ys1 = " + std::string(ndy == 2 ? "x1->strides[1]" : "0") + ";");
  w.line("const int64_t os0 = " + std::string(ndx == 2 ? "o0->strides[0]" : "0") + ", os1 = " +
         std::string(ndy == 2 ? "o0->strides[" + str(ndx == 2 ? 1 : 0) + "]" : std::string("0")) + ";");
  w.open("for (int64_t i = 0; i < m; ++i)");
  w.open("for (int64_t j = 0; j < n; ++j)");
  w.line(acc_t + " acc = 0;");
  w.line("const char* px = x0->data + i * xs0;");
  w.line("const char* py = x1->data + j * ys1;");
  w.line("for (int64_t p = 0; p < k; ++p, px += xsk, py += ysk) acc += " + conv(dx, "px") + " * " + conv(dy, "py") +
         ";");
  w.line("*(" + ot + "*)(o0->data + i * os0 + j * os1) = (" + ot + ")" +
         (od == DType::Bool ? "(acc != 0)" : std::string("acc")) + ";");
  w.close();
  w.close();
  w.line("return 0;");
}

void lower_dot22(NodeLowering& L) {
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  if (!blas_dtype(od)) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  L.cold = true;  // the host's BLAS call
  const std::string t = need_kernels(L, od);
  w.line("const int64_t m = x0->shape[0], k = x0->shape[1], n = x1->shape[1];");
  w.line("if (x1->shape[0] != k) " +
         L.fail(kErrShape, "shapes are not aligned: dimension 1 of input 0 differs from dimension 0 of input 1"));
  w.line("o0->shape[0] = m;");
  w.line("o0->shape[1] = n;");
  w.line(L.alloc(0));
  w.line("ctx->kernels->blas_gemm_" + t +
         "(m, n, k, 1.0, x0->data, x0->strides[0], x0->strides[1], x1->data, x1->strides[0], x1->strides[1], 0.0, "
         "o0->data, o0->strides[0], o0->strides[1]);");
  w.line("return 0;");
}

void lower_gemm(NodeLowering& L) {
  const auto& op = static_cast<const tensor::Gemm&>(*L.node.op());
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  if (!blas_dtype(od)) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  L.cold = true;  // the host's BLAS call
  const std::string t = need_kernels(L, od);
  emit_gemm_checks(L);
  emit_output_from(L, 0, op.inplace(), "beta != 0");
  emit_unaliased(L, 2, op.inplace(), "X");
  emit_unaliased(L, 3, op.inplace(), "Y");
  w.line("ctx->kernels->blas_gemm_" + t +
         "(m, n, k, alpha, X->data, X->strides[0], X->strides[1], Y->data, Y->strides[0], Y->strides[1], beta, "
         "o0->data, o0->strides[0], o0->strides[1]);");
  w.line("return 0;");
}

void lower_gemv(NodeLowering& L) {
  const auto& op = static_cast<const tensor::Gemv&>(*L.node.op());
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  if (!blas_dtype(od)) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  L.cold = true;  // the host's BLAS call
  const std::string t = need_kernels(L, od);
  emit_gemv_checks(L);
  emit_output_from(L, 0, op.inplace(), "beta != 0");
  emit_unaliased(L, 2, op.inplace(), "A");
  emit_unaliased(L, 3, op.inplace(), "X");
  w.line("ctx->kernels->blas_gemv_" + t +
         "(m, n, alpha, A->data, A->strides[0], A->strides[1], X->data, X->strides[0], beta, o0->data, "
         "o0->strides[0]);");
  w.line("return 0;");
}

void lower_ger(NodeLowering& L) {
  const auto& op = static_cast<const tensor::Ger&>(*L.node.op());
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  if (!blas_dtype(od)) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  L.cold = true;  // the host's BLAS call
  const std::string t = need_kernels(L, od);
  emit_ger_checks(L);
  emit_output_from(L, 0, op.destructive(), "1");
  emit_unaliased(L, 2, op.destructive(), "X");
  emit_unaliased(L, 3, op.destructive(), "Y");
  w.line("ctx->kernels->blas_ger_" + t +
         "(m, n, alpha, X->data, X->strides[0], Y->data, Y->strides[0], o0->data, o0->strides[0], o0->strides[1]);");
  w.line("return 0;");
}

// BatchedDot (batched_dot.cpp's perform): the shape rule of
// batched_dot_rules.h with its messages, then one blas_gemm_<T> per batch
// item (BLAS in place by the layout rule, else the plain loops), the item's
// views being the operands' pointers advanced by their batch strides.
void lower_batched_dot(NodeLowering& L) {
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  if (!blas_dtype(od)) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(od)) + ")");
  const std::string t = need_kernels(L, od);
  emit_batched_dot_checks(L);
  const std::string nd = str(L.in(0).ndim());
  w.open("for (int64_t i = 0; i < nbatch; ++i)");
  w.line("const int64_t oa = theano_batch_offset(" + nd + ", o0->shape, x0->shape, x0->strides, i);");
  w.line("const int64_t ob = theano_batch_offset(" + nd + ", o0->shape, x1->shape, x1->strides, i);");
  w.line("const int64_t oo = theano_batch_offset(" + nd + ", o0->shape, o0->shape, o0->strides, i);");
  w.line("ctx->kernels->blas_gemm_" + t +
         "(m, n, k, 1.0, x0->data + oa, as0, as1, x1->data + ob, bs0, bs1, 0.0, o0->data + oo, os0, os1);");
  w.close();
  w.line("return 0;");
}

}  // namespace

void emit_batched_dot_checks(NodeLowering& L) {
  CodeWriter& w = L.body;
  L.need("batched dot rules", kernel_text("batched_dot_rules.h"));
  const int nd = L.in(0).ndim();
  auto mask = [&](int i) {
    int64_t m = 0;
    for (int d = 0; d < nd - 2; ++d)
      if (L.in(i).shape()[static_cast<std::size_t>(d)] == tensor::Dim(1)) m |= int64_t{1} << d;
    return str(m);
  };
  const std::string last = str(nd - 1), second = str(nd - 2);
  w.line("int64_t nbatch = 0, bad = 0;");
  w.line("const int rule = theano_batched_dot_rule(" + str(nd) + ", x0->shape, x1->shape, " + mask(0) + ", " +
         mask(1) + ", o0->shape, &nbatch, &bad);");
  w.line("if (rule == THEANO_BDOT_BATCH) " +
         L.fail_int3(kErrShape, THEANO_BDOT_BATCH_TEXT1, "bad", THEANO_BDOT_BATCH_TEXT2, "x0->shape[bad]",
                     THEANO_BDOT_BATCH_TEXT3, "x1->shape[bad]", THEANO_BDOT_BATCH_TEXT4));
  w.line("if (rule == THEANO_BDOT_INNER) " +
         L.fail_int2(kErrShape, THEANO_BDOT_INNER_TEXT1, "x0->shape[" + last + "]", THEANO_BDOT_INNER_TEXT2,
                     "x1->shape[" + second + "]", THEANO_BDOT_INNER_TEXT3));
  w.line("if (rule == THEANO_BDOT_SIZE) " + L.fail(kErrValue, THEANO_BDOT_SIZE_TEXT));
  w.line(L.alloc(0));
  w.line("const int64_t m = o0->shape[" + second + "], n = o0->shape[" + last + "], k = x0->shape[" + last + "];");
  w.line("const int64_t as0 = x0->strides[" + second + "], as1 = x0->strides[" + last + "];");
  w.line("const int64_t bs0 = x1->strides[" + second + "], bs1 = x1->strides[" + last + "];");
  w.line("const int64_t os0 = o0->strides[" + second + "], os1 = o0->strides[" + last + "];");
  w.line("(void)as0; (void)as1; (void)bs0; (void)bs1; (void)os0; (void)os1;");
}

void need_blas_layout(NodeLowering& L) {
  L.need("blas layout rule", kernel_text("blas_layout.h"));
  L.need("blas layout", kLayout);
}

void emit_dot_output(NodeLowering& L) {
  CodeWriter& w = L.body;
  const int ndx = L.in(0).ndim(), ndy = L.in(1).ndim();
  w.line("const int64_t k = x0->shape[" + str(ndx - 1) + "];");
  w.line("if (x1->shape[0] != k) " +
         L.fail(kErrShape, "shapes are not aligned: dimension " + str(ndx - 1) +
                               " of input 0 differs from dimension 0 of input 1"));
  w.line("const int64_t m = " + std::string(ndx == 2 ? "x0->shape[0]" : "1") + ";");
  w.line("const int64_t n = " + std::string(ndy == 2 ? "x1->shape[1]" : "1") + ";");
  int od_axis = 0;
  if (ndx == 2) w.line("o0->shape[" + str(od_axis++) + "] = m;");
  if (ndy == 2) w.line("o0->shape[" + str(od_axis++) + "] = n;");
  w.line(L.alloc(0));
}

void emit_gemm_checks(NodeLowering& L) {
  CodeWriter& w = L.body;
  // Inputs: Z, alpha, X, Y, beta.
  w.line(read_scalar(L, 1, "alpha"));
  w.line(read_scalar(L, 4, "beta"));
  w.line("const int64_t m = x2->shape[0], k = x2->shape[1], n = x3->shape[1];");
  w.line("if (x3->shape[0] != k) " +
         L.fail(kErrShape, "shapes of X (input 2) and Y (input 3) are not aligned: dimension 1 of X differs from "
                           "dimension 0 of Y"));
  w.line("if (x0->shape[0] != m || x0->shape[1] != n) " +
         L.fail(kErrShape, "Z (input 0) does not have the shape of dot(X, Y) (inputs 2 and 3)"));
}

void emit_gemv_checks(NodeLowering& L) {
  CodeWriter& w = L.body;
  // Inputs: y, alpha, A, x, beta.
  w.line(read_scalar(L, 1, "alpha"));
  w.line(read_scalar(L, 4, "beta"));
  w.line("const int64_t m = x2->shape[0], n = x2->shape[1];");
  w.line("if (x3->shape[0] != n) " +
         L.fail(kErrShape, "shapes of A (input 2) and x (input 3) are not aligned: dimension 1 of A differs from "
                           "the length of x"));
  w.line("if (x0->shape[0] != m) " +
         L.fail(kErrShape, "y (input 0) does not have the length of dot(A, x) (inputs 2 and 3)"));
}

void emit_ger_checks(NodeLowering& L) {
  CodeWriter& w = L.body;
  // Inputs: A, alpha, x, y.
  w.line(read_scalar(L, 1, "alpha"));
  w.line("const int64_t m = x0->shape[0], n = x0->shape[1];");
  w.line("if (x2->shape[0] != m || x3->shape[0] != n) " +
         L.fail(kErrShape, "A (input 0) does not have the shape of outer(x, y) (inputs 2 and 3)"));
}

void add_blas_lowerings(LoweringTable& t) {
  t.add<tensor::Dot>(Target::Cpu, &lower_dot);
  t.add<tensor::Dot22>(Target::Cpu, &lower_dot22);
  t.add<tensor::Gemm>(Target::Cpu, &lower_gemm);
  t.add<tensor::Gemv>(Target::Cpu, &lower_gemv);
  t.add<tensor::Ger>(Target::Cpu, &lower_ger);
  t.add<tensor::BatchedDot>(Target::Cpu, &lower_batched_dot);
}

}  // namespace theano::codegen::lower
