// Variable, Constant, Apply and Var: construction, adoption of outputs by their
// Apply, cloning and Theano's string forms.
#include "theano/graph/basic.h"

#include <algorithm>
#include <charconv>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "theano/runtime/error.h"

namespace theano {

// ---------------------------------------------------------------- Variable

Variable::Variable(TypePtr type, std::string name)
    : type_(std::move(type)), name_(std::move(name)), site_(capture_creation_site()) {
  THEANO_INTERNAL_CHECK(type_) << "Variable created without a Type";
}

Variable::~Variable() = default;

void Variable::retain() const noexcept {
  if (owner_)
    owner_->retain();
  else
    node_retain();
}

void Variable::release() const noexcept {
  if (owner_)
    owner_->release();
  else
    node_release();
}

Var Variable::clone() const {
  Var v(new Variable(type_, name_));
  v->set_creation_site(site_);
  return v;
}

std::string Variable::str() const {
  if (!name_.empty()) return name_;
  if (owner_) {
    const std::optional<int> def = owner_->default_output();
    if (def && *def == index_) return owner_->op()->name() + ".out";
    return owner_->op()->name() + "." + std::to_string(index_);
  }
  return "<" + type_->str() + ">";
}

// ---------------------------------------------------------------- Constant

namespace {

std::size_t mix(std::size_t seed, std::size_t v) { return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }

// NumPy's `str()` of a 0-d value: the shortest text that round-trips.
std::string scalar_text(const NDArray& a) {
  char buf[64];
  if (is_float(a.dtype())) {
    const double d = a.item<double>();
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".eni") == std::string::npos) s += ".0";
    return s;
  }
  if (is_bool(a.dtype())) return a.item<bool>() ? "True" : "False";
  if (is_integer(a.dtype()) && is_unsigned(a.dtype())) return std::to_string(a.item<std::uint64_t>());
  if (is_integer(a.dtype())) return std::to_string(a.item<std::int64_t>());
  return a.str();
}

}  // namespace

Constant::Constant(TypePtr type, NDArray data, std::string name)
    : Variable(type, std::move(name)), data_(type->filter(data, false, false)) {
  signature_ = mix(type->hash(), content_hash(data_));
}

bool Constant::equals(const Constant& other) const {
  return signature_ == other.signature_ && *type() == *other.type() && type()->values_eq(data_, other.data_);
}

Constant::Constant(const Constant& of, CloneTag)
    : Variable(of.type(), of.name()), data_(of.data_), signature_(of.signature_) {}

Var Constant::clone() const { return Var(new Constant(*this, CloneTag{})); }

std::string Constant::str() const {
  if (!name().empty()) return name();
  std::string text = data_.ndim() == 0 ? scalar_text(data_) : data_.str();
  if (text.size() > 20) text = text.substr(0, 10) + "..." + text.substr(text.size() - 10);
  return "Constant{" + text + "}";
}

// ---------------------------------------------------------------- Var

const Constant* Var::as_constant() const noexcept { return dynamic_cast<const Constant*>(p_.get()); }

std::ostream& operator<<(std::ostream& os, const Var& v) { return os << v.str(); }

// ---------------------------------------------------------------- Apply

Apply::Apply(OpPtr op, std::vector<Var> inputs) : op_(std::move(op)), inputs_(std::move(inputs)) {}

ApplyPtr Apply::create(OpPtr op, std::vector<Var> inputs, std::vector<Var> outputs) {
  THEANO_USER_CHECK(op, ValueError) << "Apply::create: the op is null";
  for (std::size_t i = 0; i < inputs.size(); ++i)
    THEANO_USER_CHECK(inputs[i], ValueError)
        << "Apply::create(" << op->name() << "): input " << i << " is a null Var";
  std::unordered_set<const Variable*> seen;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Var& o = outputs[i];
    THEANO_USER_CHECK(o, ValueError) << "Apply::create(" << op->name() << "): output " << i << " is a null Var";
    THEANO_USER_CHECK(o.owner() == nullptr, ValueError)
        << "Apply::create(" << op->name() << "): output " << i << " (" << o.str()
        << ") already has an owner, " << o.owner()->op()->name()
        << "; a Variable is the output of at most one Apply (clone it first)";
    THEANO_USER_CHECK(seen.insert(o.get()).second, ValueError)
        << "Apply::create(" << op->name() << "): output " << i << " (" << o.str() << ") is listed twice";
  }
  auto* node = new Apply(std::move(op), std::move(inputs));
  ApplyPtr result(node);
  node->outputs_.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Variable* v = outputs[i].get();
    // Hand the handles' counts to the node: from now on they release the node.
    const int held = v->refs_.exchange(0, std::memory_order_acq_rel);
    node->refs_.fetch_add(held, std::memory_order_relaxed);
    v->owner_ = node;
    v->index_ = static_cast<int>(i);
    node->outputs_.push_back(v);
  }
  return result;
}

Apply::~Apply() {
  for (Variable* v : outputs_) delete v;
}

std::vector<Var> Apply::outputs() const {
  std::vector<Var> r;
  r.reserve(outputs_.size());
  for (Variable* v : outputs_) r.emplace_back(v);
  return r;
}

Var Apply::output(int i) const {
  THEANO_USER_CHECK(i >= 0 && i < nout(), IndexError)
      << "Apply " << op_->name() << " has " << nout() << " outputs; output " << i << " does not exist";
  return Var(outputs_[static_cast<std::size_t>(i)]);
}

std::optional<int> Apply::default_output() const {
  if (std::optional<int> d = op_->default_output()) return d;
  if (outputs_.size() == 1) return 0;
  return std::nullopt;
}

Var Apply::out() const {
  const std::optional<int> d = default_output();
  THEANO_USER_CHECK(d.has_value(), ValueError)
      << "Apply " << op_->name() << " has " << nout()
      << " outputs and its op names no default output; pick one with output(i)";
  THEANO_USER_CHECK(*d >= 0 && *d < nout(), ValueError)
      << "op " << op_->name() << " names default output " << *d << " but the node has " << nout() << " outputs";
  return output(*d);
}

std::vector<Apply*> Apply::get_parents() const {
  std::vector<Apply*> r;
  for (const Var& in : inputs_)
    if (Apply* p = in.owner(); p && std::find(r.begin(), r.end(), p) == r.end()) r.push_back(p);
  return r;
}

ApplyPtr Apply::clone() const {
  std::vector<Var> outs;
  outs.reserve(outputs_.size());
  for (Variable* v : outputs_) outs.push_back(v->clone());
  return create(op_, inputs_, std::move(outs));
}

ApplyPtr Apply::clone_with_new_inputs(std::vector<Var> new_inputs, bool strict) const {
  THEANO_USER_CHECK(new_inputs.size() == inputs_.size(), ValueError)
      << "clone_with_new_inputs(" << op_->name() << "): expected " << inputs_.size() << " inputs, got "
      << new_inputs.size();
  bool remake = false;
  for (std::size_t i = 0; i < new_inputs.size(); ++i) {
    Var& ni = new_inputs[i];
    THEANO_USER_CHECK(ni, ValueError) << "clone_with_new_inputs(" << op_->name() << "): input " << i << " is null";
    if (*ni.type() == *inputs_[i].type()) continue;
    if (strict) {
      Var converted = inputs_[i].type()->convert_variable(ni);
      THEANO_USER_CHECK(converted, TypeError)
          << "clone_with_new_inputs(" << op_->name() << "): input " << i << " (" << ni.str() << ") has type "
          << ni.type()->str() << " but the node expects " << inputs_[i].type()->str()
          << "; pass strict=false to rebuild the node through make_node";
      ni = std::move(converted);
    } else {
      remake = true;
    }
  }
  if (remake) {
    ApplyPtr made = op_->make_node(std::move(new_inputs));
    for (std::size_t k = 0; k < outputs_.size() && k < made->outputs().size(); ++k)
      if (!made->output(static_cast<int>(k))->creation_site())
        made->output(static_cast<int>(k))->set_creation_site(outputs_[k]->creation_site());
    return made;
  }
  std::vector<Var> outs;
  outs.reserve(outputs_.size());
  for (Variable* v : outputs_) outs.push_back(v->clone());
  return create(op_, std::move(new_inputs), std::move(outs));
}

std::ostream& operator<<(std::ostream& os, const Apply& node) {
  os << node.op()->name() << "(";
  for (int i = 0; i < node.nin(); ++i) os << (i ? ", " : "") << node.input(i).str();
  return os << ")";
}

std::string creation_note(const Apply& node) {
  std::string note;
  for (int k = 0; k < node.nout(); ++k) {
    const Var& out = node.output(k);
    if (!out->creation_site()) continue;
    const std::string frames = out->creation_site()->str();
    if (frames.empty()) continue;
    note += (out.name().empty() ? "output " + std::to_string(k) + " of " + node.op()->name() : "'" + out.name() + "'") +
            " was created at:\n" + frames;
  }
  return note;
}

}  // namespace theano
