// perform's view of the reductions' fold rules
// (theano/runtime/kernels/reduce_rules.h, the text generated code calls):
// FoldRules<T> names the rules of compute type T, so perform's templates pick
// them by type. Not a public header.
#pragma once

#include <cstdint>

#include "theano/runtime/kernels/reduce_rules.h"

namespace theano::tensor::detail {

THEANO_REDUCE_RULES_ALL

/// FoldRules<T>::OP(a, v) folds element v into accumulator a, OP_id() is the
/// identity (OP: add, mul, mul_nz, max, min; bool also all, any);
/// arg_max_better / arg_min_better(best, v): whether v replaces the best so
/// far in Argmax / Argmin.
template <class T>
struct FoldRules;

#define THEANO_FOLD_RULE(T, OP, S)                                                            \
  static T OP(T a, T v) { return static_cast<T>(theano_reduce_##OP##_##S(a, v)); }         \
  static T OP##_id() { return static_cast<T>(theano_reduce_##OP##_id_##S()); }
#define THEANO_FOLD_RULES(T, S, MORE)                                                           \
  template <>                                                                                   \
  struct FoldRules<T> {                                                                         \
    THEANO_FOLD_RULE(T, add, S)                                                                 \
    THEANO_FOLD_RULE(T, mul, S)                                                                 \
    THEANO_FOLD_RULE(T, mul_nz, S)                                                              \
    THEANO_FOLD_RULE(T, max, S)                                                                 \
    THEANO_FOLD_RULE(T, min, S)                                                                 \
    MORE                                                                                        \
    static bool arg_max_better(T best, T v) { return theano_arg_max_better_##S(best, v) != 0; } \
    static bool arg_min_better(T best, T v) { return theano_arg_min_better_##S(best, v) != 0; } \
  };
THEANO_FOLD_RULES(double, f64, )
THEANO_FOLD_RULES(float, f32, )
THEANO_FOLD_RULES(int64_t, i64, )
THEANO_FOLD_RULES(int32_t, i32, )
THEANO_FOLD_RULES(int16_t, i16, )
THEANO_FOLD_RULES(int8_t, i8, )
THEANO_FOLD_RULES(uint64_t, u64, )
THEANO_FOLD_RULES(uint32_t, u32, )
THEANO_FOLD_RULES(uint16_t, u16, )
THEANO_FOLD_RULES(uint8_t, u8, )
THEANO_FOLD_RULES(bool, b, THEANO_FOLD_RULE(bool, all, b) THEANO_FOLD_RULE(bool, any, b))
#undef THEANO_FOLD_RULES
#undef THEANO_FOLD_RULE

}  // namespace theano::tensor::detail
