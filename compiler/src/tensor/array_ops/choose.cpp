/// \file
/// numpy.compress (a gather of the positions where the condition holds:
/// Nonzero gives their run-time count) and numpy.choose (a chain of
/// elementwise selects, one fused loop; its gradient reaches each choice
/// where it was picked).
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

using array_ops::require;
using array_ops::typed_const;

Var compress(const TensorLike& condition, const TensorLike& x_in, std::optional<int> axis) {
  Var c = condition.var();
  const TensorType* tc = tensor_type(c);
  THEANO_USER_CHECK(tc->ndim() == 1, ValueError)
      << "compress: condition must be a vector, got " << c.str() << " of type " << tc->str();
  Var x = x_in.var();
  int ax = 0;
  if (axis)
    ax = array_ops::resolve_axis(x, *axis, "compress");
  else
    x = flatten(x, 1);
  const Dim cs = tc->shape()[0], xs = tensor_type(x)->shape()[static_cast<std::size_t>(ax)];
  THEANO_USER_CHECK(!cs || !xs || *cs <= *xs, IndexError)
      << "compress: condition has " << *cs << " entries, more than the " << *xs << " of the axis";
  if (!cs || !xs)
    c = require(c, le(shape_i(c, 0), shape_i(x, ax)), "compress: condition has {} entries, more than the {} of the axis",
                {shape_i(c, 0), shape_i(x, ax)});
  // Entries past the condition's end count as false (NumPy's truncation).
  return take(x, flatnonzero(c), ax);
}

Var choose(const TensorLike& a_in, const std::vector<TensorLike>& choices, std::string_view mode) {
  THEANO_USER_CHECK(mode == "raise" || mode == "wrap" || mode == "clip", ValueError)
      << "choose: mode must be \"raise\", \"wrap\" or \"clip\", got \"" << mode << "\"";
  THEANO_USER_CHECK(!choices.empty(), ValueError) << "choose: at least one choice is needed";
  Var a = a_in.var();
  THEANO_USER_CHECK(is_integer(tensor_type(a)->dtype()), TypeError)
      << "choose: a must be integers, got " << a.str() << " of type " << a.type()->str();
  if (tensor_type(a)->dtype() != DType::Int64) a = cast(a, DType::Int64);
  const auto n = static_cast<std::int64_t>(choices.size());
  const Var nv = typed_const(static_cast<double>(n), DType::Int64), zero = typed_const(0, DType::Int64);
  if (mode == "wrap")
    a = mod(a, nv);
  else if (mode == "clip")
    a = clip(a, zero, typed_const(static_cast<double>(n - 1), DType::Int64));
  else
    a = require(a, invert(any_(or_(lt(a, zero), ge(a, nv)))),
                "choose: invalid entry in choice array: a value is out of [0, {}) (mode \"raise\")", {nv});
  Var r = choices.back().var();
  for (std::int64_t k = n - 2; k >= 0; --k)
    r = switch_(eq(a, typed_const(static_cast<double>(k), DType::Int64)), choices[static_cast<std::size_t>(k)].var(), r);
  // A single choice still broadcasts against a.
  if (n == 1) r = switch_(eq(a, zero), r, r);
  return r;
}

}  // namespace theano::tensor
