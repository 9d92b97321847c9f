/// \file
/// Ops of Theano's `tensor.extra_ops`: `CumOp`, the running sum or product
/// along one axis (cumsum, cumprod). Its kernel is written once, as plain C,
/// in theano/runtime/kernels/cumulative.h: perform, the generated C++ and the
/// CUDA form all run that text, the last two through its kernel form
/// (Op::kernel_form; docs/adding-an-op.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

/// out[..., i, ...] = x[..., 0, ...] (+ or *) ... (+ or *) x[..., i, ...]
/// along `axis` (non-negative here; cumsum / cumprod resolve negative axes
/// and axis=None). mode "add" (cumsum) or "mul" (cumprod). The output has the
/// input's shape and dtype, as NumPy's: values accumulate in that dtype, in
/// order (float32 in float32; integers wrap); a bool input is accumulated as
/// int64 (make_node casts it). Integer, unsigned and float32/float64 inputs.
class CumOp final : public Op {
 public:
  CumOp(int axis, std::string mode);
  THEANO_OP_DECLARE("CumOp")
  /// Lines along the axis, the kernels of kernels/cumulative.h (its C++ and
  /// CUDA forms are codegen's generic ones).
  std::optional<KernelForm> kernel_form(const KernelSignature& sig) const override;
  /// add: the output gradient summed backwards along the axis. mul: Theano's
  /// formula, the backward sum of cumprod(x) * gz divided by x (NaN at a zero
  /// of x; see the definition).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((int, axis), (std::string, mode))
};

/// The running sum / product along `axis` (negative counts from the end).
/// With no axis (std::nullopt, NumPy's axis=None): over the flattened input,
/// a 1-d result.
Var cumsum(const TensorLike& x, std::optional<int> axis = std::nullopt);
Var cumprod(const TensorLike& x, std::optional<int> axis = std::nullopt);

}  // namespace theano::tensor
