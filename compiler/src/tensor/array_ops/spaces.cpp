// linspace, logspace and geomspace: arange(num) scaled and shifted, as
// NumPy computes them (the last value set to stop exactly with `endpoint`;
// geomspace's endpoints exact) (docs/array-ops.md).
#include <string>

#include "array_ops_util.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {
namespace {

/// v with its last element replaced by `last` (num >= 1).
Var with_last(const Var& v, std::int64_t num, const Var& last) {
  if (num == 1) return reshape(last, {1});
  return concatenate({v[slice(none, num - 1)], reshape(last, {1})});
}
/// v with its first element replaced by `first` (num >= 1).
Var with_first(const Var& v, std::int64_t num, const Var& first) {
  if (num == 1) return reshape(first, {1});
  return concatenate({reshape(first, {1}), v[slice(1, none)]});
}

/// linspace computed in float dtype `ct` (not cast to the result dtype).
Var linspace_in(const Var& start, const Var& stop, std::int64_t num, bool endpoint, DType ct, const char* what) {
  THEANO_USER_CHECK(num >= 0, ValueError) << what << ": num must be non-negative, got " << num;
  array_ops::check_scalar(start, what, "start");
  array_ops::check_scalar(stop, what, "stop");
  const Var s = cast(start, ct), e = cast(stop, ct);
  const std::int64_t div = endpoint ? num - 1 : num;
  const Var steps = constant(NDArray::arange(0, static_cast<double>(num), 1, ct));
  const Var delta = sub(e, s);
  Var y = div > 0 ? add(mul(steps, true_div(delta, array_ops::typed_const(static_cast<double>(div), ct))), s)
                  : add(mul(steps, delta), s);
  if (endpoint && num > 1) y = with_last(y, num, e);
  return y;
}

Var finish(const Var& y, DType dt) { return is_float(dt) ? cast(y, dt) : cast(floor(y), dt); }

}  // namespace

Var linspace(const TensorLike& start, const TensorLike& stop, std::int64_t num, bool endpoint,
             std::optional<DType> dtype) {
  const DType dt = dtype.value_or(config().floatX);
  return finish(linspace_in(start, stop, num, endpoint, array_ops::float_dtype(dt), "linspace"), dt);
}

Var logspace(const TensorLike& start, const TensorLike& stop, std::int64_t num, bool endpoint, double base,
             std::optional<DType> dtype) {
  const DType dt = dtype.value_or(config().floatX), ct = array_ops::float_dtype(dt);
  return finish(pow(array_ops::typed_const(base, ct), linspace_in(start, stop, num, endpoint, ct, "logspace")), dt);
}

Var geomspace(const TensorLike& start, const TensorLike& stop, std::int64_t num, bool endpoint,
              std::optional<DType> dtype) {
  const DType dt = dtype.value_or(config().floatX), ct = array_ops::float_dtype(dt);
  array_ops::check_scalar(start.var(), "geomspace", "start");
  array_ops::check_scalar(stop.var(), "geomspace", "stop");
  Var s = cast(start, ct), e = cast(stop, ct);
  const std::optional<double> cs = array_ops::constant_value(start.var()), ce = array_ops::constant_value(stop.var());
  if (cs && ce) {
    THEANO_USER_CHECK(*cs != 0 && *ce != 0, ValueError)
        << "geomspace: a geometric sequence cannot include zero (start " << *cs << ", stop " << *ce << ")";
    THEANO_USER_CHECK((*cs > 0) == (*ce > 0), ValueError)
        << "geomspace: start " << *cs << " and stop " << *ce
        << " have different signs (a complex sequence, not supported)";
  } else {
    s = array_ops::require(s, and_(and_(neq(s, 0), neq(e, 0)), eq(sign(s), sign(e))),
                           "geomspace: start and stop must be nonzero and of one sign");
  }
  const Var sg = sign(s);
  const Var as = mul(s, sg), ae = mul(e, sg);
  Var y =
      mul(pow(array_ops::typed_const(10.0, ct), linspace_in(log10(as), log10(ae), num, endpoint, ct, "geomspace")), sg);
  if (num > 0) y = with_first(y, num, s);
  if (num > 1 && endpoint) y = with_last(y, num, e);
  return finish(y, dt);
}

}  // namespace theano::tensor
