/// \file
/// Neural-network ops (Theano's `tensor.nnet`): `Softmax` and `LogSoftmax` as
/// Ops with numerically stable kernels (the maximum along the axis is
/// subtracted first), `CrossentropyCategorical1Hot` (and its gradient op) for
/// integer labels, and the graph helpers categorical_crossentropy /
/// binary_crossentropy. sigmoid, softplus and softsign are rows of the
/// elementwise table (math.h) and are re-exported here so `nnet::sigmoid`
/// reads as in Theano; the activations below (relu, elu, selu, hard_sigmoid,
/// ultra_fast_sigmoid, sigmoid_binary_crossentropy) are rows too, declared
/// only here. Batch normalization: theano/tensor/bn.h.
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

// Activations (Theano's nnet names), each one scalar-table row, so fusion, the
// C++ and CUDA loops and the gradient come from the row
// (compiler/src/tensor/nnet/activations.cpp, formulas in
// theano/runtime/kernels/scalar_math.h). Integer inputs give float64.

/// x where x > 0, else alpha * x (leaky when alpha != 0; alpha a scalar or a
/// tensor broadcasting against x). Gradient at x = 0: 0.5 (1 + alpha), Theano's.
Var relu(const TensorLike& x, const TensorLike& alpha = 0);
/// x where x > 0, else alpha * (exp(x) - 1).
Var elu(const TensorLike& x, const TensorLike& alpha = 1);
/// scale * elu(x, alpha) with the published constants (scale ~1.0507,
/// alpha ~1.6733).
Var selu(const TensorLike& x);
/// clip(0.2 x + 0.5, 0, 1).
Var hard_sigmoid(const TensorLike& x);
/// Theano's piecewise approximation of sigmoid (within 0.03 of it); its
/// gradient is the approximation's own derivative.
Var ultra_fast_sigmoid(const TensorLike& x);
/// Binary cross-entropy from logits: softplus(-|x|) + x ((x > 0) - target),
/// which equals -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))) without
/// overflow at any |x|; gradients sigmoid(x) - target and -x.
Var sigmoid_binary_crossentropy(const TensorLike& output_logits, const TensorLike& target);

}  // namespace theano::tensor::nnet
