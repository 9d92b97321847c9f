// Lowerings of the shape and creation ops (see lowering.h): Shape, Shape_i,
// MakeVector, SpecifyShape, Reshape (shape.h), Alloc, ARange, Eye, Assert
// (basic_ops.h), the gradient stoppers ZeroGrad / DisconnectedGrad
// (gradient.h; identities) and IndexExpression (subtensor.h; an identity).
//
// Each follows its op's perform (compiler/src/tensor/shape/*.cpp, gradient/
// grad_ops.cpp): same dtype, shape and values, same error kinds. Integer scalar
// inputs (sizes, shape vectors) of any integer dtype are read through their
// dtype and strides and widened to int64, as `item<std::int64_t>()` does.
// Views (SpecifyShape, Assert, the gradient stoppers, Reshape when the strides
// allow it) are all declared in the ops' view_map.
#include "lowering.h"

#include <theano/gradient.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <algorithm>

namespace theano::codegen::lower {
namespace {

// ---- host-side helpers -------------------------------------------------------------

/// Element k (a C expression) of the 1-d input i, or its single element (0-d),
/// as the C expression of type `as` ("int64_t", "double").
std::string read_elem(const NodeLowering& L, int i, const std::string& as, const std::string& k = {}) {
  const std::string x = L.x(i);
  const std::string addr = k.empty() ? x + "->data" : "(" + x + "->data + (" + k + ") * " + x + "->strides[0])";
  return "(" + as + ")*(const " + L.in_ctype(i) + "*)" + addr;
}

}  // namespace

void emit_alloc_target(NodeLowering& L) {
  CodeWriter& w = L.body;
  const int nd = L.nin() - 1;
  const int vnd = L.in(0).ndim();
  const int off = nd - vnd;
  w.line("int64_t shp[" + str(std::max(nd, 1)) + "];");
  w.line("int64_t vs[" + str(std::max(nd, 1)) + "];");
  for (int i = 0; i < nd; ++i) {
    const std::string is = str(i);
    w.line("shp[" + is + "] = " + read_elem(L, i + 1, "int64_t") + ";");
    w.line("if (shp[" + is + "] < 0) " +
           L.fail_int(kErrValue, "shape entry " + is + " is negative (", "shp[" + is + "]", ")"));
  }
  for (int d = 0; d < off; ++d) w.line("vs[" + str(d) + "] = 0;");
  emit_broadcast_to_check(L, 0, "shp", nd, true, "the value");
  for (int j = 0; j < vnd; ++j) {
    const std::string js = str(j), ts = str(j + off);
    w.line("vs[" + ts + "] = x0->shape[" + js + "] == 1 ? 0 : x0->strides[" + js + "];");
  }
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = shp[" + str(d) + "];");
  w.line(L.alloc(0));
}

namespace {

/// Makes output k a view of input i with the same shape and strides.
void emit_identity_view(NodeLowering& L, int k, int i) {
  CodeWriter& w = L.body;
  const std::string o = L.o(k), x = L.x(i);
  w.line(o + "->data = " + x + "->data;");
  w.line(o + "->owner = " + x + "->owner;");
  for (int d = 0; d < L.out(k).ndim(); ++d) {
    const std::string ds = str(d);
    w.line(o + "->shape[" + ds + "] = " + x + "->shape[" + ds + "];");
    w.line(o + "->strides[" + ds + "] = " + x + "->strides[" + ds + "];");
  }
}

// ---- Shape, Shape_i ----------------------------------------------------------------

void lower_shape(NodeLowering& L) {
  L.cold = true;
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  w.line("o0->shape[0] = " + str(nd) + ";");
  w.line(L.alloc(0));
  if (nd > 0) w.line("int64_t* p = (int64_t*)o0->data;");
  for (int d = 0; d < nd; ++d) w.line("p[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line("return 0;");
}

void lower_shape_i(NodeLowering& L) {
  L.cold = true;
  const auto& op = static_cast<const tensor::Shape_i&>(*L.node.op());
  CodeWriter& w = L.body;
  w.line(L.alloc(0));
  w.line("*(int64_t*)o0->data = x0->shape[" + str(op.i()) + "];");
  w.line("return 0;");
}

// ---- MakeVector --------------------------------------------------------------------

void lower_make_vector(NodeLowering& L) {
  L.cold = true;
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  const std::string ot = c_type(od);
  const int n = L.nin();
  w.line("o0->shape[0] = " + str(n) + ";");
  w.line(L.alloc(0));
  if (n > 0) w.line(ot + "* p = (" + ot + "*)o0->data;");
  for (int i = 0; i < n; ++i) {
    const DType id = L.in(i).dtype();
    const std::string v = "*(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data";
    std::string conv;
    if (id == od)
      conv = v;
    else if (int_like(id))
      conv = from_int64(od, "(int64_t)" + v);
    else
      conv = from_double(od, "(double)" + v);
    w.line("p[" + str(i) + "] = " + conv + ";");
  }
  w.line("return 0;");
}

// ---- SpecifyShape ------------------------------------------------------------------

void lower_specify_shape(NodeLowering& L) {
  L.cold = true;
  const auto& op = static_cast<const tensor::SpecifyShape&>(*L.node.op());
  CodeWriter& w = L.body;
  int k = 1;
  for (std::size_t d = 0; d < op.spec().size(); ++d) {
    const std::int64_t s = op.spec()[d];
    const std::string ds = str(static_cast<std::int64_t>(d));
    if (s >= 0) {
      w.line("if (x0->shape[" + ds + "] != " + str(s) + ") " +
             L.fail_int(kErrShape, "dimension " + ds + " of the input has size ", "x0->shape[" + ds + "]",
                        ", expected " + str(s)));
    } else if (s == tensor::SpecifyShape::kSymbolic) {
      const std::string e = read_elem(L, k++, "int64_t");
      w.line("if (x0->shape[" + ds + "] != " + e + ") " +
             L.fail_int(kErrShape, "dimension " + ds + " of the input does not have the specified size ", e));
    }
  }
  emit_identity_view(L, 0, 0);
  w.line("return 0;");
}

// ---- Reshape -----------------------------------------------------------------------

void lower_reshape(NodeLowering& L) {
  L.cold = true;  // a view, or the host's copy_strided
  const auto& op = static_cast<const tensor::Reshape&>(L.op);
  CodeWriter& w = L.body;
  const int nd = op.ndim();
  const std::string nds = str(nd);
  const std::string t = L.in_ctype(0);
  w.line("if (x1->shape[0] != " + nds + ") " +
         L.fail_int(kErrValue, "the shape argument has ", "x1->shape[0]", " entries, expected " + nds));
  const std::string isz = str(static_cast<std::int64_t>(dtype_size(L.in(0).dtype())));
  w.line("int64_t shp[" + str(std::max(nd, 1)) + "];");
  w.line("for (int64_t i = 0; i < " + nds + "; ++i) shp[i] = " + read_elem(L, 1, "int64_t", "i") + ";");
  // The rule perform runs too (shape_rules.h): checked products, one -1.
  w.line("const int64_t size = theano_size(x0);");
  w.line("int64_t bad = 0;");
  w.line("const int rule = theano_reshape_rule(size, shp, " + nds + ", " + isz + ", shp, &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "cannot reshape the input into the requested shape: ", "bad"));
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = shp[" + str(d) + "];");
  // A view when the strides allow one (numpy's rule), else a C-contiguous copy.
  // (reshape_view.h, compiled into the host: ctx->kernels->nocopy_reshape.)
  // Empty arrays are views too (C-contiguous strides), as in NDArray::reshaped.
  w.open("if (size == 0 || ctx->kernels->nocopy_reshape(x0->ndim, x0->shape, x0->strides, " + nds +
         ", shp, o0->strides, " + isz + "))");
  if (nd > 0) {
    w.open("if (size == 0)");
    w.line("int64_t e = " + isz + ";");
    for (int d = nd - 1; d >= 0; --d) {
      w.line("o0->strides[" + str(d) + "] = e;");
      if (d > 0) w.line("e *= shp[" + str(d) + "];");
    }
    w.close();
  }
  w.line("o0->data = x0->data;");
  w.line("o0->owner = x0->owner;");
  w.line("return 0;");
  w.close();
  w.line(L.alloc(0));
  // The destination seen with x's shape: C-contiguous strides.
  const int ind = L.in(0).ndim();
  w.line("int64_t ds[" + str(std::max(ind, 1)) + "];");
  w.line("int64_t expect = " + isz + ";");
  for (int d = ind - 1; d >= 0; --d) {
    w.line("ds[" + str(d) + "] = expect;");
    if (d > 0) w.line("expect *= x0->shape[" + str(d) + "];");
  }
  emit_strided_copy(L, ind, "o0->data", "ds", "x0->data", "x0->strides", "x0->shape");
  w.line("return 0;");
}

// ---- Alloc -------------------------------------------------------------------------

void lower_alloc(NodeLowering& L) {
  L.cold = true;  // the host's copy_strided (or a GPU copy kernel) broadcasts the value
  emit_alloc_target(L);
  emit_strided_copy(L, L.nin() - 1, "o0->data", "o0->strides", "x0->data", "vs", "shp");
  L.body.line("return 0;");
}

// ---- ARange ------------------------------------------------------------------------

/// ARange's element i (an int64 C expression) of dtype `od`, as perform
/// computes it: from start a0 and step s0 (int64_t when both are integers,
/// else double); for a float dtype from the first two values `first` and
/// `second` (of the output's C type): first + i * (second - first), each step
/// rounded separately (no multiply-add contraction, as perform).
std::string arange_element(DType od, bool int_path, const std::string& i) {
  const std::string ot = c_type(od);
  if (int_path) return from_int64(od, "a0 + " + i + " * s0");
  if (!is_float(od))
    return "(" + i + " == 0 ? " + from_double(od, "a0") + " : " + from_double(od, "theano_arange_real(a0, s0, " + i + ")") +
           ")";
  return "(" + i + " == 0 ? first : " + i + " == 1 ? second : (" + ot + ")(first + theano_arange_step_" + ot + "(" +
         i + ", (" + ot + ")(second - first))))";
}

/// Support code of arange_element, (key, code): the helpers that keep its
/// products and sums separately rounded, for the host and for CUDA units.
std::vector<std::pair<std::string, std::string>> arange_support(DType od) {
  const std::string ot = c_type(od);
  std::vector<std::pair<std::string, std::string>> s;
  if (is_float(od))
    s.emplace_back("arange step " + ot, "static inline " + ot + " theano_arange_step_" + ot + "(int64_t i, " + ot +
                                            " delta) { return (" + ot + ")i * delta; }\n");
  else
    s.emplace_back("arange real", "static inline double theano_arange_real(double a0, double s0, int64_t i) {\n"
                                  "  const double step = (double)i * s0;\n  return a0 + step;\n}\n");
  return s;
}

}  // namespace

void emit_arange(NodeLowering& L) {
  CodeWriter& w = L.body;
  const DType od = L.out(0).dtype();
  const std::string ot = c_type(od);
  const bool int_start = int_like(L.in(0).dtype()), int_stop = int_like(L.in(1).dtype()),
             int_step = int_like(L.in(2).dtype());
  // The length rule perform runs too (shape_rules.h).
  w.line("int64_t n = 0;");
  if (int_start && int_stop && int_step)
    w.line("const int rule = theano_arange_length_int(" + read_elem(L, 0, "int64_t") + ", " +
           read_elem(L, 1, "int64_t") + ", " + read_elem(L, 2, "int64_t") + ", &n);");
  else
    w.line("const int rule = theano_arange_length_real(" + read_elem(L, 0, "double") + ", " +
           read_elem(L, 1, "double") + ", " + read_elem(L, 2, "double") + ", &n);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "", "0"));
  w.line("o0->shape[0] = n;");
  w.line(L.alloc(0));
  const std::string t = int_start && int_step ? "int64_t" : "double";
  w.line("const " + t + " a0 = " + read_elem(L, 0, t) + ", s0 = " + read_elem(L, 2, t) + ";");
  w.line("(void)a0; (void)s0;");
  if (!(int_start && int_step) && is_float(od)) {
    w.line("const " + ot + " first = " + from_double(od, "a0") + ", second = " + from_double(od, "a0 + s0") + ";");
    w.line("(void)first; (void)second;");
  }
}

std::string arange_code(NodeLowering& L, const std::string& i,
                        std::vector<std::pair<std::string, std::string>>* support) {
  const DType od = L.out(0).dtype();
  const bool int_path = int_like(L.in(0).dtype()) && int_like(L.in(2).dtype());
  *support = int_path ? std::vector<std::pair<std::string, std::string>>{} : arange_support(od);
  return arange_element(od, int_path, i);
}

void emit_eye(NodeLowering& L) {
  CodeWriter& w = L.body;
  w.line("const int64_t n = " + read_elem(L, 0, "int64_t") + ", m = " + read_elem(L, 1, "int64_t") +
         ", k = " + read_elem(L, 2, "int64_t") + ";");
  w.line("if (n < 0) " + L.fail_int(kErrValue, "negative dimensions are not allowed (n=", "n", ")"));
  w.line("if (m < 0) " + L.fail_int(kErrValue, "negative dimensions are not allowed (m=", "m", ")"));
  w.line("o0->shape[0] = n;");
  w.line("o0->shape[1] = m;");
  w.line(L.alloc(0));
  // Only the rows whose diagonal element lies in [0, m): the rule perform
  // runs too (shape_rules.h).
  w.line("int64_t lo = 0, hi = 0;");
  w.line("theano_eye_rows(n, m, k, &lo, &hi);");
}

namespace {

void lower_arange(NodeLowering& L) {
  CodeWriter& w = L.body;
  const std::string ot = c_type(L.out(0).dtype());
  emit_arange(L);
  std::vector<std::pair<std::string, std::string>> support;
  const std::string element = arange_code(L, "i", &support);
  for (const auto& [key, code] : support) L.need(key, code);
  w.line(ot + "* __restrict p = (" + ot + "*)o0->data;");
  w.line("for (int64_t i = 0; i < n; ++i) p[i] = " + element + ";");
  w.line("return 0;");
}

// ---- Eye ---------------------------------------------------------------------------

void lower_eye(NodeLowering& L) {
  CodeWriter& w = L.body;
  const std::string ot = c_type(L.out(0).dtype());
  emit_eye(L);
  w.line(ot + "* __restrict p = (" + ot + "*)o0->data;");
  w.line("const int64_t total = n * m;");
  w.line("for (int64_t i = 0; i < total; ++i) p[i] = (" + ot + ")0;");
  w.line("for (int64_t i = lo; i < hi; ++i) p[i * m + i + k] = (" + ot + ")1;");
  w.line("return 0;");
}

// ---- Assert, ZeroGrad / DisconnectedGrad -------------------------------------------

void lower_assert(NodeLowering& L) {
  L.cold = true;
  const auto& op = static_cast<const tensor::Assert&>(*L.node.op());
  CodeWriter& w = L.body;
  const int nconds = op.nconditions(L.node);
  const std::vector<std::string> p = tensor::assert_message_pieces(op.msg(), op.nvalues());
  std::vector<std::string> v;  // the reported values, widened to int64
  for (int i = 1 + nconds; i < L.nin(); ++i)
    v.push_back("*(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data");
  const std::string fail = v.empty()       ? L.fail(kErrAssert, p[0])
                           : v.size() == 1 ? L.fail_int(kErrAssert, p[0], v[0], p[1])
                           : v.size() == 2 ? L.fail_int2(kErrAssert, p[0], v[0], p[1], v[1], p[2])
                                           : L.fail_int3(kErrAssert, p[0], v[0], p[1], v[1], p[2], v[2], p[3]);
  for (int i = 1; i <= nconds; ++i)
    w.line("if (!(*(const " + L.in_ctype(i) + "*)" + L.x(i) + "->data != 0)) " + fail);
  emit_identity_view(L, 0, 0);
  w.line("return 0;");
}

void lower_identity(NodeLowering& L) {
  L.cold = true;
  emit_identity_view(L, 0, 0);
  L.body.line("return 0;");
}

/// The op type behind `make(x)` (the gradient stoppers are private classes of
/// gradient/grad_ops.cpp, reachable only through an instance).
std::type_index op_type_of(Var (*make)(const Var&)) {
  Var x = tensor::TensorType::make(DType::Float64, {})->make_variable();
  Var y = make(x);
  THEANO_INTERNAL_CHECK(y.owner() != nullptr) << "expected an Apply node";
  return std::type_index(typeid(*y.owner()->op()));
}

}  // namespace

void add_shape_lowerings(LoweringTable& t) {
  t.add<tensor::Shape>(Target::Cpu, &lower_shape);
  t.add<tensor::Shape_i>(Target::Cpu, &lower_shape_i);
  t.add<tensor::MakeVector>(Target::Cpu, &lower_make_vector);
  t.add<tensor::SpecifyShape>(Target::Cpu, &lower_specify_shape);
  t.add<tensor::Reshape>(Target::Cpu, &lower_reshape);
  t.add<tensor::Reshape>(Target::Cuda, &lower_reshape);  // its GPU form: this code, a copy kernel for a GPU output
  t.add<tensor::Alloc>(Target::Cpu, &lower_alloc);
  t.add<tensor::Alloc>(Target::Cuda, &lower_alloc);  // its GPU form: this code, a copy kernel for a GPU output
  t.add<tensor::ARange>(Target::Cpu, &lower_arange);
  t.add<tensor::Eye>(Target::Cpu, &lower_eye);
  t.add<tensor::Assert>(Target::Cpu, &lower_assert);
  t.add(op_type_of(&zero_grad), Target::Cpu, &lower_identity);
  t.add<tensor::IndexExpression>(Target::Cpu, &lower_identity);  // unoptimized modes: canonicalize removes it
  t.add(op_type_of(&disconnected_grad), Target::Cpu, &lower_identity);
}

}  // namespace theano::codegen::lower
