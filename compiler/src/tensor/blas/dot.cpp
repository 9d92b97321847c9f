// Dot: the user-level product of vectors and matrices (NumPy's rules and dtype
// promotion), its gradient as in Theano, and the `dot` / `outer` functions.
#include <optional>

#include "../reduction/kernel_util.h"
#include "blas_kernels.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

// The dtype the kernels run in: float16 goes through float32.
DType kernel_dtype(DType d) { return d == DType::Float16 ? DType::Float32 : d; }

NDArray as_dtype(const NDArray& a, DType d) { return a.dtype() == d ? a : a.astype(d); }

}  // namespace

namespace blas_detail {

// Shared by Dot and Dot22: the static inner dimensions must agree.
void check_static_alignment(const char* op, const Var& x, const Var& y) {
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const Dim kx = tx.shape().back();
  const Dim ky = ty.ndim() == 1 ? ty.shape()[0] : ty.shape()[0];
  THEANO_USER_CHECK(!kx || !ky || *kx == *ky, ShapeError)
      << op << ": shapes " << detail::static_shape_text(tx.shape()) << " and " << detail::static_shape_text(ty.shape())
      << " are not aligned: " << x.str() << " has " << *kx << " along its last axis but " << y.str() << " has "
      << *ky << " along axis 0";
}

// Run-time counterpart of check_static_alignment.
void check_alignment(std::string_view op, const NDArray& x, const NDArray& y) {
  const int64_t kx = x.shape().back(), ky = y.shape()[0];
  THEANO_USER_CHECK(kx == ky, ShapeError) << op << ": shapes " << shape_to_string(x.shape()) << " and "
                                          << shape_to_string(y.shape()) << " are not aligned: dimension "
                                          << x.ndim() - 1 << " of the first (" << kx
                                          << ") != dimension 0 of the second (" << ky << ")";
}

}  // namespace blas_detail

THEANO_REGISTER_OP(Dot);

namespace blas_detail {
std::optional<GpuPlacement> blas_gpu_form(const Apply& node, GpuPlacement data) {
  const TensorType* out = tensor_type(node.output(0));
  if (!out || (out->dtype() != DType::Float32 && out->dtype() != DType::Float64)) return std::nullopt;
  for (int i = 0; i < node.nin(); ++i) {  // cuBLAS multiplies arrays of one dtype
    const TensorType* t = tensor_type(node.input(i));
    if (data.inputs[static_cast<std::size_t>(i)] && (!t || t->dtype() != out->dtype())) return std::nullopt;
  }
  return data;
}
}  // namespace blas_detail

// GPU form (cuBLAS): both operands.
std::optional<GpuPlacement> Dot::gpu_form(const Apply& node) const {
  return blas_detail::blas_gpu_form(node, GpuPlacement::all(node.nin()));
}

ApplyPtr Dot::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "Dot takes 2 inputs, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]), y = as_tensor_variable(inputs[1]);
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  for (const Var* v : {&x, &y}) {
    const TensorType& t = *tensor_type(*v);
    THEANO_USER_CHECK(t.ndim() == 1 || t.ndim() == 2, TypeError)
        << "Dot: expected vectors or matrices, got " << v->str() << " of type " << t.str()
        << " (use dot() for scalars and tensordot() for higher ranks)";
  }
  blas_detail::check_static_alignment("Dot", x, y);
  StaticShape shape;
  if (tx.ndim() == 2) shape.push_back(tx.shape()[0]);
  if (ty.ndim() == 2) shape.push_back(ty.shape()[1]);
  Var out = TensorType::make(promote_types(tx.dtype(), ty.dtype()), std::move(shape))->make_variable();
  return Apply::create(OpPtr(this), {x, y}, {out});
}

void Dot::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x0 = inputs[0];
  const NDArray& y0 = inputs[1];
  THEANO_USER_CHECK((x0.ndim() == 1 || x0.ndim() == 2) && (y0.ndim() == 1 || y0.ndim() == 2), ShapeError)
      << "Dot: expected vectors or matrices, got values of shapes " << shape_to_string(x0.shape()) << " and "
      << shape_to_string(y0.shape());
  blas_detail::check_alignment("Dot", x0, y0);
  const DType od = tensor_type(node.output(0))->dtype();
  const DType kd = kernel_dtype(od);
  const NDArray x = as_dtype(x0, kd), y = as_dtype(y0, kd);
  NDArray r;
  if (x.ndim() == 1 && y.ndim() == 1) {
    r = blas_detail::dot_vv(x, y);
  } else if (x.ndim() == 2 && y.ndim() == 1) {
    r = NDArray::empty({x.shape()[0]}, kd);
    blas_detail::gemv(x, y, r, 1.0, 0.0);
  } else if (x.ndim() == 1) {
    r = NDArray::empty({y.shape()[1]}, kd);
    blas_detail::gemv(y.transpose(), x, r, 1.0, 0.0);
  } else {
    r = NDArray::empty({x.shape()[0], y.shape()[1]}, kd);
    blas_detail::gemm(x, y, r, 1.0, 0.0);
  }
  outputs[0] = as_dtype(r, od);
}

std::vector<std::vector<Var>> Dot::infer_shape(const Apply& node,
                                               const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> out;
  if (input_shapes[0].size() == 2) out.push_back(input_shapes[0][0]);
  if (input_shapes[1].size() == 2) out.push_back(input_shapes[1][1]);
  return {out};
}

namespace blas_detail {

// Theano's Dot.grad, for any of the four rank combinations.
std::vector<Var> dot_grad(const Var& x, const Var& y, const Var& gz) {
  if (!gz) return {Var(), Var()};
  const int xd = tensor_type(x)->ndim(), yd = tensor_type(y)->ndim();
  Var gx, gy;
  if (xd == 1 && yd == 1) {
    gx = mul(gz, y);
    gy = mul(gz, x);
  } else if (xd == 1 && yd == 2) {
    gx = dot(gz, transpose(y));
    gy = outer(x, gz);
  } else if (xd == 2 && yd == 1) {
    gx = outer(gz, y);
    gy = dot(transpose(x), gz);
  } else {
    gx = dot(gz, transpose(y));
    gy = dot(transpose(x), gz);
  }
  auto fit = [](const Var& g, const Var& v) {
    const DType d = tensor_type(v)->dtype();
    if (!is_float(d) && !is_complex(d)) return Var();
    return tensor_type(g)->dtype() == d ? g : cast(g, d);
  };
  return {fit(gx, x), fit(gy, y)};
}

}  // namespace blas_detail

std::vector<Var> Dot::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  return blas_detail::dot_grad(node.input(0), node.input(1), output_grads.at(0));
}

Var dot(const TensorLike& a, const TensorLike& b) {
  const Var &x = a.var(), &y = b.var();
  const int xd = tensor_type(x)->ndim(), yd = tensor_type(y)->ndim();
  if (xd == 0 || yd == 0) return mul(x, y);
  if (xd <= 2 && yd <= 2) {
    return OpPtr(new Dot())->apply1({x, y});
  }
  // numpy.dot for higher ranks: last axis of a with the second-to-last of b.
  return tensordot(x, y, std::make_pair(std::vector<int>{xd - 1}, std::vector<int>{yd == 1 ? 0 : yd - 2}));
}

Var outer(const TensorLike& a, const TensorLike& b) {
  Var x = a.var(), y = b.var();
  if (tensor_type(x)->ndim() != 1) x = x.flatten();
  if (tensor_type(y)->ndim() != 1) y = y.flatten();
  return dot(dimshuffle(x, {0, kNewAxis}), dimshuffle(y, {kNewAxis, 0}));
}

}  // namespace theano::tensor
