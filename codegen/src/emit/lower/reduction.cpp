// Lowerings of the reduction ops: CAReduce (sum, prod, max, min, all, any,
// mul_without_zeros over any axis subset) and ArgReduce (Argmax / Argmin). See
// lowering.h for the node function protocol.
//
// Semantics follow CAReduce::perform / ArgReduce::perform: each element is
// converted to the compute dtype (the accumulator dtype of sum/prod, bool for
// all/any, the input dtype for max/min), folded from the identity, and the
// result converted to the output dtype. Integer sums and products are folded in
// 64-bit wrapping arithmetic and truncated to the compute dtype at the end
// (the same value modulo 2^bits as perform's fold in that dtype); float32
// sums and products accumulate in double (at least as accurate as perform's
// float32 fold); bool folds become or/and. max/min propagate NaN; Argmax /
// Argmin keep the first occurrence and let the first NaN win. These folds,
// joins, identities and comparisons are the functions of
// runtime/kernels/reduce_rules.h, which perform calls too.
//
// Loops: when the input is C-contiguous and the reduced axes form one block
// [a, b] (always true for one axis and for all axes), the input is seen as
// (outer, group, inner):
//  * inner == 1 (reduction over the trailing axes, or over everything): each
//    output is a flat fold over `group` consecutive elements with 16
//    independent accumulators, which the vectorizer turns into SIMD code
//    without reassociating a single float sum;
//  * inner > 1 (e.g. axis 0 of a matrix): chunks of columns are accumulated
//    row by row into a small stack buffer (a contiguous, vectorizable inner
//    loop; each column is still folded in perform's order). A reduction over
//    leading axes alone compiles only this form: inner == 1 there (an N x 1
//    matrix over axis 0) runs as one column.
// Otherwise (strided, negatively strided or broadcast input, or several
// non-adjacent axes) nested loops with byte strides walk the kept axes and,
// inside, the reduced axes in C order.
#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <algorithm>

#include "lowering.h"
#include "parallel_part.h"
#include "reduce_code.h"

namespace theano::codegen::lower {

namespace {

using Kind = tensor::ReduceKind;
using tensor::is_arith;

/// How a reduction node walks its input: the kept and reduced axes, and
/// whether the reduced axes are one adjacent block (the fast paths' layout).
struct Layout {
  int nd = 0;
  std::vector<int> kept, reduced;
  bool block = false;
  int first = 0, last = -1;  ///< the block is [first, last]; empty axes: [0, -1]
};

Layout layout_of(const NodeLowering& L, const std::vector<int>& axes) {
  Layout l;
  l.nd = L.in(0).ndim();
  l.reduced = axes;
  for (int d = 0; d < l.nd; ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d)) l.kept.push_back(d);
  l.block = true;
  for (std::size_t i = 1; i < axes.size(); ++i) l.block = l.block && axes[i] == axes[i - 1] + 1;
  if (!axes.empty()) {
    l.first = axes.front();
    l.last = axes.back();
  }
  return l;
}

/// Emits the output shape, its allocation and the run-time sizes n_out, group,
/// outer, inner (outer * inner == n_out when the axes form a block).
void emit_sizes(NodeLowering& L, const Layout& l) {
  CodeWriter& w = L.body;
  for (std::size_t j = 0; j < l.kept.size(); ++j)
    w.line("o0->shape[" + str(static_cast<std::int64_t>(j)) + "] = x0->shape[" + str(l.kept[j]) + "];");
  w.line(L.alloc(0));
  w.line("int64_t n_out = 1, group = 1, outer = 1, inner = 1;");
  for (int d : l.kept) w.line("n_out *= x0->shape[" + str(d) + "];");
  for (int d : l.reduced) w.line("group *= x0->shape[" + str(d) + "];");
  for (int d = 0; d < l.first; ++d) w.line("outer *= x0->shape[" + str(d) + "];");
  for (int d = l.last + 1; d < l.nd; ++d) w.line("inner *= x0->shape[" + str(d) + "];");
  w.line("(void)outer; (void)inner;");
}

/// Writes to `w` the nested loops of the generic strided path: kept axes
/// outside (in C order, matching the output's C order), `base<i>` the byte
/// address in input i of the first reduced element, `at<i>` that of the
/// current one; `fold_stmt` folds over the reduced axes.
void emit_generic(CodeWriter& w, const NodeLowering& L, const Layout& l, const std::string& init_stmt,
                  const std::string& fold_stmt, const std::string& store_stmt) {
  w.line("int64_t ko = 0;");
  for (int d : l.kept) {
    const std::string ds = str(d);
    w.open("for (int64_t i" + ds + " = 0; i" + ds + " < x0->shape[" + ds + "]; ++i" + ds + ")");
  }
  for (int i = 0; i < L.nin(); ++i) {
    std::string base = L.x(i) + "->data";
    for (int d : l.kept) base += " + i" + str(d) + " * " + L.x(i) + "->strides[" + str(d) + "]";
    w.line("const char* base" + str(i) + " = " + base + ";");
  }
  w.line(init_stmt);
  for (int d : l.reduced) {
    const std::string ds = str(d);
    w.open("for (int64_t i" + ds + " = 0; i" + ds + " < x0->shape[" + ds + "]; ++i" + ds + ")");
  }
  for (int i = 0; i < L.nin(); ++i) {
    std::string at = "base" + str(i);
    for (int d : l.reduced) at += " + i" + str(d) + " * " + L.x(i) + "->strides[" + str(d) + "]";
    w.line("const char* at" + str(i) + " = " + at + ";");
  }
  w.line(fold_stmt);
  for (std::size_t i = 0; i < l.reduced.size(); ++i) w.close();
  w.line(store_stmt);
  w.line("++ko;");
  for (std::size_t i = 0; i < l.kept.size(); ++i) w.close();
}
}  // namespace

ReduceCode reduce_code(const NodeLowering& L, const tensor::CAReduce& op) {
  const Apply& node = L.node;
  const Kind kind = op.kind();
  ReduceCode rc;
  rc.nin = L.nin();
  rc.has_pre = op.pre() != nullptr;
  // The values reduced: input 0's, or those of the fused elementwise op
  // (`pre`) over every input, computed as the Elemwise lowering does.
  DType in_dt = L.in(0).dtype();
  if (op.pre()) {
    std::vector<Var> host_inputs;  // the host twins of GPU inputs: elemwise_exprs reads dtypes only
    for (const Var& v : node.inputs()) host_inputs.push_back(ttype(v).make_variable());
    ApplyPtr e = OpPtr(new tensor::Elemwise(op.pre()))->make_node(std::move(host_inputs));
    rc.ex = elemwise_exprs(*e);
    in_dt = ttype(e->output(0)).dtype();
    if (!c_type(in_dt))
      refuse(node, LoweringReason::Dtype, std::string(" (dtype ") + std::string(dtype_name(in_dt)) + ")");
  }
  const DType out_dt = L.out(0).dtype();
  // The compute dtype of perform.
  DType cd;
  if (is_arith(kind)) {
    cd = op.acc_dtype(in_dt);
    if (cd == DType::Float16) cd = DType::Float32;
  } else if (kind == Kind::And || kind == Kind::Or) {
    cd = DType::Bool;
  } else {
    cd = in_dt;
  }
  if (!c_type(cd))
    refuse(node, LoweringReason::Dtype, std::string(" (compute dtype ") + std::string(dtype_name(cd)) + ")");
  rc.in_t = c_type(in_dt);
  rc.out_t = c_type(out_dt);
  rc.cd_t = c_type(cd);
  rc.cd_bool = cd == DType::Bool;

  // The accumulator type; the fold, lane combination and identity are
  // runtime/kernels/reduce_rules.h's for it (perform's rules).
  DType acc;
  if (rc.cd_bool)
    acc = DType::Bool;  // held in an int
  else if (is_float(cd))
    acc = (is_arith(kind) || cd == DType::Float64) ? DType::Float64 : DType::Float32;
  else if (is_arith(kind))
    acc = is_unsigned(cd) ? DType::UInt64 : DType::Int64;
  else
    acc = cd;
  rc.acc_t = rc.cd_bool ? "int" : c_type(acc);
  rc.rules = reduce_rules_suffix(acc);
  const char* op_name = "";
  switch (kind) {
    case Kind::Add:
      op_name = "add";
      break;
    case Kind::Mul:
      op_name = "mul";
      break;
    case Kind::MulNoZeros:
      op_name = "mul_nz";
      break;
    case Kind::And:
      op_name = "all";
      break;
    case Kind::Or:
      op_name = "any";
      break;
    case Kind::Max:
      op_name = "max";
      break;
    case Kind::Min:
      op_name = "min";
      break;
  }
  const std::string rule = std::string("theano_reduce_") + op_name;
  rc.fold = rule + "_" + rc.rules;
  rc.combine = rule + "_join_" + rc.rules;
  rc.init = rule + "_id_" + rc.rules + "()";
  rc.no_identity = kind == Kind::Max || kind == Kind::Min;
  return rc;
}

std::string reduce_rules_suffix(DType d) {
  // The kernel files' dtype suffixes (kernel_dtype_suffix), and "b" for bools held in an int.
  if (d == DType::Bool) return "b";
  const std::string_view s = kernel_dtype_suffix(d);
  THEANO_INTERNAL_CHECK(!s.empty()) << "reduce_rules_suffix: no fold rules for dtype " << dtype_name(d);
  return std::string(s);
}

std::vector<std::pair<std::string, std::string>> reduce_rules_support(const std::string& suffix) {
  return {{"reduce rules", std::string(kernel_text("reduce_rules.h"))},
          {"reduce rules " + suffix, "THEANO_REDUCE_RULES_" + suffix}};
}

std::string ReduceCode::conv(const std::string& v) const {
  return cd_bool ? "(int)((" + v + ") != 0)" : "(" + acc_t + ")(" + cd_t + ")(" + v + ")";
}

std::string ReduceCode::store(const std::string& a) const { return "(" + out_t + ")(" + cd_t + ")(" + a + ")"; }

std::string ReduceCode::helpers(const std::string& fn, const std::string& qualifiers) const {
  CodeWriter f;
  f.line(qualifiers + " " + acc_t + " " + fn + "_fold(" + acc_t + " a, " + acc_t + " v) { return " + fold +
         "(a, v); }");
  f.line(qualifiers + " " + acc_t + " " + fn + "_combine(" + acc_t + " a, " + acc_t + " v) { return " + combine +
         "(a, v); }");
  f.line(qualifiers + " " + acc_t + " " + fn + "_conv(" + in_t + " v) { return " + conv("v") + "; }");
  if (has_pre) {
    std::string params;
    for (int i = 0; i < nin; ++i) params += (i ? ", " : "") + ex.arg_types[static_cast<std::size_t>(i)] + " a" + str(i);
    f.open(qualifiers + " " + in_t + " " + fn + "_map(" + params + ")");
    for (const std::string& local : ex.locals) f.line(local);
    f.line("return " + ex.stores[0] + ";");
    f.close();
  }
  return f.str();
}

std::string ReduceCode::element(const std::string& fn, const std::vector<std::string>& loads) const {
  if (!has_pre) return fn + "_conv(" + loads[0] + ")";
  std::string call = fn + "_map(";
  for (int i = 0; i < nin; ++i)
    call += (i ? ", (" : "(") + ex.arg_types[static_cast<std::size_t>(i)] + ")" + loads[static_cast<std::size_t>(i)];
  return fn + "_conv(" + call + "))";
}

namespace {

void lower_careduce(NodeLowering& L) {
  const auto& op = static_cast<const tensor::CAReduce&>(L.op);
  const Kind kind = op.kind();
  const int nin = L.nin();
  const ReduceCode rc = reduce_code(L, op);
  for (const auto& [key, code] : reduce_rules_support(rc.rules)) L.need(key, code);
  const ElemwiseExprs& ex = rc.ex;
  const int cost = op.pre() ? ex.cost() : 1;  // per element, for the loop split
  if (op.pre()) L.ns = ex.ns;
  for (const auto& [key, code] : ex.support) L.need(key, code);
  const std::string& acc_t = rc.acc_t;
  const std::string& out_t = rc.out_t;
  const std::string& init = rc.init;
  auto store = [&](const std::string& a) { return rc.store(a); };

  // File-scope helpers: the fold, the lane combination, the element's value
  // (reduce_code.h), then the flat fold.
  CodeWriter& f = L.file;
  const std::string fn = L.fn;
  f.lines(rc.helpers(fn, "static inline"));
  auto element = [&](const std::vector<std::string>& loads) { return rc.element(fn, loads); };
  auto loads_of = [&](const std::string& prefix, const std::string& index) {
    std::vector<std::string> r;
    for (int i = 0; i < nin; ++i) r.push_back(prefix + str(i) + index);
    return r;
  };
  const Layout l = layout_of(L, op.axes());
  // The contiguous forms (below) a node compiles: each runs only where its
  // sizes can occur. Rows where the dimensions before the reduced ones are
  // not all 1 by type (outer), columns where those after them are not
  // (inner); a reduction over the trailing axes compiles no column form.
  // The one-value form (every kept dimension 1 at run time) folds flat too,
  // except in a reduction over leading axes alone (no rows form: a bias
  // gradient's sum over the batch, W4a's column sums): there the columns
  // form takes that case as one column, folded in perform's order, and no
  // flat fold is compiled. Its 16-lane loop was most of such a node's -O2
  // and machine-code time (a 4000x4000 float32 column sum's unit: 132 ->
  // 83 ms of clang++ CPU time, perf stat -r 8); an N x 1 matrix summed over
  // axis 0 then runs on one thread, unvectorized.
  auto static_one = [&](int from, int to) {
    for (int d = from; d < to; ++d) {
      const tensor::Dim& sd = L.in(0).shape()[static_cast<std::size_t>(d)];
      if (!(sd && *sd == 1)) return false;
    }
    return true;
  };
  const bool with_rows = l.block && !static_one(0, l.first);
  const bool with_columns = l.block && !static_one(l.last + 1, l.nd);
  const bool with_all = l.block && (with_rows || !with_columns);
  if (with_all) {
    f.line("// Folds n consecutive elements with 16 independent accumulators (vectorizable).");
    std::string flat_params;
    for (int i = 0; i < nin; ++i) flat_params += "const " + L.in_ctype(i) + "* __restrict p" + str(i) + ", ";
    f.open("__attribute__((noinline)) static " + acc_t + " " + fn + "_flat(" + flat_params + "int64_t n)");
    f.line(acc_t + " r[16];");
    f.line("THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = " + init + ";");
    f.line("int64_t k = 0;");
    f.open("for (; k + 16 <= n; k += 16)");
    // A page ahead where that pays (the prelude's THEANO_PREFETCH_NEXT_PAGE).
    for (int i = 0; i < nin; ++i) f.line("THEANO_PREFETCH_NEXT_PAGE(p" + str(i) + " + k);");
    f.line("THEANO_LANES for (int j = 0; j < 16; ++j) r[j] = " + fn + "_fold(r[j], " +
           element(loads_of("p", "[k + j]")) + ");");
    f.close();
    f.line("THEANO_UNROLL for (int w = 8; w >= 1; w /= 2)");
    f.line("  THEANO_UNROLL for (int j = 0; j < w; ++j) r[j] = " + fn + "_combine(r[j], r[j + w]);");
    f.line(acc_t + " a = r[0];");
    f.line("for (; k < n; ++k) a = " + fn + "_fold(a, " + element(loads_of("p", "[k]")) + ");");
    f.line("return a;");
    f.close();
  }

  CodeWriter& w = L.body;
  for (int i = 1; i < nin; ++i)  // fused inputs: one broadcast pattern, so one shape
    for (int d = 0; d < l.nd; ++d)
      w.line("if (" + L.x(i) + "->shape[" + str(d) + "] != x0->shape[" + str(d) + "]) " +
             L.fail(kErrShape, "the inputs of the fused elementwise op must have the same shape (input " + str(i) +
                                   " differs from input 0 in dimension " + str(d) + ")"));
  emit_sizes(L, l);
  w.line(out_t + "* __restrict po = (" + out_t + "*)o0->data;");
  // The generic strided path and the identity of an empty reduction,
  // file-scope functions like the contiguous forms (so the node function
  // holds no loop: loops_outlined). The empty reduction does not walk the
  // input: its other reduced axes may be long (2^37 x 0 summed over both).
  f.line("__attribute__((noinline)) static void " + fn + "_identity(" + out_t +
         "* __restrict po, int64_t n) { for (int64_t k = 0; k < n; ++k) po[k] = " + store(init) + "; }");
  std::string generic_params, generic_call = fn + "_generic(";
  for (int i = 0; i < nin; ++i) {
    generic_params += "const TheanoArray* " + L.x(i) + ", ";
    generic_call += L.x(i) + ", ";
  }
  generic_call += "po);";
  f.open("__attribute__((noinline)) static void " + fn + "_generic(" + generic_params + out_t + "* __restrict po)");
  std::vector<std::string> at_loads;
  for (int i = 0; i < nin; ++i) at_loads.push_back("*(const " + L.in_ctype(i) + "*)at" + str(i));
  emit_generic(f, L, l, acc_t + " a = " + init + ";", "a = " + fn + "_fold(a, " + element(at_loads) + ");",
               "po[ko] = " + store("a") + ";");
  f.close();
  L.loops_outlined = true;
  // Empty reduction: the identity, or an error for max/min.
  w.open("if (group == 0)");
  if (kind == Kind::Max || kind == Kind::Min) {
    w.line("if (n_out > 0) " +
           L.fail(kErrValue, "zero-size array to reduction operation " + op.scalar_op() + " which has no identity"));
  }
  w.line(fn + "_identity(po, n_out);");
  w.line("return 0;");
  w.close();
  w.line("if (n_out == 0) return 0;");
  if (l.block) {
    // Contiguous input: three loop forms, each a part function over a range
    // that theano_parallel may split across the loop threads: everything
    // reduced to one value (ranges of elements, one partial result per part,
    // folded in part order: the same bits on every call), rows (ranges of
    // rows), columns (ranges of columns). They read the node's sizes and
    // pointers from a small struct.
    const std::string args_t = fn + "_args";
    f.open("struct " + args_t);
    for (int i = 0; i < nin; ++i) f.line("const " + L.in_ctype(i) + "* px" + str(i) + ";");
    f.line(out_t + "* po;");
    f.line(acc_t + "* partial;");
    f.line("int64_t outer, group, inner;");
    f.close(";");
    auto part = [&](const std::string& name) {
      ParallelPart pp{fn + "_" + name, args_t};
      pp.index = "p";
      pp.noinline = true;
      return pp;
    };
    const ParallelPart all = part("all"), rows = part("rows"), columns = part("columns");
    auto open_part = [&](const ParallelPart& pp) {
      pp.open(f);
      f.line("const int64_t outer = args->outer, group = args->group, inner = args->inner;");
      f.line("(void)outer; (void)group; (void)inner; (void)p;");
      for (int i = 0; i < nin; ++i)
        f.line("const " + L.in_ctype(i) + "* __restrict px" + str(i) + " = args->px" + str(i) + ";");
      f.line(out_t + "* __restrict po = args->po;");
    };
    std::string all_args, row_args;
    for (int i = 0; i < nin; ++i) {
      all_args += "px" + str(i) + " + lo, ";
      row_args += "px" + str(i) + " + o * group, ";
    }
    // The forms: with_rows, with_columns and with_all above.
    if (with_all) {
      open_part(all);
      f.line("args->partial[p] = " + fn + "_flat(" + all_args + "hi - lo);");
      f.close();
    }
    if (with_rows) {
      open_part(rows);
      f.line("for (int64_t o = lo; o < hi; ++o) po[o] = " + store(fn + "_flat(" + row_args + "group)") + ";");
      f.close();
    }
    // Columns: chunks of them accumulate row by row, in the output itself when
    // the accumulator has the output's type, else in a stack buffer.
    const bool in_place = acc_t == out_t;
    if (with_columns) {
      open_part(columns);
      f.line(std::string("enum { CH = ") + (in_place ? "8192" : "2048") + " };");
      if (!in_place) f.line(acc_t + " stack_acc[CH];");
      f.open("for (int64_t o = 0; o < outer; ++o)");
      f.open("for (int64_t j0 = lo; j0 < hi; j0 += CH)");
      f.line("const int64_t m = hi - j0 < CH ? hi - j0 : CH;");
      f.line(out_t + "* __restrict q = po + o * inner + j0;");
      f.line(acc_t + "* __restrict acc = " + (in_place ? "q" : "stack_acc") + ";");
      f.line("for (int64_t j = 0; j < m; ++j) acc[j] = " + init + ";");
      std::string advance;
      for (int i = 0; i < nin; ++i) {
        f.line("const " + L.in_ctype(i) + "* __restrict row" + str(i) + " = px" + str(i) + " + o * group * inner + j0;");
        advance += std::string(i ? ", " : "") + "row" + str(i) + " += inner";
    }
    // Eight rows per pass over the chunk: the accumulator is loaded and
    // stored once per eight elements instead of once per element (the fold
    // order is unchanged, so are the bits); 4000x4000 column sums on 2 cores,
    // float32 3.4 -> 1.5 ms, float64 6.1 -> 3.3 ms.
    std::string advance8;
    for (int i = 0; i < nin; ++i) advance8 += std::string(i ? ", " : "") + "row" + str(i) + " += 8 * inner";
    f.line("int64_t g = 0;");
    f.open("for (; g + 8 <= group; g += 8, " + advance8 + ")");
    f.open("for (int64_t j = 0; j < m; ++j)");
    f.line(acc_t + " a = acc[j];");
    f.line("THEANO_UNROLL for (int r = 0; r < 8; ++r) a = " + fn + "_fold(a, " +
           element(loads_of("row", "[j + r * inner]")) + ");");
    f.line("acc[j] = a;");
    f.close();
    f.close();
    f.open("for (; g < group; ++g, " + advance + ")");
    f.line("for (int64_t j = 0; j < m; ++j) acc[j] = " + fn + "_fold(acc[j], " + element(loads_of("row", "[j]")) +
           ");");
    f.close();
    if (!in_place) f.line("for (int64_t j = 0; j < m; ++j) q[j] = " + store("acc[j]") + ";");
    f.close();
    f.close();
    f.close();
    }

    std::string contiguous, init_args;
    for (int i = 0; i < nin; ++i) {
      contiguous += std::string(i ? " && " : "") + "theano_c_contiguous(" + L.x(i) + ", " +
                    str(static_cast<std::int64_t>(dtype_size(L.in(i).dtype()))) + ")";
      init_args += "(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data, ";
    }
    w.open("if (" + contiguous + ")");
    w.line(acc_t + " partial[THEANO_MAX_PARTS];");
    w.line(args_t + " args = {" + init_args + "po, partial, outer, group, inner};");
    if (with_all) {
      w.open("if (inner == 1 && outer == 1)");
      w.line("const int64_t parts = " + all.run("group", str(min_part_elements(cost)), "args") + ";");
      w.line(acc_t + " a = partial[0];");
      w.line("for (int64_t p = 1; p < parts; ++p) a = " + fn + "_combine(a, partial[p]);");
      w.line("po[0] = " + store("a") + ";");
      w.close();
      if (with_rows && with_columns)
        w.line("else if (inner == 1) " + rows.run("outer", min_part_expr(cost, "group"), "args") + ";");
      else if (with_rows)
        w.line("else " + rows.run("outer", min_part_expr(cost, "group"), "args") + ";");
      if (with_columns) w.line("else " + columns.run("inner", min_part_expr(cost, "outer * group"), "args") + ";");
    } else {
      w.line(columns.run("inner", min_part_expr(cost, "outer * group"), "args") + ";");
    }
    w.line("return 0;");
    w.close();
  }
  w.line(generic_call);
  w.line("return 0;");
}

void lower_argreduce(NodeLowering& L) {
  const Apply& node = L.node;
  const auto& op = static_cast<const tensor::ArgReduce&>(*node.op());
  const DType in_dt = L.in(0).dtype();
  const std::string in_t = c_type(in_dt);
  const std::string name = op.is_max() ? "argmax" : "argmin";
  const std::string fn = L.fn;
  // The rules of runtime/kernels/reduce_rules.h (perform's): better(best,
  // v), the first NaN wins, otherwise a strict improvement; the extreme value
  // propagates NaN.
  const std::string sfx = reduce_rules_suffix(in_dt), mm = op.is_max() ? "max" : "min";
  for (const auto& [key, code] : reduce_rules_support(sfx)) L.need(key, code);
  const std::string extreme = "theano_reduce_" + mm + "_" + sfx, join = "theano_reduce_" + mm + "_join_" + sfx;
  CodeWriter& f = L.file;
  f.line("static inline bool " + fn + "_better(" + in_t + " best, " + in_t + " v) { return theano_arg_" + mm +
         "_better_" + sfx + "(best, v); }");
  // Index of the extreme of n contiguous elements (n > 0), in two vectorizable
  // passes: the extreme value (NaN propagating, 16 accumulators), then the first
  // position holding it (the first NaN when it is NaN), as the sequential scan.
  const bool fl = is_float(in_dt);
  f.open("static int64_t " + fn + "_scan(const " + in_t + "* __restrict p, int64_t n)");
  f.line(in_t + " r[16];");
  f.line("THEANO_UNROLL for (int j = 0; j < 16; ++j) r[j] = p[0];");
  f.line("int64_t k = 0;");
  f.open("for (; k + 16 <= n; k += 16)");
  f.line("THEANO_LANES for (int j = 0; j < 16; ++j) r[j] = " + extreme + "(r[j], p[k + j]);");
  f.close();
  f.line("THEANO_UNROLL for (int w = 8; w >= 1; w /= 2)");
  f.line("  THEANO_UNROLL for (int j = 0; j < w; ++j) r[j] = " + join + "(r[j], r[j + w]);");
  f.line(in_t + " m = r[0];");
  f.line("for (; k < n; ++k) m = " + extreme + "(m, p[k]);");
  if (fl) {
    f.line("if (m != m) { for (k = 0; k < n; ++k) if (p[k] != p[k]) return k; }");
  }
  f.line("for (k = 0; k < n; ++k) if (p[k] == m) return k;");
  f.line("return 0;");
  f.close();

  const Layout l = layout_of(L, op.axes());
  CodeWriter& w = L.body;
  emit_sizes(L, l);
  w.line("int64_t* __restrict po = (int64_t*)o0->data;");
  w.line("if (group == 0 && n_out > 0) " + L.fail(kErrValue, "attempt to get " + name + " of an empty sequence"));
  w.line("if (n_out == 0) return 0;");
  if (l.block) {
    w.open("if (theano_c_contiguous(x0, " + str(static_cast<std::int64_t>(dtype_size(in_dt))) + "))");
    w.line("const " + in_t + "* __restrict px = (const " + in_t + "*)x0->data;");
    w.open("if (inner == 1)");
    w.line("for (int64_t o = 0; o < outer; ++o) po[o] = " + fn + "_scan(px + o * group, group);");
    w.line("return 0;");
    w.close();
    // Columns: chunks of them are scanned row by row (contiguous loads).
    w.line("enum { CH = 2048 };");
    w.line(in_t + " best[CH];");
    w.open("for (int64_t o = 0; o < outer; ++o)");
    w.open("for (int64_t j0 = 0; j0 < inner; j0 += CH)");
    w.line("const int64_t m = inner - j0 < CH ? inner - j0 : CH;");
    w.line("const " + in_t + "* __restrict row = px + o * group * inner + j0;");
    w.line("int64_t* __restrict q = po + o * inner + j0;");
    w.line("for (int64_t j = 0; j < m; ++j) { best[j] = row[j]; q[j] = 0; }");
    w.line("row += inner;");
    w.open("for (int64_t g = 1; g < group; ++g, row += inner)");
    w.open("for (int64_t j = 0; j < m; ++j)");
    w.line("const " + in_t + " v = row[j];");
    w.line("const bool b = " + fn + "_better(best[j], v);");
    w.line("best[j] = b ? v : best[j];");
    w.line("q[j] = b ? g : q[j];");
    w.close();
    w.close();
    w.close();
    w.close();
    w.line("return 0;");
    w.close();
  }
  emit_generic(w, L, l, in_t + " best = 0; int64_t bi = -1, j = 0;",
               "{ const " + in_t + " v = *(const " + in_t + "*)at0; if (bi < 0 || " + fn +
                   "_better(best, v)) { best = v; bi = j; } ++j; }",
               "po[ko] = bi;");
  w.line("return 0;");
}

}  // namespace

void add_reduction_lowerings(LoweringTable& t) {
  t.add<tensor::CAReduce>(Target::Cpu, &lower_careduce);
  t.add<tensor::ArgReduce>(Target::Cpu, &lower_argreduce);
}

}  // namespace theano::codegen::lower
