/// \file
/// SharedVariable and `shared()`: value containers, filtering on set_value, and
/// default updates stored without a reference cycle (see shared.h).
#include "theano/compile/shared.h"

#include "theano/gpu/context.h"
#include "theano/gpu/type.h"
#include "theano/graph/clone.h"
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano {
namespace {

NDArray filtered(const Type& type, const NDArray& value, bool strict, bool allow_downcast, const std::string& who) {
  try {
    return stored_value(type, type.filter(value, strict, allow_downcast));
  } catch (const TypeError& e) {
    throw TypeError("shared variable " + who + ": cannot store the value: " + e.what());
  }
}

}  // namespace

NDArray stored_value(const Type& type, const NDArray& value) {
  const auto* g = dynamic_cast<const gpu::GpuArrayType*>(&type);
  if (!g || !value.on_host()) return value;
  Device d;
  Device::parse(g->context(), &d);
  return value.to(d);
}

SharedVariable::SharedVariable(TypePtr type, const NDArray& value, std::string name, bool strict,
                               bool allow_downcast, bool borrow)
    : Variable(std::move(type), std::move(name)), strict_(strict), allow_downcast_(allow_downcast) {
  THEANO_USER_CHECK(value.defined(), ValueError) << "shared: the initial value of " << str() << " is undefined";
  NDArray v = filtered(*this->type(), value, strict, allow_downcast, str());
  storage_ = std::make_shared<SharedStorage>(SharedStorage{!borrow && v.shares_buffer(value) ? v.copy() : v});
}

SharedVariable::SharedVariable(TypePtr type, std::shared_ptr<SharedStorage> storage, std::string name, bool strict,
                               bool allow_downcast)
    : Variable(std::move(type), std::move(name)),
      storage_(std::move(storage)),
      strict_(strict),
      allow_downcast_(allow_downcast) {
  THEANO_INTERNAL_CHECK(storage_) << "SharedVariable without storage";
}

NDArray SharedVariable::get_value(bool borrow, bool return_internal_type) const {
  const NDArray& v = storage_->value;
  if (!v.on_host() && !return_internal_type) return v.to_host();  // a fresh host copy
  return borrow ? v : v.copy();
}

void SharedVariable::set_value(const NDArray& value, bool borrow) {
  THEANO_USER_CHECK(value.defined(), ValueError) << "set_value: the new value of shared variable " << str()
                                                 << " is undefined";
  NDArray v = filtered(*type(), value, strict_, allow_downcast_, str());
  storage_->value = (!borrow && v.shares_buffer(value)) ? v.copy() : v;
}

void SharedVariable::set_value(const Arg& value, bool borrow) {
  if (!value.literal()) return set_value(value.array(), borrow);
  NDArray v;
  try {
    v = value.value_for(*type(), strict_, allow_downcast_);
  } catch (Error& e) {
    e.add_context("(the new value of shared variable " + str() + ")");
    throw;
  }
  set_value(v, /*borrow=*/true);  // a fresh array: nothing to alias
}

Var SharedVariable::default_update() const {
  if (!default_update_) return Var();
  Var self(const_cast<SharedVariable*>(this));
  return clone_replace({default_update_->expr}, {{default_update_->placeholder, self}})[0];
}

void SharedVariable::set_default_update(const Var& update) {
  if (!update) {
    default_update_.reset();
    return;
  }
  THEANO_USER_CHECK(type()->convert_variable(update), TypeError)
      << "default update of shared variable " << str() << ": the update " << update.str() << " has type "
      << update.type()->str() << " but the shared variable has type " << type()->str()
      << "; an update must have the same type as its shared variable (cast it)";
  // Keep the expression with this variable replaced by a placeholder, so the
  // stored graph does not own this variable (no reference cycle).
  Var self(this);
  Var placeholder = type()->make_variable(name());
  Var expr = clone_replace({update}, {{self, placeholder}})[0];
  default_update_ = std::make_shared<const DefaultUpdate>(DefaultUpdate{placeholder, expr});
}

Var SharedVariable::clone() const {
  auto* copy = new SharedVariable(type(), storage_, name(), strict_, allow_downcast_);
  copy->default_update_ = default_update_;
  return Var(copy);
}

SharedVariable* as_shared(const Var& v) noexcept { return v ? dynamic_cast<SharedVariable*>(v.get()) : nullptr; }

namespace {
SharedVariable& require_shared(const Var& v, const char* what) {
  SharedVariable* s = as_shared(v);
  THEANO_USER_CHECK(s, TypeError) << what << ": " << v.str() << " is not a shared variable (make it with shared())";
  return *s;
}
}  // namespace

namespace {

Var make_shared_on(const std::string& target, const NDArray& value, std::string name, bool strict,
                   bool allow_downcast, bool borrow) {
  THEANO_USER_CHECK(value.defined(), ValueError) << "shared: the value of '" << name << "' is undefined";
  const tensor::StaticShape shape(static_cast<std::size_t>(value.ndim()));
  TypePtr type;
  if (target == "cpu") {
    type = tensor::TensorType::make(value.dtype(), shape);
  } else {
    THEANO_USER_CHECK(gpu::parse_context(target), ValueError)
        << "shared: unknown target '" << target << "' for '" << name << "'; expected cpu, cuda<N> or "
        << gpu::kEmulatedContext;
    // The value moves there now: an unusable GPU is an error here, naming why.
    const std::string why = gpu::context_unusable_reason(target);
    THEANO_USER_CHECK(why.empty(), ValueError)
        << "shared: '" << name << "' cannot live on the GPU " << target << ": " << why;
    type = gpu::GpuArrayType::make(value.dtype(), shape, target);
  }
  return Var(new SharedVariable(std::move(type), value, std::move(name), strict, allow_downcast, borrow));
}

}  // namespace

Var shared(const NDArray& value, const SharedOptions& options) {
  THEANO_USER_CHECK(value.defined(), ValueError) << "shared: the value of '" << options.name << "' is undefined";
  // Theano's rule: with a GPU device selected, float32 values live on it; a
  // device array stays on its device.
  std::string target = "cpu";
  if (!value.on_host())
    target = value.device().str();
  else if (value.dtype() == DType::Float32)
    if (const std::optional<std::string> context = gpu::selected_context()) target = *context;
  return make_shared_on(target, value, options.name, options.strict, options.allow_downcast, options.borrow);
}

Var shared_on(const std::string& target, const NDArray& value, std::string name, bool strict, bool allow_downcast) {
  return make_shared_on(target, value, std::move(name), strict, allow_downcast, /*borrow=*/false);
}

NDArray detail::number_array(const Literal& number) {
  THEANO_USER_CHECK(!number.is_list(), ValueError)
      << "shared: a number was expected, got a list (make an NDArray of it)";
  return number.to_array();
}

NDArray get_value(const Var& shared_var, bool borrow, bool return_internal_type) {
  return require_shared(shared_var, "get_value").get_value(borrow, return_internal_type);
}

void set_value(const Var& shared_var, const NDArray& value, bool borrow) {
  require_shared(shared_var, "set_value").set_value(value, borrow);
}

void set_value(const Var& shared_var, const Arg& value, bool borrow) {
  require_shared(shared_var, "set_value").set_value(value, borrow);
}

void set_default_update(const Var& shared_var, const Var& update) {
  require_shared(shared_var, "set_default_update").set_default_update(update);
}

}  // namespace theano
