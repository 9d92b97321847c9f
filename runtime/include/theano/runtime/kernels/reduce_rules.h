/* \file
 * The fold rules of the reductions, written ONCE for three readers:
 * CAReduce::perform and ArgReduce::perform (compiler/src/tensor/reduction/)
 * call these functions, and the code generator embeds this very file's text
 * in the units of graphs with a reduction node, the C++ lowering's
 * (codegen/src/emit/lower/reduction.cpp) and the CUDA one's
 * (gpu_reduction.cpp; NVRTC compiles every function for the device,
 * -default-device), whose generated folds call the same functions.
 *
 * Per accumulator type, suffix S (f64, f32, i64, i32, i16, i8, u64, u32, u16,
 * u8; b: bool values held in an int), THEANO_REDUCE_RULES_<S> defines for
 * each scalar op OP of CAReduce (add, mul, mul_nz = the product without
 * zeros, max, min; the b type also all, any: and, or):
 *   theano_reduce_OP_S(a, v)        the fold of accumulator a and element v;
 *   theano_reduce_OP_join_S(a, b)   the join of two partial folds (the lanes
 *                                   of a vectorized or parallel fold);
 *   theano_reduce_OP_id_S()         the identity (the fold of nothing);
 * and for Argmax / Argmin (OP max or min):
 *   theano_arg_OP_better_S(best, v) whether element v replaces the best so
 *                                   far in a scan in order;
 *   theano_arg_OP_takes_S(xv, xi, yv, yi)  whether the (value, index) pair y
 *                                   replaces x when two partial scans join
 *                                   (index -1: no element yet).
 *
 * The rules (NumPy's): integer add / mul wrap (computed in uint64_t, so no
 * signed-overflow UB); floats fold in their own type; the b type's add and
 * max are or, its mul and min are and; max / min propagate NaN (`v != v`);
 * Argmax / Argmin keep the first occurrence and the first NaN wins, whatever
 * the association order of the joins.
 *
 * Which accumulator a node folds in is the caller's choice (the compute
 * dtype): perform folds in CAReduce's accumulator dtype (careduce.cpp),
 * generated code sums integers in 64 bits and floats in double
 * (codegen/src/emit/lower/reduce_code.h).
 *
 * Readers instantiate the types they use, as softmax.h's kernels: perform
 * every type (THEANO_REDUCE_RULES_ALL), a generated unit those of its nodes
 * (one THEANO_REDUCE_RULES_<S> line each), so the text a unit compiles stays
 * small.
 */
#ifndef THEANO_RUNTIME_KERNELS_REDUCE_RULES_H
#define THEANO_RUNTIME_KERNELS_REDUCE_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

#ifndef THEANO_INF
#define THEANO_INF __builtin_inf()
#define THEANO_NAN __builtin_nan("")
#endif

/* Argmax / Argmin over values of type A (any S). */
#define THEANO_ARG_RULES(A, S)                                                                             \
  static inline int theano_arg_max_better_##S(A best, A v) { return best == best && (v != v || v > best); } \
  static inline int theano_arg_min_better_##S(A best, A v) { return best == best && (v != v || v < best); } \
  static inline int theano_arg_max_takes_##S(A xv, int64_t xi, A yv, int64_t yi) {                         \
    if (yi < 0) return 0;                                                                                  \
    if (xi < 0) return 1;                                                                                  \
    if (xv != xv || yv != yv) return (xv != xv && yv != yv) ? yi < xi : yv != yv;                          \
    return yv > xv || (yv == xv && yi < xi);                                                               \
  }                                                                                                        \
  static inline int theano_arg_min_takes_##S(A xv, int64_t xi, A yv, int64_t yi) {                         \
    if (yi < 0) return 0;                                                                                  \
    if (xi < 0) return 1;                                                                                  \
    if (xv != xv || yv != yv) return (xv != xv && yv != yv) ? yi < xi : yv != yv;                          \
    return yv < xv || (yv == xv && yi < xi);                                                               \
  }

/* A numeric accumulator type A, its arithmetic done in U (uint64_t for the
 * integers: wrapping), LO / HI its lowest and highest values (the
 * identities of max and min). */
#define THEANO_REDUCE_NUMERIC(A, U, S, LO, HI)                                                           \
  static inline A theano_reduce_add_##S(A a, A v) { return (A)((U)a + (U)v); }                           \
  static inline A theano_reduce_add_join_##S(A a, A b) { return theano_reduce_add_##S(a, b); }           \
  static inline A theano_reduce_add_id_##S(void) { return (A)0; }                                        \
  static inline A theano_reduce_mul_##S(A a, A v) { return (A)((U)a * (U)v); }                           \
  static inline A theano_reduce_mul_join_##S(A a, A b) { return theano_reduce_mul_##S(a, b); }           \
  static inline A theano_reduce_mul_id_##S(void) { return (A)1; }                                        \
  static inline A theano_reduce_mul_nz_##S(A a, A v) { return v == 0 ? a : theano_reduce_mul_##S(a, v); } \
  static inline A theano_reduce_mul_nz_join_##S(A a, A b) { return theano_reduce_mul_##S(a, b); }        \
  static inline A theano_reduce_mul_nz_id_##S(void) { return (A)1; }                                     \
  static inline A theano_reduce_max_##S(A a, A v) { return (v > a || v != v) ? v : a; }                  \
  static inline A theano_reduce_max_join_##S(A a, A b) { return theano_reduce_max_##S(a, b); }           \
  static inline A theano_reduce_max_id_##S(void) { return (A)(LO); }                                     \
  static inline A theano_reduce_min_##S(A a, A v) { return (v < a || v != v) ? v : a; }                  \
  static inline A theano_reduce_min_join_##S(A a, A b) { return theano_reduce_min_##S(a, b); }           \
  static inline A theano_reduce_min_id_##S(void) { return (A)(HI); }                                     \
  THEANO_ARG_RULES(A, S)

/* Bool values (0 / 1) in an int: every fold is an or or an and. */
#define THEANO_REDUCE_BOOL(S, OP, F, ID)                                       \
  static inline int theano_reduce_##OP##_##S(int a, int v) { return F; }       \
  static inline int theano_reduce_##OP##_join_##S(int a, int v) { return F; }  \
  static inline int theano_reduce_##OP##_id_##S(void) { return ID; }

#define THEANO_REDUCE_RULES_f64 THEANO_REDUCE_NUMERIC(double, double, f64, -THEANO_INF, THEANO_INF)
#define THEANO_REDUCE_RULES_f32 THEANO_REDUCE_NUMERIC(float, float, f32, -(float)THEANO_INF, (float)THEANO_INF)
#define THEANO_REDUCE_RULES_i64 \
  THEANO_REDUCE_NUMERIC(int64_t, uint64_t, i64, (-9223372036854775807LL - 1), 9223372036854775807LL)
#define THEANO_REDUCE_RULES_i32 THEANO_REDUCE_NUMERIC(int32_t, uint64_t, i32, (-2147483647 - 1), 2147483647)
#define THEANO_REDUCE_RULES_i16 THEANO_REDUCE_NUMERIC(int16_t, uint64_t, i16, -32768, 32767)
#define THEANO_REDUCE_RULES_i8 THEANO_REDUCE_NUMERIC(int8_t, uint64_t, i8, -128, 127)
#define THEANO_REDUCE_RULES_u64 THEANO_REDUCE_NUMERIC(uint64_t, uint64_t, u64, 0, 18446744073709551615ULL)
#define THEANO_REDUCE_RULES_u32 THEANO_REDUCE_NUMERIC(uint32_t, uint64_t, u32, 0, 4294967295U)
#define THEANO_REDUCE_RULES_u16 THEANO_REDUCE_NUMERIC(uint16_t, uint64_t, u16, 0, 65535)
#define THEANO_REDUCE_RULES_u8 THEANO_REDUCE_NUMERIC(uint8_t, uint64_t, u8, 0, 255)
#define THEANO_REDUCE_RULES_b                       \
  THEANO_REDUCE_BOOL(b, add, a | v, 0)              \
  THEANO_REDUCE_BOOL(b, mul, a & v, 1)              \
  THEANO_REDUCE_BOOL(b, max, a | v, 0)              \
  THEANO_REDUCE_BOOL(b, min, a & v, 1)              \
  THEANO_REDUCE_BOOL(b, all, a & v, 1)              \
  THEANO_REDUCE_BOOL(b, any, a | v, 0)               \
  static inline int theano_reduce_mul_nz_b(int a, int v) { return v == 0 ? a : (a & v); } \
  static inline int theano_reduce_mul_nz_join_b(int a, int v) { return a & v; } \
  static inline int theano_reduce_mul_nz_id_b(void) { return 1; } \
  THEANO_ARG_RULES(int, b)

#define THEANO_REDUCE_RULES_ALL                                                                       \
  THEANO_REDUCE_RULES_f64 THEANO_REDUCE_RULES_f32 THEANO_REDUCE_RULES_i64 THEANO_REDUCE_RULES_i32      \
  THEANO_REDUCE_RULES_i16 THEANO_REDUCE_RULES_i8 THEANO_REDUCE_RULES_u64 THEANO_REDUCE_RULES_u32       \
  THEANO_REDUCE_RULES_u16 THEANO_REDUCE_RULES_u8 THEANO_REDUCE_RULES_b

#endif /* THEANO_RUNTIME_KERNELS_REDUCE_RULES_H */
