/// \file
/// numpy.unique as a graph: a stable argsort, the flags of the sorted run
/// starts, their positions (Nonzero, the run-time length), then gathers for
/// the values and first indices, a cumulative sum scattered back through the
/// permutation for the inverse, and differences of the run starts for the
/// counts. With an axis: the slices along it sorted lexicographically by
/// stable argsorts from the last column to the first (the other axes' size
/// must be static), runs found by comparing neighbouring slices.
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/extra_ops.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

using array_ops::typed_const;

namespace {

/// The largest static product of the other axes unique(axis=) unrolls its
/// lexicographic sort over (one argsort per column).
constexpr std::int64_t kMaxUniqueColumns = 64;

Var i64(std::int64_t v) { return typed_const(static_cast<double>(v), DType::Int64); }

/// The results from the sorted keys' order `perm` (L entries) and `differs`
/// (L - 1 bools: entry j + 1 starts a new run).
std::vector<Var> from_runs(const Var& values_source, const Var& perm, const Var& differs, const Var& len,
                           bool return_index, bool return_inverse, bool return_counts, const Var& inverse_shape,
                           int inverse_ndim) {
  // flags[0] is true unless there is no element at all.
  const Var first = alloc(typed_const(1, DType::Bool), {minimum(len, i64(1))});
  const Var flags = concatenate({first, differs});
  const Var starts = flatnonzero(flags);
  std::vector<Var> r{take(values_source, take(perm, starts, 0), 0)};
  if (return_index) r.push_back(take(perm, starts, 0));
  if (return_inverse) {
    const Var run = sub(cumsum(cast(flags, DType::Int64)), i64(1));
    Var inv = set_subtensor(zeros({len}, DType::Int64)[perm], run);
    if (inverse_shape) inv = reshape(inv, inverse_shape, inverse_ndim);
    r.push_back(inv);
  }
  if (return_counts) r.push_back(diff(concatenate({starts, len.dimshuffle({kNewAxis})})));
  return r;
}

}  // namespace

std::vector<Var> unique(const TensorLike& x_in, bool return_index, bool return_inverse, bool return_counts,
                        std::optional<int> axis) {
  const Var x = x_in.var();
  const TensorType* tx = tensor_type(x);
  if (!axis) {
    const Var f = flatten(x, 1);
    const Var perm = argsort(f, 0);
    const Var s = take(f, perm, 0);
    const Var a = s[{slice(1, none)}], b = s[{slice(none, -1)}];
    Var differs = neq(a, b);
    if (is_float(tx->dtype())) differs = and_(differs, invert(and_(isnan(a), isnan(b))));  // NaNs are one value
    return from_runs(f, perm, differs, shape_i(f, 0), return_index, return_inverse, return_counts,
                     tx->ndim() == 1 ? Var() : shape(x), tx->ndim());
  }
  const int ax = array_ops::resolve_axis(x, *axis, "unique");
  // The slices along the axis as the rows of a matrix.
  std::vector<int> order{ax};
  std::int64_t cols = 1;
  for (int d = 0; d < tx->ndim(); ++d) {
    if (d == ax) continue;
    order.push_back(d);
    const Dim s = tx->shape()[static_cast<std::size_t>(d)];
    THEANO_USER_CHECK(s.has_value(), ValueError)
        << "unique: with axis=" << *axis << ", the sizes of " << x.str()
        << "'s other axes must be known when the graph is built (one sort per column), axis " << d
        << " is not (type " << tx->str() << ")";
    cols = array_ops::checked_mul(cols, *s, "unique: the product of the other axes");
  }
  THEANO_USER_CHECK(cols <= kMaxUniqueColumns, ValueError)
      << "unique: with axis=" << *axis << ", at most " << kMaxUniqueColumns
      << " elements per slice are supported (one sort per column), got " << cols;
  const Var moved = dimshuffle(x, order);
  const Var rows = reshape(moved, make_vector({shape_i(moved, 0), i64(cols)}, DType::Int64), 2);
  const Var len = shape_i(rows, 0);
  // Lexicographic order: stable sorts by each column, the last column first.
  Var perm = arange(len, DType::Int64);
  for (std::int64_t c = cols - 1; c >= 0; --c) {
    const Var key = take(rows[{all, c}], perm, 0);
    perm = take(perm, argsort(key, 0), 0);
  }
  const Var sorted = take(rows, perm, 0);
  Var differs;
  if (cols == 0)
    differs = alloc(typed_const(0, DType::Bool), {maximum(sub(len, i64(1)), i64(0))});
  else
    differs = any_(neq(sorted[{slice(1, none)}], sorted[{slice(none, -1)}]), Axes(1));
  std::vector<Var> r = from_runs(moved, perm, differs, len, return_index, return_inverse, return_counts, Var(), 1);
  // The values back in x's axis order.
  std::vector<int> back(static_cast<std::size_t>(tx->ndim()));
  for (int i = 0; i < tx->ndim(); ++i) back[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  r[0] = dimshuffle(r[0], back);
  return r;
}

Var unique(const TensorLike& x) { return unique(x, false, false, false)[0]; }

}  // namespace theano::tensor
