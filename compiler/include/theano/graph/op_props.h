/// \file
/// THEANO_OP_PROPS: an Op's props declared once. Each `(TYPE, NAME)` entry
/// declares the member `NAME_`, its accessor `NAME()` and its place in
/// `props()` as `{"NAME", NAME_}`, from which Op derives equality, the hash,
/// the printed name `Type{v1,v2}` and the op's part of a function request's
/// key (theano/graph/op.h). Before it, a prop was written four times: the
/// constructor parameter, the member, `props()` and the accessor; now the
/// constructor and this line.
///
///     class Gemm final : public Op {
///      public:
///       explicit Gemm(bool inplace = false) : inplace_(inplace) {}
///       THEANO_OP_DECLARE("Gemm")
///       ...
///       THEANO_OP_PROPS((bool, inplace))
///     };
///
/// Write it last in the class: it leaves the access specifier private (the
/// members are). TYPE must be a type PropValue takes (bool, an integer type,
/// double, std::string, DType) written without a comma; up to four entries.
#pragma once

#include "theano/graph/op.h"

#define THEANO_PP_CAT_(a, b) a##b
#define THEANO_PP_CAT(a, b) THEANO_PP_CAT_(a, b)
#define THEANO_PP_NARG_(_1, _2, _3, _4, N, ...) N
#define THEANO_PP_NARG(...) THEANO_PP_NARG_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define THEANO_PP_FOR_EACH_1(M, a) M a
#define THEANO_PP_FOR_EACH_2(M, a, ...) M a THEANO_PP_FOR_EACH_1(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_3(M, a, ...) M a THEANO_PP_FOR_EACH_2(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_4(M, a, ...) M a THEANO_PP_FOR_EACH_3(M, __VA_ARGS__)
/// `M(T, N)` for each parenthesized `(T, N)` argument, in order.
#define THEANO_PP_FOR_EACH(M, ...) THEANO_PP_CAT(THEANO_PP_FOR_EACH_, THEANO_PP_NARG(__VA_ARGS__))(M, __VA_ARGS__)

#define THEANO_OP_PROP_ENTRY(TYPE, NAME) ::theano::Prop{#NAME, ::theano::PropValue(NAME##_)},
#define THEANO_OP_PROP_ACCESSOR(TYPE, NAME) \
  const TYPE& NAME() const { return NAME##_; }
#define THEANO_OP_PROP_MEMBER(TYPE, NAME) TYPE NAME##_;

#define THEANO_OP_PROPS(...)                                                                                 \
 public:                                                                                                     \
  ::theano::Props props() const override { return {THEANO_PP_FOR_EACH(THEANO_OP_PROP_ENTRY, __VA_ARGS__)}; } \
  THEANO_PP_FOR_EACH(THEANO_OP_PROP_ACCESSOR, __VA_ARGS__)                                                   \
                                                                                                             \
 private:                                                                                                    \
  THEANO_PP_FOR_EACH(THEANO_OP_PROP_MEMBER, __VA_ARGS__)
