// The shared graph forms of diag_graph.h (see there).
#include "diag_graph.h"

#include <algorithm>

#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg::detail {
namespace {

/// The flat index of element 0 of diagonal `offset` of a plane with m columns.
Var diag_start(int offset, const Var& m) {
  return offset >= 0 ? int64_constant(offset) : mul(m, int64_constant(-static_cast<std::int64_t>(offset)));
}

/// The slice of k elements from `start` by `step` (empty when k is 0).
Slice diag_slice(const Var& start, const Var& step, const Var& k) {
  // start + (k - 1) * step + 1, or start itself when k is 0 (then 1 - step <= 0).
  const Var span = maximum(add(sub(mul(k, step), step), int64_constant(1)), int64_constant(0));
  return slice(start, add(start, span), step);
}

}  // namespace

int resolve_axis(int axis, int nd, const char* fn, const char* which, const std::string& subject) {
  THEANO_USER_CHECK(axis >= -nd && axis < nd, ValueError)
      << fn << ": " << which << " " << axis << " is out of range for " << subject;
  return axis < 0 ? axis + nd : axis;
}

std::pair<int, int> resolve_axis_pair(int axis1, int axis2, int nd, const char* fn, const std::string& subject) {
  const int a1 = resolve_axis(axis1, nd, fn, "axis1", subject), a2 = resolve_axis(axis2, nd, fn, "axis2", subject);
  THEANO_USER_CHECK(a1 != a2, ValueError) << fn << ": axis1 (" << axis1 << ") and axis2 (" << axis2
                                          << ") name the same axis " << a1 << " of " << subject
                                          << "; they must differ";
  return {a1, a2};
}

Var int64_constant(std::int64_t v) { return constant(NDArray::scalar<std::int64_t>(v)); }

Var diag_length(const Var& n, const Var& m, int offset) {
  const std::int64_t a = std::max<std::int64_t>(-static_cast<std::int64_t>(offset), 0);
  const std::int64_t b = std::max<std::int64_t>(offset, 0);
  return maximum(minimum(sub(n, int64_constant(a)), sub(m, int64_constant(b))), int64_constant(0));
}

std::int64_t diag_length(std::int64_t n, std::int64_t m, int offset) {
  const std::int64_t a = std::max<std::int64_t>(-static_cast<std::int64_t>(offset), 0);
  const std::int64_t b = std::max<std::int64_t>(offset, 0);
  return std::max<std::int64_t>(std::min(n - a, m - b), 0);  // n, m < 2^62 and |offset| < 2^31: no overflow
}

Var take_diagonal(const Var& x, int offset) {
  const int nd = tensor_type(x)->ndim();
  std::vector<Var> dims;
  for (int d = 0; d < nd - 2; ++d) dims.push_back(shape_i(x, d));
  const Var n = shape_i(x, nd - 2), m = shape_i(x, nd - 1);
  dims.push_back(mul(n, m));
  const Var flat = reshape(x, make_vector(dims, DType::Int64), nd - 1);
  const Var step = add(m, int64_constant(1));
  std::vector<Index> idx(static_cast<std::size_t>(nd - 2), Index(all));
  idx.emplace_back(diag_slice(diag_start(offset, m), step, diag_length(n, m, offset)));
  return subtensor(flat, idx);
}

Var place_diagonal(const Var& g, int offset, const Var& n, const Var& m) {
  const TensorType& t = *tensor_type(g);
  const int nb = t.ndim() - 1;
  std::vector<TensorLike> flat_dims;
  std::vector<Var> dims;
  for (int d = 0; d < nb; ++d) {
    flat_dims.emplace_back(shape_i(g, d));
    dims.push_back(shape_i(g, d));
  }
  flat_dims.emplace_back(mul(n, m));
  const Var z = zeros(flat_dims, t.dtype());
  std::vector<Index> idx(static_cast<std::size_t>(nb), Index(all));
  idx.emplace_back(diag_slice(diag_start(offset, m), add(m, int64_constant(1)), shape_i(g, nb)));
  const Var flat = set_subtensor(subtensor(z, idx), g);
  dims.push_back(n);
  dims.push_back(m);
  return reshape(flat, make_vector(dims, DType::Int64), nb + 2);
}

std::vector<int> axes_last(int nd, int axis1, int axis2) {
  std::vector<int> perm;
  for (int d = 0; d < nd; ++d)
    if (d != axis1 && d != axis2) perm.push_back(d);
  perm.push_back(axis1);
  perm.push_back(axis2);
  return perm;
}

std::vector<int> inverse_permutation(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  return inv;
}

Var permuted(const Var& x, const std::vector<int>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int>(i)) return dimshuffle(x, perm);
  return x;
}

}  // namespace theano::tensor::linalg::detail
