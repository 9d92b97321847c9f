// AllocDiag (PyTensor's alloc_diag, NumPy's diag of a vector): make_node's
// checks, perform by index arithmetic, infer_shape, the gradient (the
// diagonal of the output gradient) and the graph form the specialize stage
// puts in its place (zeros with the diagonal's strided slice set).
#include <cstdlib>
#include <cstring>
#include <string>

#include "diag_graph.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

using namespace detail;

namespace {

/// The side of the square planes holding a diagonal of k elements at `offset` (k < 2^62 and |offset| < 2^31: no
/// overflow; zeros() checks the planes' size).
std::int64_t plane_side(std::int64_t k, int offset) { return k + std::llabs(static_cast<long long>(offset)); }

}  // namespace

AllocDiag::AllocDiag(int offset, int axis1, int axis2) : offset_(offset), axis1_(axis1), axis2_(axis2) {
  THEANO_USER_CHECK(axis1_ >= 0 && axis2_ >= 0 && axis1_ != axis2_, ValueError)
      << "AllocDiag: axis1 " << axis1_ << " and axis2 " << axis2_ << " must be distinct and non-negative here";
}

THEANO_REGISTER_OP(AllocDiag,
                   .no_cpp = "expanded at specialize (local_linalg_structure_expand) into Alloc, IncSubtensor and "
                             "Reshape, which have lowerings",
                   .no_cuda = "expanded at specialize into Alloc, IncSubtensor and Reshape, which have GPU forms");

ApplyPtr AllocDiag::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var v = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(v);
  THEANO_USER_CHECK(t.ndim() >= 1, ValueError) << name() << ": expected " << v.str() << " of rank 1 or more, got "
                                               << t.str();
  const int nd = t.ndim() + 1;
  THEANO_USER_CHECK(axis1_ < nd && axis2_ < nd, ValueError)
      << name() << ": axis1 " << axis1_ << " or axis2 " << axis2_ << " is out of range for the output of rank " << nd
      << " made from " << v.str() << " of type " << t.str();
  const Dim k = t.shape().back();
  const Dim side = k ? Dim(plane_side(*k, offset_)) : Dim();
  StaticShape out(static_cast<std::size_t>(nd));
  std::size_t b = 0;
  for (int d = 0; d < nd; ++d)
    out[static_cast<std::size_t>(d)] = d == axis1_ || d == axis2_ ? side : t.shape()[b++];
  return Apply::create(OpPtr(this), {v}, {TensorType::make(t.dtype(), std::move(out))->make_variable()});
}

void AllocDiag::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray v = inputs[0].contiguous();
  THEANO_USER_CHECK(v.ndim() >= 1, ValueError) << name() << ": expected a value of rank 1 or more, got a 0-d value";
  const int nd = v.ndim() + 1;
  const std::int64_t k = v.shape().back(), side = plane_side(k, offset_);
  std::vector<std::int64_t> shape(v.shape().begin(), v.shape().end() - 1);
  shape.push_back(side);
  shape.push_back(side);
  NDArray out = NDArray::zeros(shape, v.dtype());  // the planes last: (..., side, side), C-contiguous
  const std::size_t item = v.itemsize();
  const std::int64_t row0 = offset_ < 0 ? -static_cast<std::int64_t>(offset_) : 0, col0 = offset_ > 0 ? offset_ : 0;
  const std::int64_t planes = k == 0 ? 0 : v.size() / k;
  const auto* src = static_cast<const std::byte*>(v.data());
  auto* dst = static_cast<std::byte*>(out.data());
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t i = 0; i < k; ++i)
      std::memcpy(dst + static_cast<std::size_t>((p * side + row0 + i) * side + col0 + i) * item,
                  src + static_cast<std::size_t>(p * k + i) * item, item);
  outputs[0] = out.transpose(inverse_permutation(axes_last(nd, axis1_, axis2_)));
}

std::vector<std::vector<Var>> AllocDiag::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  const std::vector<Var>& s = shapes[0];
  const Var side = add(s.back(), int64_constant(std::llabs(static_cast<long long>(offset_))));
  const int nd = static_cast<int>(s.size()) + 1;
  std::vector<Var> out;
  std::size_t b = 0;
  for (int d = 0; d < nd; ++d) out.push_back(d == axis1_ || d == axis2_ ? side : s[b++]);
  return {out};
}

// out[..., i + max(-offset, 0), i + max(offset, 0)] = v[..., i]: the gradient is that diagonal of gz.
std::vector<Var> AllocDiag::grad(const Apply&, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  return {OpPtr(new ExtractDiag(offset_, axis1_, axis2_))->apply1({gz})};
}

Var AllocDiag::expanded(const std::vector<Var>& inputs) const {
  const Var& v = inputs.at(0);
  const int nd = tensor_type(v)->ndim() + 1;
  const Var side = add(shape_i(v, -1), int64_constant(std::llabs(static_cast<long long>(offset_))));
  return permuted(place_diagonal(v, offset_, side, side), inverse_permutation(axes_last(nd, axis1_, axis2_)));
}

Var alloc_diag(const TensorLike& v, int offset, int axis1, int axis2) {
  const Var& x = v.var();
  const int nd = tensor_type(x)->ndim();
  THEANO_USER_CHECK(nd >= 1, ValueError) << "alloc_diag: expected " << x.str() << " of rank 1 or more, got rank 0";
  const auto [a1, a2] = resolve_axis_pair(axis1, axis2, nd + 1, "alloc_diag",
                                          "the output of rank " + std::to_string(nd + 1) + " made from " + x.str());
  return OpPtr(new AllocDiag(offset, a1, a2))->apply1({x});
}

}  // namespace theano::tensor::linalg
