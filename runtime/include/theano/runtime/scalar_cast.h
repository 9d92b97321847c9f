/// \file
/// `scalar_cast<To>(from)`: numpy's "unsafe" conversion between element types.
///
/// Why: astype, item<T>, full() and the .npy loader all convert single values, and
/// must agree with numpy: complex -> real keeps the real part, anything -> bool is
/// "!= 0", float -> integer truncates toward zero, integer -> integer wraps.
/// Out-of-range float -> integer is undefined behaviour in C++; here it is defined
/// (so sanitizers stay quiet) and reproduces what numpy gives on x86-64, by the C
/// functions of scalar_convert.h that generated code also uses.
#pragma once

#include <complex>  // complex elements are converted here
#include <cstdint>
#include <type_traits>

#include "theano/runtime/dtype.h"
#include "theano/runtime/kernels/scalar_convert.h"

namespace theano {
namespace detail {

/// numpy's float -> integer conversion (scalar_convert.h, shared with generated code).
template <class To>
To float_to_int(double v) {
  if constexpr (sizeof(To) <= 2 || (sizeof(To) == 4 && std::is_signed_v<To>)) return static_cast<To>(theano_f2i32(v));
  else if constexpr (sizeof(To) == 8 && std::is_unsigned_v<To>) return static_cast<To>(theano_f2u64(v));
  else return static_cast<To>(theano_f2i64(v));  // 64-bit signed, or uint32 (through int64)
}

template <class T>
double real_as_double(const T& v) {
  if constexpr (is_complex_type<T>::value) return static_cast<double>(v.real());
  else if constexpr (std::is_same_v<T, half>) return static_cast<double>(v);
  else return static_cast<double>(v);
}

}  // namespace detail

template <class To, class From>
To scalar_cast(const From& v) {
  using F = std::remove_cv_t<From>;
  if constexpr (std::is_same_v<To, F>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_type<F>::value) return v.real() != 0 || v.imag() != 0;
    else if constexpr (std::is_same_v<F, half>) return static_cast<float>(v) != 0.0f;
    else return v != F(0);
  } else if constexpr (is_complex_type<To>::value) {
    using C = typename To::value_type;
    if constexpr (is_complex_type<F>::value) return To(static_cast<C>(v.real()), static_cast<C>(v.imag()));
    else if constexpr (std::is_same_v<F, half>) return To(static_cast<C>(static_cast<float>(v)), C(0));
    else return To(static_cast<C>(v), C(0));
  } else if constexpr (std::is_same_v<To, half>) {
    if constexpr (std::is_same_v<F, bool>) return half(v ? 1.0 : 0.0);
    else return half(detail::real_as_double(v));
  } else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (is_complex_type<F>::value) return static_cast<To>(v.real());
    else if constexpr (std::is_same_v<F, half>) return static_cast<To>(static_cast<float>(v));
    else return static_cast<To>(v);
  } else {
    static_assert(std::is_integral_v<To>);
    if constexpr (std::is_integral_v<F>) return static_cast<To>(v);  // bool -> 0/1, ints wrap
    else return detail::float_to_int<To>(detail::real_as_double(v));
  }
}

}  // namespace theano
