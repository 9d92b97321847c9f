// cov: the centred variables' products over the observations, divided by
// N - ddof (numpy.cov without weights) (docs/array-ops.md).
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {

Var cov(const TensorLike& xl, bool rowvar, bool bias, std::optional<int> ddof) {
  const Var& x = xl.var();
  THEANO_USER_CHECK(x.ndim() == 1 || x.ndim() == 2, ValueError)
      << "cov: " << x.str() << " must be 1-d or 2-d, got rank " << x.ndim();
  const DType ct = array_ops::float_dtype(x.dtype());
  Var m = cast(x.ndim() == 1 ? shape_padleft(x) : x, ct);
  if (!rowvar && x.ndim() == 2) m = transpose(m);
  const int d = ddof.value_or(bias ? 0 : 1);
  const Var centred = sub(m, mean(m, 1, true));
  const Var fact = cast(maximum(sub(shape_i(m, 1), d), 0), ct);
  const Var c = true_div(dot(centred, transpose(centred)), fact);
  // NumPy squeezes: one variable gives a 0-d result.
  return x.ndim() == 1 ? c[{0, 0}] : squeeze(c);
}

}  // namespace theano::tensor
