// DType names, sizes, kinds, half conversions, and numpy's promotion / casting rules:
// the full 14x14 tables below were printed by numpy 2.4 (numpy.promote_types and
// numpy.can_cast with 'safe' / 'same_kind'), so any disagreement is a bug here.
#include <doctest/doctest.h>

#include <complex>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"
#include "theano/runtime/scalar_cast.h"

using namespace theano;

namespace {
const char* const kNames[] = {"bool",    "int8",    "int16",   "int32",     "int64",
                              "uint8",   "uint16",  "uint32",  "uint64",    "float16",
                              "float32", "float64", "complex64", "complex128"};

const char* const kPromote[14][14] = {
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int8", "int8", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int16", "int16", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"int32", "int32", "int32", "int32", "int64", "int32", "int32", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint8", "int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"uint16", "int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64", "float32", "float32", "float64", "complex64", "complex128"},
    {"uint32", "int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint64", "float64", "float64", "float64", "float64", "uint64", "uint64", "uint64", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"float16", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"float32", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"complex64", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
    {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128"},
};

const char* const kSafe[14] = {
    "11111111111111", "01111000011111", "00111000001111", "00011000000101", "00001000000101",
    "00111111111111", "00011011101111", "00001001100101", "00000000100101", "00000000011111",
    "00000000001111", "00000000000101", "00000000000011", "00000000000001"};
const char* const kSameKind[14] = {
    "11111111111111", "01111000011111", "01111000011111", "01111000011111", "01111000011111",
    "01111111111111", "01111111111111", "01111111111111", "01111111111111", "00000000011111",
    "00000000011111", "00000000011111", "00000000000011", "00000000000011"};
}  // namespace

TEST_CASE("dtype names, sizes and kinds") {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    CHECK(dtype_name(d) == kNames[i]);
    CHECK(dtype_from_name(kNames[i]) == d);
  }
  CHECK(dtype_size(DType::Bool) == 1);
  CHECK(dtype_size(DType::Float16) == 2);
  CHECK(dtype_size(DType::UInt32) == 4);
  CHECK(dtype_size(DType::Complex64) == 8);
  CHECK(dtype_size(DType::Complex128) == 16);
  CHECK(is_bool(DType::Bool));
  CHECK_FALSE(is_integer(DType::Bool));
  CHECK(is_integer(DType::Int8));
  CHECK(is_integer(DType::UInt64));
  CHECK(is_unsigned(DType::UInt16));
  CHECK_FALSE(is_unsigned(DType::Int16));
  CHECK(is_float(DType::Float16));
  CHECK_FALSE(is_float(DType::Complex64));
  CHECK(is_complex(DType::Complex128));
  std::ostringstream os;
  os << DType::UInt16;
  CHECK(os.str() == "uint16");
}

TEST_CASE("dtype_from_name rejects unknown names with the list of valid ones") {
  CHECK_THROWS_WITH_AS(dtype_from_name("float65"),
                       doctest::Contains("unknown dtype 'float65'; expected one of: bool, int8"),
                       ValueError);
  CHECK_THROWS_WITH_AS(dtype_from_name(""), doctest::Contains("complex128"), ValueError);
}

TEST_CASE("dtype_of maps C++ types") {
  static_assert(dtype_of<double>() == DType::Float64);
  static_assert(dtype_of<long long>() == DType::Int64);
  static_assert(dtype_of<unsigned char>() == DType::UInt8);
  static_assert(dtype_of<const int32_t>() == DType::Int32);
  static_assert(dtype_of<half>() == DType::Float16);
  static_assert(dtype_of<std::complex<float>>() == DType::Complex64);
  static_assert(dtype_of<bool>() == DType::Bool);
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    const std::size_t s = visit_dtype(d, [](auto tag) { return sizeof(typename decltype(tag)::type); });
    CHECK(s == dtype_size(d));
  }
}

TEST_CASE("promote_types matches numpy for every pair") {
  for (int i = 0; i < 14; ++i)
    for (int j = 0; j < 14; ++j) {
      CAPTURE(kNames[i]);
      CAPTURE(kNames[j]);
      CHECK(dtype_name(promote_types(static_cast<DType>(i), static_cast<DType>(j))) == kPromote[i][j]);
    }
  // The spot checks the brief names.
  CHECK(promote_types(DType::Int64, DType::UInt64) == DType::Float64);
  CHECK(promote_types(DType::Int8, DType::UInt8) == DType::Int16);
  CHECK(promote_types(DType::Float16, DType::Int16) == DType::Float32);
}

TEST_CASE("can_cast matches numpy for every pair") {
  for (int i = 0; i < 14; ++i)
    for (int j = 0; j < 14; ++j) {
      const auto a = static_cast<DType>(i), b = static_cast<DType>(j);
      CAPTURE(kNames[i]);
      CAPTURE(kNames[j]);
      CHECK(can_cast(a, b, Casting::Safe) == (kSafe[i][j] == '1'));
      CHECK(can_cast(a, b) == (kSafe[i][j] == '1'));
      CHECK(can_cast(a, b, Casting::SameKind) == (kSameKind[i][j] == '1'));
      CHECK(can_cast(a, b, Casting::No) == (i == j));
      CHECK(can_cast(a, b, Casting::Equiv) == (i == j));
      CHECK(can_cast(a, b, Casting::Unsafe));
    }
}

TEST_CASE("half conversions") {
  CHECK(half(1.0).bits == 0x3c00);
  CHECK(half(-2.0).bits == 0xc000);
  CHECK(half(65504.0).bits == 0x7bff);                 // max finite
  CHECK(half(65520.0).bits == 0x7c00);                 // rounds to inf
  CHECK(half(1e6).bits == 0x7c00);
  CHECK(half(5.960464477539063e-08).bits == 0x0001);   // smallest subnormal
  CHECK(half(2.98e-08).bits == 0x0000);                // just below half of it
  CHECK(half(0.1).bits == 0x2e66);                     // numpy: np.float16(0.1).view('u2') == 0x2e66
  CHECK(half(1.0 + 1.0 / 2048).bits == 0x3c00);        // tie -> even
  CHECK(half(1.0 + 3.0 / 2048).bits == 0x3c02);        // tie -> even (up)
  CHECK(std::isnan(float(half(std::nan("")))));
  CHECK(float(half::from_bits(0x3555)) == doctest::Approx(0.33325195));
  CHECK(float(half::from_bits(0x0001)) == std::ldexp(1.0f, -24));
  CHECK(float(half::from_bits(0xfc00)) == -std::numeric_limits<float>::infinity());
  // Every finite half survives half -> float -> half.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto h = half::from_bits(static_cast<uint16_t>(b));
    if (std::isnan(float(h))) continue;
    REQUIRE(half(float(h)).bits == h.bits);
  }
}

TEST_CASE("scalar_cast follows numpy's unsafe casting") {
  CHECK(scalar_cast<int32_t>(-2.7) == -2);
  CHECK(scalar_cast<int32_t>(2.7) == 2);
  CHECK(scalar_cast<uint8_t>(300) == 44);
  CHECK(scalar_cast<int8_t>(200.0) == -56);
  CHECK(scalar_cast<bool>(0.5) == true);
  CHECK(scalar_cast<bool>(std::complex<double>(0, 1)) == true);
  CHECK(scalar_cast<double>(std::complex<double>(3, 4)) == 3.0);
  CHECK(scalar_cast<int64_t>(std::nan("")) == std::numeric_limits<int64_t>::min());
  CHECK(scalar_cast<int32_t>(3e9) == std::numeric_limits<int32_t>::min());
  CHECK(scalar_cast<uint64_t>(1.8446744073709550e19) == 18446744073709549568ull);
  CHECK(scalar_cast<float>(half(0.5)) == 0.5f);
  CHECK(scalar_cast<half>(true).bits == 0x3c00);
  CHECK(scalar_cast<std::complex<float>>(2) == std::complex<float>(2, 0));
}
