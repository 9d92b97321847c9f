/// \file
/// Private helpers of the array utilities (compiler/src/tensor/array_ops/):
/// axis normalization with errors naming the function, slicing along one
/// axis, typed scalar constants, overflow-checked static sizes, and
/// `require`, the run-time check (an Assert) used when a value is symbolic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/dtype.h"
#include "theano/tensor/index.h"
#include "theano/tensor/type.h"

namespace theano::tensor::array_ops {

/// `axis` made non-negative for `x`; ValueError "`what`: axis A is out of
/// range for x of rank N" otherwise.
int resolve_axis(const Var& x, int axis, const char* what);
/// The static size of `x`'s axis, when its type knows it.
Dim static_dim(const Var& x, int axis);
/// `x[:, ..., :, s]` with `s` on `axis`.
Var along(const Var& x, int axis, const Index& s);
/// A 0-d constant of `dtype` holding `v`.
Var typed_const(double v, DType dtype);
/// The value of a 0-d numeric Constant, else nullopt.
std::optional<double> constant_value(const Var& v);
/// a * b, a ValueError naming `what` when it overflows int64.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what);
/// `x`'s dtype when it is a float, else float64 (NumPy's result of a
/// floating computation on integers).
DType float_dtype(DType d);
/// TypeError naming `what` unless `x` is 0-d.
void check_scalar(const Var& x, const char* what, const char* arg);
/// repeat with a vector of counts (one per element of x along axis `a`,
/// checked at run time: the length, >= 0, the total fits int64).
Var repeat_each(const Var& x, const Var& repeats, int a);
/// take_along_axis without its checks: `idx` (int64, x's rank, each index in
/// [0, n) on `axis`, other axes equal to x's or of size 1) is trusted.
Var gather_along(const Var& x, const Var& idx, int axis);
/// A slice bound or index `c` that, when `gate` is set (an int64 0 passed
/// through an Assert), carries the check: `c + gate`. Putting a run-time check
/// on a bound rather than on the data keeps the data's path free of Assert
/// (a host op), so the ops on it keep their GPU forms.
Var gated(std::int64_t c, const Var& gate);
/// An int64 0 behind an Assert of `cond` (see `require`).
Var gate(const Var& cond, const std::string& message, const std::vector<Var>& values = {});
/// `x.str()` for an Assert message: braces become parentheses, so a printed
/// name such as `Assert{msg='...'}.out` adds no "{}" place to the message.
std::string label(const Var& x);
/// `x` passed through an Assert of `cond` (a 0-d bool); the message has one
/// "{}" per value (at most 3 integer scalars).
Var require(const Var& x, const Var& cond, const std::string& message, const std::vector<Var>& values = {});

}  // namespace theano::tensor::array_ops
