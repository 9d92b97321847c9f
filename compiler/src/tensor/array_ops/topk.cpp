// topk, argtopk, topk_and_argtopk (Theano's): ArgTopKOp's partial selection
// (the indices a stable argsort would give: the last |kth| reversed for
// kth > 0, the largest first, or the first |kth| for kth < 0), and the values
// taken along the axis, so the gradient scatters through AdvancedSubtensor1
// (docs/array-ops.md).
#include <cstdlib>
#include <string>

#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"

namespace theano::tensor {

std::pair<Var, Var> topk_and_argtopk(const TensorLike& xl, std::int64_t kth, int axis, bool sorted) {
  (void)sorted;  // always sorted: a valid order for sorted=false too
  const Var& x = xl.var();
  THEANO_USER_CHECK(kth != 0, ValueError) << "topk: kth must not be 0";
  THEANO_USER_CHECK(x.ndim() >= 1, ValueError) << "topk: " << x.str() << " must be at least 1-d, got rank 0";
  THEANO_USER_CHECK(kth != INT64_MIN, ValueError) << "topk: kth " << kth << " is out of range";
  const int a = array_ops::resolve_axis(x, axis, "topk");
  const std::int64_t k = kth < 0 ? -kth : kth;
  Var gate;  // the run-time check rides on a slice bound (see array_ops::gated)
  if (const Dim n = array_ops::static_dim(x, a)) {
    THEANO_USER_CHECK(k <= *n, ValueError)
        << "topk: |kth| = " << k << " exceeds the length " << *n << " of axis " << a << " of " << x.str();
  } else {
    const Var n_sym = shape_i(x, a);
    gate = array_ops::gate(le(k, n_sym),
                           "topk: |kth| = " + std::to_string(k) + " exceeds the length {} of axis " +
                               std::to_string(a) + " of " + array_ops::label(x),
                           {n_sym});
  }
  // The run-time check (k <= n) rides on the input, through an identity slice x[..., 0 + gate:].
  const Var xin = gate ? array_ops::along(x, a, slice(array_ops::gated(0, gate), none)) : x;
  const Var idx = OpPtr(new ArgTopKOp(a, kth))->apply1({xin});
  return {array_ops::gather_along(x, idx, a), idx};
}

Var topk(const TensorLike& x, std::int64_t kth, int axis, bool sorted) {
  return topk_and_argtopk(x, kth, axis, sorted).first;
}

Var argtopk(const TensorLike& x, std::int64_t kth, int axis, bool sorted) {
  return topk_and_argtopk(x, kth, axis, sorted).second;
}

}  // namespace theano::tensor
