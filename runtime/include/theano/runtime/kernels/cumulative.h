/* \file
 * The kernels of CumOp (theano/tensor/extra_ops.h: cumsum, cumprod), written
 * ONCE, as plain C, for three readers: CumOp::perform includes this header,
 * and the code generator embeds this very file's text in the translation
 * units of graphs with a CumOp node and in the CUDA unit of its GPU form (one
 * thread a line), through CumOp's kernel form (Op::kernel_form, the Lines
 * kind; codegen/src/emit/lower/kernel_form.cpp), so every back end computes
 * exactly what perform computes.
 *
 * A kernel walks one line: the n elements x + i * xs (byte strides) along the
 * op's axis, writing the running sum / product to o + i * os. x and o may be
 * the same line (perform runs in place on a copy): element i is read before it
 * is written. Values accumulate in order in the element type, as NumPy's
 * cumsum / cumprod: float32 in float; integers wrap, computed in an unsigned
 * type at least 32 bits wide (no signed-overflow UB, no promotion to int).
 *
 * One kernel per mode and dtype: suffix f64, f32, i64, i32, i16, i8, u64,
 * u32, u16, u8 (theano_cumsum_f64, theano_cumprod_i8, ...).
 */
#ifndef THEANO_RUNTIME_KERNELS_CUMULATIVE_H
#define THEANO_RUNTIME_KERNELS_CUMULATIVE_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* T: the element type; U: the type the operation is computed in; OPNAME:
 * cumsum or cumprod; INIT: the identity; OP: + or *. */
#define THEANO_CUMULATIVE_KERNEL(T, U, SUFFIX, OPNAME, INIT, OP)                                            \
  static inline void theano_##OPNAME##_##SUFFIX(const char* x, int64_t xs, char* o, int64_t os, int64_t n) { \
    int64_t i;                                                                                            \
    T acc = (T)(INIT);                                                                                    \
    for (i = 0; i < n; ++i) {                                                                             \
      acc = (T)((U)acc OP(U) * (const T*)(x + i * xs));                                                   \
      *(T*)(o + i * os) = acc;                                                                            \
    }                                                                                                     \
  }
#define THEANO_CUMULATIVE(T, U, SUFFIX)                  \
  THEANO_CUMULATIVE_KERNEL(T, U, SUFFIX, cumsum, 0, +) \
  THEANO_CUMULATIVE_KERNEL(T, U, SUFFIX, cumprod, 1, *)

THEANO_CUMULATIVE(double, double, f64)
THEANO_CUMULATIVE(float, float, f32)
THEANO_CUMULATIVE(int64_t, uint64_t, i64)
THEANO_CUMULATIVE(int32_t, uint32_t, i32)
THEANO_CUMULATIVE(int16_t, uint32_t, i16)
THEANO_CUMULATIVE(int8_t, uint32_t, i8)
THEANO_CUMULATIVE(uint64_t, uint64_t, u64)
THEANO_CUMULATIVE(uint32_t, uint32_t, u32)
THEANO_CUMULATIVE(uint16_t, uint32_t, u16)
THEANO_CUMULATIVE(uint8_t, uint32_t, u8)

#endif /* THEANO_RUNTIME_KERNELS_CUMULATIVE_H */
