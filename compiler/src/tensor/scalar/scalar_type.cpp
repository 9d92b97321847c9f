// ScalarType: the type of variables inside Composite scalar graphs.
#include <map>
#include <mutex>

#include "theano/runtime/error.h"
#include "theano/tensor/scalar.h"

namespace theano::tensor {

IntrusivePtr<const ScalarType> ScalarType::make(DType dtype) {
  static std::mutex mu;
  static std::map<DType, IntrusivePtr<const ScalarType>> table;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = table[dtype];
  if (!slot) slot = IntrusivePtr<const ScalarType>(new ScalarType(dtype));
  return slot;
}

std::string ScalarType::str() const { return "Scalar(" + std::string(dtype_name(dtype_)) + ")"; }

bool ScalarType::equals(const Type& other) const {
  const auto* o = dynamic_cast<const ScalarType*>(&other);
  return o && o->dtype_ == dtype_;
}

std::size_t ScalarType::hash() const { return 0x5ca1a7 ^ static_cast<std::size_t>(dtype_); }

NDArray ScalarType::filter(const NDArray& value, bool strict, bool allow_downcast) const {
  THEANO_USER_CHECK(value.defined() && value.ndim() == 0, TypeError)
      << "expected a 0-d value for " << str() << ", got " << (value.defined() ? value.ndim() : -1) << " dimensions";
  if (value.dtype() == dtype_) return value;
  THEANO_USER_CHECK(!strict, TypeError) << "expected dtype " << dtype_name(dtype_) << " for " << str() << ", got "
                                        << dtype_name(value.dtype());
  THEANO_USER_CHECK(allow_downcast || can_cast(value.dtype(), dtype_, Casting::Safe), TypeError)
      << "cannot convert a " << dtype_name(value.dtype()) << " value to " << str() << " without losing precision";
  return value.astype(dtype_);
}

}  // namespace theano::tensor
