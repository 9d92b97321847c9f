// MatrixInverse, MatrixPinv, Det and SLogDet (inv, pinv, det, slogdet):
// make_node, perform through kernels/linalg.h (lapack_op.cpp's driver),
// infer_shape and the gradients of Giles 2008 (Ā = -X^T X̄ X^T; d̄ det(A) A^-T;
// A^-T for log|det|); lstsq and lstsq_full as graphs over pinv and svdvals.
#include <utility>

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor::linalg {
namespace {

/// A batch of scalars as a batch of 1 x 1 matrices.
Var as_matrix_of_one(const Var& s) {
  std::vector<int> order;
  for (int d = 0; d < tensor_type(s)->ndim(); ++d) order.push_back(d);
  order.push_back(kNewAxis);
  order.push_back(kNewAxis);
  return dimshuffle(s, order);
}

}  // namespace

THEANO_REGISTER_OP(MatrixInverse);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(MatrixPinv);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp (gesvd)
THEANO_REGISTER_OP(Det);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(SLogDet);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp

int MatrixInverse::la_kind() const { return THEANO_LA_INV; }
int MatrixPinv::la_kind() const { return THEANO_LA_PINV; }
int Det::la_kind() const { return THEANO_LA_DET; }
int SLogDet::la_kind() const { return THEANO_LA_SLOGDET; }

ApplyPtr MatrixInverse::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  return detail::make_lapack_node(*this, {x}, {detail::square_core(x)});
}
ApplyPtr MatrixPinv::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  StaticShape core;
  if (tensor_type(x)->ndim() >= 2) {
    const StaticShape c = detail::core_static(x, 2);
    core = {c[1], c[0]};
  }
  return detail::make_lapack_node(*this, {x}, {core});
}
ApplyPtr Det::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  return detail::make_lapack_node(*this, std::move(inputs), {StaticShape{}});
}
ApplyPtr SLogDet::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  return detail::make_lapack_node(*this, std::move(inputs), {StaticShape{}, StaticShape{}});
}

void MatrixInverse::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void MatrixPinv::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void Det::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void SLogDet::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> MatrixInverse::infer_shape(const Apply&,
                                                         const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}
std::vector<std::vector<Var>> MatrixPinv::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  std::vector<Var> s = shapes[0];
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return {s};
}
std::vector<std::vector<Var>> Det::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {std::vector<Var>(shapes[0].begin(), shapes[0].end() - 2)};
}
std::vector<std::vector<Var>> SLogDet::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  const std::vector<Var> b(shapes[0].begin(), shapes[0].end() - 2);
  return {b, b};
}

std::vector<Var> MatrixInverse::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var xt = matrix_transpose(node.output(0));
  return {neg(matmul(matmul(xt, gz), xt))};
}

std::vector<Var> MatrixPinv::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& A = node.input(0);
  const Var& Z = node.output(0);
  const Var Zt = matrix_transpose(Z), gzt = matrix_transpose(gz);
  const Var left = sub(detail::eye_like(Z), matmul(A, Z));   // I - A Z (m x m; Z's last dim is m)
  const Var right = sub(detail::eye_like(A), matmul(Z, A));  // I - Z A (n x n)
  const Var g = add(add(neg(matmul(matmul(Zt, gz), Zt)), matmul(matmul(left, gzt), matmul(Z, Zt))),
                    matmul(matmul(Zt, Z), matmul(gzt, right)));
  return {g};
}

std::vector<Var> Det::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& A = node.input(0);
  const Var s = as_matrix_of_one(mul(gz, node.output(0)));
  return {mul(s, matrix_transpose(OpPtr(new MatrixInverse())->apply1({A})))};
}

std::vector<Var> SLogDet::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gl = output_grads.at(1);
  if (!gl) return {zeros_like(node.input(0))};
  const Var& A = node.input(0);
  return {mul(as_matrix_of_one(gl), matrix_transpose(OpPtr(new MatrixInverse())->apply1({A})))};
}

Var inv(const TensorLike& x) { return OpPtr(new MatrixInverse())->apply1({detail::as_float(x)}); }

Var pinv(const TensorLike& x) { return OpPtr(new MatrixPinv())->apply1({detail::as_float(x)}); }

Var lstsq(const TensorLike& a, const TensorLike& b) {
  auto [av, bv] = detail::as_common_float(a, b);
  const int b_ndim = tensor_type(bv)->ndim() == 1 ? 1 : 2;
  // A matrix a: NumPy's rank cut (lstsq_full's), eps * max(m, n) * s[0]. pinv's
  // 1e-15 * s[0] keeps float32's rounding-level singular values of a
  // rank-deficient a and divides by them.
  if (tensor_type(av)->ndim() == 2) return lstsq_full(av, bv)[0];
  return detail::from_column(matmul(pinv(av), detail::as_column(bv, b_ndim)), b_ndim);
}

std::vector<Var> lstsq_full(const TensorLike& a, const TensorLike& b) {
  auto [av, bv] = detail::as_common_float(a, b);
  const int an = tensor_type(av)->ndim(), bn = tensor_type(bv)->ndim();
  THEANO_USER_CHECK(an == 2 && (bn == 1 || bn == 2), ValueError)
      << "lstsq_full: a (" << av.str() << ") must be a matrix and b (" << bv.str()
      << ") a vector or a matrix (NumPy's lstsq takes no batch), got ranks " << an << " and " << bn;
  const DType dt = tensor_type(av)->dtype();
  const std::vector<Var> usv = svd(av, false);
  const Var &U = usv[0], &s = usv[1], &Vt = usv[2];
  const Var m = shape_i(av, 0), n = shape_i(av, 1);
  // NumPy's rcond=None: eps * max(m, n) times the largest singular value (none for an empty a).
  const double eps = dt == DType::Float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  const Var smax = sum(subtensor(s, {Index(slice(Bound(), 1))}));
  const Var tol = mul(mul(cast(maximum(m, n), dt), eps), smax);
  const Var kept = gt(s, tol);
  const Var rank = sum(cast(kept, DType::Int64));
  // x = V diag(1 / s over the kept ones, 0 elsewhere) U^T b (no division by a dropped zero).
  const Var keptf = cast(kept, dt);
  const Var inv_s = true_div(keptf, add(s, sub(1.0, keptf)));
  const Var c = mul(dot(matrix_transpose(U), bv), bn == 1 ? inv_s : dimshuffle(inv_s, {0, kNewAxis}));
  const Var x = dot(matrix_transpose(Vt), c);
  Var res = sum(sqr(sub(dot(av, x), bv)), Axes(0));
  if (bn == 1) res = dimshuffle(res, {kNewAxis});
  const Var len = mul(shape_i(res, 0), cast(and_(eq(rank, n), gt(m, n)), DType::Int64));
  return {x, subtensor(res, {Index(slice(Bound(), len))}), rank, s};
}

Var det(const TensorLike& x) { return OpPtr(new Det())->apply1({detail::as_float(x)}); }

std::pair<Var, Var> slogdet(const TensorLike& x) {
  const OpPtr op(new SLogDet());
  const std::vector<Var> outs = (*op)({detail::as_float(x)});
  return {outs[0], outs[1]};
}

}  // namespace theano::tensor::linalg
