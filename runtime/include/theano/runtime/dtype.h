/// \file
/// Element types of tensors (`DType`), their names and sizes, and numpy's
/// promotion and casting rules.
///
/// Why: every layer agrees on one closed set of element types. Types are named as
/// numpy names them ("float64", "int8", "bool", "complex128") so user-visible text,
/// THEANO_FLAGS=floatX=... and .npy files map one-to-one. `promote_types` and
/// `can_cast` follow numpy.promote_types / numpy.can_cast exactly for these 14 types
/// (promotion is "the smallest type both inputs cast to safely").
///
/// C++ element types: bool, int8_t..uint64_t, theano::half, float, double,
/// std::complex<float>, std::complex<double>. `dtype_of<T>()` maps any integral type
/// by size and signedness (so `long long` is Int64 too); `visit_dtype` calls a
/// generic lambda with a `std::type_identity<T>` for a run-time DType.
/// std::complex is only declared here (complex_fwd.h): include <complex> to
/// compute with complex elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <type_traits>
#include <utility>

#include "theano/runtime/complex_fwd.h"
#include "theano/runtime/half.h"

namespace theano {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64,
  Complex64,
  Complex128
};

/// Number of DType values; `static_cast<DType>(i)` for i < kNumDTypes is valid.
inline constexpr int kNumDTypes = 14;

/// numpy's name: "bool", "int8", ..., "float16", "complex128".
std::string_view dtype_name(DType);
/// Inverse of dtype_name. Throws ValueError naming the bad string and listing valid names.
DType dtype_from_name(std::string_view);
/// Bytes per element.
std::size_t dtype_size(DType);

bool is_bool(DType);
/// Signed or unsigned integer (not bool).
bool is_integer(DType);
bool is_unsigned(DType);
bool is_signed_integer(DType);
/// float16, float32, float64.
bool is_float(DType);
bool is_complex(DType);
/// numpy's kind character: 'b', 'i', 'u', 'f', 'c'.
char dtype_kind(DType);

/// numpy.promote_types (e.g. int64+uint64 -> float64, int8+uint8 -> int16,
/// float16+int16 -> float32, complex64+float64 -> complex128).
DType promote_types(DType a, DType b);

enum class Casting { No, Equiv, Safe, SameKind, Unsafe };
/// numpy.can_cast semantics for these types (byte order is always native here, so
/// No and Equiv both mean from == to).
bool can_cast(DType from, DType to, Casting casting = Casting::Safe);

std::ostream& operator<<(std::ostream&, DType);

// ---- C++ type <-> DType -------------------------------------------------------------

template <class T>
struct is_complex_type : std::false_type {};
template <class T>
struct is_complex_type<std::complex<T>> : std::true_type {};

/// True for the C++ types that have a DType.
template <class T>
inline constexpr bool is_element_type_v =
    std::is_same_v<T, bool> || (std::is_integral_v<T> && sizeof(T) <= 8) ||
    std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

/// The DType of C++ element type T (compile-time error for other types).
template <class T>
constexpr DType dtype_of() {
  using U = std::remove_cv_t<T>;
  static_assert(is_element_type_v<U>, "no theano::DType for this C++ type");
  if constexpr (std::is_same_v<U, bool>) {
    return DType::Bool;
  } else if constexpr (std::is_integral_v<U>) {
    constexpr bool s = std::is_signed_v<U>;
    if constexpr (sizeof(U) == 1) return s ? DType::Int8 : DType::UInt8;
    else if constexpr (sizeof(U) == 2) return s ? DType::Int16 : DType::UInt16;
    else if constexpr (sizeof(U) == 4) return s ? DType::Int32 : DType::UInt32;
    else return s ? DType::Int64 : DType::UInt64;
  } else if constexpr (std::is_same_v<U, half>) {
    return DType::Float16;
  } else if constexpr (std::is_same_v<U, float>) {
    return DType::Float32;
  } else if constexpr (std::is_same_v<U, double>) {
    return DType::Float64;
  } else if constexpr (std::is_same_v<U, std::complex<float>>) {
    return DType::Complex64;
  } else {
    return DType::Complex128;
  }
}

/// Calls `f(std::type_identity<T>{})` with T the canonical C++ type of `dt`, and
/// returns what it returns (every branch must return the same type).
template <class F>
decltype(auto) visit_dtype(DType dt, F&& f) {
  switch (dt) {
    case DType::Bool: return std::forward<F>(f)(std::type_identity<bool>{});
    case DType::Int8: return std::forward<F>(f)(std::type_identity<int8_t>{});
    case DType::Int16: return std::forward<F>(f)(std::type_identity<int16_t>{});
    case DType::Int32: return std::forward<F>(f)(std::type_identity<int32_t>{});
    case DType::Int64: return std::forward<F>(f)(std::type_identity<int64_t>{});
    case DType::UInt8: return std::forward<F>(f)(std::type_identity<uint8_t>{});
    case DType::UInt16: return std::forward<F>(f)(std::type_identity<uint16_t>{});
    case DType::UInt32: return std::forward<F>(f)(std::type_identity<uint32_t>{});
    case DType::UInt64: return std::forward<F>(f)(std::type_identity<uint64_t>{});
    case DType::Float16: return std::forward<F>(f)(std::type_identity<half>{});
    case DType::Float32: return std::forward<F>(f)(std::type_identity<float>{});
    case DType::Float64: return std::forward<F>(f)(std::type_identity<double>{});
    case DType::Complex64: return std::forward<F>(f)(std::type_identity<std::complex<float>>{});
    case DType::Complex128: break;
  }
  return std::forward<F>(f)(std::type_identity<std::complex<double>>{});
}

}  // namespace theano
