/// \file
/// Theano's fill_diagonal and fill_diagonal_offset as a set_subtensor of a
/// strided slice of the flattened array (NumPy's a.flat[start:end:step] =
/// val), reshaped back; their gradients are those of the slice update (a
/// with the diagonal zeroed, val the diagonal's sum).
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

using array_ops::require;
using array_ops::typed_const;

namespace {

Var scalar_value(const Var& a, const TensorLike& val, const char* what) {
  Var v = val.var();
  THEANO_USER_CHECK(tensor_type(v)->ndim() == 0, TypeError)
      << what << ": val must be a scalar (Theano's), got " << v.str() << " of type " << v.type()->str();
  const DType d = tensor_type(a)->dtype();
  return tensor_type(v)->dtype() == d ? v : cast(v, d);
}

Var set_flat(const Var& a, const Slice& s, const Var& val) {
  const Var flat = flatten(a, 1);
  return reshape(set_subtensor(flat[{s}], val), shape(a), tensor_type(a)->ndim());
}

}  // namespace

Var fill_diagonal(const TensorLike& a_in, const TensorLike& val) {
  Var a = a_in.var();
  const TensorType* ta = tensor_type(a);
  const int nd = ta->ndim();
  THEANO_USER_CHECK(nd >= 2, ValueError)
      << "fill_diagonal: a must have rank 2 or more, got " << a.str() << " of type " << ta->str();
  const Var v = scalar_value(a, val, "fill_diagonal");
  const Var m = shape_i(a, 1);
  if (nd == 2)  // a tall matrix does not wrap: the flat slice ends at m * m
    return set_flat(a, slice(none, mul(m, m), add(m, 1)), v);
  // Every axis of one length d: the step is 1 + d + d^2 + ... + d^(nd-1).
  std::vector<Var> same;
  for (int k = 1; k < nd; ++k) {
    const Dim s0 = ta->shape()[0], sk = ta->shape()[static_cast<std::size_t>(k)];
    THEANO_USER_CHECK(!s0 || !sk || *s0 == *sk, ValueError)
        << "fill_diagonal: every axis of a must have the same length when its rank is above 2, got " << ta->str();
    same.push_back(eq(shape_i(a, k), shape_i(a, 0)));
  }
  a = require(a, all_(stack(same)), "fill_diagonal: every axis of a must have the same length when its rank is "
                                    "above 2; axis 0 has {}",
              {shape_i(a, 0)});
  const Var d = shape_i(a, 0);
  Var step = typed_const(1, DType::Int64), power = typed_const(1, DType::Int64);
  for (int k = 1; k < nd; ++k) {
    power = mul(power, d);
    step = add(step, power);
  }
  return set_flat(a, slice(none, none, step), v);
}

Var fill_diagonal_offset(const TensorLike& a_in, const TensorLike& val, const TensorLike& offset_in) {
  const Var a = a_in.var();
  THEANO_USER_CHECK(tensor_type(a)->ndim() == 2, ValueError)
      << "fill_diagonal_offset: a must be a matrix, got " << a.str() << " of type " << a.type()->str();
  const Var v = scalar_value(a, val, "fill_diagonal_offset");
  Var off = offset_in.var();
  THEANO_USER_CHECK(tensor_type(off)->ndim() == 0 && is_integer(tensor_type(off)->dtype()), TypeError)
      << "fill_diagonal_offset: offset must be an integer scalar, got " << off.str() << " of type "
      << off.type()->str();
  off = cast(off, DType::Int64);
  const Var n = shape_i(a, 0), m = shape_i(a, 1), zero = typed_const(0, DType::Int64);
  // Above the diagonal (offset >= 0) it starts at column offset of row 0, below at row -offset.
  const Var above = ge(off, zero);
  const Var start = switch_(above, off, mul(neg(off), m));
  const Var count = maximum(zero, switch_(above, minimum(n, sub(m, off)), minimum(add(n, off), m)));
  const Var step = add(m, 1);
  return set_flat(a, slice(start, add(start, mul(count, step)), step), v);
}

}  // namespace theano::tensor
