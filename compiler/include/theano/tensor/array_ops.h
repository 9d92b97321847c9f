/// \file
/// NumPy's array utilities (squeeze, flip, roll, pad, tile, repeat, linspace,
/// topk, quantile, cov, ...) as compositions of the ops theano-cpp already has:
/// DimShuffle, Subtensor, Join, Alloc, Reshape, ARange, the elementwise table,
/// the reductions, ArgSortOp / SortOp and AdvancedSubtensor1.
///
/// Why compositions and no new ops: each of these is a few slices, joins or
/// broadcasts, so their shapes, gradients, C++ and CUDA forms and rewrites are
/// those of the ops they are made of (docs/array-ops.md lists which).
///
/// Conventions (every function): NumPy's semantics and argument order; a
/// negative axis counts from the end; `std::nullopt` / an empty `Axes` is
/// NumPy's axis=None where NumPy has it. Bad arguments known when the graph is
/// built (an axis out of range, a negative count, a bad mode) are a
/// ValueError naming the function and the values; those known only at run time
/// (a symbolic count, a size the static shape does not know) are checked by an
/// Assert in the graph, whose message names the function and the values.
/// Static size arithmetic is overflow-checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/dtype.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/axes.h"

namespace theano::tensor {

// ---- Axes and broadcasting (docs/array-ops.md, "Shapes") ----

/// numpy.squeeze: drops the given axes, each of size 1 (statically, or
/// checked at run time when its size is unknown). No axes: every axis whose
/// static shape says size 1 (an axis of unknown size is kept: the rank of a
/// result is static).
Var squeeze(const TensorLike& x, const Axes& axes = {});
/// numpy.expand_dims: new size-1 axes at `axes`, positions in the result
/// (rank x.ndim + axes.size()).
Var expand_dims(const TensorLike& x, const Axes& axes);
/// numpy.swapaxes (a DimShuffle view).
Var swapaxes(const TensorLike& x, int axis1, int axis2);
/// numpy.moveaxis: each source axis goes to the matching destination.
Var moveaxis(const TensorLike& x, const std::vector<int>& source, const std::vector<int>& destination);
Var moveaxis(const TensorLike& x, int source, int destination);
/// numpy.flip: reversed along `axes` (all axes when empty); a view.
Var flip(const TensorLike& x, const Axes& axes = {});
/// numpy.roll: elements shifted by `shift` (an integer, or a symbolic integer
/// scalar) along `axis`, wrapping around; no axis: over the flattened array,
/// reshaped back.
Var roll(const TensorLike& x, const TensorLike& shift, std::optional<int> axis = std::nullopt);
/// numpy.broadcast_to (a copy here, not a view): `shape` entries are integers
/// or symbolic integer scalars.
Var broadcast_to(const TensorLike& x, const std::vector<TensorLike>& shape);
/// numpy.broadcast_arrays: each input broadcast to the common shape.
std::vector<Var> broadcast_arrays(const std::vector<Var>& xs);
/// numpy.full(shape, value, dtype): dtype defaults to value's dtype.
Var full(const std::vector<TensorLike>& shape, const TensorLike& value, std::optional<DType> dtype = {});
/// numpy.full_like(x, value, dtype): dtype defaults to x's.
Var full_like(const TensorLike& x, const TensorLike& value, std::optional<DType> dtype = {});

}  // namespace theano::tensor
