// Lowerings of the sparse component ops (theano/sparse/components.h): the
// checks perform makes (theano_csm_rule over the components, the dense
// operands' shapes), then the kernels of theano/runtime/kernels/sparse_kernels.h —
// perform's own functions, compiled into the host and called through its
// kernel table (host_kernels.h) — split over the loop threads by
// theano_parallel in ranges of independent rows (or, for the CSC product,
// output columns). Non-contiguous component vectors, and dense operands
// whose strides are not whole elements, are copied into scratch buffers
// first (perform reads them through contiguous() too). SwapFormat is one
// serial counting sort. SparseMerge sorts an operand with an unsorted row
// into scratch buffers, counts its rows' entries, then fills them (two split
// passes). Usmm accumulates into Z's buffer (inplace) or a copy of Z.
// DenseToComponents has no lowering (its sizes depend on the values):
// perform runs it.
#include "lowering.h"
#include "parallel_part.h"

#include <theano/sparse/components.h>
#include <theano/tensor/type.h>

#include <string>

namespace theano::codegen::lower {

namespace {

using sparse::ComponentOp;

struct Kind {
  std::string t;       // C element type
  std::string suffix;  // kernel suffix: f64 / f32 / i64 / i32
};

/// The kernels' element type for a sparse value dtype (sparse::is_sparse_value_dtype).
Kind kind_of(DType d) {
  switch (d) {
    case DType::Float64: return {"double", "f64"};
    case DType::Float32: return {"float", "f32"};
    case DType::Int64: return {"int64_t", "i64"};
    case DType::Int32: return {"int32_t", "i32"};
    default: throw InternalError("sparse lowering for " + std::string(dtype_name(d)) + ": this is a bug");
  }
}

/// The node's value type (its output's), whose kernels the host's table holds.
Kind kernels_for(NodeLowering& L) { return kind_of(L.out(0).dtype()); }

/// `const TheanoArray* <name>` = input i, or a C-contiguous scratch copy when
/// it is not (vectors) / its strides are not whole elements (matrices).
void operand(NodeLowering& L, int i, const std::string& name, bool vector) {
  CodeWriter& w = L.body;
  const std::string item = item_of(L.in(i).dtype());
  need_blas_layout(L);  // theano_scratch_copy
  w.line("const TheanoArray* " + name + " = " + L.x(i) + ";");
  const std::string bad = vector ? "!theano_c_contiguous(" + L.x(i) + ", " + item + ")"
                                 : "(" + L.x(i) + "->strides[0] % " + item + " != 0 || " + L.x(i) + "->strides[1] % " +
                                       item + " != 0)";
  emit_scratch_copy_if(L, bad, name, name + "_copy", L.x(i), item, "a contiguous copy of input " + str(i));
}

/// Reads the shape input (index `s`), checks indices (`ci`), indptr (`cp`)
/// with theano_csm_rule against `n_data` stored values; declares major,
/// minor (names prefixed by `pre`; messages start with `who`).
void check_components(NodeLowering& L, int s, const std::string& ci, const std::string& cp, const std::string& n_data,
                      const std::string& pre = "", const std::string& who = "") {
  CodeWriter& w = L.body;
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  const std::string x = L.x(s);
  w.line("if (" + x + "->shape[0] != 2) " +
         L.fail_int(kErrValue, who + "shape must have 2 entries, got ", x + "->shape[0]"));
  w.line("const int64_t " + pre + "sh0 = *(const int64_t*)" + x + "->data;");
  w.line("const int64_t " + pre + "sh1 = *(const int64_t*)(" + x + "->data + " + x + "->strides[0]);");
  w.line("const int64_t " + pre + "major = " + pre + (csr ? "sh0" : "sh1") + ", " + pre + "minor = " + pre +
         (csr ? "sh1" : "sh0") + ";");
  w.line("if (" + cp + "->shape[0] == 0) " + L.fail_rule("THEANO_RULE_CSM_INDPTR_LEN", who, "0"));
  w.open("");
  w.line("int64_t bad = 0;");
  w.line("const int rule = theano_csm_rule(" + pre + "major, " + pre + "minor, (const int64_t*)" + cp + "->data, " +
         cp + "->shape[0], (const int64_t*)" + ci + "->data, " + ci + "->shape[0], " + n_data + ", &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", who, "bad"));
  w.close();
  w.line("(void)" + pre + "minor;");
}

/// The component inputs from `first` on (data when
/// `with_data`, then indices, indptr, shape) as contiguous `cd`, `ci`, `cp`,
/// checked by theano_csm_rule; declares sh0, sh1, major and minor (every
/// name prefixed by `pre`, messages started by `who`: a second operand).
void emit_components(NodeLowering& L, int first, bool with_data, const std::string& pre = "",
                     const std::string& who = "") {
  // The loops are the host kernels' and their part functions': the node
  // function only checks and calls.
  L.loops_outlined = true;
  if (with_data) operand(L, first, pre + "cd", true);
  const int at = with_data ? first + 1 : first;
  operand(L, at, pre + "ci", true);
  operand(L, at + 1, pre + "cp", true);
  check_components(L, at + 2, pre + "ci", pre + "cp", with_data ? pre + "cd->shape[0]" : pre + "ci->shape[0]", pre,
                   who);
}

/// ShapeError unless dense input `i` has `rows` rows (and `cols` columns when given).
void check_dense(NodeLowering& L, int i, const std::string& role, const std::string& rows, const std::string& cols) {
  const std::string x = L.x(i);
  std::string cond = x + "->shape[0] != " + rows;
  if (!cols.empty()) cond += " || " + x + "->shape[1] != " + cols;
  L.body.line("if (" + cond + ") " +
              L.fail(kErrShape, role + " does not have the shape the sparse matrix's shape asks for"));
}

/// A part function over [lo, hi) calling host kernel `kernel` with `call`'s
/// arguments (which read `a->` fields of struct <fn>_args, declared from
/// `fields` after the host's table, `kt`), run by theano_parallel over n.
void parallel(NodeLowering& L, const std::string& fields, const std::string& init, const std::string& kernel,
              const std::string& call, const std::string& n, int min_part) {
  L.file.line("struct " + L.fn + "_args { const TheanoHostKernels* kt; " + fields + " };");
  const ParallelPart part{L.fn + "_part", L.fn + "_args", "a"};
  part.open(L.file);
  L.file.line("a->kt->" + kernel + "(" + call + ");");
  L.file.close();
  L.body.line(L.fn + "_args args = {ctx->kernels, " + init + "};");
  L.body.line(part.run(n, str(min_part), "args") + ";");
}

std::string elem(const std::string& arr, const std::string& d, const std::string& t) {
  return arr + "->strides[" + d + "] / (int64_t)sizeof(" + t + ")";
}

/// `target` (+)= alpha * S . D through the shared product kernels (`zero`:
/// from zero, SpMM; else from what target holds, Usmm), split by output rows
/// (CSR) or output columns (CSC). Needs emit_components' cd/ci/cp/major and
/// the dense operand `dd`; `target` has S's rows, unit column stride.
void emit_product(NodeLowering& L, const std::string& alpha, bool zero, const std::string& target) {
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  const Kind k = kernels_for(L);
  const std::string T = k.t;
  const std::string fields = T + " alpha; const " + T + "* data; const int64_t* idx; const int64_t* ptr; int64_t major; const " +
                             T + "* d; int64_t d_rs, d_cs, ncols, rows; " + T + "* out;";
  const std::string init = "(" + T + ")(" + alpha + "), (const " + T + "*)cd->data, (const int64_t*)ci->data, " +
                           "(const int64_t*)cp->data, major, (const " + T + "*)dd->data, " + elem("dd", "0", T) + ", " +
                           elem("dd", "1", T) + ", dd->shape[1], " + target + "->shape[0], (" + T + "*)" + target +
                           "->data";
  const std::string z = zero ? "1" : "0";
  if (csr)
    parallel(L, fields, init, "csr_product_" + k.suffix,
             "a->alpha, " + z + ", a->data, a->idx, a->ptr, a->d, a->d_rs, a->d_cs, a->ncols, a->out, a->ncols, lo, hi",
             target + "->shape[0]", 64);
  else
    parallel(L, fields, init, "csc_product_" + k.suffix,
             "a->alpha, " + z +
                 ", a->data, a->idx, a->ptr, a->major, a->d, a->d_rs, a->d_cs, a->rows, a->out, a->ncols, lo, hi",
             "dd->shape[1]", 8);
}

void lower_spmm(NodeLowering& L) {
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  emit_components(L, 0, true);
  check_dense(L, 4, "D", csr ? "minor" : "major", "");
  operand(L, 4, "dd", false);
  CodeWriter& w = L.body;
  w.line(std::string("const int64_t rows = ") + (csr ? "major" : "minor") + ", ncols = dd->shape[1];");
  w.line("o0->shape[0] = rows; o0->shape[1] = ncols;");
  w.line(L.alloc(0));
  w.line("if (rows == 0 || ncols == 0) return 0;");
  emit_product(L, "1", true, "o0");
  w.line("return 0;");
}

void lower_sampled_dot(NodeLowering& L) {
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  const Kind k = kernels_for(L);
  emit_components(L, 0, false);
  check_dense(L, 3, "X", csr ? "major" : "minor", "");
  check_dense(L, 4, "Y", csr ? "minor" : "major", L.x(3) + "->shape[1]");
  operand(L, 3, "dx", false);
  operand(L, 4, "dy", false);
  CodeWriter& w = L.body;
  w.line("o0->shape[0] = ci->shape[0];");
  w.line(L.alloc(0));
  w.line("if (major == 0) return 0;");
  const std::string T = k.t;
  parallel(L,
           "const int64_t* idx; const int64_t* ptr; const " + T + "* x; int64_t x_rs, x_cs; const " + T +
               "* y; int64_t y_rs, y_cs, n; " + T + "* vals;",
           "(const int64_t*)ci->data, (const int64_t*)cp->data, (const " + T + "*)dx->data, " + elem("dx", "0", T) +
               ", " + elem("dx", "1", T) + ", (const " + T + "*)dy->data, " + elem("dy", "0", T) + ", " +
               elem("dy", "1", T) + ", dx->shape[1], (" + T + "*)o0->data",
           "sampled_dot_" + k.suffix,
           std::string("a->idx, a->ptr, ") + (csr ? "1" : "0") +
               ", a->x, a->x_rs, a->x_cs, a->y, a->y_rs, a->y_cs, a->n, a->vals, lo, hi",
           "major", 64);
  w.line("return 0;");
}

void lower_gather(NodeLowering& L) {
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  const Kind k = kernels_for(L);
  emit_components(L, 0, false);
  check_dense(L, 3, "M", csr ? "major" : "minor", csr ? "minor" : "major");
  operand(L, 3, "dm", false);
  CodeWriter& w = L.body;
  w.line("o0->shape[0] = ci->shape[0];");
  w.line(L.alloc(0));
  w.line("if (major == 0) return 0;");
  const std::string T = k.t;
  parallel(L,
           "const int64_t* idx; const int64_t* ptr; const " + T + "* m; int64_t m_rs, m_cs; " + T + "* vals;",
           "(const int64_t*)ci->data, (const int64_t*)cp->data, (const " + T + "*)dm->data, " + elem("dm", "0", T) +
               ", " + elem("dm", "1", T) + ", (" + T + "*)o0->data",
           "sparse_gather_" + k.suffix,
           std::string("a->idx, a->ptr, ") + (csr ? "1" : "0") + ", a->m, a->m_rs, a->m_cs, a->vals, lo, hi",
           "major", 256);
  w.line("return 0;");
}

void lower_to_dense(NodeLowering& L) {
  const bool csr = static_cast<const ComponentOp&>(L.op).csr();
  const Kind k = kernels_for(L);
  emit_components(L, 0, true);
  CodeWriter& w = L.body;
  w.line("o0->shape[0] = sh0; o0->shape[1] = sh1;");
  w.line(L.alloc(0));
  w.line("if (sh0 == 0 || sh1 == 0) return 0;");
  const std::string T = k.t;
  parallel(L, "const " + T + "* data; const int64_t* idx; const int64_t* ptr; int64_t minor, out_rs; " + T + "* out;",
           "(const " + T + "*)cd->data, (const int64_t*)ci->data, (const int64_t*)cp->data, minor, sh1, (" + T +
               "*)o0->data",
           "sparse_to_dense_" + k.suffix,
           std::string("a->data, a->idx, a->ptr, ") + (csr ? "1" : "0") + ", a->minor, a->out, a->out_rs, lo, hi",
           "major", 64);
  w.line("return 0;");
}

/// Z + alpha * S . D accumulated into o0: a view of Z when inplace (through a
/// contiguous scratch copy when Z's rows are not contiguous), else a fresh
/// copy of Z. A D that overlaps the destroyed Z is read from a copy.
void lower_usmm(NodeLowering& L) {
  const auto& op = static_cast<const sparse::Usmm&>(L.op);
  const bool csr = op.csr(), inplace = op.inplace();
  const Kind k = kernels_for(L);
  const std::string T = k.t, item = item_of(L.out(0).dtype());
  emit_components(L, 1, true);
  check_dense(L, 5, "D", csr ? "minor" : "major", "");
  check_dense(L, 6, "Z", csr ? "major" : "minor", L.x(5) + "->shape[1]");
  operand(L, 5, "dd", false);
  CodeWriter& w = L.body;
  w.line("const " + T + " alpha = (" + T + ")*(const " + L.in_ctype(0) + "*)x0->data;");
  if (inplace) {
    w.line("o0->data = x6->data; o0->owner = x6->owner;");
    w.line("o0->shape[0] = x6->shape[0]; o0->shape[1] = x6->shape[1];");
    w.line("o0->strides[0] = x6->strides[0]; o0->strides[1] = x6->strides[1];");
  } else {
    w.line("o0->shape[0] = x6->shape[0]; o0->shape[1] = x6->shape[1];");
    w.line(L.alloc(0));
    w.line("theano_copy(ctx, o0, x6, " + item + ");");
  }
  w.line("if (o0->shape[0] == 0 || o0->shape[1] == 0) return 0;");
  w.line("TheanoArray* tgt = o0;");
  if (inplace) {
    emit_scratch_copy_if(L, "!theano_c_contiguous(o0, " + item + ")", "tgt", "tgt_copy", "o0", item,
                         "a contiguous copy of Z");
    emit_scratch_copy_if(L, "theano_overlap(dd, o0, " + item + ")", "dd", "dd_unaliased", "dd", item,
                         "a copy of D, which overlaps Z");
  }
  emit_product(L, "alpha", false, "tgt");
  if (inplace) w.line("if (tgt != o0) theano_copy(ctx, o0, tgt, " + item + ");");
  w.line("return 0;");
}

void lower_swap(NodeLowering& L) {
  const Kind k = kernels_for(L);
  emit_components(L, 0, true);
  CodeWriter& w = L.body;
  w.line("int64_t n_ptr = 0;");
  w.line("if (theano_checked_add(minor, 1, &n_ptr) != THEANO_RULE_OK) " +
         L.fail_int(kErrValue, "the other format needs one indptr entry more than ", "minor"));
  w.line("o0->shape[0] = cd->shape[0];");
  w.line(L.alloc(0));
  w.line("o1->shape[0] = ci->shape[0];");
  w.line(L.alloc(1));
  w.line("o2->shape[0] = n_ptr;");
  w.line(L.alloc(2));
  w.line("ctx->kernels->sparse_swap_" + k.suffix + "(major, minor, (const " + k.t +
         "*)cd->data, (const int64_t*)ci->data, " +
         "(const int64_t*)cp->data, (" + k.t + "*)o0->data, (int64_t*)o1->data, (int64_t*)o2->data);");
  w.line("return 0;");
}

/// `a` <- a scratch vector of `n` elements of `like`'s dtype (lives for the call).
constexpr char kSparseScratchText[] = R"(static int theano_sparse_scratch(TheanoContext* ctx, TheanoArray* a,
                                const TheanoArray* like, int64_t n) {
  a->ndim = 1;
  a->dtype = like->dtype;
  a->owner = -1;
  a->shape[0] = n;
  return ctx->alloc(ctx->host, a, -1);
}
)";

/// x (op) y over two matrices' components (SparseMerge): the checks perform
/// makes (both operands' components, one shape), an unsorted operand's rows
/// sorted into scratch buffers, then
/// theano_sparse_merge's count pass over the rows, the offsets, the outputs'
/// allocation and the fill pass, both passes split between the threads.
void lower_merge(NodeLowering& L) {
  const auto& op = static_cast<const sparse::SparseMerge&>(L.op);
  const Kind k = kernels_for(L);
  const std::string T = k.t;
  emit_components(L, 0, true, "", "x: ");
  emit_components(L, 4, true, "y_", "y: ");
  CodeWriter& w = L.body;
  w.line("if (sh0 != y_sh0) " +
         L.fail_int2(kErrShape, "x has ", "sh0", " rows and y ", "y_sh0", "; the shapes must be equal"));
  w.line("if (sh1 != y_sh1) " +
         L.fail_int2(kErrShape, "x has ", "sh1", " columns and y ", "y_sh1", "; the shapes must be equal"));
  L.need("sparse_scratch", kSparseScratchText);
  // An operand with an unsorted row: sorted into scratch buffers (as perform's sorted_rows).
  for (const std::string pre : {"", "y_"}) {
    w.line("TheanoArray " + pre + "sorted[6];");
    w.open("if (ctx->kernels->sparse_first_unsorted((const int64_t*)" + pre + "ci->data, (const int64_t*)" + pre +
           "cp->data, 0, major) >= 0)");
    w.line("int64_t n_minor = 0;");
    w.line("if (theano_checked_add(minor, 1, &n_minor) != THEANO_RULE_OK) " +
           L.fail_int(kErrValue, "sorting an operand's rows needs one indptr entry more than ", "minor"));
    w.line("const int64_t n = " + pre + "cd->shape[0];");
    w.line("const TheanoArray* like[6] = {" + pre + "cd, " + pre + "ci, " + pre + "ci, " + pre + "cd, " + pre +
           "ci, " + pre + "ci};");
    w.line("const int64_t len[6] = {n, n, n_minor, n, n, major + 1};");
    w.line("for (int s = 0; s < 6; ++s) if (theano_sparse_scratch(ctx, &" + pre + "sorted[s], like[s], len[s]) != 0) " +
           L.fail(kErrValue, "could not allocate the buffers to sort an operand's rows"));
    w.line("ctx->kernels->sparse_sort_rows_" + k.suffix + "(major, minor, (const " + T + "*)" + pre +
           "cd->data, (const int64_t*)" + pre + "ci->data, (const int64_t*)" + pre + "cp->data, (" + T + "*)" + pre +
           "sorted[0].data, (int64_t*)" + pre + "sorted[1].data, (int64_t*)" + pre + "sorted[2].data, (" + T + "*)" +
           pre + "sorted[3].data, (int64_t*)" + pre + "sorted[4].data, (int64_t*)" + pre + "sorted[5].data);");
    w.line(pre + "cd = &" + pre + "sorted[3]; " + pre + "ci = &" + pre + "sorted[4]; " + pre + "cp = &" + pre +
           "sorted[5];");
    w.close();
  }
  w.line("int64_t n_ptr = 0;");
  w.line("if (theano_checked_add(major, 1, &n_ptr) != THEANO_RULE_OK) " +
         L.fail_int(kErrValue, "the result needs one indptr entry more than ", "major"));
  w.line("o2->shape[0] = n_ptr;");
  w.line(L.alloc(2));
  L.file.line("struct " + L.fn + "_args { const TheanoHostKernels* kt; const " + T +
              "* xd; const int64_t* xi; const int64_t* xp; const " + T +
              "* yd; const int64_t* yi; const int64_t* yp; " + T + "* od; int64_t* oi; int64_t* op; };");
  const ParallelPart part{L.fn + "_part", L.fn + "_args", "a"};
  part.open(L.file);
  L.file.line("a->kt->sparse_merge_" + k.suffix + "(" + (op.mul() ? "1" : "0") +
              ", a->xd, a->xi, a->xp, a->yd, a->yi, a->yp, a->od, a->oi, a->op, lo, hi);");
  L.file.close();
  const std::string operands = "(const " + T + "*)cd->data, (const int64_t*)ci->data, (const int64_t*)cp->data, " +
                               "(const " + T + "*)y_cd->data, (const int64_t*)y_ci->data, (const int64_t*)y_cp->data";
  w.line("int64_t* ptr = (int64_t*)o2->data;");
  w.line(L.fn + "_args count = {ctx->kernels, " + operands + ", (" + T + "*)0, (int64_t*)0, ptr};");
  w.line(part.run("major", "256", "count") + ";");
  w.line("ctx->kernels->sparse_offsets(ptr, major);");
  w.line("o0->shape[0] = ptr[major];");
  w.line(L.alloc(0));
  w.line("o1->shape[0] = ptr[major];");
  w.line(L.alloc(1));
  w.line(L.fn + "_args fill = {ctx->kernels, " + operands + ", (" + T + "*)o0->data, (int64_t*)o1->data, ptr};");
  w.line(part.run("major", "256", "fill") + ";");
  w.line("return 0;");
}

/// data (op) v[column] at each stored entry (SparseRowVector).
void lower_row_vector(NodeLowering& L) {
  const auto& op = static_cast<const sparse::SparseRowVector&>(L.op);
  const bool csr = op.csr();
  const Kind k = kernels_for(L);
  emit_components(L, 0, true);
  CodeWriter& w = L.body;
  w.line(std::string("const int64_t cols = ") + (csr ? "minor" : "major") + ";");
  w.line("if (" + L.x(4) + "->shape[0] != cols) " +
         L.fail_int2(kErrShape, "v has ", L.x(4) + "->shape[0]", " entries, expected ", "cols",
                     ", the sparse matrix's column count"));
  operand(L, 4, "dv", true);
  w.line("o0->shape[0] = cd->shape[0];");
  w.line(L.alloc(0));
  w.line("if (major == 0) return 0;");
  const std::string T = k.t;
  parallel(L, "const " + T + "* data; const int64_t* idx; const int64_t* ptr; const " + T + "* v; " + T + "* vals;",
           "(const " + T + "*)cd->data, (const int64_t*)ci->data, (const int64_t*)cp->data, (const " + T +
               "*)dv->data, (" + T + "*)o0->data",
           "sparse_row_vector_" + k.suffix,
           std::string(op.mul() ? "1" : "0") + ", a->data, a->idx, a->ptr, " + (csr ? "1" : "0") +
               ", a->v, 1, a->vals, lo, hi",
           "major", 256);
  w.line("return 0;");
}

}  // namespace

void add_sparse_lowerings(LoweringTable& t) {
  t.add<sparse::SparseMerge>(Target::Cpu, &lower_merge);
  t.add<sparse::SparseRowVector>(Target::Cpu, &lower_row_vector);
  t.add<sparse::SwapFormat>(Target::Cpu, &lower_swap);
  t.add<sparse::Usmm>(Target::Cpu, &lower_usmm);
  t.add<sparse::SpMM>(Target::Cpu, &lower_spmm);
  t.add<sparse::SampledDot>(Target::Cpu, &lower_sampled_dot);
  t.add<sparse::SparseGather>(Target::Cpu, &lower_gather);
  t.add<sparse::ComponentsToDense>(Target::Cpu, &lower_to_dense);
}

}  // namespace theano::codegen::lower
