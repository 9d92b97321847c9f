// diff (repeated x[1:] - x[:-1] along an axis; not_equal for bool, as
// NumPy) and ptp (max - min) (docs/array-ops.md).
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"

namespace theano::tensor {

Var diff(const TensorLike& xl, int n, int axis) {
  const Var& x = xl.var();
  THEANO_USER_CHECK(n >= 0, ValueError) << "diff: order n must be non-negative, got " << n;
  THEANO_USER_CHECK(x.ndim() >= 1, ValueError) << "diff: " << x.str() << " must be at least 1-d, got rank 0";
  const int a = array_ops::resolve_axis(x, axis, "diff");
  Var v = x;
  for (int i = 0; i < n; ++i) {
    const Var hi = array_ops::along(v, a, slice(1, none)), lo = array_ops::along(v, a, slice(none, -1));
    v = v.dtype() == DType::Bool ? neq(hi, lo) : sub(hi, lo);
  }
  return v;
}

Var ptp(const TensorLike& x, const Axes& axes, bool keepdims) {
  (void)axes.resolve(x.var().ndim(), "ptp");
  return sub(max(x, axes, keepdims), min(x, axes, keepdims));
}

}  // namespace theano::tensor
