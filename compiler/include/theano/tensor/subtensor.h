/// \file
/// Indexing: `Subtensor` (integers and slices, Python/NumPy semantics including
/// negative steps and out-of-range bounds; a view), `AdvancedSubtensor1` (an
/// integer vector on axis 0; a copy), their update forms `IncSubtensor` and
/// `AdvancedIncSubtensor1` (set or increment; duplicate indices accumulate when
/// incrementing), and the user entry points `x[...]`, `set_subtensor`,
/// `inc_subtensor`.
///
/// idx_list (the `IdxList` prop of the basic ops): one `IdxEntry` per leading
/// dimension of x, each an integer index or a slice. Every bound is absent
/// (Python's None), a constant kept in the op's props, or symbolic: an integer
/// scalar input of the node, taken in order (entry by entry, start, stop,
/// step). Constants living in the props (rather than as constant inputs, as
/// Theano does) let make_node compute static shapes and print `Subtensor{1:3:}`.
///
/// Ownership of memory: Subtensor's output is a view (view_map {0: [0]}); the
/// Inc ops copy x unless built with `inplace` (then destroy_map {0: [0]}), which
/// only the inplace rewrites do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/runtime/dtype.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/index.h"

namespace theano::tensor {

/// One slice bound or integer index of an idx_list.
struct IdxBound {
  enum class Kind : std::uint8_t { None, Constant, Symbolic };
  Kind kind = Kind::None;
  std::int64_t value = 0;      ///< Constant
  DType dtype = DType::Int64;  ///< Symbolic: the integer dtype of its input
  bool is_none() const { return kind == Kind::None; }
  bool is_constant() const { return kind == Kind::Constant; }
  bool is_symbolic() const { return kind == Kind::Symbolic; }
  static IdxBound none() { return {}; }
  static IdxBound constant(std::int64_t v) { return {Kind::Constant, v, DType::Int64}; }
  static IdxBound symbolic(DType d) { return {Kind::Symbolic, 0, d}; }
  friend bool operator==(const IdxBound&, const IdxBound&) = default;
};

/// An integer index (`index`, never None) or a slice (`start:stop:step`).
struct IdxEntry {
  bool is_slice = false;
  IdxBound index;
  IdxBound start, stop, step;
  friend bool operator==(const IdxEntry&, const IdxEntry&) = default;
};
using IdxList = std::vector<IdxEntry>;

/// Theano's text of an idx_list: `1:3:, ::-1, int64` (symbolic entries show
/// their dtype). Used as the op's prop and printed name.
std::string idx_list_str(const IdxList& idx);
/// An idx_list as an op prop: its text (theano/graph/op_props.h).
inline PropValue theano_prop_value(const IdxList& idx) { return idx_list_str(idx); }
/// Number of symbolic inputs an idx_list consumes.
int idx_list_n_symbolic(const IdxList& idx);

/// `Subtensor{idx_list}`: inputs x, then the symbolic bounds. A view of x.
class Subtensor final : public Op {
 public:
  explicit Subtensor(IdxList idx_list);
  THEANO_OP_DECLARE("Subtensor")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// IncSubtensor of gz into zeros_like(x); bounds are disconnected.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  THEANO_OP_PROPS((IdxList, idx_list))
};

/// `IncSubtensor{Inc|Set;idx_list}`: inputs x, y, then the symbolic bounds. The
/// output is x with x[idx] incremented by (or set to) y broadcast to its shape.
class IncSubtensor final : public Op {
 public:
  IncSubtensor(IdxList idx_list, bool inplace = false, bool set_instead_of_inc = false);
  THEANO_OP_DECLARE("IncSubtensor")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  /// `IncSubtensor{Inc;1:3:}`, `IncSubtensor{InplaceSet;int64}` as Theano prints it.
  std::string name() const override;
  /// gx = gz (with zeros at the set positions for set); gy = gz[idx] summed over
  /// y's broadcast dimensions.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap destroy_map() const override;

  THEANO_OP_PROPS((IdxList, idx_list), (bool, inplace), (bool, set_instead_of_inc))
};

/// `AdvancedSubtensor1`: inputs x (ndim >= 1) and an integer vector; x[ilist]
/// along axis 0 (negative indices count from the end; out of range is an
/// IndexError naming the index and the size). A copy.
class AdvancedSubtensor1 final : public Op {
 public:
  THEANO_OP_DECLARE("AdvancedSubtensor1")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// AdvancedIncSubtensor1 of gz into zeros_like(x); the indices are disconnected.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// `AdvancedIncSubtensor1{no_inplace,inc}`: inputs x, y, ilist. Increments
/// accumulate over repeated indices (numpy.add.at); set keeps the last write.
class AdvancedIncSubtensor1 final : public Op {
 public:
  explicit AdvancedIncSubtensor1(bool inplace = false, bool set_instead_of_inc = false)
      : inplace_(inplace), set_instead_of_inc_(set_instead_of_inc) {}
  THEANO_OP_DECLARE("AdvancedIncSubtensor1")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  std::string name() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap destroy_map() const override;

  THEANO_OP_PROPS((bool, inplace), (bool, set_instead_of_inc))
};

/// `IndexExpression{codes}`: `x[indices]` as the user wrote it, for the
/// indices NumPy calls advanced that the ops above do not express alone
/// (arrays mixed with slices, `newaxis` or ellipsis, non-adjacent arrays,
/// boolean masks). Inputs: the graph computing the result (the output is a
/// view of it), x, then the index variables in order; `codes` says which
/// entry each is (subtensor/general_index.cpp). set_subtensor and
/// inc_subtensor rebuild the update from x and the indices; the rewrite
/// local_remove_index_expression (canonicalize) replaces the node by its
/// first input, and without rewrites it runs as that view.
class IndexExpression final : public Op {
 public:
  explicit IndexExpression(std::vector<int> codes) : codes_(std::move(codes)) {}
  THEANO_OP_DECLARE("IndexExpression")
  /// The gradient flows to the computing graph only.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  THEANO_OP_PROPS((std::vector<int>, codes))
};

/// `x[indices...]` (what `Var::operator[]` calls). Integers and slices give a
/// Subtensor; one integer array of any rank with full slices (`all`) on the
/// other axes gives numpy's result (x.shape[:k] + idx.shape + x.shape[k+1:]):
/// AdvancedSubtensor1 of the flattened index, through a transpose when the
/// axis is not 0 (as Theano's `take`); several leading integer arrays and
/// scalars broadcast together. Fewer indices than dimensions leave the
/// trailing axes whole. Anything else NumPy allows (arrays mixed with
/// slices, newaxis and ellipsis, boolean masks of any rank) follows NumPy's
/// rules exactly, as a graph of these ops behind an IndexExpression
/// (docs/array-ops.md, "Indexing").
Var subtensor(const Var& x, const std::vector<Index>& indices);
/// `x[ilist]` on axis 0.
Var advanced_subtensor1(const Var& x, const Var& ilist);
/// numpy.take(x, indices, axis) for an integer tensor of any rank (a scalar
/// drops the axis; rank r replaces it by r axes).
Var take(const Var& x, const Var& indices, int axis = 0);

/// `x_sub` must be the result of indexing (`x[...]`): returns x with that part
/// set to / incremented by `value` (broadcast). A copy of x, never in place.
Var set_subtensor(const Var& x_sub, const TensorLike& value);
Var inc_subtensor(const Var& x_sub, const TensorLike& value);

}  // namespace theano::tensor
