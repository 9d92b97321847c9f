/// \file
/// Theano's `tensor.sort`: `SortOp` and `ArgSortOp` (sort, argsort) along one
/// axis. Their kernels are written once, as plain C, in
/// theano/runtime/kernels/sort.h: perform, the generated C++ and the CUDA
/// form all run that text, the last two through the ops' kernel form
/// (Op::kernel_form; docs/adding-an-op.md).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

/// The values of `x` sorted ascending along `axis` (non-negative here; sort
/// resolves negative axes and axis=None). NaN sorts last, as in NumPy. The
/// output has the input's shape and dtype. Integer, unsigned and
/// float32/float64 inputs.
class SortOp final : public Op {
 public:
  explicit SortOp(int axis);
  THEANO_OP_DECLARE("SortOp")
  std::optional<KernelForm> kernel_form(const KernelSignature& sig) const override;
  /// The output gradient put back where each sorted value came from (the
  /// inverse of argsort's permutation), as Theano's.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((int, axis))
};

/// The int64 indices that sort `x` along `axis`, ties in index order (a
/// stable sort) and NaN last, as NumPy's argsort(kind="stable").
class ArgSortOp final : public Op {
 public:
  explicit ArgSortOp(int axis);
  THEANO_OP_DECLARE("ArgSortOp")
  std::optional<KernelForm> kernel_form(const KernelSignature& sig) const override;
  /// Indices are piecewise constant in x: a zero gradient, as Theano's.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((int, axis))
};

/// The int64 indices of the |kth| elements of `x` along `axis` that rank
/// first: kth > 0 the largest, by value descending (ties: the larger index
/// first), kth < 0 the smallest, ascending (ties: the smaller index first),
/// i.e. the last |kth| of a stable argsort reversed, or its first |kth|; NaN
/// above every number. The output: x's shape with |kth| along the axis. A
/// partial selection (theano/runtime/kernels/topk.h), not a full sort; a line
/// shorter than |kth| is a ValueError. topk / argtopk (array_ops.h) use it.
class ArgTopKOp final : public Op {
 public:
  ArgTopKOp(int axis, std::int64_t kth);
  THEANO_OP_DECLARE("ArgTopKOp")
  std::optional<KernelForm> kernel_form(const KernelSignature& sig) const override;
  /// Indices: no gradient.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((int, axis), (std::int64_t, kth))
};

/// `x` sorted along `axis` (negative counts from the end; std::nullopt:
/// NumPy's axis=None, the flattened input, a 1-d result). `kind` is NumPy's
/// ("quicksort", "mergesort", "heapsort", "stable"); every kind gives the
/// stable result, so it only has to be one of those.
Var sort(const TensorLike& x, std::optional<int> axis = -1, std::string_view kind = "quicksort");
/// The indices that sort `x` along `axis`, as int64 (same axis and kind rules).
Var argsort(const TensorLike& x, std::optional<int> axis = -1, std::string_view kind = "quicksort");

}  // namespace theano::tensor
