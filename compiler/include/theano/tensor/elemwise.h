/// \file
/// `Elemwise` lifts a ScalarOp to tensors with NumPy broadcasting under the
/// static-shape rule (a dimension broadcasts at run time only if its type says
/// size 1; docs/architecture.md, "Types are values"); `DimShuffle` transposes, adds broadcastable ('x')
/// dimensions and drops size-1 dimensions, as a view.
#pragma once

#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/scalar.h"

namespace theano::tensor {

/// Output index -> the input index whose buffer the output overwrites.
using InplacePattern = SmallMap<int, int>;

/// With a multi-output Composite (multi-output fusion) the node has one
/// output per Composite output, all of the broadcast shape.
class Elemwise final : public Op {
 public:
  /// `inplace_pattern`: output index -> input index whose buffer it overwrites
  /// (set by the inplace rewrites; empty for user graphs).
  explicit Elemwise(ScalarOpPtr scalar_op, InplacePattern inplace_pattern = {});
  /// make_node: inputs of lower rank are left-padded with broadcastable
  /// dimensions (a DimShuffle), as in Theano. ShapeError when known sizes disagree.
  THEANO_OP_DECLARE("Elemwise")
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  /// Keyed by its props (the scalar op's name) only when the scalar op is.
  bool keyed_by_props() const override { return scalar_op_->keyed_by_props(); }
  /// `Elemwise{add,no_inplace}` as Theano prints it.
  std::string name() const override;

  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  ViewMap destroy_map() const override;

 private:
  void perform_composite(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs,
                         const std::vector<std::int64_t>& shape, std::int64_t n) const;

  // The scalar op's name; the pattern's (output, input) pairs flattened.
  THEANO_OP_PROPS((ScalarOpPtr, scalar_op), (InplacePattern, inplace_pattern))
};

/// `Elemwise(scalar_op(name))(inputs)`, e.g. `elemwise("add", {x, y})`.
Var elemwise(std::string_view scalar_name, std::vector<Var> inputs);
Var elemwise(const ScalarOpPtr& op, std::vector<Var> inputs);

/// The scalar op of `node` when it is an Elemwise, else nullptr.
const ScalarOp* elemwise_scalar_op(const Apply* node);
/// True when `node` is an Elemwise whose scalar op is the table row `name`.
bool is_elemwise(const Apply* node, std::string_view name);

/// Entries of a DimShuffle order: an input axis, or kNewAxis ('x').
inline constexpr int kNewAxis = -1;

class DimShuffle final : public Op {
 public:
  /// `input_ndim`: rank of the input; `new_order`: for each output axis, an
  /// input axis or kNewAxis. Input axes left out must be broadcastable (size 1).
  DimShuffle(int input_ndim, std::vector<int> new_order);
  THEANO_OP_DECLARE("DimShuffle")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// `DimShuffle{1,0}`, `DimShuffle{x,0}` as Theano prints it.
  std::string name() const override;
  /// True when it only transposes (no axes added or dropped).
  bool is_transpose() const;

  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  ViewMap view_map() const override;

  THEANO_OP_PROPS((int, input_ndim), (std::vector<int>, new_order))
};

/// `x.dimshuffle(order)`; kNewAxis ('x') adds a broadcastable axis.
Var dimshuffle(const Var& x, std::vector<int> new_order);
/// Reverses (or permutes by `axes`) the dimensions.
Var transpose(const Var& x, std::vector<int> axes = {});
/// Adds `n` broadcastable dimensions on the left / right.
Var shape_padleft(const Var& x, int n = 1);
Var shape_padright(const Var& x, int n = 1);

}  // namespace theano::tensor
