// round_half_away_from_zero (trunc, then one step away from zero when the
// dropped part is at least a half: exact, unlike floor(x + 0.5)) and Theano's
// iround (docs/array-ops.md).
#include <string>

#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/math.h"

namespace theano::tensor {

Var round_half_away_from_zero(const TensorLike& xl) {
  const Var& x = xl.var();
  if (!is_float(x.dtype())) return x;
  const Var t = trunc(x);
  return switch_(ge(abs(sub(x, t)), 0.5), add(t, sign(x)), t);
}

Var iround(const TensorLike& x, std::string_view mode) {
  THEANO_USER_CHECK(mode == "half_away_from_zero" || mode == "half_to_even", ValueError)
      << "iround: mode must be 'half_away_from_zero' or 'half_to_even', got '" << std::string(mode) << "'";
  if (!is_float(x.var().dtype())) return cast(x, DType::Int64);
  return cast(mode == "half_to_even" ? round(x) : round_half_away_from_zero(x), DType::Int64);
}

}  // namespace theano::tensor
