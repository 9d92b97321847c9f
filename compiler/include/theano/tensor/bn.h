/// \file
/// Batch normalization (Theano's `tensor.nnet.bn`): batch_normalization_train,
/// batch_normalization_test and the older batch_normalization.
///
/// Each function builds a graph of existing ops (mean and var reductions,
/// elementwise arithmetic), not an op of its own as Theano's
/// AbstractBatchNormTrain / Test do. Theano's abstract ops exist to be
/// replaced by cuDNN's kernels; on the CPU Theano itself rewrites them into
/// exactly this graph. Here the graph is what users gain most from: the
/// elementwise parts fuse with the surrounding network (the activation that
/// usually follows included), the GPU transfer moves every part, the gradient
/// (and the gradient of the gradient) is the graph's own and so is right by
/// construction, and infer_shape comes from the parts. An op would give one node
/// and Theano's closed-form gradient; the automatic gradient of this graph
/// computes the same derivative in a few more (fusable) nodes.
///
/// Parameters (gamma, beta, mean, var, running_mean, running_var) are given
/// either with the input's rank and size 1 on the normalized axes (checked:
/// statically where known, else at run time), or with one dimension per
/// non-normalized axis (dimshuffled into place); the statistics returned have
/// the parameters' form.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor::nnet::bn {

/// The normalized axes: "per-activation" (axis 0), "spatial" (axes 0, 2, 3,
/// ...: one statistic per channel), or explicit non-negative axes.
class BnAxes {
 public:
  BnAxes(const char* mode) : mode_(mode) {}                  // NOLINT: implicit by design
  BnAxes(std::string_view mode) : mode_(mode) {}             // NOLINT
  BnAxes(std::initializer_list<int> axes) : axes_(axes) {}   // NOLINT
  BnAxes(std::vector<int> axes) : axes_(std::move(axes)) {}  // NOLINT
  /// Sorted axes for a rank-`ndim` input; ValueError naming `fn` for an unknown
  /// mode, no axis, an axis out of [0, ndim) or a repeated one.
  std::vector<int> resolve(int ndim, std::string_view fn) const;

 private:
  std::string mode_;  ///< empty: explicit axes_
  std::vector<int> axes_;
};

/// What batch_normalization_train returns. new_running_mean / new_running_var
/// are null Vars unless running_mean / running_var were given.
struct BatchNormTrainResult {
  Var out;               ///< (inputs - mean) * gamma * invstd + beta
  Var mean;              ///< the batch mean over the axes
  Var invstd;            ///< 1 / sqrt(batch variance + epsilon) (biased variance)
  Var new_running_mean;  ///< running_mean * (1 - factor) + mean * factor
  /// running_var * (1 - factor) + var * m / (m - 1) * factor, m the number of
  /// values per statistic (the unbiased variance, as Theano).
  Var new_running_var;
};

/// Normalizes `inputs` with the batch statistics over `axes`. Float32 and
/// float64 inputs; epsilon at least 1e-5 (Theano's rule). ValueError for bad
/// axes, parameters of the wrong rank or with a size other than 1 on a
/// normalized axis, epsilon below 1e-5, or only one of the running averages.
/// Example: `auto r = bn::batch_normalization_train(x, gamma, beta, "spatial");`
BatchNormTrainResult batch_normalization_train(const TensorLike& inputs, const TensorLike& gamma,
                                               const TensorLike& beta, const BnAxes& axes = "per-activation",
                                               double epsilon = 1e-4, double running_average_factor = 0.1,
                                               const Var& running_mean = Var(), const Var& running_var = Var());

/// (inputs - mean) * gamma / sqrt(var + epsilon) + beta with given statistics;
/// the same rules as batch_normalization_train.
Var batch_normalization_test(const TensorLike& inputs, const TensorLike& gamma, const TensorLike& beta,
                             const TensorLike& mean, const TensorLike& var, const BnAxes& axes = "per-activation",
                             double epsilon = 1e-4);

/// Theano's older elementwise form: (inputs - mean) * (gamma / std) + beta,
/// NumPy broadcasting. `mode` is "low_mem" or "high_mem" (Theano's memory
/// trade-off on the GPU; both give this one expression here, which fusion makes
/// one loop); ValueError otherwise.
Var batch_normalization(const TensorLike& inputs, const TensorLike& gamma, const TensorLike& beta,
                        const TensorLike& mean, const TensorLike& std, std::string_view mode = "low_mem");

}  // namespace theano::tensor::nnet::bn
