// Gemm: Z <- beta*Z + alpha*dot(X, Y) (cblas_?gemm). The GemmOptimizer
// rewrite produces the non-inplace form; the inplace rewrite switches to the
// form that overwrites Z (destroy_map {0: [0]}).
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

namespace blas_detail {

// Gradient term `g` for input `v`: cast to v's dtype, null for non-float inputs.
Var fit_grad(const Var& g, const Var& v) {
  const DType d = tensor_type(v)->dtype();
  if (!is_float(d)) return Var();
  return tensor_type(g)->dtype() == d ? g : cast(g, d);
}

// An operand of an inplace BLAS op that shares memory with the destroyed one is
// copied first, so BLAS never reads what it is writing.
NDArray unaliased(const NDArray& a, const NDArray& destroyed) { return a.shares_buffer(destroyed) ? a.copy() : a; }

}  // namespace blas_detail

std::string Gemm::name() const { return inplace_ ? "Gemm{inplace}" : "Gemm{no_inplace}"; }

THEANO_REGISTER_OP(Gemm);

ApplyPtr Gemm::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 5, TypeError)
      << name() << " takes 5 inputs (Z, alpha, X, Y, beta), got " << inputs.size();
  for (Var& v : inputs) v = as_tensor_variable(v);
  const Var &z = inputs[0], &alpha = inputs[1], &x = inputs[2], &y = inputs[3], &beta = inputs[4];
  const std::string n = name();
  const TensorType& tz = blas_detail::check_blas_operand(n.c_str(), "Z", z, 2, std::nullopt);
  const TensorType& tx = blas_detail::check_blas_operand(n.c_str(), "X", x, 2, tz.dtype());
  const TensorType& ty = blas_detail::check_blas_operand(n.c_str(), "Y", y, 2, tz.dtype());
  blas_detail::check_blas_scalar(n.c_str(), "alpha", alpha);
  blas_detail::check_blas_scalar(n.c_str(), "beta", beta);
  blas_detail::check_static_alignment(n.c_str(), x, y);
  blas_detail::check_static_dim(n.c_str(), tz.shape()[0], tx.shape()[0], z, x, "the row counts of Z and X");
  blas_detail::check_static_dim(n.c_str(), tz.shape()[1], ty.shape()[1], z, y, "the column counts of Z and Y");
  Var out = TensorType::make(tz.dtype(), {blas_detail::merge_dim(tz.shape()[0], tx.shape()[0]),
                                          blas_detail::merge_dim(tz.shape()[1], ty.shape()[1])})
                ->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void Gemm::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& z = inputs[0];
  const double alpha = inputs[1].item<double>(), beta = inputs[4].item<double>();
  NDArray x = inputs[2], y = inputs[3];
  blas_detail::check_alignment(name(), x, y);
  const std::vector<int64_t> shape{x.shape()[0], y.shape()[1]};
  THEANO_USER_CHECK(z.shape() == shape, ShapeError)
      << name() << ": Z has shape " << shape_to_string(z.shape()) << " but dot(X, Y) of shapes "
      << shape_to_string(x.shape()) << " and " << shape_to_string(y.shape()) << " has shape "
      << shape_to_string(shape);
  NDArray out;
  if (inplace_) {
    out = z;
    x = blas_detail::unaliased(x, z);
    y = blas_detail::unaliased(y, z);
  } else {
    out = beta == 0 ? NDArray::empty(shape, z.dtype()) : z.copy();
  }
  blas_detail::gemm(x, y, out, alpha, beta);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Gemm::infer_shape(const Apply&,
                                                const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> Gemm::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  if (!g) return std::vector<Var>(5);
  const Var &z = node.input(0), &alpha = node.input(1), &x = node.input(2), &y = node.input(3),
            &beta = node.input(4);
  using blas_detail::fit_grad;
  return {fit_grad(mul(g, beta), z), fit_grad(sum(mul(g, dot(x, y))), alpha),
          fit_grad(mul(dot(g, transpose(y)), alpha), x), fit_grad(mul(dot(transpose(x), g), alpha), y),
          fit_grad(sum(mul(g, z)), beta)};
}

Var gemm(const TensorLike& z, const TensorLike& alpha, const TensorLike& x, const TensorLike& y,
         const TensorLike& beta) {
  return OpPtr(new Gemm(false))->apply1({z.var(), alpha.var(), x.var(), y.var(), beta.var()});
}

}  // namespace theano::tensor
