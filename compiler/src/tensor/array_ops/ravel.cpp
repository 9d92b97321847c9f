/// \file
/// numpy.ravel_multi_index and numpy.unravel_index as elementwise integer
/// arithmetic (one fused loop), their range checks Asserts that name the
/// function, the axis and the values.
#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

using array_ops::require;
using array_ops::typed_const;

namespace {

Var i64(std::int64_t v) { return typed_const(static_cast<double>(v), DType::Int64); }

/// The dims as int64 scalars, each checked to be non-negative.
std::vector<Var> int_dims(const std::vector<TensorLike>& dims, const char* what) {
  std::vector<Var> r;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    Var d = dims[k].var();
    const TensorType* t = tensor_type(d);
    THEANO_USER_CHECK(t->ndim() == 0 && is_integer(t->dtype()), TypeError)
        << what << ": dims[" << k << "] must be an integer scalar, got " << d.str() << " of type " << t->str();
    if (t->dtype() != DType::Int64) d = cast(d, DType::Int64);
    if (const auto c = array_ops::constant_value(d))
      THEANO_USER_CHECK(*c >= 0, ValueError) << what << ": dims[" << k << "] must be non-negative, got " << *c;
    else
      d = require(d, ge(d, i64(0)), std::string(what) + ": dims[" + std::to_string(k) + "] must be non-negative, got {}",
                  {d});
    r.push_back(d);
  }
  return r;
}

void check_order(char order, const char* what) {
  THEANO_USER_CHECK(order == 'C' || order == 'F', ValueError)
      << what << ": order must be 'C' or 'F', got '" << order << "'";
}

}  // namespace

Var ravel_multi_index(const std::vector<TensorLike>& multi_index, const std::vector<TensorLike>& dims_in,
                      std::string_view mode, char order) {
  check_order(order, "ravel_multi_index");
  THEANO_USER_CHECK(mode == "raise" || mode == "wrap" || mode == "clip", ValueError)
      << "ravel_multi_index: mode must be \"raise\", \"wrap\" or \"clip\", got \"" << mode << "\"";
  THEANO_USER_CHECK(!dims_in.empty() && multi_index.size() == dims_in.size(), ValueError)
      << "ravel_multi_index: one coordinate array per dimension: got " << multi_index.size() << " arrays for "
      << dims_in.size() << " dims";
  const std::vector<Var> dims = int_dims(dims_in, "ravel_multi_index");
  const std::size_t n = dims.size();
  std::vector<Var> coords;
  for (std::size_t k = 0; k < n; ++k) {
    Var i = multi_index[k].var();
    THEANO_USER_CHECK(is_integer(tensor_type(i)->dtype()), TypeError)
        << "ravel_multi_index: multi_index[" << k << "] must be integers, got " << i.str() << " of type "
        << i.type()->str();
    if (tensor_type(i)->dtype() != DType::Int64) i = cast(i, DType::Int64);
    const Var& d = dims[k];
    if (mode == "wrap") {
      i = mod(i, maximum(d, i64(1)));  // Python's %: non-negative (a size-0 axis has no valid index anyway)
    } else if (mode == "clip") {
      i = clip(i, i64(0), maximum(sub(d, i64(1)), i64(0)));
    } else {
      // NumPy's raise mode takes no negative index.
      const Var bad = any_(or_(lt(i, i64(0)), ge(i, d)));
      i = require(i, invert(bad),
                  "ravel_multi_index: invalid entry in coordinates array " + std::to_string(k) +
                      ": a value is out of [0, {}) (mode \"raise\")",
                  {d});
    }
    coords.push_back(i);
  }
  Var lin;
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = order == 'C' ? j : n - 1 - j;
    lin = lin ? add(mul(lin, dims[k]), coords[k]) : coords[k];
  }
  return lin;
}

std::vector<Var> unravel_index(const TensorLike& indices, const std::vector<TensorLike>& dims_in, char order) {
  check_order(order, "unravel_index");
  THEANO_USER_CHECK(!dims_in.empty(), ValueError) << "unravel_index: dims must not be empty";
  Var idx = indices.var();
  THEANO_USER_CHECK(is_integer(tensor_type(idx)->dtype()), TypeError)
      << "unravel_index: indices must be integers, got " << idx.str() << " of type " << idx.type()->str();
  if (tensor_type(idx)->dtype() != DType::Int64) idx = cast(idx, DType::Int64);
  const std::vector<Var> dims = int_dims(dims_in, "unravel_index");
  const std::size_t n = dims.size();
  Var size = dims[0];
  for (std::size_t k = 1; k < n; ++k) size = mul(size, dims[k]);
  idx = require(idx, invert(any_(or_(lt(idx, i64(0)), ge(idx, size)))),
                "unravel_index: an index is out of bounds for an array of size {}", {size});
  std::vector<Var> r(n);
  Var rest = idx;
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = order == 'C' ? n - 1 - j : j;  // the fastest-varying axis first
    const Var d = maximum(dims[k], i64(1));               // no division by 0 (a size-0 array has no index)
    r[k] = mod(rest, d);
    rest = int_div(rest, d);
  }
  return r;
}

}  // namespace theano::tensor
