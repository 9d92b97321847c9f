/// \file
/// numpy.bincount as a scatter-add (AdvancedIncSubtensor1) of ones or of the
/// weights into zeros of the run-time length max(max(x) + 1, minlength); the
/// gradient in the weights is the scatter's (a gather).
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

using array_ops::label;
using array_ops::require;
using array_ops::typed_const;

Var bincount(const TensorLike& x_in, const Var& weights, std::int64_t minlength) {
  Var x = x_in.var();
  const TensorType* tx = tensor_type(x);
  THEANO_USER_CHECK(tx->ndim() == 1 && is_integer(tx->dtype()), TypeError)
      << "bincount: x must be a vector of non-negative integers, got " << x.str() << " of type " << tx->str();
  THEANO_USER_CHECK(minlength >= 0, ValueError) << "bincount: minlength must be non-negative, got " << minlength;
  if (tx->dtype() != DType::Int64) x = cast(x, DType::Int64);
  // max and min over x with one more element, so an empty x needs no special case.
  const Var ext_max = max(concatenate({x, typed_const(-1, DType::Int64).dimshuffle({kNewAxis})}));
  const Var ext_min = min(concatenate({x, typed_const(0, DType::Int64).dimshuffle({kNewAxis})}));
  x = require(x, ge(ext_min, 0), "bincount: x must be non-negative, got the value {} in " + label(x_in.var()),
              {ext_min});
  const Var length = maximum(add(ext_max, 1), typed_const(static_cast<double>(minlength), DType::Int64));
  if (!weights) return inc_subtensor(zeros({length}, DType::Int64)[x], typed_const(1, DType::Int64));
  const TensorType* tw = tensor_type(weights);
  THEANO_USER_CHECK(tw && tw->ndim() == 1, TypeError)
      << "bincount: weights must be a vector like x, got " << weights.str() << " of type " << weights.type()->str();
  const Dim xs = tx->shape()[0], ws = tw->shape()[0];
  THEANO_USER_CHECK(!xs || !ws || *xs == *ws, ValueError)
      << "bincount: weights (" << *ws << " elements) and x (" << *xs << ") must have the same length";
  // NumPy sums weights in float64; a float32 weight vector keeps float32 (Theano's).
  const DType wd = tw->dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
  Var w = tw->dtype() == wd ? weights : cast(weights, wd);
  if (!xs || !ws)
    w = require(w, eq(shape_i(w, 0), shape_i(x, 0)),
                "bincount: weights ({} elements) and x ({}) must have the same length", {shape_i(w, 0), shape_i(x, 0)});
  return inc_subtensor(zeros({length}, wd)[x], w);
}

}  // namespace theano::tensor
