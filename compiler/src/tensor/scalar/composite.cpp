// Composite: a scalar graph evaluated as one ScalarOp (what elemwise fusion
// produces). Its props are the canonical text of the inner graph, so two
// Composites over the same computation are equal. Each inner node computes
// as its op would as an Elemwise of its own (computes_in_int64, then the
// conversion to the node's dtype), in `evaluate` and in the C code alike, so
// fusing a graph does not change its values. Its C code (c_program) is
// one local per inner node, linear in the inner graph: pasting the inner
// expressions into each other (c_exprs) nests a chain of n ops n brackets deep
// and writes a value used twice twice (2^30 copies for 30 levels of
// y = sin(y) * cos(y)).
#include <complex>
#include <functional>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>
#include <unordered_map>

#include "theano/graph/as_string.h"
#include "theano/graph/op_registry.h"
#include "theano/graph/toposort.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/c_template.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"

namespace theano::tensor {
namespace {

const ScalarOp& scalar_of(const Apply* node) {
  const auto* s = dynamic_cast<const ScalarOp*>(node->op().get());
  THEANO_INTERNAL_CHECK(s) << "Composite inner node " << *node << " is not a scalar op";
  return *s;
}

double constant_value(const Var& v) { return v.as_constant()->data().item<double>(); }

DType dtype_of(const Var& v) { return static_cast<const ScalarType&>(*v.type()).dtype(); }
bool int_like(DType d) { return is_integer(d) || is_bool(d); }

/// `v` (an int64 or a double) converted to integer or bool dtype `d` by
/// scalar_cast (integers wrap, a bool is "!= 0", a float converts as numpy
/// does), as an int64.
template <class V>
std::int64_t to_int_dtype(DType d, V v) {
  return visit_dtype(d, [&](auto tag) -> std::int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>)
      return static_cast<std::int64_t>(scalar_cast<T>(v));
    else
      THEANO_INTERNAL_CHECK(false) << "not an integer dtype";
    return 0;
  });
}
/// `v` rounded to float dtype `d` (float16, float32: the value its array would
/// hold), as a double.
double to_float_dtype(DType d, double v) {
  if (d == DType::Float64) return v;
  return visit_dtype(d, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half>)
      return static_cast<double>(scalar_cast<T>(v));
    else
      return v;  // complex: not a scalar dtype of a Composite
  });
}
/// An integer-dtype value (int64 storage) as a double: uint64 is unsigned.
double int_value_as_double(DType d, std::int64_t v) {
  return d == DType::UInt64 ? static_cast<double>(static_cast<std::uint64_t>(v)) : static_cast<double>(v);
}

/// A C literal for an int64.
std::string c_int_literal(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807L - 1)";
  return "(" + std::to_string(v) + "L)";
}

// A C literal that reads back to exactly `d`.
std::string c_literal(double d) {
  if (std::isnan(d)) return "THEANO_NAN";  // prelude macros: host builtins or CUDA intrinsics
  if (std::isinf(d)) return d > 0 ? "THEANO_INF" : "(-THEANO_INF)";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

// Why a scalar op has none of the tensor op's parts (registered below).
constexpr std::string_view kScalarOp =
    "a scalar op: it runs inside an Elemwise, whose perform, infer_shape, grad and lowerings use its eval, "
    "tensor_grad and C expression";
THEANO_REGISTER_OP(Composite, .kinds = {"Composite"}, .no_perform = kScalarOp, .no_infer_shape = kScalarOp,
                   .no_grad = kScalarOp, .no_cpp = kScalarOp, .no_cuda = kScalarOp);

Composite::Composite(std::vector<Var> inputs, Var output)
    : Composite(std::move(inputs), std::vector<Var>{std::move(output)}) {}

Composite::Composite(std::vector<Var> inputs, std::vector<Var> outputs)
    : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
  for (const Var& in : inputs_)
    THEANO_USER_CHECK(in && dynamic_cast<const ScalarType*>(in.type().get()) && !in.owner(), TypeError)
        << "Composite inputs must be owner-less ScalarType variables, got " << in.str();
  THEANO_USER_CHECK(!outputs_.empty(), TypeError) << "Composite needs at least one output";
  for (const Var& out : outputs_)
    THEANO_USER_CHECK(out && dynamic_cast<const ScalarType*>(out.type().get()), TypeError)
        << "Composite outputs must be ScalarType variables";
  order_ = io_toposort(inputs_, outputs_);
  for (const Var& leaf : orphans(inputs_, outputs_))
    THEANO_USER_CHECK(leaf.is_constant(), MissingInputError)
        << "Composite: the inner graph uses " << leaf.str() << ", which is neither an input nor a constant";
  // Canonical text: inputs renamed i0, i1, ... so equal graphs print equally.
  std::unordered_map<Var, int> pos;
  for (std::size_t i = 0; i < inputs_.size(); ++i) pos.emplace(inputs_[i], static_cast<int>(i));
  auto leaf = [&](const Var& v) {
    if (auto it = pos.find(v); it != pos.end()) return "i" + std::to_string(it->second);
    return v.str();
  };
  const std::vector<std::string> texts = as_string(inputs_, outputs_, leaf);
  for (std::size_t k = 0; k < texts.size(); ++k) text_ += (k ? ", " : "") + texts[k];

  // Slots: inputs, constants (with their values), node results.
  std::unordered_map<const Variable*, int> slot;
  auto add_slot = [&](const Var& v) {
    slot.emplace(v.get(), static_cast<int>(slot_dtype_.size()));
    slot_dtype_.push_back(dtype_of(v));
    slot_init_.emplace_back();
    return static_cast<int>(slot_dtype_.size()) - 1;
  };
  auto slot_of = [&](const Var& v) {
    if (auto it = slot.find(v.get()); it != slot.end()) return it->second;
    THEANO_INTERNAL_CHECK(v.is_constant()) << "Composite: " << v.str() << " has no value";
    const int k = add_slot(v);
    const NDArray& c = v.as_constant()->data();
    if (int_like(slot_dtype_[static_cast<std::size_t>(k)]))
      slot_init_[static_cast<std::size_t>(k)].i = c.item<std::int64_t>();
    else
      slot_init_[static_cast<std::size_t>(k)].d = c.item<double>();
    return k;
  };
  for (const Var& in : inputs_) add_slot(in);
  for (const Apply* node : order_) {
    Step step{&scalar_of(node), {}, 0, false};
    std::vector<DType> in_dts;
    for (const Var& in : node->inputs()) {
      step.args.push_back(slot_of(in));
      in_dts.push_back(dtype_of(in));
    }
    step.int64 = computes_in_int64(*step.op, in_dts, dtype_of(node->output(0)));
    step.out = add_slot(node->output(0));
    steps_.push_back(std::move(step));
  }
  for (const Var& out : outputs_) out_slot_.push_back(slot_of(out));
}

Props Composite::props() const { return {{"graph", text_}}; }
std::string Composite::name() const { return "Composite{" + text_ + "}"; }
bool Composite::equals(const Op& other) const {
  const auto* o = dynamic_cast<const Composite*>(&other);
  if (!o || o->text_ != text_ || o->nin() != nin() || o->nout() != nout()) return false;
  for (std::size_t k = 0; k < outputs_.size(); ++k)
    if (!(*o->outputs_[k].type() == *outputs_[k].type())) return false;
  return true;
}
std::size_t Composite::hash() const { return std::hash<std::string>()(text_); }

DType Composite::out_dtype(std::span<const DType> inputs) const {
  THEANO_USER_CHECK(static_cast<int>(inputs.size()) == nin(), TypeError)
      << name() << " takes " << nin() << " inputs, got " << inputs.size();
  return out_dtypes().front();
}

std::vector<DType> Composite::out_dtypes() const {
  std::vector<DType> r;
  for (const Var& out : outputs_) r.push_back(dynamic_cast<const ScalarType*>(out.type().get())->dtype());
  return r;
}

void Composite::evaluate(const ScalarValue* in, ScalarValue* out) const {
  std::vector<ScalarValue> v = slot_init_;
  for (std::size_t i = 0; i < inputs_.size(); ++i) v[i] = in[i];
  std::vector<std::int64_t> ibuf;
  std::vector<double> dbuf;
  for (const Step& step : steps_) {
    const DType dt = slot_dtype_[static_cast<std::size_t>(step.out)];
    ScalarValue& r = v[static_cast<std::size_t>(step.out)];
    if (step.int64) {
      ibuf.clear();
      for (int a : step.args) ibuf.push_back(v[static_cast<std::size_t>(a)].i);
      r.i = to_int_dtype(dt, apply_int64(*step.op, ibuf, dt));
      continue;
    }
    dbuf.clear();
    for (int a : step.args) {
      const DType at = slot_dtype_[static_cast<std::size_t>(a)];
      const ScalarValue& x = v[static_cast<std::size_t>(a)];
      dbuf.push_back(int_like(at) ? int_value_as_double(at, x.i) : x.d);
    }
    const double d = apply_double(*step.op, dbuf);
    if (int_like(dt))
      r.i = to_int_dtype(dt, d);
    else
      r.d = to_float_dtype(dt, d);  // a float32 value is a float32, as in the unfused graph
  }
  for (std::size_t k = 0; k < out_slot_.size(); ++k) out[k] = v[static_cast<std::size_t>(out_slot_[k])];
}

double Composite::eval(const double* dargs) const {
  std::vector<ScalarValue> in(inputs_.size()), out(outputs_.size());
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const DType d = slot_dtype_[i];
    if (int_like(d))
      in[i].i = to_int_dtype(d, dargs[i]);
    else
      in[i].d = dargs[i];
  }
  evaluate(in.data(), out.data());
  const DType d = dtype_of(outputs_.front());
  return int_like(d) ? int_value_as_double(d, out.front().i) : out.front().d;
}

std::optional<std::int64_t> Composite::eval_int(const std::int64_t* iargs) const {
  const DType d = dtype_of(outputs_.front());
  if (!int_like(d)) return std::nullopt;
  std::vector<ScalarValue> in(inputs_.size()), out(outputs_.size());
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const DType di = slot_dtype_[i];
    if (int_like(di))
      in[i].i = to_int_dtype(di, iargs[i]);
    else
      in[i].d = static_cast<double>(iargs[i]);
  }
  evaluate(in.data(), out.data());
  return out.front().i;
}

std::vector<std::string> Composite::c_exprs() const {
  std::unordered_map<const Variable*, std::string> expr;
  for (std::size_t i = 0; i < inputs_.size(); ++i) expr[inputs_[i].get()] = "{" + std::to_string(i) + "}";
  auto text_of = [&](const Var& v) {
    auto it = expr.find(v.get());
    return it != expr.end() ? it->second : "(" + c_literal(constant_value(v)) + ")";
  };
  for (const Apply* node : order_) {
    std::vector<std::string> args;
    for (const Var& in : node->inputs()) args.push_back(text_of(in));
    expr[node->output(0).get()] = apply_c_expr(scalar_of(node), args, dtype_of(node->output(0)), false);
  }
  std::vector<std::string> r;
  for (const Var& out : outputs_) r.push_back(text_of(out));
  return r;
}

std::optional<Composite::CProgram> Composite::c_program() const {
  // Each inner value is named once: {i} for input i, {nin + j} for local j;
  // constants are literals of the type they are read as.
  std::vector<std::string> name(slot_dtype_.size());
  for (std::size_t i = 0; i < inputs_.size(); ++i) name[i] = "{" + std::to_string(i) + "}";
  std::vector<bool> computed(slot_dtype_.size(), false);
  for (std::size_t i = 0; i < inputs_.size(); ++i) computed[i] = true;
  for (const Step& step : steps_) computed[static_cast<std::size_t>(step.out)] = true;
  auto is_constant = [&](int a) { return !computed[static_cast<std::size_t>(a)]; };
  // Slot `a` read as int64_t or double (or float, for a float32 step).
  auto read = [&](int a, bool as_int64, bool as_float) -> std::string {
    const auto ua = static_cast<std::size_t>(a);
    const DType d = slot_dtype_[ua];
    if (is_constant(a)) {
      if (as_float) return "((float)" + c_literal(slot_init_[ua].d) + ")";  // a float32 constant: exact
      if (!int_like(d)) return "(" + c_literal(slot_init_[ua].d) + ")";
      return as_int64 ? c_int_literal(slot_init_[ua].i)
                      : "(" + c_literal(int_value_as_double(d, slot_init_[ua].i)) + ")";
    }
    if (!int_like(d)) return name[ua];  // a double (an int64 node reads no floats)
    return std::string(as_int64 ? "((int64_t)" : "((double)") + name[ua] + ")";
  };
  CProgram p;
  for (const Step& step : steps_) {
    if (step.op->c_expr().empty()) return std::nullopt;
    std::vector<DType> arg_dts;
    for (int a : step.args) arg_dts.push_back(slot_dtype_[static_cast<std::size_t>(a)]);
    const DType dt = slot_dtype_[static_cast<std::size_t>(step.out)];
    const bool f32 = !step.int64 && computes_in_float32(*step.op, arg_dts, dt);
    std::vector<std::string> args;
    for (int a : step.args) args.push_back(read(a, step.int64, f32));
    p.locals.push_back(CLocal{apply_c_expr(*step.op, args, dt, step.int64), step.int64, dt, f32});
    name[static_cast<std::size_t>(step.out)] = "{" + std::to_string(inputs_.size() + p.locals.size() - 1) + "}";
  }
  for (int o : out_slot_) {
    const auto uo = static_cast<std::size_t>(o);
    if (!is_constant(o))
      p.outputs.push_back(name[uo]);
    else
      p.outputs.push_back(int_like(slot_dtype_[uo]) ? c_int_literal(slot_init_[uo].i)
                                                    : "(" + c_literal(slot_init_[uo].d) + ")");
  }
  return p;
}

std::string Composite::c_expr() const { return c_exprs().front(); }

std::vector<Var> Composite::tensor_grad(const std::vector<Var>& inputs, const Var&, const Var& gz) const {
  std::vector<Var> gzs(outputs_.size());
  gzs.front() = gz;
  return tensor_grad_all(inputs, gzs);
}

std::vector<Var> Composite::tensor_grad_all(const std::vector<Var>& inputs, const std::vector<Var>& gzs) const {
  // Rebuild the inner graph with tensor ops, then run reverse mode over it with
  // each inner scalar op's tensor gradient.
  std::unordered_map<const Variable*, Var> t;
  for (std::size_t i = 0; i < inputs_.size(); ++i) t[inputs_[i].get()] = inputs[i];
  auto tensor_of = [&](const Var& v) {
    auto it = t.find(v.get());
    if (it != t.end()) return it->second;
    return t[v.get()] = constant(v.as_constant()->data());
  };
  for (const Apply* node : order_) {
    std::vector<Var> args;
    for (const Var& in : node->inputs()) args.push_back(tensor_of(in));
    t[node->output(0).get()] = elemwise(ScalarOpPtr(&scalar_of(node)), std::move(args));
  }
  std::unordered_map<const Variable*, Var> g;
  auto accumulate = [&](const Variable* v, const Var& term) {
    auto [slot, fresh] = g.try_emplace(v, term);
    if (!fresh) slot->second = slot->second + term;
  };
  for (std::size_t k = 0; k < outputs_.size() && k < gzs.size(); ++k)
    if (gzs[k]) accumulate(outputs_[k].get(), gzs[k]);
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Apply* node = *it;
    auto go = g.find(node->output(0).get());
    if (go == g.end()) continue;
    std::vector<Var> args;
    for (const Var& in : node->inputs()) args.push_back(tensor_of(in));
    const std::vector<Var> gi = scalar_of(node).tensor_grad(args, t[node->output(0).get()], go->second);
    for (int k = 0; k < node->nin(); ++k) {
      if (!gi[static_cast<std::size_t>(k)] || node->input(k).is_constant()) continue;
      accumulate(node->input(k).get(), gi[static_cast<std::size_t>(k)]);
    }
  }
  std::vector<Var> r;
  for (const Var& in : inputs_) {
    auto it = g.find(in.get());
    r.push_back(it != g.end() ? it->second : Var());
  }
  return r;
}

std::string expand_c_template(const std::string& t, const std::vector<std::string>& args) {
  std::string out;
  for (std::size_t p = 0; p < t.size(); ++p) {
    // A placeholder is `{` digits `}`; any other brace is text (code templates).
    std::size_t q = p + 1;
    while (t[p] == '{' && q < t.size() && t[q] >= '0' && t[q] <= '9') ++q;
    if (t[p] != '{' || q == p + 1 || q >= t.size() || t[q] != '}') {
      out += t[p];
      continue;
    }
    const auto idx = static_cast<std::size_t>(std::stoul(t.substr(p + 1, q - p - 1)));
    THEANO_INTERNAL_CHECK(idx < args.size()) << "C template '" << t << "' uses {" << idx << "}";
    out += args[idx];
    p = q;
  }
  return out;
}

}  // namespace theano::tensor
