/// \file
/// Shapes as values of the graph: `Shape` (x's shape as an int64 vector),
/// `Shape_i` (one dimension), `MakeVector` (scalars -> vector, what symbolic
/// shapes are built from), `SpecifyShape` (a run-time checked promise that gives
/// the output a static shape) and `Reshape` (with flatten built on it).
///
/// Why one header: these ops are how shapes travel through graphs; the shape
/// inference (`infer_shape`) of every other op returns scalars made by them, and
/// the ShapeFeature rewrites read them.
///
/// Invariants: shape values are int64; `Reshape{ndim}` takes its target shape as
/// an integer vector input, so it can be symbolic (`reshape(x, y.shape(), 2)`);
/// the output of Reshape and SpecifyShape may be a view of the input (view_map).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

/// `shape(x)`: the int64 vector of x's dimensions (static length x.ndim).
class Shape final : public Op {
 public:
  THEANO_OP_DECLARE("Shape")
  /// Disconnected: the shape does not depend on x's values.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// `Shape_i{i}`: dimension i of x as an int64 scalar.
class Shape_i final : public Op {
 public:
  explicit Shape_i(int i);
  THEANO_OP_DECLARE("Shape_i")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((int, i))
};

/// `MakeVector{dtype}`: n 0-d tensors -> a vector of length n. Inputs of another
/// dtype are accepted when they cast safely (or are constants whose value fits),
/// and are cast.
class MakeVector final : public Op {
 public:
  explicit MakeVector(DType dtype = DType::Int64) : dtype_(dtype) {}
  THEANO_OP_DECLARE("MakeVector")
  /// `MakeVector{dtype='int64'}` as Theano prints it.
  std::string name() const override;
  /// Element i of the output gradient for input i (nothing for integer vectors).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((DType, dtype))
};

/// `SpecifyShape`: returns x unchanged after checking at run time that its shape
/// is the given one; the output type carries the static shape. Inputs: x, then one
/// int scalar for each dimension specified symbolically. `spec` (a prop) has one
/// entry per dimension: a size >= 0, kUnspecified, or kSymbolic (the next input).
class SpecifyShape final : public Op {
 public:
  static constexpr std::int64_t kUnspecified = -1;
  static constexpr std::int64_t kSymbolic = -2;
  explicit SpecifyShape(std::vector<std::int64_t> spec);
  THEANO_OP_DECLARE("SpecifyShape")
  /// `SpecifyShape{(2, ?, s)}`: sizes, `?` unspecified, `s` symbolic.
  std::string name() const override;
  /// Identity for x (kept at the specified shape); nothing for the sizes.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  THEANO_OP_PROPS((std::vector<std::int64_t>, spec))
};

/// `Reshape{ndim}`: inputs x and an integer vector of length ndim (one entry may
/// be -1, inferred). The output is a view when x's strides allow it, else a copy
/// (view_map declares the possible alias, as Theano does).
class Reshape final : public Op {
 public:
  /// `of_index`: the leading axes merged into one by advanced indexing with
  /// several integer arrays (x[i, j]); set_subtensor / inc_subtensor then give
  /// the result x's shape back (a Reshape the user wrote keeps its own shape).
  explicit Reshape(int ndim, bool of_index = false);
  THEANO_OP_DECLARE("Reshape")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// Reshape the output gradient back to x's shape; nothing for the shape.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  // `of_index` is left out of the props while false: `Reshape{2}` as before it existed.
  THEANO_OP_PROPS((int, ndim), (bool, of_index, false))
};

/// Symbolic int64 vector of x's shape (`x.shape()`).
Var shape(const Var& x);
/// Dimension i of x (negative i counts from the end) as an int64 scalar. A
/// constant when x's static shape knows it.
Var shape_i(const Var& x, int i);
/// Vector of the given 0-d tensors; dtype defaults to their common (promoted)
/// dtype, int64 when there are none.
Var make_vector(std::vector<Var> scalars, std::optional<DType> dtype = {});

/// `specify_shape(x, {2, std::nullopt})`: known sizes checked at run time.
Var specify_shape(const Var& x, const StaticShape& shape);
/// One integer scalar per dimension (null Var = unspecified); constant scalars are
/// folded into the op's props.
Var specify_shape(const Var& x, const std::vector<Var>& shape);

/// `x.reshape(shape)`, one entry may be -1.
Var reshape(const Var& x, const std::vector<std::int64_t>& shape);
/// Reshape to a symbolic integer vector whose length is `ndim`.
Var reshape(const Var& x, const Var& shape, int ndim);
/// Keeps the first `ndim - 1` dimensions and flattens the rest (Theano's
/// flatten(x, outdim)); ValueError unless 1 <= ndim <= x.ndim (x.ndim 0 allows 1).
Var flatten(const Var& x, int ndim = 1);

}  // namespace theano::tensor
