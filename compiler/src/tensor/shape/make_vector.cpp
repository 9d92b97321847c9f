/// \file
/// `MakeVector`: scalars -> vector, the building block of symbolic shapes
/// (`reshape(x, make_vector({shape_i(y, 0), -1}), 2)`).
#include <sstream>

#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

std::string MakeVector::name() const { return "MakeVector{dtype='" + std::string(dtype_name(dtype_)) + "'}"; }

THEANO_REGISTER_OP(
    MakeVector,
    .no_cuda = "builds shape vectors from host scalars; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr MakeVector::make_node(std::vector<Var> inputs) const {
  std::vector<Var> ins;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Var v = as_tensor_variable(inputs[i]);
    const TensorType* t = tensor_type(v);
    THEANO_USER_CHECK(t->ndim() == 0, TypeError)
        << name() << ": input " << i << " (" << v.str() << ") must be a scalar (0-d), got type " << v.type()->str();
    if (t->dtype() != dtype_) {
      const Constant* c = v.as_constant();
      if (c && array_equal(c->data().astype(dtype_), c->data())) {
        v = constant(c->data().astype(dtype_));
      } else {
        THEANO_USER_CHECK(can_cast(t->dtype(), dtype_, Casting::Safe), TypeError)
            << name() << ": input " << i << " (" << v.str() << ") has dtype " << dtype_name(t->dtype())
            << ", which cannot be safely cast to " << dtype_name(dtype_) << "; cast it explicitly";
        v = cast(v, dtype_);
      }
    }
    ins.push_back(v);
  }
  Var out = TensorType::make(dtype_, {Dim(static_cast<std::int64_t>(ins.size()))})->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {out});
}

void MakeVector::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  NDArray out = NDArray::empty({static_cast<std::int64_t>(inputs.size())}, dtype_);
  for (std::size_t i = 0; i < inputs.size(); ++i) out.index(0, static_cast<std::int64_t>(i)).assign(inputs[i]);
  outputs[0] = out;
}

std::vector<std::vector<Var>> MakeVector::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  return {{detail::int64_const(node.nin())}};
}

std::vector<Var> MakeVector::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  if (!is_float(dtype_) && !is_complex(dtype_)) return r;
  const Var& gz = output_grads[0];
  if (!gz) return r;
  for (int i = 0; i < node.nin(); ++i) r[static_cast<std::size_t>(i)] = subtensor(gz, {Index(i)});
  return r;
}

Var make_vector(std::vector<Var> scalars, std::optional<DType> dtype) {
  if (!dtype) {
    DType d = DType::Int64;
    for (std::size_t i = 0; i < scalars.size(); ++i) {
      const TensorType* t = tensor_type(as_tensor_variable(scalars[i]));
      d = i == 0 ? t->dtype() : promote_types(d, t->dtype());
    }
    dtype = d;
  }
  return OpPtr(new MakeVector(*dtype))->apply1(std::move(scalars));
}

}  // namespace theano::tensor
