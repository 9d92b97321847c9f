/// \file
/// Shared variables (Theano's `theano.shared`): a Variable that carries a value
/// container, so its value persists across calls of every function that uses
/// it and can be changed by `updates`.
///
/// Why: training loops keep their parameters in shared variables; functions use
/// them as implicit inputs and write their updates back into the container
/// after each call. Cloning a SharedVariable (as compilation does) gives a new
/// SharedVariable over the *same* container, as in Theano.
///
/// Value semantics: `shared(value)` stores a copy (with `borrow`, on the host,
/// the value itself: later writes to the caller's array are seen, as
/// Theano's `shared(value, borrow=True)`); `get_value` returns a copy
/// unless `borrow`; `set_value` filters the new value through the variable's
/// type (with the `strict` / `allow_downcast` given at creation) and stores a
/// copy unless `borrow`.
///
/// On the GPU (Theano's gpuarray shared variables): with THEANO_FLAGS
/// device=cuda/cuda<N>/auto/emulated selecting a GPU, `shared()` of a float32
/// value makes a variable of GpuArrayType that keeps its value in that GPU's
/// memory (a device array; other dtypes stay on the host unless asked with
/// `shared_on`). Functions read it there and write their updates there: a
/// training loop moves no parameter across the bus. `get_value` returns a
/// host copy unless `return_internal_type` asks for the device array;
/// `set_value` takes a host array (uploaded) or a device array of the same GPU
/// (stored as it is with `borrow`, else copied on the device). Used in a host
/// op, a GPU shared variable enters through HostFromGpu (as_tensor_variable).
///
/// A function that UPDATES a shared variable may
/// overwrite its stored value in place while computing the new one (the
/// inplace rewrites reuse that buffer), so a value got with `borrow` can change
/// under you after such a call; functions that only read the variable never
/// write it. An argument that shares memory with storage a call may overwrite
/// is copied before that call (function_call.cpp), as in Theano.
///
/// Default updates (used by RandomStream): `set_default_update(sv, expr)` makes
/// every function that uses `sv` also apply `sv <- expr`, unless the function
/// gives an explicit update for `sv` or is compiled with `no_default_updates`.
/// The stored expression does not hold `sv` itself (it is kept with `sv`
/// replaced by a private placeholder), so an update that reads its own shared
/// variable forms no reference cycle.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "theano/compile/call_arg.h"
#include "theano/graph/basic.h"

namespace theano {

/// The value cell a SharedVariable (and its clones) point to.
struct SharedStorage {
  NDArray value;
};

class SharedVariable final : public Variable {
 public:
  /// A new shared variable of `type` holding `type->filter(value)`: a copy,
  /// unless `borrow` and the filter kept `value`'s buffer (then that buffer).
  SharedVariable(TypePtr type, const NDArray& value, std::string name, bool strict, bool allow_downcast,
                 bool borrow = false);
  /// A shared variable over an existing container (clones).
  SharedVariable(TypePtr type, std::shared_ptr<SharedStorage> storage, std::string name, bool strict,
                 bool allow_downcast);

  /// The value: a copy unless `borrow`. A GPU variable's value comes back as a
  /// fresh host array unless `return_internal_type` (then the device array).
  NDArray get_value(bool borrow = false, bool return_internal_type = false) const;
  /// Filters `value` through the type (TypeError naming this variable when it
  /// does not fit) and stores it (a copy unless `borrow`).
  void set_value(const NDArray& value, bool borrow = false);
  /// A plain number or a nested list (`set_value(-1)`, `set_value({1, 2})`),
  /// converted against the variable's type as a call converts its arguments.
  void set_value(const Arg& value, bool borrow = false);
  const std::shared_ptr<SharedStorage>& storage() const noexcept { return storage_; }
  bool strict() const noexcept { return strict_; }
  bool allow_downcast() const noexcept { return allow_downcast_; }

  /// The default update expression (reading this variable), or a null Var.
  Var default_update() const;
  /// Sets (a null Var: clears) the default update; TypeError when its type does
  /// not match this variable's type.
  void set_default_update(const Var& update);

  /// A SharedVariable over the same container, with the same default update.
  Var clone() const override;

 private:
  struct DefaultUpdate {
    Var placeholder;  // stands for this variable inside `expr`
    Var expr;
  };
  std::shared_ptr<SharedStorage> storage_;
  std::shared_ptr<const DefaultUpdate> default_update_;
  bool strict_;
  bool allow_downcast_;
};

/// The SharedVariable behind `v`, or nullptr.
SharedVariable* as_shared(const Var& v) noexcept;
inline bool is_shared(const Var& v) noexcept { return as_shared(v) != nullptr; }

/// Theano's keyword arguments of `shared`, for
/// `shared(value, {.name = "W", .borrow = true})` (designated initializers in
/// this order).
struct SharedOptions {
  std::string name;
  bool strict = false;
  bool allow_downcast = false;
  /// Store `value` itself, not a copy, when it needs no conversion and no
  /// move to another device: the variable then sees the caller's later
  /// writes to it (until a function's update replaces the value), as in
  /// Theano. A value that must be converted or moved (a host float32 value
  /// for a GPU device) is still copied.
  bool borrow = false;
};
/// Theano's `shared(value, name, strict, allow_downcast, borrow)`: a shared
/// variable whose type has `value`'s dtype and rank with every dimension of
/// unknown size. The value is copied unless `borrow`. A TensorType on the
/// host; a GpuArrayType when `value` is a device array (its GPU), or a float32
/// value while the device flag selects a GPU (see the file comment).
Var shared(const NDArray& value, const SharedOptions& options = {});
/// `shared(value, name, strict, allow_downcast)`, positionally. (A template so
/// that a braced list always means SharedOptions.)
template <class S>
  requires std::is_convertible_v<const S&, std::string>
Var shared(const NDArray& value, const S& name, bool strict = false, bool allow_downcast = false) {
  return shared(value, SharedOptions{std::string(name), strict, allow_downcast, /*borrow=*/false});
}

namespace detail {
/// A C++ number as the 0-d array Theano makes of the Python number (call_arg.h):
/// bool, int64 (uint64 above int64's range), float32 (float), float64.
NDArray number_array(const Literal& number);
}  // namespace detail

/// Theano's `shared(0)`, `shared(1.5)`, `shared(true)`: a 0-d shared variable
/// of int64 (any C++ integer), float64 (double), float32 (float) or bool.
template <class T>
  requires std::is_arithmetic_v<T>
Var shared(T value, std::string name = {}, bool strict = false, bool allow_downcast = false) {
  return shared(detail::number_array(Literal(value)), std::move(name), strict, allow_downcast);
}

/// `shared` on an explicit `target` (Theano's `target=` argument): "cpu", or a
/// GPU context ("cuda0", "emulated") for any dtype the GPU handles. ValueError
/// naming why when that GPU cannot be used.
Var shared_on(const std::string& target, const NDArray& value, std::string name = {}, bool strict = false,
              bool allow_downcast = false);

/// What a shared variable of `type` stores for a value its filter accepted:
/// for a GpuArrayType, the value on its GPU (a host value is uploaded);
/// otherwise the value itself.
NDArray stored_value(const Type& type, const NDArray& value);

/// `as_shared(v)->get_value(borrow, return_internal_type)`; TypeError when `v` is not shared.
NDArray get_value(const Var& shared_var, bool borrow = false, bool return_internal_type = false);
/// `as_shared(v)->set_value(value, borrow)`; TypeError when `v` is not shared.
void set_value(const Var& shared_var, const NDArray& value, bool borrow = false);
/// `set_value(state, -1)`, `set_value(w, {{1, 2}, {3, 4}})`: as SharedVariable::set_value(Arg).
void set_value(const Var& shared_var, const Arg& value, bool borrow = false);
/// `as_shared(v)->set_default_update(update)`; TypeError when `v` is not shared.
void set_default_update(const Var& shared_var, const Var& update);

}  // namespace theano
