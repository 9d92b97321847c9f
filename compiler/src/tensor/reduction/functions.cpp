// The user-level reduction functions: sum ... any, argmax / argmin over a
// CAReduce / ArgReduce node (plus a DimShuffle for keepdims), and mean, var and
// std as graphs of those primitives, as Theano builds them.
#include <algorithm>

#include "kernel_util.h"
#include "theano/gradient.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

Var careduce(const char* what, const char* scalar_op, const TensorLike& x, const Axes& axes, bool keepdims,
             std::optional<DType> dtype = {}, std::optional<DType> acc_dtype = {}) {
  const Var& v = x.var();
  const int nd = tensor_type(v)->ndim();
  const std::vector<int> ax = axes.resolve(nd, what);
  Var r = OpPtr(new CAReduce(scalar_op, ax, dtype, acc_dtype))->apply1({v});
  return keepdims ? detail::restore_reduced_axes(r, nd, ax) : r;
}

Var arg_reduce(bool is_max, const TensorLike& x, std::optional<int> axis, bool keepdims) {
  const Var& v = x.var();
  const int nd = tensor_type(v)->ndim();
  const std::vector<int> ax = (axis ? Axes(*axis) : Axes()).resolve(nd, is_max ? "argmax" : "argmin");
  Var r = OpPtr(new ArgReduce(is_max, ax))->apply1({v});
  return keepdims ? detail::restore_reduced_axes(r, nd, ax) : r;
}

}  // namespace

Var sum(const TensorLike& x, const Axes& axes, bool keepdims, std::optional<DType> acc_dtype,
        std::optional<DType> dtype) {
  return careduce("sum", "add", x, axes, keepdims, dtype, acc_dtype);
}
Var prod(const TensorLike& x, const Axes& axes, bool keepdims, std::optional<DType> acc_dtype,
         std::optional<DType> dtype) {
  return careduce("prod", "mul", x, axes, keepdims, dtype, acc_dtype);
}
Var prod_without_zeros(const TensorLike& x, const Axes& axes, bool keepdims) {
  return careduce("prod_without_zeros", "mul_without_zeros", x, axes, keepdims);
}
Var max(const TensorLike& x, const Axes& axes, bool keepdims) { return careduce("max", "maximum", x, axes, keepdims); }
Var min(const TensorLike& x, const Axes& axes, bool keepdims) { return careduce("min", "minimum", x, axes, keepdims); }
Var all_(const TensorLike& x, const Axes& axes, bool keepdims) { return careduce("all", "and", x, axes, keepdims); }
Var any_(const TensorLike& x, const Axes& axes, bool keepdims) { return careduce("any", "or", x, axes, keepdims); }

Var argmax(const TensorLike& x, std::optional<int> axis, bool keepdims) { return arg_reduce(true, x, axis, keepdims); }
Var argmin(const TensorLike& x, std::optional<int> axis, bool keepdims) {
  return arg_reduce(false, x, axis, keepdims);
}

Var reduced_count(const Var& x, const std::vector<int>& axes, DType dtype) {
  const TensorType& t = detail::tensor_type_of(x, "reduced_count");
  bool known = true;
  int64_t n = 1;
  for (int a : axes) {
    const Dim& d = t.shape().at(static_cast<std::size_t>(a));
    if (d) n *= *d;
    else known = false;
  }
  if (known) return constant(NDArray::full({}, static_cast<double>(n), dtype));
  // Unknown sizes: the product of the symbolic dimensions (ints, then one cast).
  Var count;
  for (int a : axes) {
    Var d = shape_i(x, a);
    count = count ? mul(count, d) : d;
  }
  return cast(count, dtype);
}

Var logsumexp(const TensorLike& x, const Axes& axes, bool keepdims) {
  const Var& v = x.var();
  const TensorType& t = detail::tensor_type_of(v, "logsumexp");
  THEANO_USER_CHECK(is_float(t.dtype()), TypeError)
      << "logsumexp: " << (v.name().empty() ? std::string("the input") : "'" + v.name() + "'") << " has dtype " << dtype_name(t.dtype()) << ", expected a float";
  const std::vector<int> ax = axes.resolve(t.ndim(), "logsumexp");
  // The same form the stabilize rewrite local_log_sum_exp makes (it sees the
  // shift and leaves it), with the shift cut from the gradient. With keepdims
  // the maximum keeps its axes, so no DimShuffle sits over an elementwise
  // result (canonicalize would lift it and the form would change).
  Var m = zero_grad(max(v, ax, keepdims));
  const std::vector<std::int64_t> ones(static_cast<std::size_t>(tensor_type(m)->ndim()), 1);
  m = switch_(isinf(m), constant(NDArray::full(ones, 0.0, t.dtype())), m);
  Var shift = m;
  if (!keepdims) {
    std::vector<int> order;
    for (int a = 0, k = 0; a < t.ndim(); ++a)
      order.push_back(std::find(ax.begin(), ax.end(), a) != ax.end() ? kNewAxis : k++);
    shift = dimshuffle(m, order);
  }
  return add(log(sum(exp(sub(v, shift)), ax, keepdims)), m);
}

Var mean(const TensorLike& x, const Axes& axes, bool keepdims) {
  const Var& v = x.var();
  const TensorType& t = *tensor_type(v);
  const std::vector<int> ax = axes.resolve(t.ndim(), "mean");
  // float16 sums in float32 and is cast back at the end (Theano's mean).
  const bool half_in = t.dtype() == DType::Float16;
  Var s = sum(v, ax, false, {}, half_in ? std::optional<DType>(DType::Float32) : std::nullopt);
  const DType sd = tensor_type(s)->dtype();
  const DType div = (sd == DType::Float32 || sd == DType::Complex64) ? DType::Float32 : DType::Float64;
  Var r = true_div(s, reduced_count(v, ax, div));
  if (half_in) r = cast(r, DType::Float16);
  return keepdims ? detail::restore_reduced_axes(r, t.ndim(), ax) : r;
}

Var var(const TensorLike& x, const Axes& axes, int ddof, bool keepdims) {
  const Var& v = x.var();
  const TensorType& t = *tensor_type(v);
  const std::vector<int> ax = axes.resolve(t.ndim(), "var");
  const Var centered = sub(v, mean(v, ax, true));
  const Var sq = is_complex(t.dtype()) ? sqr(abs(centered)) : sqr(centered);
  Var s = sum(sq, ax);
  const DType sd = tensor_type(s)->dtype();
  const DType div = (sd == DType::Float32 || sd == DType::Float16) ? DType::Float32 : DType::Float64;
  Var n = reduced_count(v, ax, div);
  if (ddof != 0) {
    if (const Constant* c = n.as_constant())
      n = constant(NDArray::full({}, c->data().item<double>() - ddof, div));
    else
      n = sub(n, constant(NDArray::full({}, static_cast<double>(ddof), div)));
  }
  Var r = true_div(s, n);
  if (tensor_type(r)->dtype() != sd) r = cast(r, sd);
  return keepdims ? detail::restore_reduced_axes(r, t.ndim(), ax) : r;
}

Var std(const TensorLike& x, const Axes& axes, int ddof, bool keepdims) { return sqrt(var(x, axes, ddof, keepdims)); }

}  // namespace theano::tensor
