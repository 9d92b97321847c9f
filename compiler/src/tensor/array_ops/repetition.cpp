// tile and repeat: a size-1 axis inserted beside each repeated axis,
// broadcast by Alloc to the count, and merged by Reshape
// (docs/array-ops.md).
#include <algorithm>
#include <string>

#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {
namespace {

/// n * r as an int64 scalar, folded and overflow-checked when both are known.
Var size_times(const Var& x, int axis, const Var& r, const char* what) {
  const Dim n = array_ops::static_dim(x, axis);
  const std::optional<std::int64_t> rc = detail::constant_int(r);
  if (n && rc) return detail::int64_const(array_ops::checked_mul(*n, *rc, what));
  return mul(shape_i(x, axis), detail::as_int64(r));
}

}  // namespace

Var tile(const TensorLike& xl, const std::vector<std::int64_t>& reps_in) {
  Var x = xl.var();
  for (std::size_t i = 0; i < reps_in.size(); ++i)
    THEANO_USER_CHECK(reps_in[i] >= 0, ValueError) << "tile: reps[" << i << "] is negative (" << reps_in[i] << ")";
  const int d = std::max(x.ndim(), static_cast<int>(reps_in.size()));
  std::vector<std::int64_t> reps(static_cast<std::size_t>(d) - reps_in.size(), 1);
  reps.insert(reps.end(), reps_in.begin(), reps_in.end());
  if (x.ndim() < d) x = shape_padleft(x, d - x.ndim());
  std::vector<int> order;
  std::vector<TensorLike> big;
  std::vector<Var> merged;
  for (int j = 0; j < d; ++j) {
    order.push_back(kNewAxis);
    order.push_back(j);
    const Var r = detail::int64_const(reps[static_cast<std::size_t>(j)]);
    big.emplace_back(r);
    big.emplace_back(shape_i(x, j));
    merged.push_back(size_times(x, j, r, "tile"));
  }
  return reshape(alloc(dimshuffle(x, order), big), make_vector(merged), d);
}

Var repeat(const TensorLike& xl, const TensorLike& repeats, std::optional<int> axis) {
  Var x = xl.var();
  Var rv = repeats.var();
  THEANO_USER_CHECK(rv.ndim() <= 1 && is_integer(rv.dtype()), TypeError)
      << "repeat: repeats must be an integer or an integer vector, got " << rv.str() << " of type " << rv.type()->str();
  if (rv.ndim() == 1) {
    if (array_ops::static_dim(rv, 0) == Dim(1)) {
      rv = rv[0];  // one count for every element, as NumPy broadcasts it
    } else {
      const int a = axis ? array_ops::resolve_axis(x, *axis, "repeat") : 0;
      return array_ops::repeat_each(axis ? x : flatten(x, 1), rv, a);
    }
  }
  Var r = detail::as_int64(rv);
  if (const auto c = detail::constant_int(rv)) {
    THEANO_USER_CHECK(*c >= 0, ValueError) << "repeat: repeats must be non-negative, got " << *c;
    r = detail::int64_const(*c);
  } else {
    r = array_ops::require(r, ge(r, 0), "repeat: repeats must be non-negative, got {}", {r});
  }
  int a = 0;
  if (axis) {
    a = array_ops::resolve_axis(x, *axis, "repeat");
  } else {
    x = flatten(x, 1);
  }
  const int nd = x.ndim();
  std::vector<int> order;
  std::vector<TensorLike> big;
  std::vector<Var> merged;
  for (int j = 0; j < nd; ++j) {
    order.push_back(j);
    big.emplace_back(shape_i(x, j));
    if (j == a) {
      order.push_back(kNewAxis);
      big.emplace_back(r);
      merged.push_back(size_times(x, j, r, "repeat"));
    } else {
      merged.push_back(shape_i(x, j));
    }
  }
  return reshape(alloc(dimshuffle(x, order), big), make_vector(merged), nd);
}

}  // namespace theano::tensor
