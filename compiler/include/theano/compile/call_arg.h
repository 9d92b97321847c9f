/// \file
/// Call arguments as a Theano user types them: `f(2.0, 3)`,
/// `f({1.0, 2.0}, {{1, 2}, {3, 4}})`, `f(x_array, named("w", 1))`.
///
/// Why: Theano functions take Python numbers and nested lists, converted
/// against each input's type; porting `f(2, 3)` should not need
/// `f({NDArray::scalar(2.0), NDArray::scalar(3.0)})`.
///
/// A `Literal` is a C++ number or a nested braced list of numbers. It becomes
/// an array as numpy.asarray makes one of the Python value (bool -> bool, any
/// C++ integer -> int64 (uint64 above its range), float -> float32, double ->
/// float64; a list's dtype is the one that holds all its numbers), then the
/// input's type takes it as Theano's TensorType.filter takes a Python value:
/// the right rank, and a dtype conversion only when every number survives it
/// exactly (2 into an int32 or float32 input: yes; 1.5 into int64, 0.1 into
/// float32: no), unless the input allows downcasting, or the value is a
/// single double and the input has dtype floatX with allow_downcast left
/// unset (Theano's special case for Python floats). A `strict` input takes a
/// literal only of its exact dtype. An NDArray argument is filtered by dtype,
/// not by value (TensorType::filter). The conversion code is in call_arg.cpp.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "theano/runtime/ndarray.h"

namespace theano {

class Type;

/// A C++ number, or a braced list of Literals (one level per dimension).
class Literal {
 public:
  enum class Kind : std::uint8_t { Bool, Int, UInt, Float32, Float64, List };

  template <class T>
    requires std::is_arithmetic_v<T>
  Literal(T value) noexcept {  // NOLINT: implicit, as Python takes numbers
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      i_ = value ? 1 : 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      kind_ = sizeof(T) == sizeof(float) ? Kind::Float32 : Kind::Float64;
      d_ = static_cast<double>(value);
    } else if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::Int;
      i_ = static_cast<std::int64_t>(value);
    } else if (static_cast<std::uint64_t>(value) <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      kind_ = Kind::Int;
      i_ = static_cast<std::int64_t>(value);
    } else {
      kind_ = Kind::UInt;
      u_ = static_cast<std::uint64_t>(value);
    }
  }
  Literal(std::initializer_list<Literal> items);  // NOLINT: implicit, as Python takes lists

  Kind kind() const noexcept { return kind_; }
  bool is_list() const noexcept { return kind_ == Kind::List; }
  const std::vector<Literal>& items() const noexcept { return items_; }
  std::int64_t as_int() const noexcept { return i_; }  ///< Bool, Int
  std::uint64_t as_uint() const noexcept { return u_; }  ///< UInt
  double as_double() const noexcept { return d_; }  ///< Float32, Float64

  /// numpy.asarray of the value: its shape and dtype (see the file comment).
  /// ValueError when a list is ragged (sublists of different lengths, or a
  /// number beside a list), naming the position.
  NDArray to_array() const;

 private:
  Kind kind_ = Kind::List;
  union {
    std::int64_t i_;
    std::uint64_t u_;
    double d_ = 0;
  };
  std::vector<Literal> items_;
};

/// One argument of a call: an NDArray, a Literal, or either one given by
/// input name (`named`). See Function::operator().
class Arg {
 public:
  Arg(NDArray value);  // NOLINT: implicit
  // Out of line: a call `f(a, b)` passes ten Args, so their inline
  // destructors would be ten copies of this code in every call site.
  ~Arg();
  Arg(const Arg&);
  Arg(Arg&&) noexcept;
  Arg& operator=(const Arg&);
  Arg& operator=(Arg&&) noexcept;
  template <class T>
    requires std::is_arithmetic_v<T>
  Arg(T value) : Arg(Literal(value)) {}  // NOLINT: implicit
  Arg(std::initializer_list<Literal> items);  // NOLINT: implicit

  /// An argument left out (the default of Function::operator()'s parameters).
  static Arg none();

  bool given() const noexcept { return given_; }
  /// The input name for a named argument, else empty.
  const std::string& name() const noexcept { return name_; }
  const std::optional<Literal>& literal() const noexcept { return literal_; }
  const NDArray& array() const noexcept { return array_; }

  /// The value for an input of `type`: an NDArray as it is (the call filters
  /// it), a Literal converted as the file comment says. `allow_downcast`:
  /// unset when neither In nor FunctionOptions set it (the floatX rule
  /// applies). TypeError / ValueError without the input's name (callers add it).
  NDArray value_for(const Type& type, bool strict, std::optional<bool> allow_downcast) const;

 private:
  explicit Arg(Literal literal);
  friend Arg named(std::string name, Arg value);

  NDArray array_;
  std::optional<Literal> literal_;
  std::string name_;
  bool given_ = true;
};

/// A keyword argument: `f(33, named("w_by_name", 1))` is Theano's
/// `f(33, w_by_name=1)`. The name is the input's `In::name` (by default its
/// variable's name).
Arg named(std::string name, Arg value);

}  // namespace theano
