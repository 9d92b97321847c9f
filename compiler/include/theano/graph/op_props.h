/// \file
/// THEANO_OP_PROPS: an Op's props declared once. Each `(TYPE, NAME)` entry
/// declares the member `NAME_`, its accessor `NAME()` and its place in
/// `props()` as `{"NAME", value}`, from which Op derives equality, the hash,
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
/// members are). Up to twelve entries, in the order `props()` lists them.
///
/// The value of an entry: the member itself when PropValue takes it (bool, an
/// integer type, double, std::string, std::vector<std::int64_t>, DType), a
/// `std::vector<int>` as the Ints it holds, an int -> int SmallMap as its
/// pairs flattened, else `theano_prop_value(member)`,
/// a function declared beside the member's type and found by argument-
/// dependent lookup (e.g. a SparseFormat's "csr" text, an index list's
/// printed form): how a type appears as a prop is written once, by the type.
///
/// `(TYPE, NAME, OMITTED_WHEN)`: the entry is left out of `props()` while the
/// member equals OMITTED_WHEN, so a prop added to an op later does not change
/// the printed name and the request keys of the ops that do not use it
/// (`(bool, of_index, false)`, `(std::optional<DType>, dtype, std::nullopt)`;
/// an optional's value is its contents).
///
/// TYPE is written without a comma (an alias where it needs one).
#pragma once

#include "theano/graph/op.h"

namespace theano::detail {

inline PropValue prop_value(const std::vector<int>& v) { return std::vector<std::int64_t>(v.begin(), v.end()); }
/// An int -> int map (Elemwise's inplace pattern): its pairs flattened, key then value.
inline PropValue prop_value(const SmallMap<int, int>& m) {
  std::vector<std::int64_t> flat;
  for (auto [k, v] : m) {
    flat.push_back(k);
    flat.push_back(v);
  }
  return flat;
}
template <class T>
PropValue prop_value(const T& v) {
  if constexpr (std::is_constructible_v<PropValue, const T&>)
    return PropValue(v);
  else
    return theano_prop_value(v);  // declared beside T (argument-dependent lookup)
}
template <class T>
PropValue prop_value(const std::optional<T>& v) {
  return prop_value(v.value());
}

template <class T>
void add_prop(Props& props, const char* name, const T& v) {
  props.push_back({name, prop_value(v)});
}
template <class T, class U>
void add_prop(Props& props, const char* name, const T& v, const U& omitted_when) {
  if (!(v == omitted_when)) add_prop(props, name, v);
}

}  // namespace theano::detail

#define THEANO_PP_CAT_(a, b) a##b
#define THEANO_PP_CAT(a, b) THEANO_PP_CAT_(a, b)
#define THEANO_PP_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, N, ...) N
#define THEANO_PP_NARG(...) THEANO_PP_NARG_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define THEANO_PP_FOR_EACH_1(M, a) M a
#define THEANO_PP_FOR_EACH_2(M, a, ...) M a THEANO_PP_FOR_EACH_1(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_3(M, a, ...) M a THEANO_PP_FOR_EACH_2(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_4(M, a, ...) M a THEANO_PP_FOR_EACH_3(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_5(M, a, ...) M a THEANO_PP_FOR_EACH_4(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_6(M, a, ...) M a THEANO_PP_FOR_EACH_5(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_7(M, a, ...) M a THEANO_PP_FOR_EACH_6(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_8(M, a, ...) M a THEANO_PP_FOR_EACH_7(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_9(M, a, ...) M a THEANO_PP_FOR_EACH_8(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_10(M, a, ...) M a THEANO_PP_FOR_EACH_9(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_11(M, a, ...) M a THEANO_PP_FOR_EACH_10(M, __VA_ARGS__)
#define THEANO_PP_FOR_EACH_12(M, a, ...) M a THEANO_PP_FOR_EACH_11(M, __VA_ARGS__)
/// `M(T, N)` (or `M(T, N, D)`) for each parenthesized argument, in order.
#define THEANO_PP_FOR_EACH(M, ...) THEANO_PP_CAT(THEANO_PP_FOR_EACH_, THEANO_PP_NARG(__VA_ARGS__))(M, __VA_ARGS__)

#define THEANO_OP_PROP_ENTRY(TYPE, NAME, ...) \
  ::theano::detail::add_prop(theano_props_, #NAME, NAME##_ __VA_OPT__(, ) __VA_ARGS__);
#define THEANO_OP_PROP_ACCESSOR(TYPE, NAME, ...) \
  const TYPE& NAME() const { return NAME##_; }
#define THEANO_OP_PROP_MEMBER(TYPE, NAME, ...) TYPE NAME##_;

#define THEANO_OP_PROPS(...)                                  \
 public:                                                      \
  ::theano::Props props() const override {                    \
    ::theano::Props theano_props_;                            \
    THEANO_PP_FOR_EACH(THEANO_OP_PROP_ENTRY, __VA_ARGS__)     \
    return theano_props_;                                     \
  }                                                           \
  THEANO_PP_FOR_EACH(THEANO_OP_PROP_ACCESSOR, __VA_ARGS__)    \
                                                              \
 private:                                                     \
  THEANO_PP_FOR_EACH(THEANO_OP_PROP_MEMBER, __VA_ARGS__)
