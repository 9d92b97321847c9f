/// \file
/// Turning C++ values into graph variables: `constant(...)` with Theano's
/// autocast rules, `as_tensor_variable`, and `TensorLike`, the argument type of
/// the tensor API that accepts a Var, a number or an NDArray.
///
/// Autocast (Theano's "custom" cast policy, made floatX-aware like PyTensor):
/// an integer literal becomes the smallest of int8/int16/int32/int64 that holds
/// it; a float literal becomes float32 when floatX is float32, else float32 when
/// exactly representable and float64 otherwise; bool stays bool. So
/// `dscalar("x") + 1` is float64 and `fvector() * 2.0` is float32.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"

namespace theano::tensor {

/// The 0-d array a C++ literal becomes under the autocast rules.
NDArray autocast_scalar(double value);
NDArray autocast_scalar(std::int64_t value);
NDArray autocast_scalar(bool value);

/// A tensor Constant holding `value` (type: its dtype, static shape = its shape).
Var constant(const NDArray& value, std::string name = {});

/// `v` itself when it is a tensor; `HostFromGpu(v)` for a GPU array (gpu/type.h);
/// TypeError naming `v` and its type otherwise.
Var as_tensor_variable(const Var& v);

/// Anything the tensor API accepts where a tensor is expected.
class TensorLike {
 public:
  TensorLike(const Var& v) : var_(as_tensor_variable(v)) {}  // NOLINT: implicit by design
  TensorLike(const NDArray& a) : var_(constant(a)) {}        // NOLINT
  template <class T>
    requires(std::is_arithmetic_v<T>)
  TensorLike(T value)  // NOLINT
      : var_(constant(make(value))) {}

  const Var& var() const { return var_; }
  operator const Var&() const { return var_; }  // NOLINT

 private:
  template <class T>
  static NDArray make(T value) {
    if constexpr (std::is_same_v<T, bool>)
      return autocast_scalar(value);
    else if constexpr (std::is_integral_v<T>)
      return autocast_scalar(static_cast<std::int64_t>(value));
    else
      return autocast_scalar(static_cast<double>(value));
  }
  Var var_;
};

}  // namespace theano::tensor
