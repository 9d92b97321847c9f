/// \file
/// Joining and splitting along an axis: `Join` (numpy.concatenate; stack and
/// concatenate are built on it) and `Split` (one input, several outputs, sizes
/// from an integer vector).
///
/// Why: they are each other's gradient (Join's is Subtensor pieces of the
/// output gradient, Split's is a Join of the output gradients), and both need
/// the same static-shape bookkeeping along the axis.
///
/// Choice (differs from Theano, like PyTensor): the axis is a prop, not an input,
/// so the output's static shape is always known to make_node.
#pragma once

#include <cstdint>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"

namespace theano::tensor {

/// `Join{axis}`: inputs of one rank (>= 1), sizes equal except along `axis`
/// (checked statically where known, and at run time). Output dtype: the
/// promotion of the inputs' dtypes.
class Join final : public Op {
 public:
  explicit Join(int axis);
  THEANO_OP_DECLARE("Join")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// Slices of the output gradient (float outputs); integer joins: no gradient.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  // axis: non-negative
  THEANO_OP_PROPS((int, axis))
};

/// `Split{len_splits, axis}`: inputs x and an integer vector of `len_splits`
/// non-negative sizes summing to x.shape[axis]; outputs are views of x.
class Split final : public Op {
 public:
  Split(int len_splits, int axis);
  THEANO_OP_DECLARE("Split")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// Join of the output gradients (zeros for disconnected ones); nothing for splits.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  // axis: non-negative
  THEANO_OP_PROPS((int, len_splits), (int, axis))
};

/// numpy.concatenate along `axis` (negative counts from the end). One tensor is
/// returned as is.
Var join(int axis, const std::vector<Var>& tensors);
Var concatenate(const std::vector<Var>& tensors, int axis = 0);
/// numpy.stack: a new axis `axis` (0-d inputs on axis 0: a MakeVector).
Var stack(const std::vector<Var>& tensors, int axis = 0);
/// `n_splits` pieces of x along `axis`, sizes from the integer vector `splits`.
std::vector<Var> split(const Var& x, const Var& splits, int n_splits, int axis = 0);
std::vector<Var> split(const Var& x, const std::vector<std::int64_t>& splits, int axis = 0);

}  // namespace theano::tensor
