// Composite: a scalar graph evaluated as one ScalarOp (what elemwise fusion
// produces). Its props are the canonical text of the inner graph, so two
// Composites over the same computation are equal. Its C code (c_program) is
// one local per inner node, linear in the inner graph: pasting the inner
// expressions into each other (c_exprs) nests a chain of n ops n brackets deep
// and writes a value used twice twice (2^30 copies for 30 levels of
// y = sin(y) * cos(y)).
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "theano/graph/as_string.h"
#include "theano/graph/toposort.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"
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

// A C literal that reads back to exactly `d`.
std::string c_literal(double d) {
  if (std::isnan(d)) return "__builtin_nan(\"\")";
  if (std::isinf(d)) return d > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

Composite::Composite(std::vector<Var> inputs, Var output) : Composite(std::move(inputs), std::vector<Var>{std::move(output)}) {}

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

void Composite::eval_all(const double* dargs, double* outs) const {
  std::unordered_map<const Variable*, double> value;
  for (std::size_t i = 0; i < inputs_.size(); ++i) value[inputs_[i].get()] = dargs[i];
  std::vector<double> buf;
  for (const Apply* node : order_) {
    buf.clear();
    for (const Var& in : node->inputs()) {
      auto it = value.find(in.get());
      buf.push_back(it != value.end() ? it->second : constant_value(in));
    }
    const ScalarOp& op = scalar_of(node);
    double v = buf[0];
    if (op.nin() < 0 && buf.size() > 2) {
      for (std::size_t k = 1; k < buf.size(); ++k) {
        const double pair[2] = {v, buf[k]};
        v = op.eval(pair);
      }
    } else {
      v = op.eval(buf.data());
    }
    value[node->output(0).get()] = v;
  }
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    auto it = value.find(outputs_[k].get());
    outs[k] = it != value.end() ? it->second : constant_value(outputs_[k]);
  }
}

double Composite::eval(const double* dargs) const {
  if (outputs_.size() == 1) {
    double r;
    eval_all(dargs, &r);
    return r;
  }
  std::vector<double> r(outputs_.size());
  eval_all(dargs, r.data());
  return r.front();
}

bool Composite::eval_int_all(const std::int64_t* iargs, std::int64_t* outs) const {
  std::unordered_map<const Variable*, std::int64_t> value;
  for (std::size_t i = 0; i < inputs_.size(); ++i) value[inputs_[i].get()] = iargs[i];
  std::vector<std::int64_t> buf;
  auto int_constant = [](const Var& c, std::int64_t* v) {
    const NDArray& d = c.as_constant()->data();
    if (!is_integer(d.dtype()) && !is_bool(d.dtype())) return false;
    *v = d.item<std::int64_t>();
    return true;
  };
  for (const Apply* node : order_) {
    buf.clear();
    for (const Var& in : node->inputs()) {
      auto it = value.find(in.get());
      std::int64_t c = 0;
      if (it != value.end()) buf.push_back(it->second);
      else if (int_constant(in, &c)) buf.push_back(c);
      else return false;
    }
    const ScalarOp& op = scalar_of(node);
    std::optional<std::int64_t> v = buf[0];
    if (op.nin() < 0 && buf.size() > 2) {
      for (std::size_t k = 1; k < buf.size() && v; ++k) {
        const std::int64_t pair[2] = {*v, buf[k]};
        v = op.eval_int(pair);
      }
    } else {
      v = op.eval_int(buf.data());
    }
    if (!v) return false;
    value[node->output(0).get()] = *v;
  }
  for (std::size_t k = 0; k < outputs_.size(); ++k) {
    auto it = value.find(outputs_[k].get());
    if (it != value.end()) outs[k] = it->second;
    else if (!int_constant(outputs_[k], &outs[k])) return false;
  }
  return true;
}

std::optional<std::int64_t> Composite::eval_int(const std::int64_t* iargs) const {
  std::vector<std::int64_t> r(outputs_.size());
  if (!eval_int_all(iargs, r.data())) return std::nullopt;
  return r.front();
}

namespace {

// The C expression of one inner node over the texts of its inputs; n-ary ops
// fold pairwise through their binary template (as eval_all does).
std::string node_expr(const ScalarOp& op, const std::string& t, const std::vector<std::string>& args) {
  if (!(op.nin() < 0 && args.size() > 2)) return expand_c_template(t, args);
  std::string acc = args[0];
  for (std::size_t k = 1; k < args.size(); ++k) acc = expand_c_template(t, {acc, args[k]});
  return acc;
}

}  // namespace

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
    const ScalarOp& op = scalar_of(node);
    expr[node->output(0).get()] = node_expr(op, op.c_expr(), args);
  }
  std::vector<std::string> r;
  for (const Var& out : outputs_) r.push_back(text_of(out));
  return r;
}

std::optional<Composite::CProgram> Composite::c_program() const {
  // Each inner value is named once: {i} for input i, {nin + j} for local j.
  std::unordered_map<const Variable*, std::string> name;
  for (std::size_t i = 0; i < inputs_.size(); ++i) name[inputs_[i].get()] = "{" + std::to_string(i) + "}";
  auto text_of = [&](const Var& v) {
    auto it = name.find(v.get());
    return it != name.end() ? it->second : "(" + c_literal(constant_value(v)) + ")";
  };
  CProgram p;
  for (const Apply* node : order_) {
    const ScalarOp& op = scalar_of(node);
    const std::string t = op.c_expr();
    if (t.empty()) return std::nullopt;
    std::vector<std::string> args;
    for (const Var& in : node->inputs()) args.push_back(text_of(in));
    p.locals.push_back(node_expr(op, t, args));
    name[node->output(0).get()] = "{" + std::to_string(inputs_.size() + p.locals.size() - 1) + "}";
  }
  for (const Var& out : outputs_) p.outputs.push_back(text_of(out));
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
    if (t[p] != '{') {
      out += t[p];
      continue;
    }
    const std::size_t close = t.find('}', p);
    THEANO_INTERNAL_CHECK(close != std::string::npos) << "bad C expression template '" << t << "'";
    const auto idx = static_cast<std::size_t>(std::stoi(t.substr(p + 1, close - p - 1)));
    THEANO_INTERNAL_CHECK(idx < args.size()) << "C expression '" << t << "' uses {" << idx << "}";
    out += args[idx];
    p = close;
  }
  return out;
}

}  // namespace theano::tensor
