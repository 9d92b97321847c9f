// ExtractDiag (NumPy's diagonal, PyTensor's extract_diag) and the user
// functions built on it (diagonal, extract_diag, diag of a matrix, trace):
// make_node's checks, perform as a strided view of the input, infer_shape, the
// gradient (the output gradient placed on the diagonal of zeros of x's shape)
// and the graph form the specialize stage puts in its place.
#include <algorithm>
#include <string>

#include "diag_graph.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

using namespace detail;

ExtractDiag::ExtractDiag(int offset, int axis1, int axis2) : offset_(offset), axis1_(axis1), axis2_(axis2) {
  THEANO_USER_CHECK(axis1_ >= 0 && axis2_ >= 0 && axis1_ != axis2_, ValueError)
      << "ExtractDiag: axis1 " << axis1_ << " and axis2 " << axis2_ << " must be distinct and non-negative here";
}

THEANO_REGISTER_OP(ExtractDiag,
                   .no_cpp = "expanded at specialize (local_linalg_structure_expand) into Reshape and Subtensor, "
                             "whose lowerings make the same view",
                   .no_cuda = "expanded at specialize into Reshape and Subtensor, which have GPU forms");

ApplyPtr ExtractDiag::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(axis1_ < t.ndim() && axis2_ < t.ndim(), ValueError)
      << name() << ": axis1 " << axis1_ << " or axis2 " << axis2_ << " is out of range for " << x.str()
      << " of type " << t.str();
  StaticShape out;
  for (int d = 0; d < t.ndim(); ++d)
    if (d != axis1_ && d != axis2_) out.push_back(t.shape()[static_cast<std::size_t>(d)]);
  const Dim n = t.shape()[static_cast<std::size_t>(axis1_)], m = t.shape()[static_cast<std::size_t>(axis2_)];
  out.push_back(n && m ? Dim(diag_length(*n, *m, offset_)) : Dim());
  return Apply::create(OpPtr(this), {x}, {TensorType::make(t.dtype(), std::move(out))->make_variable()});
}

ViewMap ExtractDiag::view_map() const { return {{0, {0}}}; }

void ExtractDiag::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  THEANO_USER_CHECK(axis1_ < x.ndim() && axis2_ < x.ndim(), ValueError)
      << name() << ": a value of shape " << shape_to_string(x.shape()) << " has no axis " << std::max(axis1_, axis2_);
  const auto a1 = static_cast<std::size_t>(axis1_), a2 = static_cast<std::size_t>(axis2_);
  const std::int64_t k = diag_length(x.shape()[a1], x.shape()[a2], offset_);
  std::vector<std::int64_t> shape, strides;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (d != a1 && d != a2) {
      shape.push_back(x.shape()[d]);
      strides.push_back(x.strides()[d]);
    }
  shape.push_back(k);
  strides.push_back(x.strides()[a1] + x.strides()[a2]);
  // Element 0 of the diagonal: row max(-offset, 0), column max(offset, 0); only when it exists.
  auto* first = static_cast<std::byte*>(x.address());
  if (k > 0)
    first += offset_ >= 0 ? static_cast<std::int64_t>(offset_) * x.strides()[a2]
                          : -static_cast<std::int64_t>(offset_) * x.strides()[a1];
  outputs[0] = NDArray::from_strided(x.owner(), first, x.dtype(), std::move(shape), std::move(strides), x.device());
}

std::vector<std::vector<Var>> ExtractDiag::infer_shape(const Apply&,
                                                       const std::vector<std::vector<Var>>& shapes) const {
  const std::vector<Var>& s = shapes[0];
  std::vector<Var> out;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (d != static_cast<std::size_t>(axis1_) && d != static_cast<std::size_t>(axis2_)) out.push_back(s[d]);
  out.push_back(diag_length(s[static_cast<std::size_t>(axis1_)], s[static_cast<std::size_t>(axis2_)], offset_));
  return {out};
}

// d out[..., i] / d x[..., i, i + offset] = 1: the output gradient on that diagonal of zeros shaped as x
// (rows axis1, columns axis2, the other axes in order, then moved back into place).
std::vector<Var> ExtractDiag::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& x = node.input(0);
  const int nd = tensor_type(x)->ndim();
  const Var placed = place_diagonal(gz, offset_, shape_i(x, axis1_), shape_i(x, axis2_));
  return {permuted(placed, inverse_permutation(axes_last(nd, axis1_, axis2_)))};
}

Var ExtractDiag::expanded(const std::vector<Var>& inputs) const {
  const Var& x = inputs.at(0);
  return take_diagonal(permuted(x, axes_last(tensor_type(x)->ndim(), axis1_, axis2_)), offset_);
}

namespace {

Var diagonal_of(const TensorLike& x, int offset, int axis1, int axis2, const char* fn) {
  const Var& v = x.var();
  const int nd = tensor_type(v)->ndim();
  THEANO_USER_CHECK(nd >= 2, ValueError) << fn << ": expected " << v.str() << " of rank 2 or more, got rank " << nd;
  const auto [a1, a2] = resolve_axis_pair(axis1, axis2, nd, fn, v.str() + " of rank " + std::to_string(nd));
  return OpPtr(new ExtractDiag(offset, a1, a2))->apply1({v});
}

}  // namespace

Var diagonal(const TensorLike& x, int offset, int axis1, int axis2) {
  return diagonal_of(x, offset, axis1, axis2, "diagonal");
}

Var extract_diag(const TensorLike& x, int offset, int axis1, int axis2) {
  return diagonal_of(x, offset, axis1, axis2, "extract_diag");
}

Var diag(const TensorLike& v_or_m, int k) {
  const Var& v = v_or_m.var();
  const int nd = tensor_type(v)->ndim();
  THEANO_USER_CHECK(nd == 1 || nd == 2, ValueError)
      << "diag: expected a vector or a matrix, got " << v.str() << " of rank " << nd;
  return nd == 1 ? alloc_diag(v, k) : diagonal_of(v, k, 0, 1, "diag");
}

Var trace(const TensorLike& x, int offset, int axis1, int axis2) {
  return sum(diagonal_of(x, offset, axis1, axis2, "trace"), Axes(-1));
}

}  // namespace theano::tensor::linalg
