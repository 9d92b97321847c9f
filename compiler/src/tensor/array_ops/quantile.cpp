// quantile, percentile, median: NumPy's "linear" method on the sorted
// values, lerp(a, b, t) written as NumPy does (from b when t >= 0.5), NaN
// where a reduced line holds one (docs/array-ops.md).
#include <limits>
#include <sstream>
#include <string>

#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"

namespace theano::tensor {
namespace {

Var quantiles(const Var& x0, const std::vector<double>& qs, bool many, std::optional<int> axis, bool keepdims,
              const char* what) {
  THEANO_USER_CHECK(!qs.empty(), ValueError) << what << ": give at least one q";
  Var x = x0;
  int a = 0;
  if (axis) {
    a = array_ops::resolve_axis(x, *axis, what);
  } else {
    x = flatten(x, 1);
  }
  const DType ct = array_ops::float_dtype(x.dtype());
  x = cast(x, ct);
  Var n = shape_i(x, a);
  if (const Dim ns = array_ops::static_dim(x, a)) {
    THEANO_USER_CHECK(*ns > 0, ValueError) << what << ": axis " << a << " of " << x0.str() << " is empty";
  } else {  // the check on the length, not on x (see array_ops::gated)
    n = array_ops::require(
        n, gt(n, 0),
        std::string(what) + ": axis " + std::to_string(a) + " of " + array_ops::label(x0) + " is empty (size {})", {n});
  }
  const Var s = sort(x, a);
  const Var last = sub(n, 1);
  const Var has_nan = any_(isnan(x), a);
  std::vector<Var> outs;
  for (double q : qs) {
    const Var pos = mul(array_ops::typed_const(q, ct), cast(last, ct));
    const Var lo_f = floor(pos);
    const Var t = sub(pos, lo_f);
    const Var lo = cast(lo_f, DType::Int64);
    const Var hi = minimum(add(lo, 1), last);
    const Var va = array_ops::along(s, a, Index(lo)), vb = array_ops::along(s, a, Index(hi));
    const Var d = sub(vb, va);
    Var r = switch_(ge(t, 0.5), sub(vb, mul(d, sub(1, t))), add(va, mul(d, t)));
    r = switch_(has_nan, array_ops::typed_const(std::numeric_limits<double>::quiet_NaN(), ct), r);
    if (keepdims) {
      if (axis) {
        r = expand_dims(r, a);
      } else {
        std::vector<int> order(static_cast<std::size_t>(x0.ndim()), kNewAxis);
        r = dimshuffle(r, order);
      }
    }
    outs.push_back(r);
  }
  return many ? stack(outs, 0) : outs[0];
}

void check_q(double q, double hi, const char* what) {
  THEANO_USER_CHECK(q >= 0 && q <= hi, ValueError) << what << ": q must be in [0, " << hi << "], got " << q;
}

}  // namespace

Var quantile(const TensorLike& x, double q, std::optional<int> axis, bool keepdims) {
  check_q(q, 1, "quantile");
  return quantiles(x, {q}, false, axis, keepdims, "quantile");
}

Var quantile(const TensorLike& x, const std::vector<double>& q, std::optional<int> axis, bool keepdims) {
  for (double v : q) check_q(v, 1, "quantile");
  return quantiles(x, q, true, axis, keepdims, "quantile");
}

Var percentile(const TensorLike& x, double q, std::optional<int> axis, bool keepdims) {
  check_q(q, 100, "percentile");
  return quantiles(x, {q / 100}, false, axis, keepdims, "percentile");
}

Var percentile(const TensorLike& x, const std::vector<double>& q, std::optional<int> axis, bool keepdims) {
  std::vector<double> f;
  for (double v : q) {
    check_q(v, 100, "percentile");
    f.push_back(v / 100);
  }
  return quantiles(x, f, true, axis, keepdims, "percentile");
}

Var median(const TensorLike& x, std::optional<int> axis, bool keepdims) {
  return quantiles(x, {0.5}, false, axis, keepdims, "median");
}

}  // namespace theano::tensor
