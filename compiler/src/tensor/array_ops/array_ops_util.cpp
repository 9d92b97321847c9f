// The array utilities' shared helpers (array_ops_util.h).
#include "array_ops_util.h"

#include "../shape/shape_util.h"
#include "theano/runtime/error.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor::array_ops {

int resolve_axis(const Var& x, int axis, const char* what) {
  const int nd = x.ndim();
  THEANO_USER_CHECK(axis >= -nd && axis < nd, ValueError)
      << what << ": axis " << axis << " is out of range for " << x.str() << " of rank " << nd;
  return axis < 0 ? axis + nd : axis;
}

Dim static_dim(const Var& x, int axis) { return tensor_type(x)->shape().at(static_cast<std::size_t>(axis)); }

Var along(const Var& x, int axis, const Index& s) {
  std::vector<Index> idx(static_cast<std::size_t>(axis), Index(all));
  idx.push_back(s);
  return subtensor(x, idx);
}

Var typed_const(double v, DType dtype) { return constant(NDArray::scalar<double>(v).astype(dtype)); }

std::optional<double> constant_value(const Var& v) {
  const Constant* c = v.as_constant();
  if (!c || c->data().ndim() != 0) return std::nullopt;
  return c->data().astype(DType::Float64).item<double>();
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  THEANO_USER_CHECK(!__builtin_mul_overflow(a, b, &r), ValueError)
      << what << ": the size " << a << " * " << b << " overflows int64";
  return r;
}

DType float_dtype(DType d) { return is_float(d) ? d : DType::Float64; }

void check_scalar(const Var& x, const char* what, const char* arg) {
  THEANO_USER_CHECK(x.ndim() == 0, TypeError)
      << what << ": " << arg << " must be a scalar (0-d), got " << x.str() << " of type " << x.type()->str();
}

Var gated(std::int64_t c, const Var& gate) { return gate ? add(detail::int64_const(c), gate) : detail::int64_const(c); }

Var gate(const Var& cond, const std::string& message, const std::vector<Var>& values) {
  return require(detail::int64_const(0), cond, message, values);
}

std::string label(const Var& x) {
  std::string s = x.str();
  for (char& c : s) {
    if (c == '{') c = '(';
    if (c == '}') c = ')';
  }
  return s;
}

Var require(const Var& x, const Var& cond, const std::string& message, const std::vector<Var>& values) {
  return assert_op(x, {cond}, message, values);
}

}  // namespace theano::tensor::array_ops
