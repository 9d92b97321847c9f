/// \file
/// Call arguments (call_arg.h): a literal's numpy array, and its conversion
/// into an input's type by value, as Theano's TensorType.filter converts a
/// Python value; In's default value given as a literal.
#include "theano/compile/call_arg.h"
#include "theano/runtime/scalar_cast.h"

#include <complex>
#include <sstream>

#include "theano/compile/function.h"
#include "theano/config.h"
#include "theano/graph/type.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "value_checks.h"

namespace theano {
namespace {

using Kind = Literal::Kind;

/// numpy's dtype for a list of these kinds of numbers (value-independent,
/// except that a uint64 beside a negative integer needs float64).
struct KindSet {
  bool any_bool = false, any_int = false, any_negative = false, any_uint = false;
  bool any_float32 = false, any_float64 = false;

  void add(const Literal& l) {
    switch (l.kind()) {
      case Kind::Bool: any_bool = true; break;
      case Kind::Int:
        any_int = true;
        any_negative |= l.as_int() < 0;
        break;
      case Kind::UInt: any_uint = true; break;
      case Kind::Float32: any_float32 = true; break;
      case Kind::Float64: any_float64 = true; break;
      case Kind::List: break;
    }
  }
  DType dtype() const {
    if (any_float64 || (any_float32 && (any_int || any_uint)) || (any_uint && any_negative)) return DType::Float64;
    if (any_float32) return DType::Float32;
    if (any_uint) return DType::UInt64;
    if (any_int) return DType::Int64;
    if (any_bool) return DType::Bool;
    return DType::Float64;  // an empty list, as numpy.asarray([])
  }
};

std::string position_str(const std::vector<std::size_t>& at) {
  std::string r = "[";
  for (std::size_t i = 0; i < at.size(); ++i) r += (i ? ", " : "") + std::to_string(at[i]);
  return r + "]";
}

/// The shape (from the first element at each level) and the leaves in C order;
/// ValueError when some list does not have that shape.
void walk(const Literal& l, std::size_t depth, std::vector<std::size_t>& at, const std::vector<std::int64_t>& shape,
          std::vector<const Literal*>& leaves) {
  const bool list_expected = depth < shape.size();
  if (l.is_list() != list_expected || (list_expected && static_cast<std::int64_t>(l.items().size()) != shape[depth])) {
    std::ostringstream os;
    os << "the nested list is ragged: the element at " << position_str(at) << " is ";
    if (l.is_list())
      os << "a list of " << l.items().size();
    else
      os << "a number";
    os << " where the first elements make the shape " << shape_to_string(shape) << " expect ";
    if (list_expected)
      os << "a list of " << shape[depth];
    else
      os << "a number";
    throw ValueError(os.str());
  }
  if (!l.is_list()) {
    leaves.push_back(&l);
    return;
  }
  for (std::size_t i = 0; i < l.items().size(); ++i) {
    at.push_back(i);
    walk(l.items()[i], depth + 1, at, shape, leaves);
    at.pop_back();
  }
}

template <class T>
T leaf_value(const Literal& l) {
  switch (l.kind()) {
    case Kind::Bool:
    case Kind::Int: return scalar_cast<T>(l.as_int());
    case Kind::UInt: return scalar_cast<T>(l.as_uint());
    default: return scalar_cast<T>(l.as_double());
  }
}

}  // namespace

Literal::Literal(std::initializer_list<Literal> items) : items_(items) {}

NDArray Literal::to_array() const {
  std::vector<std::int64_t> shape;
  for (const Literal* l = this; l->is_list(); l = &l->items().front()) {
    shape.push_back(static_cast<std::int64_t>(l->items().size()));
    THEANO_USER_CHECK(shape.size() <= THEANO_MAX_NDIM, ValueError)
        << "the nested list has more than " << THEANO_MAX_NDIM << " levels (THEANO_MAX_NDIM)";
    if (l->items().empty()) break;
  }
  std::vector<const Literal*> leaves;
  std::vector<std::size_t> at;
  walk(*this, 0, at, shape, leaves);
  KindSet kinds;
  for (const Literal* l : leaves) kinds.add(*l);
  NDArray a = NDArray::empty(shape, kinds.dtype());
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      T* p = a.data_as<T>();
      for (std::size_t i = 0; i < leaves.size(); ++i) p[i] = leaf_value<T>(*leaves[i]);
    }
  });
  return a;
}

Arg::Arg(NDArray value) : array_(std::move(value)) {}
Arg::~Arg() = default;
Arg::Arg(const Arg&) = default;
Arg::Arg(Arg&&) noexcept = default;
Arg& Arg::operator=(const Arg&) = default;
Arg& Arg::operator=(Arg&&) noexcept = default;
Arg::Arg(Literal literal) : literal_(std::move(literal)) {}
Arg::Arg(std::initializer_list<Literal> items) : literal_(Literal(items)) {}

Arg Arg::none() {
  Arg a{NDArray()};
  a.given_ = false;
  return a;
}

Arg named(std::string name, Arg value) {
  THEANO_USER_CHECK(value.given_, ValueError) << "named(\"" << name << "\", ...): the value is Arg::none()";
  THEANO_USER_CHECK(value.name_.empty(), ValueError)
      << "named(\"" << name << "\", ...): the value is already named \"" << value.name_ << "\"";
  THEANO_USER_CHECK(!name.empty(), ValueError) << "named(\"\", ...): the input name is empty";
  value.name_ = std::move(name);
  return value;
}

NDArray Arg::value_for(const Type& type, bool strict, std::optional<bool> allow_downcast) const {
  if (!literal_) return array_;
  const NDArray natural = literal_->to_array();
  // filter checks the rank and, when strict, the dtype, with its messages;
  // the conversion itself is checked here, by value.
  NDArray converted = type.filter(natural, strict, /*allow_downcast=*/true);
  if (converted.dtype() == natural.dtype() || allow_downcast.value_or(false)) return converted;
  const bool floatx_rule = !allow_downcast && !literal_->is_list() && literal_->kind() == Kind::Float64 &&
                           converted.dtype() == config().floatX;
  if (floatx_rule || detail::converts_exactly(natural, converted)) return converted;
  std::ostringstream os;
  os << type.str() << " cannot store " << natural.str() << " exactly: it would become "
     << converted.astype(natural.dtype()).str()
     << "; pass an NDArray of dtype " << dtype_name(converted.dtype())
     << " or allow the loss (In::allow_downcast, FunctionOptions::allow_input_downcast)";
  throw TypeError(os.str());
}

namespace {

/// In's value: an NDArray as it is (function() filters it), a literal
/// converted to the variable's type now.
NDArray in_value(const Var& v, const Arg& value) {
  THEANO_USER_CHECK(value.given(), ValueError) << "In: the value is Arg::none()";
  THEANO_USER_CHECK(value.name().empty(), ValueError)
      << "In: the value is a named argument (\"" << value.name() << "\"); give In's name as its own argument";
  if (!value.literal()) return value.array();
  THEANO_USER_CHECK(v, ValueError) << "In: a null Var with a default value";
  try {
    return value.value_for(*v.type(), /*strict=*/false, std::nullopt);
  } catch (const TypeError& e) {
    throw TypeError("In(" + v.str() + "): the default value does not fit the variable's type: " + e.what());
  } catch (const ValueError& e) {
    throw ValueError("In(" + v.str() + "): the default value: " + std::string(e.what()));
  }
}

}  // namespace

In::~In() = default;
In::In(const In&) = default;
In::In(In&&) noexcept = default;
In& In::operator=(const In&) = default;
In& In::operator=(In&&) noexcept = default;

In::In(const Var& v, const Arg& default_value, std::string name_)
    : variable(v), name(std::move(name_)), value(in_value(v, default_value)) {}

In::In(const Var& v, const Arg& initial_value, const Var& update_expr)
    : variable(v), value(in_value(v, initial_value)), update(update_expr) {}

}  // namespace theano
