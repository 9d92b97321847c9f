// Type defaults: validity through filter, value equality, variable makers.
#include "theano/graph/type.h"

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

bool Type::is_valid_value(const NDArray& value) const {
  try {
    filter(value, true, false);
    return true;
  } catch (const Error&) {
    return false;
  }
}

bool Type::values_eq(const NDArray& a, const NDArray& b) const {
  return a.dtype() == b.dtype() && array_equal(a, b);
}

Var Type::convert_variable(const Var& var) const {
  if (var && *var.type() == *this) return var;
  return Var();
}

Var Type::to_host(const Var&) const { return Var(); }

Var Type::make_variable(std::string name) const { return Var(new Variable(TypePtr(this), std::move(name))); }

Var Type::make_constant(const NDArray& value, std::string name) const {
  return Var(new Constant(TypePtr(this), value, std::move(name)));
}

}  // namespace theano
