// The C expressions of an Elemwise's scalar op (Composite included): the loop
// body's locals and stores, the helpers the body calls, the special-function
// kernel files it needs (lowering.h's ElemwiseExprs). Shared by the CPU loops
// (elemwise.cpp, elemwise_blocked.cpp) and the GPU lowering (gpu.cpp).
//
// A Composite's inner values are locals, one `<its dtype's C type> t<j>` per
// inner node (Composite::c_program), so the loop body is linear in the inner
// graph: a chain of 10^4 ops nests no brackets, a value used twice is computed
// once. (Not `const`: clang tries to constant-evaluate a const local's
// initializer, recursing through every local it reads, which overflows its
// stack on long chains.)
//
// Every op, alone or inside a Composite, computes as perform does: in int64
// when its inputs and output are integers or bools (and it has an integer
// form), else in double (tensor::computes_in_int64); the value is converted to
// its dtype by the numpy conversions (from_int64 / from_double), so fused and
// unfused graphs agree and results match perform within floating-point
// tolerance (bit for bit for integers). A float32 inner value is rounded to
// float32 (held in a double when the body computes in double), as its array
// would hold it unfused. An op whose values are all float32 and which has a
// float form computes in float (tensor::computes_in_float32, namespace
// theano_s of the prelude: the whole loop body when every op does, else a
// helper), twice the SIMD lanes of double, within float32 rounding of perform,
// and bit for bit as the unfused node's code.
#include <theano/tensor/elemwise.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <algorithm>

#include "lowering.h"

namespace theano::codegen::lower {
namespace {

/// The C type a value of dtype `d` has in the loop body: its own for integers
/// and bools, double for floats (Composite's ScalarValue).
std::string value_type(DType d) { return int_like(d) ? c_type(d) : "double"; }

/// A value of dtype `d` held in its value_type, converted to dtype `out`.
std::string store_value(DType d, DType out, const std::string& v) {
  if (!int_like(d)) return from_double(out, v);
  return int_like(out) ? from_int64(out, "(int64_t)" + v) : from_double(out, "(double)" + v);
}

/// `expr` (a template over {k}) computed by a helper function in namespace
/// `ns` with parameters of type `param_t`: the call (in another namespace)
/// and the helper's (key, code). Needed where a Composite's inner node
/// computes in the other domain than the function around it: each domain's
/// scalar helpers (theano_floor_div, pow, ...) are found by name in its
/// namespace.
std::string call_in_namespace(const std::string& ns, const std::string& param_t, const std::string& ret_t,
                              const std::string& expr, const std::vector<std::string>& names,
                              std::vector<std::pair<std::string, std::string>>& support) {
  std::vector<int> used;  // the {k} that expr reads, in order of first use
  std::vector<std::string> params(names.size());
  for (std::size_t p = expr.find('{'); p != std::string::npos; p = expr.find('{', p + 1)) {
    const int k = std::stoi(expr.substr(p + 1));
    if (params[static_cast<std::size_t>(k)].empty()) {
      params[static_cast<std::size_t>(k)] = "p" + str(static_cast<std::int64_t>(used.size()));
      used.push_back(k);
    }
  }
  const std::string body = expand(expr, params);
  const std::string name = helper_name(ns + " " + body);
  std::string decl = "namespace " + ns + " { static inline " + ret_t + " " + name + "(";
  std::string call = ns + "::" + name + "(";
  for (std::size_t u = 0; u < used.size(); ++u) {
    decl += (u ? ", " : "") + param_t + " p" + str(static_cast<std::int64_t>(u));
    call += (u ? ", " : "") + names[static_cast<std::size_t>(used[u])];
  }
  decl += ") { return " + body + "; } }";
  support.emplace_back(decl, decl);
  return call + ")";
}

/// The kernel files of the special functions' rows: runtime/include/theano/runtime/kernels/
/// special_math.h (erfinv, gamma, polygamma, ndtr, ...) and special_math2.h (incomplete gamma and
/// beta, Bessel functions). Neither is in the prelude.
constexpr const char* kSpecialMathFiles[] = {"special_math.h", "special_math2.h"};

/// The functions kernel file `file` defines (theano_erfinv, theano_gammainc, ...), read from its text.
std::vector<std::string> defined_functions(std::string_view file) {
  std::vector<std::string> r;
  const std::string_view text = kernel_text(file);
  for (const std::string_view def : {"inline T theano_", "inline double theano_"})
    for (std::size_t p = text.find(def); p != std::string_view::npos; p = text.find(def, p + 1)) {
      const std::size_t b = p + def.size() - 7, e = text.find('(', b);
      r.emplace_back(text.substr(b, e - b));
    }
  return r;
}

/// A special-function kernel file is embedded only in the units whose code calls one of its
/// functions, ahead of the node's other support: the prelude, compiled in every unit, stays small
/// (special_math.h's text alone costs about 7 ms of Clang time;
/// runtime/include/theano/runtime/kernels/README.md).
void need_special_math(ElemwiseExprs& r) {
  static const std::vector<std::vector<std::string>> names = [] {
    std::vector<std::vector<std::string>> v;
    for (const char* file : kSpecialMathFiles) v.push_back(defined_functions(file));
    return v;
  }();
  std::size_t at = 0;
  for (std::size_t f = 0; f < names.size(); ++f) {
    auto calls = [&](const std::string& code) {
      for (const std::string& name : names[f])
        if (code.find(name + "(") != std::string::npos) return true;
      return false;
    };
    bool any = std::any_of(r.stores.begin(), r.stores.end(), calls) || std::any_of(r.locals.begin(), r.locals.end(), calls);
    for (const auto& s : r.support) any = any || calls(s.second);
    if (any) {
      r.support.insert(r.support.begin() + static_cast<std::ptrdiff_t>(at),
                       {kSpecialMathFiles[f], std::string(kernel_text(kSpecialMathFiles[f]))});
      ++at;
    }
  }
}

}  // namespace

std::string helper_name(const std::string& expr) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : expr) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  for (int k = 15; k >= 0; --k, h >>= 4) buf[k] = "0123456789abcdef"[h & 15];
  buf[16] = 0;
  return std::string("theano_node_") + buf;
}

ElemwiseExprs elemwise_exprs(const Apply& node) {
  const auto& op = static_cast<const tensor::Elemwise&>(*node.op());
  const tensor::ScalarOp& sop = *op.scalar_op();
  const int nin = node.nin();
  ElemwiseExprs r;
  std::vector<std::string> args;
  for (int i = 0; i < nin; ++i) args.push_back("a" + str(i));
  const auto* comp = dynamic_cast<const tensor::Composite*>(&sop);
  if (!comp) {
    // One op: computed in int64 or double (computes_in_int64), then
    // converted to the output dtype, as Elemwise::perform does.
    if (sop.c_expr().empty()) refuse(node, LoweringReason::NoCExpression, " (its scalar op has no C expression)");
    std::vector<DType> in_dts;
    for (const Var& in : node.inputs()) in_dts.push_back(ttype(in).dtype());
    const DType out_dt = ttype(node.output(0)).dtype();
    const bool int64 = tensor::computes_in_int64(sop, in_dts, out_dt);
    const bool f32 = !int64 && tensor::computes_in_float32(sop, in_dts, out_dt);
    r.ns = int64 ? "theano_i" : f32 ? "theano_s" : "theano_f";
    r.arg_types.assign(static_cast<std::size_t>(nin), int64 ? "int64_t" : f32 ? "float" : "double");
    const std::string v = tensor::apply_c_expr(sop, args, out_dt, int64);
    r.stores.push_back(int64 ? from_int64(out_dt, v) : from_double(out_dt, v));
    need_special_math(r);
    return r;
  }
  // A Composite: each inner node computes in its own domain and is converted
  // to its dtype (Composite::c_program), as Composite::evaluate does. The
  // function's namespace is theano_f when some node computes in double; a
  // node of the other domain is a helper in its own namespace.
  const std::optional<tensor::Composite::CProgram> prog = comp->c_program();
  if (!prog) refuse(node, LoweringReason::NoCExpression, " (an op inside its Composite has no C expression)");
  bool any_double = false, all_f32 = true;
  for (const auto& local : prog->locals) {
    any_double = any_double || !local.int64;
    all_f32 = all_f32 && local.float32;
  }
  for (const Var& in : node.inputs()) all_f32 = all_f32 && ttype(in).dtype() == DType::Float32;
  for (const Var& out : node.outputs()) all_f32 = all_f32 && ttype(out).dtype() == DType::Float32;
  // Every value float32 and every op with a float form: the whole loop body computes in float.
  r.ns = all_f32 ? "theano_s" : any_double ? "theano_f" : "theano_i";
  std::vector<DType> dts;  // the dtype of every value: inputs, then locals
  for (const Var& in : node.inputs()) {
    dts.push_back(ttype(in).dtype());
    r.arg_types.push_back(all_f32 ? "float" : value_type(dts.back()));
  }
  for (const auto& local : prog->locals) {
    const std::string name = "t" + str(static_cast<std::int64_t>(r.locals.size()));
    std::string v;
    if (local.int64 && any_double)
      v = call_in_namespace("theano_i", "int64_t", "int64_t", local.expr, args, r.support);
    else if (local.float32 && !all_f32)
      // In float, as the node alone computes (its float32 arguments are exact as doubles).
      v = call_in_namespace("theano_s", "float", "float", local.expr, args, r.support);
    else
      v = expand(local.expr, args);
    if (all_f32) {
      r.local_types.push_back("float");
      r.local_values.push_back(from_double(DType::Float32, v));
      r.locals.push_back("float " + name + " = " + r.local_values.back() + ";");
      args.push_back(name);
      dts.push_back(local.dtype);
      continue;
    }
    // Converted to its dtype: a float32 value is rounded to float32 (held in a double).
    v = local.int64 ? from_int64(local.dtype, v) : from_double(local.dtype, v);
    r.local_types.push_back(value_type(local.dtype));
    r.local_values.push_back(v);
    r.locals.push_back(value_type(local.dtype) + " " + name + " = " + v + ";");
    args.push_back(name);
    dts.push_back(local.dtype);
  }
  for (std::size_t k = 0; k < prog->outputs.size(); ++k) {
    const std::string& t = prog->outputs[k];
    const DType out_dt = ttype(node.output(static_cast<int>(k))).dtype();
    // The value's own dtype: an input's or a local's ({k}), or a constant of the output's dtype.
    DType vd = out_dt;
    if (t.size() > 2 && t.front() == '{' && t.back() == '}') vd = dts[static_cast<std::size_t>(std::stoi(t.substr(1)))];
    r.stores.push_back(store_value(vd, out_dt, expand(t, args)));
  }
  need_special_math(r);
  return r;
}

int ElemwiseExprs::cost() const {
  std::vector<std::string> all = locals;
  all.insert(all.end(), stores.begin(), stores.end());
  return expr_cost(all);
}

}  // namespace theano::codegen::lower
