// squeeze, expand_dims, swapaxes, moveaxis and flip: DimShuffle and
// negative-step Subtensor views, with NumPy's axis rules (docs/array-ops.md).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

Var squeeze(const TensorLike& xl, const Axes& axes) {
  const Var& x = xl.var();
  const int nd = x.ndim();
  std::vector<int> drop;
  if (axes.is_all()) {
    for (int d = 0; d < nd; ++d)
      if (array_ops::static_dim(x, d) == Dim(1)) drop.push_back(d);
  } else {
    drop = axes.resolve(nd, "squeeze");
  }
  Var v = x;
  StaticShape spec(static_cast<std::size_t>(nd));
  bool specify = false;
  for (int d : drop) {
    if (const Dim s = array_ops::static_dim(x, d)) {
      THEANO_USER_CHECK(*s == 1, ValueError)
          << "squeeze: axis " << d << " of " << x.str() << " has size " << *s << ", not 1";
      continue;
    }
    const Var n = shape_i(x, d);
    v = array_ops::require(
        v, eq(n, 1), "squeeze: axis " + std::to_string(d) + " of " + array_ops::label(x) + " has size {}, not 1", {n});
    spec[static_cast<std::size_t>(d)] = 1;
    specify = true;
  }
  if (specify) v = specify_shape(v, spec);
  std::vector<int> order;
  for (int d = 0; d < nd; ++d)
    if (std::find(drop.begin(), drop.end(), d) == drop.end()) order.push_back(d);
  return dimshuffle(v, order);
}

Var expand_dims(const TensorLike& xl, const Axes& axes) {
  const Var& x = xl.var();
  THEANO_USER_CHECK(!axes.is_all(), ValueError) << "expand_dims: give the positions of the new axes";
  const int out_nd = x.ndim() + static_cast<int>(axes.axes->size());
  const std::vector<int> added = axes.resolve(out_nd, "expand_dims");
  std::vector<int> order;
  int next = 0;
  for (int p = 0; p < out_nd; ++p)
    order.push_back(std::find(added.begin(), added.end(), p) != added.end() ? kNewAxis : next++);
  return dimshuffle(x, order);
}

Var swapaxes(const TensorLike& xl, int axis1, int axis2) {
  const Var& x = xl.var();
  const int a = array_ops::resolve_axis(x, axis1, "swapaxes"), b = array_ops::resolve_axis(x, axis2, "swapaxes");
  std::vector<int> perm(static_cast<std::size_t>(x.ndim()));
  for (int d = 0; d < x.ndim(); ++d) perm[static_cast<std::size_t>(d)] = d;
  std::swap(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]);
  return transpose(x, perm);
}

Var moveaxis(const TensorLike& xl, const std::vector<int>& source, const std::vector<int>& destination) {
  const Var& x = xl.var();
  THEANO_USER_CHECK(source.size() == destination.size(), ValueError)
      << "moveaxis: source has " << source.size() << " axes and destination " << destination.size()
      << "; they must have the same number of elements";
  // resolve() sorts; keep the pairing by resolving one axis at a time, then
  // checking for repeats as a whole.
  std::vector<std::pair<int, int>> moves;  // (destination, source)
  std::vector<int> src, dst;
  for (std::size_t i = 0; i < source.size(); ++i) {
    src.push_back(array_ops::resolve_axis(x, source[i], "moveaxis"));
    dst.push_back(array_ops::resolve_axis(x, destination[i], "moveaxis"));
    moves.emplace_back(dst.back(), src.back());
  }
  (void)Axes(src).resolve(x.ndim(), "moveaxis (source)");
  (void)Axes(dst).resolve(x.ndim(), "moveaxis (destination)");
  std::vector<int> order;
  for (int d = 0; d < x.ndim(); ++d)
    if (std::find(src.begin(), src.end(), d) == src.end()) order.push_back(d);
  std::sort(moves.begin(), moves.end());
  for (const auto& [d, s] : moves) order.insert(order.begin() + d, s);
  return transpose(x, order);
}

Var moveaxis(const TensorLike& x, int source, int destination) {
  return moveaxis(x, std::vector<int>{source}, std::vector<int>{destination});
}

Var flip(const TensorLike& xl, const Axes& axes) {
  const Var& x = xl.var();
  const std::vector<int> rev = axes.resolve(x.ndim(), "flip");
  if (rev.empty()) return x;
  std::vector<Index> idx;
  for (int d = 0; d <= rev.back(); ++d)
    idx.emplace_back(std::find(rev.begin(), rev.end(), d) != rev.end() ? slice(none, none, -1) : all);
  return subtensor(x, idx);
}

}  // namespace theano::tensor
