/// \file
/// `theano::half`: IEEE 754 binary16 as a storage type.
///
/// Why: float16 arrays must be loadable from .npy, castable and printable, but we do
/// no arithmetic in half precision on the CPU (generated code widens to float). So the
/// type is a 16-bit pattern plus exact conversions: half -> float is exact, and
/// double/float -> half rounds to nearest, ties to even (as numpy's npy_double_to_half),
/// with overflow to +-inf and NaN kept NaN (quiet). Converting directly from double
/// avoids double rounding.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace theano {

struct half {
  uint16_t bits = 0;

  constexpr half() = default;
  /// Rounds to nearest even.
  explicit half(double v) : bits(from_double_bits(v)) {}
  explicit half(float v) : bits(from_double_bits(static_cast<double>(v))) {}

  static constexpr half from_bits(uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }

  explicit operator float() const { return to_float(bits); }
  explicit operator double() const { return static_cast<double>(to_float(bits)); }

  /// Bitwise equality would make +0 != -0; compare as floats (NaN != NaN).
  friend bool operator==(half a, half b) { return float(a) == float(b); }

  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t f;
    if (exp == 0x1f) {
      f = sign | 0x7f800000u | (mant << 13);  // inf or NaN (payload kept)
    } else if (exp != 0) {
      f = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant == 0) {
      f = sign;
    } else {  // subnormal half: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      f = sign | (static_cast<uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(f);
  }

  static uint16_t from_double_bits(double d) {
    const uint64_t x = std::bit_cast<uint64_t>(d);
    const uint16_t sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
    const int exp = static_cast<int>((x >> 52) & 0x7ff);
    const uint64_t mant = x & 0xfffffffffffffull;
    if (exp == 0x7ff) {                      // inf / NaN
      if (mant == 0) return sign | 0x7c00u;
      return sign | 0x7e00u | static_cast<uint16_t>(mant >> 42);
    }
    const int e = exp - 1023;                // unbiased
    if (e > 15) return sign | 0x7c00u;       // overflow -> inf
    if (e < -25) return sign;                // underflows to +-0 even after rounding
    // Significand with the implicit bit, 53 bits.
    uint64_t sig = (exp == 0 ? mant : (mant | (1ull << 52)));
    int shift;                               // bits to drop from the 53-bit significand
    uint16_t hexp;
    if (e < -14) {                           // half subnormal
      shift = 42 + (-14 - e);
      hexp = 0;
    } else {
      shift = 42;
      hexp = static_cast<uint16_t>(e + 15);
      sig &= (1ull << 52) - 1;               // drop implicit bit; carry handles overflow
    }
    uint64_t q = sig >> shift;
    const uint64_t rem = sig & ((1ull << shift) - 1);
    const uint64_t halfway = 1ull << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) ++q;
    // Rounding carry propagates naturally into the exponent (up to inf).
    return sign | static_cast<uint16_t>((static_cast<uint32_t>(hexp) << 10) + static_cast<uint32_t>(q));
  }
};

static_assert(sizeof(half) == 2);

}  // namespace theano
