/// \file
/// Theano's `tensor.signal.pool`: pooling over the last 2 (pool_2d) or 3
/// (pool_3d) axes of a tensor, every leading axis a batch axis, as ONE N-d
/// family: Pool (the forward), MaxPoolGrad and AveragePoolGrad (its
/// gradients), DownsampleFactorMaxGradGrad (the gradient of MaxPoolGrad wrt
/// its output gradient; also what Rop of a max pool computes, through the
/// double-Lop rule of theano/gradient.h). Their kernels are written once, as
/// plain C, in theano/runtime/kernels/pool.h: perform, the generated C++ and
/// the CUDA form run that text.
///
/// Unlike Theano, where ws, stride and pad are symbolic inputs, they are the
/// ops' static props here (known when the graph is built).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor::signal {

/// Theano's modes 'max', 'sum', 'average_inc_pad' (the window's padding
/// counts in the divisor) and 'average_exc_pad' (only the input's elements do).
enum class PoolMode { Max, Sum, AverageIncPad, AverageExcPad };
/// Theano's spelling ("max", "sum", "average_inc_pad", "average_exc_pad").
const char* pool_mode_name(PoolMode m);
inline PropValue theano_prop_value(PoolMode m) { return std::string(pool_mode_name(m)); }

struct PoolOptions {
  /// false (Theano's default, which Theano warns about): a last partial
  /// window is pooled where ws does not divide the (input) length; true: only
  /// whole windows.
  bool ignore_border = false;
  std::vector<std::int64_t> stride{};  ///< per pooled axis; empty = ws (windows side by side)
  std::vector<std::int64_t> pad{};     ///< zeros on both sides, per pooled axis; empty = none; needs ignore_border
  PoolMode mode = PoolMode::Max;
};

/// Pools the last 2 axes of `input` (rank >= 2) with windows `ws` (2 entries).
/// E.g. `signal::pool_2d(x, {2, 2}, {.ignore_border = true})`.
Var pool_2d(const TensorLike& input, std::vector<std::int64_t> ws, const PoolOptions& opts = {});
/// Pools the last 3 axes of `input` (rank >= 3) with windows `ws` (3 entries).
Var pool_3d(const TensorLike& input, std::vector<std::int64_t> ws, const PoolOptions& opts = {});

/// The props every op of the family has (Theano's ndim, ignore_border, mode,
/// and its ws / stride / pad inputs): stride and pad have ndim entries each.
/// The constructors check them (ValueError naming the op): ws >= 1, stride >=
/// 1, 0 <= pad < ws, pad only with ignore_border (the rule of kernels/pool.h).
struct PoolParams {
  int ndim = 2;
  std::vector<std::int64_t> ws, stride, pad;
  bool ignore_border = false;
  PoolMode mode = PoolMode::Max;
};

/// The forward: out[..., o] = mode over the window of o. Output dtype: the
/// input's (float32/float64 or an integer type).
class Pool final : public Op {
 public:
  explicit Pool(PoolParams p);
  THEANO_OP_DECLARE("Pool")
  /// max: MaxPoolGrad(x, out, gz); else AveragePoolGrad(x, gz).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  PoolParams params() const { return {ndim_, ws_, stride_, pad_, ignore_border_, mode_}; }

  THEANO_OP_PROPS((int, ndim), (std::vector<std::int64_t>, ws), (std::vector<std::int64_t>, stride),
                  (std::vector<std::int64_t>, pad), (bool, ignore_border), (PoolMode, mode))
};

/// Inputs x, maxout (Pool's max output), gz; output: the gradient wrt x, gz
/// of each window given to every position equal to the window's maximum.
class MaxPoolGrad final : public Op {
 public:
  explicit MaxPoolGrad(PoolParams p);
  THEANO_OP_DECLARE("MaxPoolGrad")
  /// Wrt gz: DownsampleFactorMaxGradGrad; x and maxout get zeros (Theano's).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  PoolParams params() const { return {ndim_, ws_, stride_, pad_, ignore_border_, mode_}; }

  THEANO_OP_PROPS((int, ndim), (std::vector<std::int64_t>, ws), (std::vector<std::int64_t>, stride),
                  (std::vector<std::int64_t>, pad), (bool, ignore_border), (PoolMode, mode))
};

/// Inputs x (for its shape), gz; output: the gradient wrt x of sum or an
/// average pool: gz of each window spread over its input elements (divided
/// by the window's divisor for the averages).
class AveragePoolGrad final : public Op {
 public:
  explicit AveragePoolGrad(PoolParams p);
  THEANO_OP_DECLARE("AveragePoolGrad")
  /// Wrt gz: Pool of the same mode (it is linear); x gets zeros.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  PoolParams params() const { return {ndim_, ws_, stride_, pad_, ignore_border_, mode_}; }

  THEANO_OP_PROPS((int, ndim), (std::vector<std::int64_t>, ws), (std::vector<std::int64_t>, stride),
                  (std::vector<std::int64_t>, pad), (bool, ignore_border), (PoolMode, mode))
};

/// Inputs x, maxout, ggx (x's shape); output (maxout's shape): per window,
/// the sum of ggx where x equals the window's maximum.
class DownsampleFactorMaxGradGrad final : public Op {
 public:
  explicit DownsampleFactorMaxGradGrad(PoolParams p);
  THEANO_OP_DECLARE("DownsampleFactorMaxGradGrad")
  /// Wrt ggx: MaxPoolGrad (it is linear in ggx); x and maxout get zeros.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  PoolParams params() const { return {ndim_, ws_, stride_, pad_, ignore_border_, mode_}; }

  THEANO_OP_PROPS((int, ndim), (std::vector<std::int64_t>, ws), (std::vector<std::int64_t>, stride),
                  (std::vector<std::int64_t>, pad), (bool, ignore_border), (PoolMode, mode))
};

}  // namespace theano::tensor::signal
