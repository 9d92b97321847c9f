/// \file
/// `Shape` and `Shape_i`: a tensor's dimensions as graph values (int64). Their
/// gradients are disconnected: shapes do not depend on the values.
#include "theano/tensor/shape.h"

#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

using detail::int64_const;

// ---- Shape -------------------------------------------------------------------------

THEANO_REGISTER_OP(
    Shape,
    .no_cuda = "reads an array's shape, a host value; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr Shape::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "Shape takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  const int nd = tensor_type(x)->ndim();
  Var out = TensorType::make(DType::Int64, {Dim(nd)})->make_variable();
  return Apply::create(OpPtr(this), {x}, {out});
}

void Shape::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = NDArray::from_vector(inputs[0].shape(), {inputs[0].ndim()});
}

std::vector<std::vector<Var>> Shape::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  return {{int64_const(tensor_type(node.input(0))->ndim())}};
}

std::vector<Var> Shape::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::vector<std::vector<bool>> Shape::connection_pattern(const Apply&) const { return {{false}}; }

// ---- Shape_i -----------------------------------------------------------------------

Shape_i::Shape_i(int i) : i_(i) {
  THEANO_USER_CHECK(i >= 0, ValueError) << "Shape_i: the dimension index must be non-negative, got " << i;
}

THEANO_REGISTER_OP(
    Shape_i,
    .no_cuda = "reads an array's shape, a host value; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr Shape_i::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  THEANO_USER_CHECK(i_ < tensor_type(x)->ndim(), IndexError)
      << name() << ": " << x.str() << " has only " << tensor_type(x)->ndim() << " dimensions (type "
      << x.type()->str() << ")";
  Var out = TensorType::make(DType::Int64, {})->make_variable();
  return Apply::create(OpPtr(this), {x}, {out});
}

void Shape_i::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = NDArray::scalar<std::int64_t>(inputs[0].shape().at(static_cast<std::size_t>(i_)));
}

std::vector<std::vector<Var>> Shape_i::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> Shape_i::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::vector<std::vector<bool>> Shape_i::connection_pattern(const Apply&) const { return {{false}}; }

// ---- functions -----------------------------------------------------------------------

Var shape(const Var& x) { return OpPtr(new Shape())->apply1({as_tensor_variable(x)}); }

Var shape_i(const Var& x, int i) {
  Var t = as_tensor_variable(x);
  const TensorType* tt = tensor_type(t);
  const int nd = tt->ndim();
  THEANO_USER_CHECK(i >= -nd && i < nd, IndexError)
      << "shape_i: dimension " << i << " is out of range for " << t.str() << " of type " << t.type()->str();
  if (i < 0) i += nd;
  if (const Dim& d = tt->shape()[static_cast<std::size_t>(i)]) return int64_const(*d);
  return OpPtr(new Shape_i(i))->apply1({t});
}

}  // namespace theano::tensor
