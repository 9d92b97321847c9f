// Dot22: matrix x matrix on float32/float64 of one dtype, straight to
// cblas_?gemm. The specialize rewrites turn Dot of two float matrices into it.
#include "../reduction/kernel_util.h"
#include "blas_kernels.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

namespace blas_detail {

// `v` must be an `ndim`-d tensor of a BLAS dtype (float32/float64), equal to
// `dtype` when given. TypeError naming the op, the role and the variable.
const TensorType& check_blas_operand(const char* op, const char* role, const Var& v, int ndim,
                                     std::optional<DType> dtype) {
  const TensorType& t = detail::tensor_type_of(v, op);
  THEANO_USER_CHECK(t.ndim() == ndim, TypeError) << op << ": " << role << " must be a " << ndim << "-d tensor, got "
                                                 << v.str() << " of type " << t.str();
  if (dtype) {
    THEANO_USER_CHECK(t.dtype() == *dtype, TypeError)
        << op << ": " << role << " must have dtype " << *dtype << " like the other operands, got " << v.str()
        << " of type " << t.str();
  } else {
    THEANO_USER_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, TypeError)
        << op << ": " << role << " must be float32 or float64, got " << v.str() << " of type " << t.str();
  }
  return t;
}

// `v` must be a 0-d real tensor (alpha / beta of Gemm, Gemv, Ger).
void check_blas_scalar(const char* op, const char* role, const Var& v) {
  const TensorType& t = detail::tensor_type_of(v, op);
  THEANO_USER_CHECK(t.ndim() == 0 && !is_complex(t.dtype()), TypeError)
      << op << ": " << role << " must be a real 0-d tensor, got " << v.str() << " of type " << t.str();
}

// Two static dimensions that must agree (either may be unknown).
void check_static_dim(const char* op, const Dim& a, const Dim& b, const Var& va, const Var& vb, const char* what) {
  THEANO_USER_CHECK(!a || !b || *a == *b, ShapeError)
      << op << ": " << what << " differ: " << va.str() << " has static shape "
      << detail::static_shape_text(tensor_type(va)->shape()) << " and " << vb.str() << " has static shape "
      << detail::static_shape_text(tensor_type(vb)->shape());
}

Dim merge_dim(const Dim& a, const Dim& b) { return a ? a : b; }

}  // namespace blas_detail

THEANO_REGISTER_OP(Dot22);

// GPU form (cuBLAS): both matrices.
std::optional<GpuPlacement> Dot22::gpu_form(const Apply& node) const {
  return blas_detail::blas_gpu_form(node, GpuPlacement::all(node.nin()));
}

ApplyPtr Dot22::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "Dot22 takes 2 inputs, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]), y = as_tensor_variable(inputs[1]);
  const TensorType& tx = blas_detail::check_blas_operand("Dot22", "x", x, 2, std::nullopt);
  const TensorType& ty = blas_detail::check_blas_operand("Dot22", "y", y, 2, tx.dtype());
  blas_detail::check_static_alignment("Dot22", x, y);
  Var out = TensorType::make(tx.dtype(), {tx.shape()[0], ty.shape()[1]})->make_variable();
  return Apply::create(OpPtr(this), {x, y}, {out});
}

void Dot22::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const NDArray& y = inputs[1];
  blas_detail::check_alignment("Dot22", x, y);
  // A fresh buffer: a previous output may still be held by the caller.
  NDArray out = NDArray::empty({x.shape()[0], y.shape()[1]}, x.dtype());
  blas_detail::gemm(x, y, out, 1.0, 0.0);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Dot22::infer_shape(const Apply&,
                                                 const std::vector<std::vector<Var>>& input_shapes) const {
  return {{input_shapes[0][0], input_shapes[1][1]}};
}

std::vector<Var> Dot22::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  return blas_detail::dot_grad(node.input(0), node.input(1), output_grads.at(0));
}

Var dot22(const TensorLike& a, const TensorLike& b) { return OpPtr(new Dot22())->apply1({a.var(), b.var()}); }

}  // namespace theano::tensor
