// broadcast_to, broadcast_arrays, full and full_like: Alloc and Theano's
// `second` (a value broadcast against another), so shape checks and
// gradients are theirs (docs/array-ops.md).
#include <string>

#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {

Var broadcast_to(const TensorLike& xl, const std::vector<TensorLike>& shape) {
  const Var& x = xl.var();
  THEANO_USER_CHECK(static_cast<int>(shape.size()) >= x.ndim(), ValueError)
      << "broadcast_to: the target shape has " << shape.size() << " dimensions, fewer than the " << x.ndim() << " of "
      << x.str();
  const int off = static_cast<int>(shape.size()) - x.ndim();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    detail::check_int_scalar(shape[i].var(), "broadcast_to", "shape entry " + std::to_string(i));
    const std::optional<std::int64_t> c = detail::constant_int(shape[i].var());
    if (!c) continue;
    THEANO_USER_CHECK(*c >= 0, ValueError) << "broadcast_to: shape entry " << i << " is negative (" << *c << ")";
    const int j = static_cast<int>(i) - off;
    if (j < 0) continue;
    const Dim d = array_ops::static_dim(x, j);
    THEANO_USER_CHECK(!d || *d == 1 || *d == *c, ValueError)
        << "broadcast_to: axis " << j << " of " << x.str() << " has size " << *d << ", which cannot be broadcast to "
        << *c << " (shape entry " << i << ")";
  }
  return alloc(x, shape);
}

std::vector<Var> broadcast_arrays(const std::vector<Var>& xs) {
  std::vector<Var> out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    Var v = as_tensor_variable(xs[i]);
    for (std::size_t j = 0; j < xs.size(); ++j)
      if (j != i) v = second(xs[j], v);
    out.push_back(v);
  }
  return out;
}

Var full(const std::vector<TensorLike>& shape, const TensorLike& value, std::optional<DType> dtype) {
  array_ops::check_scalar(value.var(), "full", "value");
  const Var v = dtype ? cast(value, *dtype) : value.var();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    detail::check_int_scalar(shape[i].var(), "full", "shape entry " + std::to_string(i));
    const std::optional<std::int64_t> c = detail::constant_int(shape[i].var());
    THEANO_USER_CHECK(!c || *c >= 0, ValueError) << "full: shape entry " << i << " is negative (" << *c << ")";
  }
  return alloc(v, shape);
}

Var full_like(const TensorLike& xl, const TensorLike& value, std::optional<DType> dtype) {
  const Var& x = xl.var();
  array_ops::check_scalar(value.var(), "full_like", "value");
  const Var v = cast(value, dtype.value_or(x.dtype()));
  std::vector<TensorLike> shape;
  for (int d = 0; d < x.ndim(); ++d) shape.emplace_back(shape_i(x, d));
  return alloc(v, shape);
}

}  // namespace theano::tensor
