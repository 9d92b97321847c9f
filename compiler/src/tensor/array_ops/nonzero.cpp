/// \file
/// `Nonzero`, the op whose output length depends on its input's values, and
/// the functions built on it: nonzero, flatnonzero, argwhere. perform and the
/// generated code (codegen/src/emit/lower/nonzero.cpp) run the same two
/// passes of kernels/nonzero.h: count, allocate, fill.
#include "theano/runtime/kernels/nonzero.h"

#include "array_ops_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

THEANO_REGISTER_OP(Nonzero, .no_infer_shape = "the output's length is the count of true elements, known only at run time");

// GPU form: the input and the coordinates on the device (the count is downloaded to size the output).
std::optional<GpuPlacement> Nonzero::gpu_form(const Apply&) const { return GpuPlacement::all(1); }

ApplyPtr Nonzero::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "Nonzero takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(t->dtype() == DType::Bool, TypeError)
      << "Nonzero: the input must be a bool tensor (nonzero() compares other dtypes with 0), got " << x.str()
      << " of type " << t->str();
  THEANO_USER_CHECK(t->ndim() >= 1 && t->ndim() <= 16, TypeError)
      << "Nonzero: the input must have rank 1 to 16, got " << x.str() << " of type " << t->str();
  const Var o = TensorType::make(DType::Int64, {Dim(t->ndim()), std::nullopt})->make_variable();
  return Apply::create(OpPtr(this), {x}, {o});
}

void Nonzero::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const int nd = x.ndim();
  const char* data = static_cast<const char*>(x.data());
  const std::int64_t count = theano_nonzero_count(data, nd, x.shape().data(), x.strides().data());
  NDArray out = NDArray::empty({nd, count}, DType::Int64);
  theano_nonzero_fill(data, nd, x.shape().data(), x.strides().data(), out.data_as<std::int64_t>(), count);
  outputs[0] = std::move(out);
}

std::vector<Var> Nonzero::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::vector<std::vector<bool>> Nonzero::connection_pattern(const Apply&) const { return {{false}}; }

namespace {

/// x as the bool tensor Nonzero takes: x != 0 (NaN included) unless it is one.
Var truth(const Var& x) { return tensor_type(x)->dtype() == DType::Bool ? x : neq(x, 0); }

Var nonzero_matrix(const Var& x) { return OpPtr(new Nonzero())->apply1({truth(x)}); }

}  // namespace

std::vector<Var> nonzero(const TensorLike& x_in) {
  const Var x = x_in.var();
  const int nd = tensor_type(x)->ndim();
  THEANO_USER_CHECK(nd >= 1, ValueError) << "nonzero: " << x.str()
                                         << " is 0-d; NumPy refuses nonzero of a 0-d array (use atleast_1d)";
  const Var m = nonzero_matrix(x);
  std::vector<Var> r;
  for (int d = 0; d < nd; ++d) r.push_back(m[d]);
  return r;
}

Var flatnonzero(const TensorLike& x) { return nonzero_matrix(flatten(x.var(), 1))[0]; }

Var argwhere(const TensorLike& x_in) {
  const Var x = x_in.var();
  if (tensor_type(x)->ndim() == 0) {
    // NumPy: a 0-d array counts as one element with no coordinates.
    const Var m = transpose(nonzero_matrix(flatten(x, 1)));
    return m[{all, slice(0, 0)}];
  }
  return transpose(nonzero_matrix(x));
}

}  // namespace theano::tensor
