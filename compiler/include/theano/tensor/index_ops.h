/// \file
/// NumPy's index-producing and value-dependent array functions: nonzero,
/// flatnonzero, argwhere, unique, bincount, searchsorted, fill_diagonal,
/// ravel_multi_index / unravel_index, compress and choose.
///
/// Two ops are new here. `Nonzero` is the one op whose output's size depends
/// on its input's values: generated code counts, allocates the output at run
/// time and fills it (kernels/nonzero.h); boolean masks (`x[mask]`) and every
/// function below whose result length is data-dependent (unique, compress,
/// argwhere) go through it. `SearchSorted` is a binary search per value
/// (kernels/searchsorted.h). The rest are compositions of existing ops
/// (sorting, cumulative sums, Alloc, AdvancedIncSubtensor1, the elementwise
/// table), so their gradients and C++ forms are those ops' (docs/array-ops.md,
/// "Value-dependent shapes").
///
/// Conventions as array_ops.h: NumPy's semantics and argument order; bad
/// arguments known when the graph is built are a ValueError / TypeError
/// naming the function; those known only at run time are checked by an Assert
/// whose message names the function and the values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

/// `Nonzero`: a bool tensor of rank >= 1 -> the int64 matrix (ndim, count)
/// of its true elements' coordinates in C order (Theano's Nonzero with
/// return_matrix). Not differentiable (an integer output). No infer_shape:
/// the count is known only once the node has run (the shape feature reads it
/// from the output).
class Nonzero final : public Op {
 public:
  static constexpr std::string_view theano_declared_kind = "Nonzero";
  std::string_view type_name() const override { return theano_declared_kind; }
  ApplyPtr make_node(std::vector<Var> inputs) const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// `SearchSorted{side}`: inputs a (a sorted vector), v (any rank), and
/// optionally sorter (an integer vector ordering a) -> int64 of v's shape:
/// where each v would go in a to keep it sorted (NumPy's searchsorted; NaN
/// sorts last).
class SearchSorted final : public Op {
 public:
  explicit SearchSorted(bool right = false) : right_(right) {}
  THEANO_OP_DECLARE("SearchSorted")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((bool, right))
};

/// numpy.nonzero: one int64 vector per axis of x (rank >= 1), the
/// coordinates of x's nonzero elements in C order (NaN is nonzero).
std::vector<Var> nonzero(const TensorLike& x);
/// numpy.flatnonzero: the positions of the nonzero elements of x.ravel().
Var flatnonzero(const TensorLike& x);
/// numpy.argwhere: the (count, ndim) int64 matrix of nonzero coordinates
/// (a 0-d x counts as one element: (1, 0) or (0, 0)).
Var argwhere(const TensorLike& x);

/// numpy.bincount: x a vector of non-negative integers; out[i] = the count
/// (or the sum of `weights`) of x == i, of length max(max(x) + 1, minlength).
/// A negative x or minlength is a ValueError / an Assert at run time.
/// Differentiable in weights.
Var bincount(const TensorLike& x, const Var& weights = Var(), std::int64_t minlength = 0);

/// numpy.unique: the sorted distinct values of x (flattened when axis is
/// none; with an axis, the distinct slices along it in lexicographic order);
/// results {values, then as asked: index (first occurrence, int64), inverse
/// (int64, x's size or the axis's length), counts (int64)}. NaNs compare
/// equal (NumPy's equal_nan=True).
std::vector<Var> unique(const TensorLike& x, bool return_index, bool return_inverse, bool return_counts,
                        std::optional<int> axis = std::nullopt);
Var unique(const TensorLike& x);

/// numpy.searchsorted: side "left" (a[i-1] < v <= a[i]) or "right"
/// (a[i-1] <= v < a[i]); `sorter` an integer vector with a[sorter] sorted
/// (each entry checked to be in range at run time).
Var searchsorted(const TensorLike& a, const TensorLike& v, std::string_view side = "left",
                 const Var& sorter = Var());

/// numpy.fill_diagonal (Theano's fill_diagonal): a (rank >= 2; every axis of
/// one length when rank > 2) with its main diagonal set to the scalar val;
/// a tall matrix does not wrap (NumPy's wrap=False). Gradient: a's with the
/// diagonal zeroed, val's the diagonal's sum.
Var fill_diagonal(const TensorLike& a, const TensorLike& val);
/// Theano's fill_diagonal_offset: a matrix with its diagonal `offset` (an
/// integer scalar; > 0 above the main one) set to the scalar val.
Var fill_diagonal_offset(const TensorLike& a, const TensorLike& val, const TensorLike& offset);

/// numpy.ravel_multi_index: the flat indices of the coordinate arrays
/// (broadcast together) in an array of shape `dims`; order 'C' or 'F'; mode
/// "raise" (out of range is an Assert naming the axis), "wrap" or "clip".
Var ravel_multi_index(const std::vector<TensorLike>& multi_index, const std::vector<TensorLike>& dims,
                      std::string_view mode = "raise", char order = 'C');
/// numpy.unravel_index: the coordinate arrays (one per entry of dims) of the
/// flat `indices`; out of range [0, prod(dims)) is an Assert at run time.
std::vector<Var> unravel_index(const TensorLike& indices, const std::vector<TensorLike>& dims, char order = 'C');

/// numpy.compress: the slices of x along axis (x flattened when none) where
/// the boolean vector `condition` is true; a condition longer than the axis
/// is an error, a shorter one is padded with false (NumPy's rule).
Var compress(const TensorLike& condition, const TensorLike& x, std::optional<int> axis = std::nullopt);

/// numpy.choose: out[i...] = choices[a[i...]][i...], a and the choices
/// broadcast together; mode "raise" (a out of [0, n) an Assert), "wrap" or
/// "clip". Differentiable in the choices.
Var choose(const TensorLike& a, const std::vector<TensorLike>& choices, std::string_view mode = "raise");

}  // namespace theano::tensor
