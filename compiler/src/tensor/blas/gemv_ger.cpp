// Gemv (y <- beta*y + alpha*dot(A, x)) and Ger (A <- A + alpha*outer(x, y)):
// the matrix-vector members of the BLAS family, each with a non-inplace form
// and a form that overwrites its first input (destroy_map {0: [0]}).
#include "../reduction/kernel_util.h"
#include "blas_kernels.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

// ---- Gemv -----------------------------------------------------------------------

std::string Gemv::name() const { return inplace_ ? "Gemv{inplace}" : "Gemv{no_inplace}"; }

THEANO_REGISTER_OP(Gemv);

ApplyPtr Gemv::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 5, TypeError)
      << name() << " takes 5 inputs (y, alpha, A, x, beta), got " << inputs.size();
  for (Var& v : inputs) v = as_tensor_variable(v);
  const Var &y = inputs[0], &alpha = inputs[1], &a = inputs[2], &x = inputs[3], &beta = inputs[4];
  const std::string n = name();
  const TensorType& ty = blas_detail::check_blas_operand(n.c_str(), "y", y, 1, std::nullopt);
  const TensorType& ta = blas_detail::check_blas_operand(n.c_str(), "A", a, 2, ty.dtype());
  blas_detail::check_blas_operand(n.c_str(), "x", x, 1, ty.dtype());
  blas_detail::check_blas_scalar(n.c_str(), "alpha", alpha);
  blas_detail::check_blas_scalar(n.c_str(), "beta", beta);
  blas_detail::check_static_alignment(n.c_str(), a, x);
  blas_detail::check_static_dim(n.c_str(), ty.shape()[0], ta.shape()[0], y, a, "the lengths of y and the rows of A");
  Var out = TensorType::make(ty.dtype(), {blas_detail::merge_dim(ty.shape()[0], ta.shape()[0])})->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void Gemv::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& y = inputs[0];
  const double alpha = inputs[1].item<double>(), beta = inputs[4].item<double>();
  NDArray a = inputs[2], x = inputs[3];
  blas_detail::check_alignment(name(), a, x);
  THEANO_USER_CHECK(y.shape()[0] == a.shape()[0], ShapeError)
      << name() << ": y has shape " << shape_to_string(y.shape()) << " but dot(A, x) of shapes "
      << shape_to_string(a.shape()) << " and " << shape_to_string(x.shape()) << " has shape ("
      << a.shape()[0] << ",)";
  NDArray out;
  if (inplace_) {
    out = y;
    a = blas_detail::unaliased(a, y);
    x = blas_detail::unaliased(x, y);
  } else {
    out = beta == 0 ? NDArray::empty(y.shape(), y.dtype()) : y.copy();
  }
  blas_detail::gemv(a, x, out, alpha, beta);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Gemv::infer_shape(const Apply&,
                                                const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> Gemv::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  if (!g) return std::vector<Var>(5);
  const Var &y = node.input(0), &alpha = node.input(1), &a = node.input(2), &x = node.input(3),
            &beta = node.input(4);
  using blas_detail::fit_grad;
  return {fit_grad(mul(g, beta), y), fit_grad(sum(mul(g, dot(a, x))), alpha), fit_grad(mul(outer(g, x), alpha), a),
          fit_grad(mul(dot(transpose(a), g), alpha), x), fit_grad(sum(mul(g, y)), beta)};
}

Var gemv(const TensorLike& y, const TensorLike& alpha, const TensorLike& a, const TensorLike& x,
         const TensorLike& beta) {
  return OpPtr(new Gemv(false))->apply1({y.var(), alpha.var(), a.var(), x.var(), beta.var()});
}

// ---- Ger ------------------------------------------------------------------------

std::string Ger::name() const { return destructive_ ? "Ger{destructive}" : "Ger{non-destructive}"; }

THEANO_REGISTER_OP(Ger);

ApplyPtr Ger::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 4, TypeError) << name() << " takes 4 inputs (A, alpha, x, y), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = as_tensor_variable(v);
  const Var &a = inputs[0], &alpha = inputs[1], &x = inputs[2], &y = inputs[3];
  const std::string n = name();
  const TensorType& ta = blas_detail::check_blas_operand(n.c_str(), "A", a, 2, std::nullopt);
  const TensorType& tx = blas_detail::check_blas_operand(n.c_str(), "x", x, 1, ta.dtype());
  const TensorType& ty = blas_detail::check_blas_operand(n.c_str(), "y", y, 1, ta.dtype());
  blas_detail::check_blas_scalar(n.c_str(), "alpha", alpha);
  blas_detail::check_static_dim(n.c_str(), ta.shape()[0], tx.shape()[0], a, x, "the rows of A and the length of x");
  blas_detail::check_static_dim(n.c_str(), ta.shape()[1], ty.shape()[0], a, y,
                                "the columns of A and the length of y");
  Var out = TensorType::make(ta.dtype(), {blas_detail::merge_dim(ta.shape()[0], tx.shape()[0]),
                                          blas_detail::merge_dim(ta.shape()[1], ty.shape()[0])})
                ->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void Ger::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& a = inputs[0];
  const double alpha = inputs[1].item<double>();
  NDArray x = inputs[2], y = inputs[3];
  THEANO_USER_CHECK(a.shape()[0] == x.shape()[0] && a.shape()[1] == y.shape()[0], ShapeError)
      << name() << ": A has shape " << shape_to_string(a.shape()) << " but outer(x, y) of shapes "
      << shape_to_string(x.shape()) << " and " << shape_to_string(y.shape()) << " has shape ("
      << x.shape()[0] << ", " << y.shape()[0] << ")";
  NDArray out;
  if (destructive_) {
    out = a;
    x = blas_detail::unaliased(x, a);
    y = blas_detail::unaliased(y, a);
  } else {
    out = a.copy();
  }
  blas_detail::ger(x, y, out, alpha);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Ger::infer_shape(const Apply&,
                                               const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> Ger::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  if (!g) return std::vector<Var>(4);
  const Var &a = node.input(0), &alpha = node.input(1), &x = node.input(2), &y = node.input(3);
  using blas_detail::fit_grad;
  return {fit_grad(g, a), fit_grad(sum(mul(g, outer(x, y))), alpha), fit_grad(mul(dot(g, y), alpha), x),
          fit_grad(mul(dot(x, g), alpha), y)};
}

Var ger(const TensorLike& a, const TensorLike& alpha, const TensorLike& x, const TensorLike& y) {
  return OpPtr(new Ger(false))->apply1({a.var(), alpha.var(), x.var(), y.var()});
}

}  // namespace theano::tensor
