// Autocast of C++ literals and wrapping of values as tensor constants.
#include "theano/tensor/as_tensor.h"

#include <cmath>
#include <limits>

#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

NDArray autocast_scalar(double value) {
  if (config().floatX == DType::Float32) return NDArray::scalar(static_cast<float>(value));
  const auto f = static_cast<float>(value);
  if (std::isfinite(value) && std::abs(value) <= std::numeric_limits<float>::max() && static_cast<double>(f) == value)
    return NDArray::scalar(f);
  if (std::isinf(value)) return NDArray::scalar(f);
  return NDArray::scalar(value);
}

NDArray autocast_scalar(std::int64_t value) {
  if (value >= std::numeric_limits<std::int8_t>::min() && value <= std::numeric_limits<std::int8_t>::max())
    return NDArray::scalar(static_cast<std::int8_t>(value));
  if (value >= std::numeric_limits<std::int16_t>::min() && value <= std::numeric_limits<std::int16_t>::max())
    return NDArray::scalar(static_cast<std::int16_t>(value));
  if (value >= std::numeric_limits<std::int32_t>::min() && value <= std::numeric_limits<std::int32_t>::max())
    return NDArray::scalar(static_cast<std::int32_t>(value));
  return NDArray::scalar(value);
}

NDArray autocast_scalar(bool value) { return NDArray::scalar(value); }

Var constant(const NDArray& value, std::string name) {
  THEANO_USER_CHECK(value.defined(), ValueError) << "tensor::constant: the array is undefined";
  StaticShape shape(value.shape().begin(), value.shape().end());
  return TensorType::make(value.dtype(), std::move(shape))->make_constant(value, std::move(name));
}

Var as_tensor_variable(const Var& v) {
  THEANO_USER_CHECK(v, TypeError) << "expected a tensor variable, got a null Var";
  // A GPU array enters host ops through its transfer (Theano's as_tensor_variable
  // does the same); the GPU transfer rewrite moves what it can back onto the GPU.
  if (v.type()->host_counterpart()) return v.type()->to_host(v);
  THEANO_USER_CHECK(tensor_type(v) != nullptr, TypeError)
      << "expected a tensor variable, got " << v.str() << " of type " << v.type()->str();
  return v;
}

}  // namespace theano::tensor
