/* \file
 * Float -> integer conversion as numpy does it on x86-64, written ONCE, as
 * plain C, for two readers: the host (scalar_cast.h, hence astype, item<T>
 * and every perform) includes it, and the code generator embeds this file's
 * text in the prelude of every generated translation unit
 * (codegen/CMakeLists.txt), so generated stores and perform convert alike.
 *
 * Why not a C cast: converting an out-of-range double (NaN, inf, 1e300) to an
 * integer type is undefined behaviour in C and C++, and what the hardware does
 * differs between scalar and vector instructions. numpy's answer on x86-64:
 * targets of <= 16 bits and int32 go through int32, int64 and uint32 through
 * int64, uint64 directly when in range; an out-of-range value becomes the
 * "integer indefinite" value (INT32_MIN / INT64_MIN) of the intermediate
 * type, which then wraps to the target width.
 */
#ifndef THEANO_RUNTIME_SCALAR_CONVERT_H
#define THEANO_RUNTIME_SCALAR_CONVERT_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* Truncation toward zero into int32; out of range (NaN included): INT32_MIN. */
static inline int32_t theano_f2i32(double v) {
  return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t)v : (int32_t)(-2147483647 - 1);
}
/* Truncation toward zero into int64; out of range (NaN included): INT64_MIN. */
static inline int64_t theano_f2i64(double v) {
  return (v > -9223372036854775809.0 && v < 9223372036854775808.0) ? (int64_t)v
                                                                   : (int64_t)(-9223372036854775807LL - 1);
}
/* Into uint64: direct in [0, 2^64), else through int64. */
static inline uint64_t theano_f2u64(double v) {
  if (v >= 0.0 && v < 18446744073709551616.0) return (uint64_t)v;
  return (uint64_t)theano_f2i64(v);
}

#endif /* THEANO_RUNTIME_SCALAR_CONVERT_H */
