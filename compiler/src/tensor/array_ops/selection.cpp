// max_and_argmax, take_along_axis (flat indices into the flattened array,
// then AdvancedSubtensor1, whose gradient scatters back) and to_one_hot
// (docs/array-ops.md).
#include <string>

#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

std::pair<Var, Var> max_and_argmax(const TensorLike& x, std::optional<int> axis) {
  if (axis) (void)array_ops::resolve_axis(x.var(), *axis, "max_and_argmax");
  return {axis ? max(x, *axis) : max(x), argmax(x, axis)};
}

Var take_along_axis(const TensorLike& xl, const TensorLike& idxl, std::optional<int> axis) {
  const Var& x = xl.var();
  const Var& idx = idxl.var();
  THEANO_USER_CHECK(is_integer(idx.dtype()), TypeError)
      << "take_along_axis: the indices " << idx.str() << " must be integers, got " << dtype_name(idx.dtype());
  if (!axis) {
    THEANO_USER_CHECK(idx.ndim() == 1, ValueError)
        << "take_along_axis: with no axis the indices must be 1-d, got rank " << idx.ndim();
    return take_along_axis(flatten(x, 1), idx, 0);
  }
  const int nd = x.ndim();
  THEANO_USER_CHECK(idx.ndim() == nd, ValueError)
      << "take_along_axis: the indices " << idx.str() << " have rank " << idx.ndim() << ", " << x.str() << " has rank "
      << nd << "; they must match";
  const int a = array_ops::resolve_axis(x, *axis, "take_along_axis");
  for (int d = 0; d < nd; ++d) {
    if (d == a) continue;
    const Dim dx = array_ops::static_dim(x, d), di = array_ops::static_dim(idx, d);
    THEANO_USER_CHECK(!dx || !di || *di == 1 || *dx == 1 || *di == *dx, ValueError)
        << "take_along_axis: axis " << d << " of the indices has size " << *di << ", of " << x.str() << " " << *dx;
  }
  const Var n = shape_i(x, a);
  Var i = detail::as_int64(idx);
  i = array_ops::require(i, all_(and_(ge(i, neg(n)), lt(i, n))),
                         "take_along_axis: an index is out of range for axis " + std::to_string(a) + " of " +
                             array_ops::label(x) + " (size {})",
                         {n});
  return array_ops::gather_along(x, switch_(lt(i, 0), add(i, n), i), a);
}

namespace array_ops {

Var gather_along(const Var& x, const Var& idx, int a) {
  const int nd = x.ndim();
  // The output's shape: idx's along the axis and on the axes where x's static
  // size is 1 (x broadcasts there: coordinate 0), else x's (idx broadcasts).
  auto x_broadcasts = [&](int d) { return d != a && static_dim(x, d) == Dim(1); };
  std::vector<TensorLike> out_shape;
  for (int d = 0; d < nd; ++d) out_shape.emplace_back(d == a || x_broadcasts(d) ? shape_i(idx, d) : shape_i(x, d));
  const Var i = alloc(idx, out_shape);
  // Flat C-order position of each element: sum over axes of coordinate * stride.
  Var flat;
  Var stride = detail::int64_const(1);
  for (int d = nd - 1; d >= 0; --d) {
    Var coord;
    if (x_broadcasts(d)) {
      continue;  // coordinate 0; x's stride there is a size-1 dimension's
    } else if (d == a) {
      coord = i;
    } else {
      std::vector<int> order(static_cast<std::size_t>(nd), kNewAxis);
      order[static_cast<std::size_t>(d)] = 0;
      coord = dimshuffle(arange(shape_i(x, d)), order);
    }
    const Var term = mul(coord, stride);
    flat = flat ? add(flat, term) : term;
    stride = mul(stride, shape_i(x, d));
  }
  const Var picked = advanced_subtensor1(flatten(x, 1), flatten(flat, 1));
  return detail::match_static_shape(reshape(picked, shape(i), nd), i);
}

}  // namespace array_ops

Var to_one_hot(const TensorLike& yl, const TensorLike& nb_class, std::optional<DType> dtype) {
  const Var& y = yl.var();
  THEANO_USER_CHECK(y.ndim() == 1 && is_integer(y.dtype()), TypeError)
      << "to_one_hot: y must be an integer vector, got " << y.str() << " of type " << y.type()->str();
  detail::check_int_scalar(nb_class.var(), "to_one_hot", "nb_class");
  if (auto c = detail::constant_int(nb_class.var()))
    THEANO_USER_CHECK(*c >= 0, ValueError) << "to_one_hot: nb_class must be non-negative, got " << *c;
  const Var nb = detail::as_int64(nb_class.var());
  Var yi = detail::as_int64(y);
  yi = array_ops::require(yi, all_(and_(ge(yi, 0), lt(yi, nb))),
                          "to_one_hot: a label of " + array_ops::label(y) + " is outside [0, {}) (nb_class)", {nb});
  return cast(eq(dimshuffle(yi, {0, kNewAxis}), arange(nb)), dtype.value_or(config().floatX));
}

}  // namespace theano::tensor
