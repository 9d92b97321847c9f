// Lowerings of the indexing ops (see lowering.h): Subtensor (a view of x),
// IncSubtensor (set / increment x[idx], a copy of x unless inplace),
// AdvancedSubtensor1 (gather rows by an integer vector, a copy) and
// AdvancedIncSubtensor1 (scatter rows; increments accumulate over repeated
// indices, set keeps the last write), following the performs in
// compiler/src/tensor/subtensor/.
//
// Basic indices follow NDArray::slice / NDArray::index through the same rules
// (theano_slice_rule, theano_slice_stride, theano_index_rule in runtime/
// include/theano/runtime/kernels/shape_rules.h; CPython's PySlice_AdjustIndices):
// out-of-range integers are kErrIndex, a zero step is kErrValue, out-of-range
// slice bounds clamp. Symbolic bounds are 0-d integer
// inputs read through their dtype. Updates convert the value to x's dtype
// first, then add in x's dtype (bool: or), as perform's add_into does.
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>

#include "lowering.h"
#include "parallel_part.h"
#include "subtensor_code.h"

namespace theano::codegen::lower {
namespace {

using tensor::IdxBound;
using tensor::IdxEntry;
using tensor::IdxList;

/// A C++ literal for a constant bound (INT64_MIN has no plain literal).
std::string lit(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807L - 1)";
  return str(v) + "L";
}

/// Reads the 0-d integer input `i` as int64_t.
std::string read_int_input(const NodeLowering& L, int i) {
  return "(int64_t)*(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data";
}

}  // namespace

int emit_index(NodeLowering& L, const IdxList& idx, int xnd, const std::string& src, int sym0, const std::string& p) {
  CodeWriter& w = L.body;
  int vnd = 0;
  for (const IdxEntry& e : idx) vnd += e.is_slice ? 1 : 0;
  vnd += xnd - static_cast<int>(idx.size());
  // The byte offset is applied to the data pointer only when the view is
  // not empty: an empty array may have no data (nullptr), and perform's
  // NDArray::index / slice keep the base pointer of an empty view too.
  w.line("int64_t " + p + "_off = 0;");
  w.line("int64_t " + p + "_shape[" + str(std::max(vnd, 1)) + "];");
  w.line("int64_t " + p + "_strides[" + str(std::max(vnd, 1)) + "];");
  int sym = sym0;
  auto value = [&](const IdxBound& b) -> std::string {
    if (b.is_constant()) return lit(b.value);
    return read_int_input(L, sym++);
  };
  int od = 0;
  for (int d = 0; d < static_cast<int>(idx.size()); ++d) {
    const IdxEntry& e = idx[static_cast<std::size_t>(d)];
    const std::string ds = str(d);
    const std::string n = src + "->shape[" + ds + "]";
    const std::string s = src + "->strides[" + ds + "]";
    w.open("", "axis " + ds);
    w.line("const int64_t n = " + n + ";");
    if (!e.is_slice) {
      // The rules perform runs too (shape_rules.h, through NDArray::index/slice).
      w.line("const int64_t i = " + value(e.index) + ";");
      w.line("int64_t at = 0;");
      w.line("if (theano_index_rule(n, i, &at) != THEANO_RULE_OK) " +
             L.fail_int(kErrIndex, "index ", "i", " is out of bounds for axis " + ds + " (input 0)"));
      w.line(p + "_off += at * " + s + ";");
      w.close();
      continue;
    }
    // Python evaluates start, stop, step in this order (perform does too).
    const std::string start = e.start.is_none() ? "" : value(e.start);
    const std::string stop = e.stop.is_none() ? "" : value(e.stop);
    const std::string step = e.step.is_none() ? "1L" : value(e.step);
    if (!start.empty()) w.line("const int64_t start = " + start + ";");
    if (!stop.empty()) w.line("const int64_t stop = " + stop + ";");
    w.line("const int64_t step = " + step + ";");
    w.line("int64_t b = 0, len = 0;");
    w.line(std::string("const int rule = theano_slice_rule(n, ") + (start.empty() ? "0, 0" : "1, start") + ", " +
           (stop.empty() ? "0, 0" : "1, stop") + ", step, &b, &len);");
    if (!e.step.is_none()) {
      w.line("if (rule == THEANO_RULE_ZERO_STEP) " + L.fail(kErrValue, "slice step cannot be zero (axis " + ds + ")"));
      w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "axis " + ds + ": ", "0"));
    }
    w.line(p + "_shape[" + str(od) + "] = len;");
    w.line(p + "_strides[" + str(od) + "] = theano_slice_stride(" + s + ", step);");
    w.line("if (len > 0) " + p + "_off += b * " + s + ";");
    w.close();
    ++od;
  }
  for (int d = static_cast<int>(idx.size()); d < xnd; ++d, ++od) {
    w.line(p + "_shape[" + str(od) + "] = " + src + "->shape[" + str(d) + "];");
    w.line(p + "_strides[" + str(od) + "] = " + src + "->strides[" + str(d) + "];");
  }
  std::string empty = "0";
  for (int j = 0; j < vnd; ++j) empty += " || " + p + "_shape[" + str(j) + "] == 0";
  w.line("char* " + p + " = (" + empty + ") ? " + src + "->data : " + src + "->data + " + p + "_off;");
  return vnd;
}

namespace {

/// One operand of a nested strided loop: a pointer variable prefix, its start
/// expression, its element type and the byte stride of loop dimension j.
struct LoopOperand {
  std::string name;
  std::string start;
  std::string ctype;
  bool is_const;
  std::function<std::string(int)> stride;
};

/// Emits nested loops over `nd` dimensions of sizes `shape(j)`, moving every
/// operand by its stride; `body(ptrs)` writes the innermost statement given
/// each operand's element pointer expression (typed). The innermost
/// dimension gets a unit-stride path the vectorizer can use.
void emit_loops(CodeWriter& w, int nd, const std::function<std::string(int)>& shape,
                const std::vector<LoopOperand>& ops,
                const std::function<std::string(const std::vector<std::string>&)>& body) {
  auto typed = [&](const LoopOperand& o, const std::string& ptr) {
    return "(" + std::string(o.is_const ? "const " : "") + o.ctype + "*)" + ptr;
  };
  for (const LoopOperand& o : ops)
    w.line(std::string(o.is_const ? "const char* " : "char* ") + o.name + "0 = " + o.start + ";");
  if (nd == 0) {
    std::vector<std::string> ptrs;
    for (const LoopOperand& o : ops) ptrs.push_back(typed(o, o.name + "0"));
    w.line(body(ptrs));
    return;
  }
  for (int j = 0; j < nd - 1; ++j) {
    const std::string js = str(j), jn = str(j + 1);
    std::string inc;
    for (const LoopOperand& o : ops) inc += ", " + o.name + js + " += " + o.stride(j);
    w.open("for (int64_t i" + js + " = 0; i" + js + " < " + shape(j) + "; ++i" + js + inc + ")");
    for (const LoopOperand& o : ops)
      w.line(std::string(o.is_const ? "const char* " : "char* ") + o.name + jn + " = " + o.name + js + ";");
  }
  const int l = nd - 1;
  const std::string ls = str(l);
  // Unit-stride (or, for read-only operands, broadcast) innermost dimension.
  std::string unit = "1";
  for (const LoopOperand& o : ops) {
    const std::string st = o.stride(l);
    unit += " && (" + st + " == (int64_t)sizeof(" + o.ctype + ")" + (o.is_const ? " || " + st + " == 0" : "") + ")";
  }
  w.open("if (" + unit + ")");
  std::vector<std::string> ptrs;
  for (const LoopOperand& o : ops) {
    const std::string q = "q_" + o.name;
    w.line(std::string(o.is_const ? "const " : "") + o.ctype + "* " + q + " = " + typed(o, o.name + ls) + ";");
    if (o.is_const) {
      w.line("const int64_t u_" + o.name + " = " + o.stride(l) + " == 0 ? 0 : 1;");
      ptrs.push_back("(" + q + " + i" + ls + " * u_" + o.name + ")");
    } else {
      ptrs.push_back("(" + q + " + i" + ls + ")");
    }
  }
  w.open("for (int64_t i" + ls + " = 0; i" + ls + " < " + shape(l) + "; ++i" + ls + ")");
  w.line(body(ptrs));
  w.close();
  w.close();
  w.open("else");
  std::string inc;
  for (const LoopOperand& o : ops) inc += ", " + o.name + ls + " += " + o.stride(l);
  w.open("for (int64_t i" + ls + " = 0; i" + ls + " < " + shape(l) + "; ++i" + ls + inc + ")");
  ptrs.clear();
  for (const LoopOperand& o : ops) ptrs.push_back(typed(o, o.name + ls));
  w.line(body(ptrs));
  w.close();
  w.close();
  for (int j = 0; j < nd - 1; ++j) w.close();
}

/// The update statement `*dst = y` or `*dst += y` (update_expr).
std::string update_stmt(DType xd, bool set, const std::string& dst, const std::string& src) {
  return "*" + dst + " = " + update_expr(xd, set, "*" + dst, "*" + src) + ";";
}

void lower_subtensor(NodeLowering& L) {
  const auto& op = static_cast<const tensor::Subtensor&>(L.op);
  L.cold = true;  // a view: index checks only
  CodeWriter& w = L.body;
  const int vnd = emit_index(L, op.idx_list(), L.in(0).ndim(), "x0", 1, "v");
  // A view of x (view_map {0: [0]}).
  w.line("o0->data = v;");
  w.line("o0->owner = x0->owner;");
  for (int j = 0; j < vnd; ++j) {
    w.line("o0->shape[" + str(j) + "] = v_shape[" + str(j) + "];");
    w.line("o0->strides[" + str(j) + "] = v_strides[" + str(j) + "];");
  }
  w.line("(void)v_shape; (void)v_strides;");
  w.line("return 0;");
}

}  // namespace

std::string update_expr(DType xd, bool set, const std::string& old, const std::string& y) {
  const std::string xt = c_type(xd);
  const std::string yv = "(" + xt + ")" + y;
  if (set) return yv;
  if (xd == DType::Bool) return "(" + old + " || " + yv + ")";
  return "(" + xt + ")(" + old + " + " + yv + ")";
}

namespace {

/// Output o0 = x0 (a view when `inplace`, declared in destroy_map), else a copy.
void emit_x_copy(NodeLowering& L, bool inplace) {
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  if (inplace) {
    w.line("o0->data = x0->data;");
    w.line("o0->owner = x0->owner;");
    for (int d = 0; d < nd; ++d) {
      w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
      w.line("o0->strides[" + str(d) + "] = x0->strides[" + str(d) + "];");
    }
    return;
  }
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.line("theano_copy(ctx, o0, x0, " + str(static_cast<std::int64_t>(dtype_size(L.in(0).dtype()))) + ");");
}

}  // namespace

void emit_value_check(NodeLowering& L, int tnd, const std::function<std::string(int)>& target) {
  std::string dims;
  for (int j = 0; j < tnd; ++j) dims += (j ? ", " : "") + target(j);
  L.body.line("const int64_t indexed_shape[" + str(std::max(tnd, 1)) + "] = {" + (tnd ? dims : std::string("0")) +
              "};");
  emit_broadcast_to_check(L, 1, "indexed_shape", tnd, true, "the value");
}

void emit_value_strides(NodeLowering& L, int tnd) {
  const int off = tnd - L.in(1).ndim();
  for (int j = 0; j < tnd; ++j) {
    const std::string js = str(j - off);
    L.body.line("const int64_t ys" + str(j) + " = " +
                (j < off ? std::string("0") : "x1->shape[" + js + "] == 1 ? 0 : x1->strides[" + js + "]") + ";");
  }
}

namespace {

void lower_inc_subtensor(NodeLowering& L) {
  const auto& op = static_cast<const tensor::IncSubtensor&>(*L.node.op());
  CodeWriter& w = L.body;
  const DType xd = L.in(0).dtype(), yd = L.in(1).dtype();
  emit_x_copy(L, op.inplace());
  const int vnd = emit_index(L, op.idx_list(), L.in(0).ndim(), "o0", 2, "v");
  emit_value_check(L, vnd, [](int j) { return "v_shape[" + str(j) + "]"; });
  w.line("int64_t n = 1;");
  for (int j = 0; j < vnd; ++j) w.line("n *= v_shape[" + str(j) + "];");
  w.line("(void)v_strides;");
  w.line("if (n == 0) return 0;");
  emit_value_strides(L, vnd);
  std::vector<LoopOperand> ops{{"pv", "v", c_type(xd), false, [](int j) { return "v_strides[" + str(j) + "]"; }},
                               {"py", "x1->data", c_type(yd), true, [](int j) { return "ys" + str(j); }}};
  const bool set = op.set_instead_of_inc();
  emit_loops(
      w, vnd, [](int j) { return "v_shape[" + str(j) + "]"; }, ops,
      [&](const std::vector<std::string>& p) { return update_stmt(xd, set, p[0], p[1]); });
  w.line("return 0;");
}

}  // namespace

void emit_gather_output(NodeLowering& L) {
  CodeWriter& w = L.body;
  w.line("const int64_t n = x0->shape[0];");
  w.line("const int64_t k = x1->shape[0];");
  w.line("o0->shape[0] = k;");
  w.line("int64_t row = 1;");
  for (int d = 1; d < L.in(0).ndim(); ++d) {
    w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
    w.line("row *= x0->shape[" + str(d) + "];");
  }
  w.line(L.alloc(0));
}

std::string index_error_text() { return " is out of bounds for axis 0 of input 0 (advanced indexing)"; }

namespace {

/// int64_t i = ilist[j] (input `il`), checked against n and wrapped.
void emit_checked_index(NodeLowering& L, int il) {
  CodeWriter& w = L.body;
  const std::string xi = L.x(il);
  w.line("int64_t i = (int64_t)*(const " + L.in_ctype(il) + "*)(" + xi + "->data + j * " + xi + "->strides[0]);");
  // The rule perform runs too (shape_rules.h).
  w.line("if (theano_index_rule(n, i, &i) != THEANO_RULE_OK) " +
         L.fail_int(kErrIndex, "index ", "i", index_error_text()));
}

void lower_advanced_subtensor1(NodeLowering& L) {
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  const DType dt = L.in(0).dtype();
  const std::string item = str(static_cast<std::int64_t>(dtype_size(dt)));
  emit_gather_output(L);
  w.line("if (k == 0) return 0;");
  // Rows of x are contiguous when its trailing dimensions are C-contiguous.
  w.line("bool rows_contiguous = true;");
  w.line("int64_t expect = " + item + ";");
  for (int d = nd - 1; d >= 1; --d) {
    const std::string ds = str(d);
    w.line("if (x0->shape[" + ds + "] != 1 && x0->strides[" + ds + "] != expect) rows_contiguous = false;");
    w.line("expect *= x0->shape[" + ds + "];");
  }
  w.open("if (rows_contiguous)");
  // Contiguous rows: every index checked first (the rule perform runs), then
  // the rows copied in ranges that theano_parallel may run on the loop
  // threads, each row's lines prefetched eight rows ahead (the rows are read
  // in the index's order, which the hardware prefetcher cannot guess; W13).
  w.open("for (int64_t j = 0; j < k; ++j)");
  emit_checked_index(L, 1);
  w.close();
  w.line("if (row == 0) return 0;  // indices checked, as perform checks them, and nothing to copy");
  const std::string ictype = L.in_ctype(1);
  CodeWriter& f = L.file;
  const std::string args_t = L.fn + "_args";
  f.open("struct " + args_t);
  f.line("const char* x;");
  f.line("const char* idx;");
  f.line("char* o;");
  f.line("int64_t n, xs, is, bytes;");
  f.close(";");
  const ParallelPart part{L.fn + "_rows", args_t};
  part.open(f);
  f.line("const int64_t n = args->n, xs = args->xs, is = args->is, bytes = args->bytes;");
  f.line("const int64_t ahead = bytes < 512 ? bytes : 512;");
  f.open("for (int64_t j = lo; j < hi; ++j)");
  f.open("if (j + 8 < hi)");
  f.line("int64_t p = (int64_t)*(const " + ictype + "*)(args->idx + (j + 8) * is);");
  f.line("if (p < 0) p += n;");
  f.line("for (int64_t b = 0; b < ahead; b += 64) __builtin_prefetch(args->x + p * xs + b);");
  f.close();
  f.line("int64_t i = (int64_t)*(const " + ictype + "*)(args->idx + j * is);");
  f.line("if (i < 0) i += n;");
  f.line("__builtin_memcpy(args->o + j * bytes, args->x + i * xs, (unsigned long)bytes);");
  f.close();
  f.close();
  w.line(args_t + " args = {x0->data, x1->data, o0->data, n, x0->strides[0], x1->strides[0], row * " + item + "};");
  w.line(part.run("k", "(32768 + args.bytes - 1) / args.bytes", "args") + ";");
  w.line("return 0;");
  w.close();
  w.open("for (int64_t j = 0; j < k; ++j)");
  emit_checked_index(L, 1);
  w.line("const char* src = x0->data + i * x0->strides[0];");
  w.line("char* dst = o0->data + j * row * " + item + ";");
  std::vector<LoopOperand> ops{
      {"pd", "dst", c_type(dt), false, [](int j) { return "o0->strides[" + str(j + 1) + "]"; }},
      {"ps", "src", c_type(dt), true, [](int j) { return "x0->strides[" + str(j + 1) + "]"; }}};
  emit_loops(
      w, nd - 1, [](int j) { return "o0->shape[" + str(j + 1) + "]"; }, ops,
      [](const std::vector<std::string>& p) { return "*" + p[0] + " = *" + p[1] + ";"; });
  w.close();
  w.line("return 0;");
}

void lower_advanced_inc_subtensor1(NodeLowering& L) {
  const auto& op = static_cast<const tensor::AdvancedIncSubtensor1&>(*L.node.op());
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  const DType xd = L.in(0).dtype(), yd = L.in(1).dtype();
  emit_x_copy(L, op.inplace());
  w.line("const int64_t n = o0->shape[0];");
  w.line("const int64_t k = x2->shape[0];");
  // The value broadcasts to the target shape (k, x.shape[1:]).
  emit_value_check(L, nd, [](int j) { return j == 0 ? std::string("k") : "o0->shape[" + str(j) + "]"; });
  w.line("int64_t row = 1;");
  for (int d = 1; d < nd; ++d) w.line("row *= o0->shape[" + str(d) + "];");
  emit_value_strides(L, nd);
  w.line("if (row == 0) return 0;");
  // Rows of the target and of the value both contiguous (an embedding's
  // gradient, W13): one loop over the row that vectorizes.
  const std::string xi = str(static_cast<std::int64_t>(dtype_size(xd)));
  const std::string yi = str(static_cast<std::int64_t>(dtype_size(yd)));
  w.line("bool flat_rows = true;");
  w.line("int64_t ox = " + xi + ", oy = " + yi + ";");
  for (int d = nd - 1; d >= 1; --d) {
    const std::string ds = str(d);
    w.line("if (o0->shape[" + ds + "] != 1 && (o0->strides[" + ds + "] != ox || ys" + ds + " != oy)) flat_rows = false;");
    w.line("ox *= o0->shape[" + ds + "]; oy *= o0->shape[" + ds + "];");
  }
  w.open("if (flat_rows)");
  w.open("for (int64_t j = 0; j < k; ++j)");
  emit_checked_index(L, 2);
  // No __restrict: in place, y may be a view of x (clang checks the overlap at run time).
  w.line(std::string(c_type(xd)) + "* pd = (" + c_type(xd) + "*)(o0->data + i * o0->strides[0]);");
  w.line(std::string("const ") + c_type(yd) + "* py = (const " + c_type(yd) + "*)(x1->data + j * ys0);");
  w.line("for (int64_t e = 0; e < row; ++e) " + update_stmt(xd, op.set_instead_of_inc(), "(pd + e)", "(py + e)"));
  w.close();
  w.line("return 0;");
  w.close();
  w.open("for (int64_t j = 0; j < k; ++j)");
  emit_checked_index(L, 2);
  std::vector<LoopOperand> ops{{"pd", "o0->data + i * o0->strides[0]", c_type(xd), false,
                                [](int j) { return "o0->strides[" + str(j + 1) + "]"; }},
                               {"py", "x1->data + j * ys0", c_type(yd), true, [](int j) { return "ys" + str(j + 1); }}};
  const bool set = op.set_instead_of_inc();
  emit_loops(
      w, nd - 1, [](int j) { return "o0->shape[" + str(j + 1) + "]"; }, ops,
      [&](const std::vector<std::string>& p) { return update_stmt(xd, set, p[0], p[1]); });
  w.close();
  w.line("return 0;");
}

}  // namespace

void add_subtensor_lowerings(LoweringTable& t) {
  t.add<tensor::Subtensor>(Target::Cpu, &lower_subtensor);
  t.add<tensor::Subtensor>(Target::Cuda, &lower_subtensor);  // its GPU form: this code on device addresses
  t.add<tensor::IncSubtensor>(Target::Cpu, &lower_inc_subtensor);
  t.add<tensor::AdvancedSubtensor1>(Target::Cpu, &lower_advanced_subtensor1);
  t.add<tensor::AdvancedIncSubtensor1>(Target::Cpu, &lower_advanced_inc_subtensor1);
}

}  // namespace theano::codegen::lower
