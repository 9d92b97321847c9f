// isclose / allclose (NumPy's formula |a - b| <= atol + rtol |b| for finite
// values, equality for infinities, NaN by equal_nan) and nan_to_num, as
// elementwise graphs (docs/array-ops.md).
#include <limits>

#include "array_ops_util.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"

namespace theano::tensor {
namespace {

Var finite(const Var& v) { return invert(or_(isnan(v), isinf(v))); }

}  // namespace

Var isclose(const TensorLike& al, const TensorLike& bl, double rtol, double atol, bool equal_nan) {
  const DType dt = array_ops::float_dtype(promote_types(al.var().dtype(), bl.var().dtype()));
  const Var a = cast(al, dt), b = cast(bl, dt);
  const Var tol = add(array_ops::typed_const(atol, dt), mul(array_ops::typed_const(rtol, dt), abs(b)));
  Var r = switch_(and_(finite(a), finite(b)), le(abs(sub(a, b)), tol), eq(a, b));
  if (equal_nan) r = or_(r, and_(isnan(a), isnan(b)));
  return r;
}

Var allclose(const TensorLike& a, const TensorLike& b, double rtol, double atol, bool equal_nan) {
  return all_(isclose(a, b, rtol, atol, equal_nan));
}

Var nan_to_num(const TensorLike& xl, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  const Var& x = xl.var();
  const DType dt = x.dtype();
  if (!is_float(dt)) return x;
  const double big = dt == DType::Float32   ? std::numeric_limits<float>::max()
                     : dt == DType::Float16 ? 65504.0
                                            : std::numeric_limits<double>::max();
  const Var pos = array_ops::typed_const(posinf.value_or(big), dt);
  const Var negv = array_ops::typed_const(neginf.value_or(-big), dt);
  const Var inf = isinf(x);
  return switch_(isnan(x), array_ops::typed_const(nan, dt), switch_(and_(inf, gt(x, 0)), pos, switch_(inf, negv, x)));
}

}  // namespace theano::tensor
