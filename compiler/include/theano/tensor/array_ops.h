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
/// numpy.roll with tuples: shifts[i] along axes[i] (one shift for all axes
/// when shifts has one entry); an axis given twice adds its shifts.
Var roll(const TensorLike& x, const std::vector<TensorLike>& shifts, const std::vector<int>& axes);
/// numpy.broadcast_to (a copy here, not a view): `shape` entries are integers
/// or symbolic integer scalars.
Var broadcast_to(const TensorLike& x, const std::vector<TensorLike>& shape);
/// numpy.broadcast_arrays: each input broadcast to the common shape.
std::vector<Var> broadcast_arrays(const std::vector<Var>& xs);
/// numpy.full(shape, value, dtype): dtype defaults to value's dtype.
Var full(const std::vector<TensorLike>& shape, const TensorLike& value, std::optional<DType> dtype = {});
/// numpy.full_like(x, value, dtype): dtype defaults to x's.
Var full_like(const TensorLike& x, const TensorLike& value, std::optional<DType> dtype = {});

// ---- Differences, comparisons, rounding, selection (docs/array-ops.md, "Values") ----

/// numpy.diff: the n-th forward difference along `axis` (n >= 0; n = 0 is x).
Var diff(const TensorLike& x, int n = 1, int axis = -1);
/// numpy.ptp: max - min over `axes` (all axes when empty).
Var ptp(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
/// numpy.isclose: |a - b| <= atol + rtol * |b| elementwise (bool), infinities
/// close only to themselves, NaN close to NaN only with `equal_nan`.
Var isclose(const TensorLike& a, const TensorLike& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
/// numpy.allclose: all of isclose (a 0-d bool).
Var allclose(const TensorLike& a, const TensorLike& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
/// numpy.nan_to_num: NaN -> `nan`, +inf -> `posinf`, -inf -> `neginf`
/// (defaults: the dtype's largest and lowest finite values). Integer and bool
/// inputs are returned as they are.
Var nan_to_num(const TensorLike& x, double nan = 0.0, std::optional<double> posinf = {},
               std::optional<double> neginf = {});
/// Rounds halves away from zero (2.5 -> 3, -2.5 -> -3); exact for every float.
Var round_half_away_from_zero(const TensorLike& x);
/// Theano's iround: rounded (mode "half_away_from_zero" or "half_to_even"),
/// then cast to int64.
Var iround(const TensorLike& x, std::string_view mode = "half_away_from_zero");
/// Theano's max_and_argmax: {max(x, axis), argmax(x, axis)}; no axis: over
/// the flattened array.
std::pair<Var, Var> max_and_argmax(const TensorLike& x, std::optional<int> axis = std::nullopt);
/// numpy.take_along_axis: out[..., i, ...] = x[..., idx[..., i, ...], ...]
/// along `axis`. idx: an integer array of x's rank; on the other axes idx and
/// x broadcast (where a static size is 1). Negative indices count from the end;
/// out of range is an error naming take_along_axis. No axis: x flattened and
/// idx 1-d.
Var take_along_axis(const TensorLike& x, const TensorLike& idx, std::optional<int> axis);
/// Theano's to_one_hot: y (an integer vector, 0 <= y < nb_class, checked)
/// -> a (len(y), nb_class) matrix of `dtype` (default floatX).
Var to_one_hot(const TensorLike& y, const TensorLike& nb_class, std::optional<DType> dtype = {});

// ---- Ranges, grids, repetition (docs/array-ops.md, "Ranges") ----

/// numpy.linspace: `num` (>= 0) evenly spaced values from start to stop
/// (included with `endpoint`, then exactly stop). start and stop: scalars,
/// maybe symbolic. dtype defaults to config().floatX.
Var linspace(const TensorLike& start, const TensorLike& stop, std::int64_t num = 50, bool endpoint = true,
             std::optional<DType> dtype = {});
/// numpy.logspace: base ** linspace(start, stop, ...).
Var logspace(const TensorLike& start, const TensorLike& stop, std::int64_t num = 50, bool endpoint = true,
             double base = 10.0, std::optional<DType> dtype = {});
/// numpy.geomspace: a geometric sequence from start to stop (both nonzero, of
/// one sign: checked), the endpoints exact.
Var geomspace(const TensorLike& start, const TensorLike& stop, std::int64_t num = 50, bool endpoint = true,
              std::optional<DType> dtype = {});
/// One `start:stop:step` of numpy.mgrid / ogrid (integers or symbolic scalars).
struct GridRange {
  TensorLike start, stop, step = 1;
};
/// numpy.mgrid[r0, r1, ...]: the dense grid, shape (len(ranges), n0, n1, ...).
Var mgrid(const std::vector<GridRange>& ranges);
/// numpy.ogrid[r0, r1, ...]: one arange per range, shaped to broadcast
/// (the i-th has size n_i on axis i and 1 elsewhere).
std::vector<Var> ogrid(const std::vector<GridRange>& ranges);
/// numpy.tile with static repetitions (each >= 0).
Var tile(const TensorLike& x, const std::vector<std::int64_t>& reps);
/// numpy.repeat: `repeats` one count for every element (an integer >= 0 or a
/// symbolic integer scalar, checked at run time) or one count per element (an
/// integer vector of the axis' length, each >= 0, checked at run time); no
/// axis: over the flattened array.
Var repeat(const TensorLike& x, const TensorLike& repeats, std::optional<int> axis = std::nullopt);

// ---- Top-k (docs/array-ops.md, "Top-k") ----

/// Theano's topk: kth > 0 the kth largest values along `axis` (descending),
/// kth < 0 the -kth smallest (ascending); |kth| <= the axis length (checked).
/// `sorted` = false allows any order (this implementation always sorts).
/// Differentiable in x (the gradient scatters through the indices).
Var topk(const TensorLike& x, std::int64_t kth, int axis = -1, bool sorted = true);
/// Their int64 indices along `axis`.
Var argtopk(const TensorLike& x, std::int64_t kth, int axis = -1, bool sorted = true);
/// {topk, argtopk} from one sort.
std::pair<Var, Var> topk_and_argtopk(const TensorLike& x, std::int64_t kth, int axis = -1, bool sorted = true);

// ---- Statistics (docs/array-ops.md, "Statistics") ----

/// numpy.quantile with method "linear" (the default): q in [0, 1]; no axis:
/// over the flattened array. NaN in a reduced line gives NaN. Float results
/// (integer inputs give float64).
Var quantile(const TensorLike& x, double q, std::optional<int> axis = std::nullopt, bool keepdims = false);
/// Several q: the q axis first, as NumPy's.
Var quantile(const TensorLike& x, const std::vector<double>& q, std::optional<int> axis = std::nullopt,
             bool keepdims = false);
/// numpy.percentile: quantile of q / 100 (q in [0, 100]).
Var percentile(const TensorLike& x, double q, std::optional<int> axis = std::nullopt, bool keepdims = false);
Var percentile(const TensorLike& x, const std::vector<double>& q, std::optional<int> axis = std::nullopt,
               bool keepdims = false);
/// numpy.median: quantile 0.5.
Var median(const TensorLike& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
/// numpy.cov of x (1-d or 2-d; each row a variable when `rowvar`): the
/// covariance divided by N - ddof (ddof default: 1, or 0 with `bias`).
Var cov(const TensorLike& x, bool rowvar = true, bool bias = false, std::optional<int> ddof = std::nullopt);

// ---- Padding (docs/array-ops.md, "Padding") ----

/// numpy.pad with static widths: one (before, after) per axis, or one pair for
/// every axis; each >= 0. Modes: "constant" (`value`), "edge", "reflect",
/// "symmetric", "wrap". reflect needs width <= n - 1 on an axis of length n,
/// symmetric and wrap width <= n, edge n >= 1 when a width is positive
/// (NumPy's repeated reflections for wider pads are not done): checked when
/// the graph is built, or at run time when n is not static.
Var pad(const TensorLike& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths,
        std::string_view mode = "constant", const TensorLike& value = 0);
/// The same width before and after on every axis.
Var pad(const TensorLike& x, std::int64_t width, std::string_view mode = "constant", const TensorLike& value = 0);

}  // namespace theano::tensor
