// Softmax and LogSoftmax: the stable kernels over the lanes of one axis of
// theano/runtime/kernels/softmax.h (the generated code's, in double; the lane
// maximum is subtracted before exp), closed-form gradients.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "../reduction/kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/softmax.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

// The kernels of theano/runtime/kernels/softmax.h, the generated code's (at
// file scope: their exp and log are libm's, not the tensor functions).
THEANO_SOFTMAX_KERNELS(float, theano_softmax_f32, 0)
THEANO_SOFTMAX_KERNELS(float, theano_log_softmax_f32, 1)
THEANO_SOFTMAX_KERNELS(double, theano_softmax_f64, 0)
THEANO_SOFTMAX_KERNELS(double, theano_log_softmax_f64, 1)

namespace theano::tensor::nnet {
namespace {

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

template <class T>
struct Kernels {
  void (*lane)(const T*, int64_t, T*, int64_t, int64_t);
  void (*cols)(const T*, T*, int64_t, int64_t, int64_t, double*, double*);
};
const Kernels<float> kFloat[2] = {{theano_softmax_f32_lane, theano_softmax_f32_cols},
                                  {theano_log_softmax_f32_lane, theano_log_softmax_f32_cols}};
const Kernels<double> kDouble[2] = {{theano_softmax_f64_lane, theano_softmax_f64_cols},
                                    {theano_log_softmax_f64_lane, theano_log_softmax_f64_cols}};

// x (of element type T, strides multiples of it) -> o (fresh, C-contiguous),
// lane by lane as the generated code goes (codegen/src/emit/lower/nnet.cpp).
template <class T>
void softmax_lanes(const NDArray& x, NDArray& o, int axis, const Kernels<T>& k) {
  if (x.size() == 0) return;
  const int nd = x.ndim();
  const auto item = static_cast<int64_t>(sizeof(T));
  const std::vector<int64_t>& shape = x.shape();
  const std::vector<int64_t> xs = x.strides(), os = o.strides();
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = shape[ax];
  const T* px = static_cast<const T*>(x.data());
  T* po = static_cast<T*>(o.data());
  if (theano_softmax_cols_layout(shape.data(), xs.data(), nd, axis, item)) {
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= shape[static_cast<std::size_t>(d)];
    for (int d = axis + 1; d < nd; ++d) inner *= shape[static_cast<std::size_t>(d)];
    std::vector<double> m(THEANO_SOFTMAX_CHUNK), t(THEANO_SOFTMAX_CHUNK);
    for (int64_t b = 0; b < outer; ++b)
      for (int64_t j0 = 0; j0 < inner; j0 += THEANO_SOFTMAX_CHUNK)
        k.cols(px + b * n * inner + j0, po + b * n * inner + j0, n, inner,
               std::min<int64_t>(inner - j0, THEANO_SOFTMAX_CHUNK), m.data(), t.data());
    return;
  }
  // Every lane: an odometer over the other axes (element offsets).
  std::vector<int64_t> idx(static_cast<std::size_t>(nd), 0);
  int64_t xo = 0, oo = 0;
  while (true) {
    k.lane(px + xo, xs[ax] / item, po + oo, os[ax] / item, n);
    int d = nd - 1;
    for (; d >= 0; --d) {
      const auto du = static_cast<std::size_t>(d);
      if (d == axis) continue;
      if (++idx[du] < shape[du]) {
        xo += xs[du] / item;
        oo += os[du] / item;
        break;
      }
      xo -= (shape[du] - 1) * (xs[du] / item);
      oo -= (shape[du] - 1) * (os[du] / item);
      idx[du] = 0;
    }
    if (d < 0) return;
  }
}

NDArray run_softmax(const NDArray& x, int axis, bool log, const std::string& name) {
  THEANO_USER_CHECK(axis < x.ndim(), ValueError)
      << name << ": axis " << axis << " is out of range for a value of shape " << shape_to_string(x.shape());
  const DType cd = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  // The kernels read x in place when it has their element type (a copy otherwise, or for strides that are not
  // whole elements); the output is fresh and C-contiguous (on x's device), as generated code allocates it.
  const auto item = static_cast<int64_t>(dtype_size(cd));
  bool whole = x.dtype() == cd;
  for (int64_t s : x.strides()) whole = whole && s % item == 0;
  const NDArray in = whole ? x : x.astype(cd);
  NDArray out = NDArray::empty(x.shape(), cd, x.device());
  if (cd == DType::Float64) softmax_lanes<double>(in, out, axis, kDouble[log]);
  else softmax_lanes<float>(in, out, axis, kFloat[log]);
  return out.dtype() == x.dtype() ? out : out.astype(x.dtype());
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
