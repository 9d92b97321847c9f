/// \file
/// Neural-network ops (Theano's `tensor.nnet`): `Softmax` and `LogSoftmax` as
/// Ops with numerically stable kernels (the maximum along the axis is
/// subtracted first), `CrossentropyCategorical1Hot` (and its gradient op) for
/// integer labels, and the graph helpers categorical_crossentropy /
/// binary_crossentropy. sigmoid, softplus and softsign are rows of the
/// elementwise table (math.h) and are re-exported here so `nnet::sigmoid`
/// reads as in Theano.
///
/// Why dedicated Ops for softmax: a single node keeps the stable formula
/// together (rewrites such as local_log_softmax match it), and its gradient is
/// the closed form sm * (g - sum(g * sm)) rather than the graph of exp/sum.
#pragma once

#include <optional>

#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"

namespace theano::tensor::nnet {

using theano::tensor::sigmoid;
using theano::tensor::softplus;
using theano::tensor::softsign;

/// exp(x - max) / sum(exp(x - max)) along `axis` (non-negative; the helper
/// functions resolve negative axes). Float inputs only.
class Softmax final : public Op {
 public:
  explicit Softmax(int axis);
  THEANO_OP_DECLARE("Softmax")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// sm * (gz - sum(gz * sm, axis, keepdims)).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((int, axis))
};

/// x - max - log(sum(exp(x - max))) along `axis`. Float inputs only.
class LogSoftmax final : public Op {
 public:
  explicit LogSoftmax(int axis);
  THEANO_OP_DECLARE("LogSoftmax")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// gz - exp(out) * sum(gz, axis, keepdims).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((int, axis))
};

/// Inputs (coding_dist: float matrix (n, k), labels: integer vector (n)) ->
/// y[i] = -log(coding_dist[i, labels[i]]). A label outside [0, k) is an
/// IndexError naming the row and the label.
class CrossentropyCategorical1Hot final : public Op {
 public:
  THEANO_OP_DECLARE("CrossentropyCategorical1Hot")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// CrossentropyCategorical1HotGrad for coding_dist; nothing for the labels.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// Inputs (g_y (n), coding_dist (n, k), labels (n)) -> g (n, k) with
/// g[i, labels[i]] = -g_y[i] / coding_dist[i, labels[i]] and zeros elsewhere.
/// (No gradient of its own, as in Theano.)
class CrossentropyCategorical1HotGrad final : public Op {
 public:
  THEANO_OP_DECLARE("CrossentropyCategorical1HotGrad")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
};

/// Softmax / LogSoftmax along `axis` (negative counts from the end); with no
/// axis (std::nullopt, numpy's axis=None) over all elements at once: the input
/// flattened, normalized along its one axis and reshaped back.
Var softmax(const TensorLike& x, std::optional<int> axis = -1);
Var log_softmax(const TensorLike& x, std::optional<int> axis = -1);

/// -log(coding_dist[i, labels[i]]) for an (n, k) matrix and n integer labels.
Var crossentropy_categorical_1hot(const TensorLike& coding_dist, const TensorLike& labels);
/// Theano's categorical_crossentropy: with integer labels (rank one less than
/// coding_dist) the 1-hot op above; with one-hot / probability targets (same
/// rank) -sum(true_dist * log(coding_dist), axis=-1). TypeError otherwise.
Var categorical_crossentropy(const TensorLike& coding_dist, const TensorLike& true_dist);
/// -(target * log(output) + (1 - target) * log(1 - output)), elementwise.
Var binary_crossentropy(const TensorLike& output, const TensorLike& target);

}  // namespace theano::tensor::nnet
