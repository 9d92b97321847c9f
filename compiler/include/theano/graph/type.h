/// \file
/// `Type`: what a Variable may hold. Types are immutable values compared with
/// `equals`/`hash` (subclasses intern instances so pointer equality is the fast
/// path). A Type filters run-time values into itself (`filter`, with Theano's
/// `strict` and `allow_downcast` switches) and makes Variables and Constants.
/// Types are heap-allocated and shared through TypePtr: the Variables a Type
/// makes hold a reference to it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "theano/graph/intrusive.h"
#include "theano/runtime/ndarray.h"

namespace theano {

class Var;
class Type;
using TypePtr = IntrusivePtr<const Type>;

class Type : public RefCounted {
 public:
  /// Human-readable, e.g. `TensorType(float64, matrix)` (Theano's spelling).
  virtual std::string str() const = 0;
  virtual bool equals(const Type& other) const = 0;
  virtual std::size_t hash() const = 0;

  /// Returns `value` converted into this Type, or throws TypeError saying what
  /// was expected. `strict`: the value must already match exactly (no cast, no
  /// copy). `allow_downcast`: permit casts that may lose precision.
  virtual NDArray filter(const NDArray& value, bool strict = false, bool allow_downcast = false) const = 0;
  /// filter() for a caller that can keep `value` itself: nullopt when
  /// filter() would return `value` unchanged (after the same checks), else
  /// what filter() returns. A function call filters each argument so, and
  /// copies none it accepts as it is. The default returns filter()'s value.
  virtual std::optional<NDArray> filter_converted(const NDArray& value, bool strict, bool allow_downcast) const {
    return filter(value, strict, allow_downcast);
  }
  /// True iff `filter(value, strict=true)` would accept `value`.
  virtual bool is_valid_value(const NDArray& value) const;
  /// Equality of two values of this Type (used by Constant signatures).
  virtual bool values_eq(const NDArray& a, const NDArray& b) const;
  /// True iff every value valid for `other` is valid for this Type.
  virtual bool is_super(const Type& other) const { return equals(other); }
  /// Returns a Variable of this Type standing for `var` (possibly `var` itself),
  /// or a null Var when no such conversion exists.
  virtual Var convert_variable(const Var& var) const;
  /// For a type whose values live off the host (a GPU array): the host Type
  /// its values stand for, and `var` moved there (its transfer). nullptr / a
  /// null Var for the host types (the default). Host ops take such a value
  /// through these, so the host types need not know the others (gpu/ builds
  /// on tensor/, not the reverse).
  virtual TypePtr host_counterpart() const { return nullptr; }
  virtual Var to_host(const Var& var) const;

  /// A fresh owner-less Variable of this Type.
  Var make_variable(std::string name = {}) const;
  /// A Constant of this Type holding `filter(value)`.
  Var make_constant(const NDArray& value, std::string name = {}) const;
};

inline bool operator==(const Type& a, const Type& b) { return &a == &b || a.equals(b); }
inline bool operator!=(const Type& a, const Type& b) { return !(a == b); }
/// Two TypePtrs compare by value, not identity.
inline bool same_type(const TypePtr& a, const TypePtr& b) { return a == b || (a && b && a->equals(*b)); }

}  // namespace theano
