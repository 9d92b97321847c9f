// roll: the axis cut at n - (shift mod n) and the two pieces joined in the
// other order (Subtensor + Join); the shift may be symbolic
// (docs/array-ops.md).
#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

Var roll(const TensorLike& xl, const TensorLike& shift, std::optional<int> axis) {
  const Var& x = xl.var();
  detail::check_int_scalar(shift.var(), "roll", "shift");
  if (!axis) {
    if (x.ndim() <= 1) return x.ndim() == 0 ? x : roll(x, shift, 0);
    return detail::match_static_shape(reshape(roll(flatten(x, 1), shift, 0), shape(x), x.ndim()), x);
  }
  const int a = array_ops::resolve_axis(x, *axis, "roll");
  const Dim n_static = array_ops::static_dim(x, a);
  const std::optional<std::int64_t> s_const = detail::constant_int(shift.var());
  if (n_static && s_const) {
    const std::int64_t n = *n_static;
    if (n == 0) return x;
    const std::int64_t s = ((*s_const % n) + n) % n;
    if (s == 0) return x;
    return concatenate({array_ops::along(x, a, slice(n - s, none)), array_ops::along(x, a, slice(none, n - s))}, a);
  }
  // Python's % with a positive divisor is non-negative; max(n, 1) keeps an
  // empty axis (where any cut gives x back) from dividing by zero.
  const Var n = shape_i(x, a);
  const Var s = mod(detail::as_int64(shift.var()), maximum(n, 1));
  const Var cut = n - s;
  const Var out = concatenate({array_ops::along(x, a, slice(cut, none)), array_ops::along(x, a, slice(none, cut))}, a);
  return detail::match_static_shape(out, x);
}

Var roll(const TensorLike& x, const std::vector<TensorLike>& shifts, const std::vector<int>& axes) {
  THEANO_USER_CHECK(shifts.size() == axes.size() || (shifts.size() == 1 && !axes.empty()), ValueError)
      << "roll: " << shifts.size() << " shifts for " << axes.size() << " axes (give one shift, or one per axis)";
  Var v = x.var();
  for (std::size_t i = 0; i < axes.size(); ++i) v = roll(v, shifts[shifts.size() == 1 ? 0 : i], axes[i]);
  return v;
}

}  // namespace theano::tensor
