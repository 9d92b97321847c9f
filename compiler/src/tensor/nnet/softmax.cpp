// Softmax and LogSoftmax: stable kernels over the lanes of one axis (the lane
// maximum is subtracted before exp), closed-form gradients.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "../reduction/kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::nnet {
namespace {

// Calls f(lane_start, length, stride_in_elements) for every lane of `a` along `axis`.
template <class T, class F>
void for_each_lane(NDArray& a, int axis, F&& f) {
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = a.shape()[ax];
  if (n == 0 || a.size() == 0) return;
  const int64_t stride = a.strides()[ax] / static_cast<int64_t>(sizeof(T));
  detail::for_each_element(a.index(axis, 0), [&](const std::byte* p) {
    f(reinterpret_cast<T*>(const_cast<std::byte*>(p)), n, stride);
  });
}

// Shared make_node: one float tensor of rank > axis; output of the same type.
ApplyPtr make_softmax_node(const Op& op, int axis, std::vector<Var> inputs) {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << op.name() << " takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(is_float(t.dtype()), TypeError)
      << op.type_name() << ": expected a float tensor, got " << x.str() << " of type " << t.str()
      << " (cast integers first)";
  THEANO_USER_CHECK(axis < t.ndim(), ValueError) << op.type_name() << ": axis " << axis << " is out of range for "
                                                 << x.str() << " of type " << t.str();
  Var out = t.make_variable();
  return Apply::create(OpPtr(&op), {x}, {out});
}

// In-place kernel on a float32/float64 copy of the input.
template <class T>
void softmax_lanes(NDArray& a, int axis, bool log) {
  for_each_lane<T>(a, axis, [log](T* p, int64_t n, int64_t s) {
    T m = -std::numeric_limits<T>::infinity();
    for (int64_t i = 0; i < n; ++i) m = std::max(m, p[i * s]);
    // All -inf: keep the lane finite-free (numpy gives nan there too).
    T total = 0;
    for (int64_t i = 0; i < n; ++i) total += std::exp(p[i * s] - m);
    if (log) {
      const T lse = m + std::log(total);
      for (int64_t i = 0; i < n; ++i) p[i * s] -= lse;
    } else {
      for (int64_t i = 0; i < n; ++i) p[i * s] = std::exp(p[i * s] - m) / total;
    }
  });
}

NDArray run_softmax(const NDArray& x, int axis, bool log, const std::string& name) {
  THEANO_USER_CHECK(axis < x.ndim(), ValueError)
      << name << ": axis " << axis << " is out of range for a value of shape " << shape_to_string(x.shape());
  const DType cd = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  NDArray a = x.astype(cd);  // a fresh C-contiguous copy, computed in place
  if (cd == DType::Float64) softmax_lanes<double>(a, axis, log);
  else softmax_lanes<float>(a, axis, log);
  return a.dtype() == x.dtype() ? a : a.astype(x.dtype());
}

int resolve_axis(const Var& x, int axis, const char* what) { return Axes(axis).resolve(tensor_type(x)->ndim(), what)[0]; }

}  // namespace

Softmax::Softmax(int axis) : axis_(axis) {
  THEANO_USER_CHECK(axis >= 0, ValueError) << "Softmax: axis " << axis << " must be non-negative here";
}

THEANO_REGISTER_OP(Softmax);

// GPU form: the input.
std::optional<GpuPlacement> Softmax::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin()); }

ApplyPtr Softmax::make_node(std::vector<Var> inputs) const { return make_softmax_node(*this, axis_, std::move(inputs)); }

void Softmax::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = run_softmax(inputs[0], axis_, false, name());
}

std::vector<std::vector<Var>> Softmax::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> Softmax::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var sm = node.output(0);
  return {mul(sm, sub(gz, sum(mul(gz, sm), axis_, true)))};
}

LogSoftmax::LogSoftmax(int axis) : axis_(axis) {
  THEANO_USER_CHECK(axis >= 0, ValueError) << "LogSoftmax: axis " << axis << " must be non-negative here";
}

THEANO_REGISTER_OP(LogSoftmax);

// GPU form: the input.
std::optional<GpuPlacement> LogSoftmax::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin()); }

ApplyPtr LogSoftmax::make_node(std::vector<Var> inputs) const {
  return make_softmax_node(*this, axis_, std::move(inputs));
}

void LogSoftmax::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = run_softmax(inputs[0], axis_, true, name());
}

std::vector<std::vector<Var>> LogSoftmax::infer_shape(const Apply&,
                                                      const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> LogSoftmax::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  return {sub(gz, mul(exp(node.output(0)), sum(gz, axis_, true)))};
}

namespace {

// Over every element (axis=None): normalize the flattened input, then give it its shape back.
template <class OpT>
Var over_axis(const TensorLike& x, std::optional<int> axis, const char* what) {
  const Var& v = x.var();
  if (axis) return OpPtr(new OpT(resolve_axis(v, *axis, what)))->apply1({v});
  const TensorType& t = *tensor_type(v);
  if (t.ndim() == 1) return OpPtr(new OpT(0))->apply1({v});
  Var flat = OpPtr(new OpT(0))->apply1({flatten(v, 1)});
  return t.ndim() == 0 ? reshape(flat, std::vector<std::int64_t>{}) : reshape(flat, shape(v), t.ndim());
}

}  // namespace

Var softmax(const TensorLike& x, std::optional<int> axis) { return over_axis<Softmax>(x, axis, "softmax"); }

Var log_softmax(const TensorLike& x, std::optional<int> axis) { return over_axis<LogSoftmax>(x, axis, "log_softmax"); }

}  // namespace theano::tensor::nnet

// Props and alias maps, out of the public header (it stays light to compile).
