// BatchedDot: a (..., m, k) x b (..., k, n) -> (..., m, n), one cblas_?gemm
// per batch item (blas_kernels.cpp's gemm on the item's 2-d views, so each
// item follows the BLAS layout rule of blas_layout.h: read in place with a
// transpose flag, or copied). Debian's OpenBLAS has no cblas_?gemm_batch, so
// this loops; the C++ lowering loops the same way (codegen/src/emit/lower/
// blas.cpp), the CUDA form calls cuBLAS per item (gpu_blas.cpp). The shape
// rule, its messages and the batch walk are kernels/batched_dot_rules.h.
#include "theano/tensor/batched_blas.h"

#include "../reduction/kernel_util.h"
#include "blas_kernels.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/batched_dot_rules.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

THEANO_REGISTER_OP(BatchedDot);

namespace {

// Bit d set when batch axis d of the type is statically 1 (it may broadcast).
int64_t batch_broadcast_mask(const TensorType& t) {
  int64_t m = 0;
  for (int d = 0; d < t.ndim() - 2; ++d)
    if (t.shape()[static_cast<std::size_t>(d)] == Dim(1)) m |= int64_t{1} << d;
  return m;
}

}  // namespace

// GPU form (cuBLAS): both operands.
std::optional<GpuPlacement> BatchedDot::gpu_form(const Apply& node) const {
  return blas_detail::blas_gpu_form(node, GpuPlacement::all(node.nin()));
}

ApplyPtr BatchedDot::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "BatchedDot takes 2 inputs, got " << inputs.size();
  Var a = as_tensor_variable(inputs[0]), b = as_tensor_variable(inputs[1]);
  const TensorType& t0 = detail::tensor_type_of(a, "BatchedDot");
  THEANO_USER_CHECK(t0.ndim() >= 3, TypeError)
      << "BatchedDot: a must have rank 3 or more (batch dimensions, then a matrix), got " << a.str() << " of type "
      << t0.str();
  const int nd = t0.ndim();
  const TensorType& ta = blas_detail::check_blas_operand("BatchedDot", "a", a, nd, std::nullopt);
  const TensorType& tb = blas_detail::check_blas_operand("BatchedDot", "b", b, nd, ta.dtype());
  StaticShape out;
  for (int d = 0; d < nd - 2; ++d) {
    const Dim &da = ta.shape()[static_cast<std::size_t>(d)], &db = tb.shape()[static_cast<std::size_t>(d)];
    if (da == Dim(1)) out.push_back(db);
    else if (db == Dim(1)) out.push_back(da);
    else {
      THEANO_USER_CHECK(!da || !db || *da == *db, ShapeError)
          << "BatchedDot: " << THEANO_BDOT_BATCH_TEXT1 << d << THEANO_BDOT_BATCH_TEXT2 << *da
          << THEANO_BDOT_BATCH_TEXT3 << *db << ": " << a.str() << " has static shape "
          << detail::static_shape_text(ta.shape()) << " and " << b.str() << " has static shape "
          << detail::static_shape_text(tb.shape());
      out.push_back(blas_detail::merge_dim(da, db));
    }
  }
  blas_detail::check_static_dim("BatchedDot", ta.shape()[static_cast<std::size_t>(nd - 1)],
                                tb.shape()[static_cast<std::size_t>(nd - 2)], a, b,
                                "inner dimensions (the last axis of a, the second-to-last of b)");
  out.push_back(ta.shape()[static_cast<std::size_t>(nd - 2)]);
  out.push_back(tb.shape()[static_cast<std::size_t>(nd - 1)]);
  Var o = TensorType::make(ta.dtype(), out)->make_variable();
  return Apply::create(OpPtr(this), {a, b}, {o});
}

void BatchedDot::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& a = inputs[0];
  const NDArray& b = inputs[1];
  const auto& as = a.shape();
  const auto& bs = b.shape();
  const int64_t nd = a.ndim();
  std::vector<int64_t> os(static_cast<std::size_t>(nd));
  int64_t nbatch = 0, bad = 0;
  const int r = theano_batched_dot_rule(nd, as.data(), bs.data(),
                                        batch_broadcast_mask(*tensor_type(node.input(0))),
                                        batch_broadcast_mask(*tensor_type(node.input(1))), os.data(),
                                        &nbatch, &bad);
  const auto bd = static_cast<std::size_t>(bad);
  THEANO_USER_CHECK(r != THEANO_BDOT_BATCH, ShapeError)
      << "BatchedDot: " << THEANO_BDOT_BATCH_TEXT1 << bad << THEANO_BDOT_BATCH_TEXT2 << as[bd]
      << THEANO_BDOT_BATCH_TEXT3 << bs[bd] << THEANO_BDOT_BATCH_TEXT4 << "; shapes " << shape_to_string(as)
      << " and " << shape_to_string(bs);
  THEANO_USER_CHECK(r != THEANO_BDOT_INNER, ShapeError)
      << "BatchedDot: " << THEANO_BDOT_INNER_TEXT1 << as.back() << THEANO_BDOT_INNER_TEXT2
      << bs[static_cast<std::size_t>(nd - 2)] << THEANO_BDOT_INNER_TEXT3 << "; shapes " << shape_to_string(as)
      << " and " << shape_to_string(bs);
  THEANO_USER_CHECK(r != THEANO_BDOT_SIZE, ValueError) << "BatchedDot: " << THEANO_BDOT_SIZE_TEXT;
  // A fresh buffer: a previous output may still be held by the caller.
  NDArray out = NDArray::empty(os, a.dtype());
  auto item = [&](const NDArray& x, int64_t i, int64_t rows, int64_t cols) {
    const int64_t off = theano_batch_offset(nd, os.data(), x.shape().data(), x.strides().data(), i);
    return NDArray::from_strided(x.owner(), static_cast<std::byte*>(const_cast<void*>(x.data())) + off, x.dtype(),
                                 {rows, cols}, {x.strides()[nd - 2], x.strides()[nd - 1]});
  };
  const int64_t m = os[nd - 2], n = os[nd - 1], k = as[nd - 1];
  for (int64_t i = 0; i < nbatch; ++i) {
    NDArray oi = item(out, i, m, n);
    blas_detail::gemm(item(a, i, m, k), item(b, i, k, n), oi, 1.0, 0.0);
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> BatchedDot::infer_shape(const Apply& node,
                                                      const std::vector<std::vector<Var>>& input_shapes) const {
  const TensorType& ta = *tensor_type(node.input(0));
  const TensorType& tb = *tensor_type(node.input(1));
  const std::size_t nd = input_shapes[0].size();
  std::vector<Var> s;
  for (std::size_t d = 0; d + 2 < nd; ++d)  // the operand that does not broadcast there
    s.push_back(ta.shape()[d] == Dim(1) && tb.shape()[d] != Dim(1) ? input_shapes[1][d] : input_shapes[0][d]);
  s.push_back(input_shapes[0][nd - 2]);
  s.push_back(input_shapes[1][nd - 1]);
  return {s};
}

namespace {

Var swap_last(const Var& v) {
  const int nd = tensor_type(v)->ndim();
  std::vector<int> order;
  for (int d = 0; d < nd - 2; ++d) order.push_back(d);
  order.push_back(nd - 1);
  order.push_back(nd - 2);
  return dimshuffle(v, order);
}

// g summed over the batch dims `like` broadcasts (its type says size 1, g's does not).
Var sum_broadcast(const Var& g, const Var& like) {
  const StaticShape& ls = tensor_type(like)->shape();
  const StaticShape& gs = tensor_type(g)->shape();
  std::vector<int> axes;
  for (std::size_t d = 0; d + 2 < ls.size(); ++d)
    if (ls[d] == Dim(1) && gs[d] != Dim(1)) axes.push_back(static_cast<int>(d));
  return axes.empty() ? g : sum(g, Axes(axes), true);
}

}  // namespace

// out = a b per item: ga = gz b^T, gb = a^T gz (per item), summed where the operand broadcast.
std::vector<Var> BatchedDot::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var()};
  const Var &a = node.input(0), &b = node.input(1);
  const Var g = blas_detail::fit_grad(gz, node.output(0));
  return {blas_detail::fit_grad(sum_broadcast(batched_dot3(g, swap_last(b)), a), a),
          blas_detail::fit_grad(sum_broadcast(batched_dot3(swap_last(a), g), b), b)};
}

Var batched_dot3(const TensorLike& a, const TensorLike& b) {
  return OpPtr(new BatchedDot())->apply1({a.var(), b.var()});
}

}  // namespace theano::tensor
