/// \file
/// Convolution (Theano's `tensor.nnet.conv2d` / `conv3d` and their gradients),
/// one N-d family over 2 or 3 spatial axes.
///
/// As in Theano, the user functions build *abstract* ops (AbstractConv2d,
/// AbstractConv2d_gradWeights, AbstractConv2d_gradInputs; the 3d twins): they
/// say what is computed, including filter_flip, and their gradients are each
/// other, so second derivatives work. The optimizer replaces each by its
/// implementation, CorrMM / CorrMM_gradWeights / CorrMM_gradInputs (Corr3dMM
/// ...), a cross-correlation by im2col + gemm whose filters a true
/// convolution flips with a view (rewrite/conv.cpp, local_abstractconv_corrmm);
/// an abstract op left after optimization is an error
/// (local_abstractconv_check). Both families compute through the kernels of
/// theano/runtime/kernels/conv.h, also called by the generated code, so the
/// shape rule and its messages are written once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor::nnet {

/// Theano's border_mode: "valid" (no padding), "full" (dil*(k-1) on each side),
/// "half" ((dil*(k-1)+1)/2 on each side), or explicit symmetric padding, one
/// number for every spatial axis or one per axis.
struct BorderMode {
  enum class Kind { Valid, Full, Half, Explicit };
  static BorderMode valid() { return BorderMode(Kind::Valid); }
  static BorderMode full() { return BorderMode(Kind::Full); }
  static BorderMode half() { return BorderMode(Kind::Half); }
  /// "valid", "full" or "half" (a ValueError otherwise).
  static BorderMode parse(std::string_view mode);
  BorderMode(std::int64_t pad) : kind(Kind::Explicit), pad{pad} {}  // NOLINT: implicit by design (border_mode=1)
  BorderMode(int pad) : BorderMode(static_cast<std::int64_t>(pad)) {}  // NOLINT
  BorderMode(std::initializer_list<std::int64_t> pads) : kind(Kind::Explicit), pad(pads) {}

  /// The kernels' per-axis padding spec for `nsp` spatial axes (>= 0, or
  /// THEANO_CONV_FULL / THEANO_CONV_HALF); a ValueError naming `what` when an
  /// explicit list has another length or a negative entry.
  std::vector<std::int64_t> pad_spec(int nsp, std::string_view what) const;
  /// "valid", "full", "half", "1" or "(1, 2)": the prop's printed form.
  std::string str() const;
  bool operator==(const BorderMode& o) const { return kind == o.kind && pad == o.pad; }

  Kind kind = Kind::Valid;
  std::vector<std::int64_t> pad;  ///< Explicit only: one entry (every axis) or one per axis

 private:
  explicit BorderMode(Kind k) : kind(k) {}
};
/// A BorderMode as an op prop: its text.
inline PropValue theano_prop_value(const BorderMode& b) { return PropValue(b.str()); }

struct ConvOptions {
  BorderMode border_mode = BorderMode::valid();
  std::vector<std::int64_t> subsample{};        ///< strides; empty = all 1
  bool filter_flip = true;                      ///< true: a true convolution (Theano's default)
  std::vector<std::int64_t> filter_dilation{};  ///< empty = all 1
  std::int64_t num_groups = 1;
  /// Static hints (Theano's input_shape / filter_shape): full shapes, nullopt
  /// entries unknown. The value must agree (a ValueError at run time
  /// otherwise); known entries also fix the output's static shape.
  std::optional<std::vector<std::optional<std::int64_t>>> input_shape{}, filter_shape{};
};

/// Which computation of the family a node does.
enum class ConvDirection { Forward, GradWeights, GradInputs };

/// The props and the shared parts of both families. Inputs:
///   Forward      (input (B, C, s...), filters (F, C/G, k...))           -> (B, F, o...)
///   GradWeights  (input, output_grad (B, F, o...), filter spatial shape) -> (F, C/G, k...)
///   GradInputs   (filters, output_grad, input spatial shape)             -> (B, C, s...)
/// The shape inputs are int vectors of `convdim` entries. imshp / kshp are
/// the hints of ConvOptions (-1: unknown; empty: none), checked at run time.
class ConvBase : public Op {
 public:
  ConvBase(ConvDirection direction, int convdim, BorderMode border_mode, std::vector<std::int64_t> subsample,
           bool filter_flip, std::vector<std::int64_t> filter_dilation, std::int64_t num_groups,
           std::vector<std::int64_t> imshp, std::vector<std::int64_t> kshp);
  ConvDirection direction() const { return direction_; }
  int convdim() const { return convdim_; }
  /// Whether this is the abstract family (AbstractConv*) rather than CorrMM.
  virtual bool is_abstract() const = 0;
  /// The op of this family and props for `dir`.
  virtual OpPtr sibling(ConvDirection dir) const = 0;

  ApplyPtr make_node(std::vector<Var> inputs) const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& input_shapes) const override;
  /// Each direction's gradients are the other two directions (Theano's).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((BorderMode, border_mode), (std::vector<std::int64_t>, subsample), (bool, filter_flip),
                  (std::vector<std::int64_t>, filter_dilation), (std::int64_t, num_groups),
                  (std::vector<std::int64_t>, imshp, std::vector<std::int64_t>{}),
                  (std::vector<std::int64_t>, kshp, std::vector<std::int64_t>{}))
  ConvDirection direction_;
  int convdim_;
};

/// AbstractConv2d / AbstractConv3d and their _gradWeights / _gradInputs.
class AbstractConv final : public ConvBase {
 public:
  using ConvBase::ConvBase;
  std::string_view type_name() const override;
  bool is_abstract() const override { return true; }
  OpPtr sibling(ConvDirection dir) const override;
};

/// CorrMM / Corr3dMM and their _gradWeights / _gradInputs: the
/// implementation (filter_flip is always false: a correlation).
class CorrMM final : public ConvBase {
 public:
  CorrMM(ConvDirection direction, int convdim, BorderMode border_mode, std::vector<std::int64_t> subsample,
         std::vector<std::int64_t> filter_dilation, std::int64_t num_groups, std::vector<std::int64_t> imshp,
         std::vector<std::int64_t> kshp);
  std::string_view type_name() const override;
  bool is_abstract() const override { return false; }
  /// The input and the filters (or output gradient) on the GPU, a shape vector on the host.
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  OpPtr sibling(ConvDirection dir) const override;
};

/// (B, C, H, W) x (F, C/G, kh, kw) -> (B, F, oh, ow).
Var conv2d(const TensorLike& input, const TensorLike& filters, const ConvOptions& opts = {});
/// (B, C, D, H, W) x (F, C/G, kd, kh, kw) -> (B, F, od, oh, ow).
Var conv3d(const TensorLike& input, const TensorLike& filters, const ConvOptions& opts = {});
/// The gradient of conv2d wrt its input: `input_shape` the input's shape
/// (all 4 entries, or the 2 spatial ones; an int vector or constant).
Var conv2d_grad_wrt_inputs(const TensorLike& output_grad, const TensorLike& filters, const TensorLike& input_shape,
                           const ConvOptions& opts = {});
/// The gradient of conv2d wrt its filters: `filter_shape` the filters' shape
/// (all 4 entries, or the 2 spatial ones).
Var conv2d_grad_wrt_weights(const TensorLike& input, const TensorLike& output_grad, const TensorLike& filter_shape,
                            const ConvOptions& opts = {});
Var conv3d_grad_wrt_inputs(const TensorLike& output_grad, const TensorLike& filters, const TensorLike& input_shape,
                           const ConvOptions& opts = {});
Var conv3d_grad_wrt_weights(const TensorLike& input, const TensorLike& output_grad, const TensorLike& filter_shape,
                            const ConvOptions& opts = {});

}  // namespace theano::tensor::nnet
