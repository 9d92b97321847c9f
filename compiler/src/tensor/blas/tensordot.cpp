// tensordot, batched_tensordot and batched_dot as graphs. tensordot follows
// Theano's _tensordot_as_dot: move the summed axes together (DimShuffle),
// reshape both operands to matrices, one Dot, reshape back — so the BLAS
// rewrites see a plain dot. batched_tensordot does the same with a leading
// batch axis kept: (B, M, K) x (B, K, N) through one BatchedDot for float
// dtypes; other dtypes multiply broadcast operands and sum the contracted
// axes (Theano's fallback form). batched_dot is batched_tensordot of a's last
// axis with b's second-to-last (its first after the batch for a matrix).
#include <algorithm>
#include <numeric>

#include "../reduction/kernel_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

std::vector<int> normalize_axes(const std::vector<int>& axes, int ndim, const Var& v, const char* which,
                                const char* fn = "tensordot") {
  std::vector<int> r;
  for (int a : axes) {
    THEANO_USER_CHECK(a >= -ndim && a < ndim, ValueError)
        << fn << ": axis " << a << " is out of range for " << which << " " << v.str() << " ("
        << ndim << " dimensions)";
    const int n = a < 0 ? a + ndim : a;
    THEANO_USER_CHECK(std::find(r.begin(), r.end(), n) == r.end(), ValueError)
        << fn << ": axis " << a << " of " << which << " " << v.str() << " is repeated";
    r.push_back(n);
  }
  return r;
}

// A product of dimensions: a constant when all are known, else int64 scalars.
struct DimProduct {
  bool known = true;
  int64_t value = 1;
  Var sym;
  void times(const Var& v, int axis) {
    const Dim& d = tensor_type(v)->shape()[static_cast<std::size_t>(axis)];
    if (d) value *= *d;
    else known = false;
    Var s = shape_i(v, axis);
    sym = sym ? mul(sym, s) : s;
  }
  Var var() const { return known ? constant(NDArray::scalar<int64_t>(value)) : sym; }
};

// Reshape `v` to one entry per element of `dims` (static when all are known).
Var reshape_to(const Var& v, const std::vector<DimProduct>& dims) {
  if (std::all_of(dims.begin(), dims.end(), [](const DimProduct& d) { return d.known; })) {
    std::vector<int64_t> s;
    for (const DimProduct& d : dims) s.push_back(d.value);
    return reshape(v, s);
  }
  std::vector<Var> entries;
  for (const DimProduct& d : dims) entries.push_back(d.var());
  return reshape(v, make_vector(entries, DType::Int64), static_cast<int>(dims.size()));
}

/// The free axes' sizes of x then y (each appended to `out_dims` too) and the
/// summed axes' product, each summed size from whichever operand knows it
/// statically.
void contraction_dims(const Var& x, const Var& y, const std::vector<int>& fx, const std::vector<int>& fy,
                      const std::vector<int>& ax, const std::vector<int>& ay, std::vector<DimProduct>& out_dims,
                      DimProduct& free_x, DimProduct& free_y, DimProduct& summed) {
  for (int i : fx) {
    free_x.times(x, i);
    out_dims.emplace_back().times(x, i);
  }
  for (int i : fy) {
    free_y.times(y, i);
    out_dims.emplace_back().times(y, i);
  }
  for (std::size_t i = 0; i < ax.size(); ++i) {
    if (tensor_type(x)->shape()[static_cast<std::size_t>(ax[i])]) summed.times(x, ax[i]);
    else summed.times(y, ay[i]);
  }
}

}  // namespace

Var tensordot(const TensorLike& a, const TensorLike& b, const TensordotAxes& axes) {
  const Var &x = a.var(), &y = b.var();
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const int xn = tx.ndim(), yn = ty.ndim();
  std::vector<int> ax, ay;
  if (axes.is_count()) {
    const int n = axes.count();
    THEANO_USER_CHECK(n >= 0 && n <= xn && n <= yn, ValueError)
        << "tensordot: axes=" << n << " needs 0 <= axes <= the ranks of both operands, got " << x.str() << " ("
        << xn << " dimensions) and " << y.str() << " (" << yn << " dimensions)";
    for (int i = 0; i < n; ++i) {
      ax.push_back(xn - n + i);
      ay.push_back(i);
    }
  } else {
    THEANO_USER_CHECK(axes.a_axes().size() == axes.b_axes().size(), ValueError)
        << "tensordot: the two axis lists must have the same length, got " << detail::axes_text(axes.a_axes())
        << " and " << detail::axes_text(axes.b_axes());
    ax = normalize_axes(axes.a_axes(), xn, x, "the first operand");
    ay = normalize_axes(axes.b_axes(), yn, y, "the second operand");
  }
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const Dim &dx = tx.shape()[static_cast<std::size_t>(ax[i])], &dy = ty.shape()[static_cast<std::size_t>(ay[i])];
    THEANO_USER_CHECK(!dx || !dy || *dx == *dy, ShapeError)
        << "tensordot: shape mismatch for summed axes: " << x.str() << " has static shape "
        << detail::static_shape_text(tx.shape()) << " (axis " << ax[i] << ") and " << y.str()
        << " has static shape " << detail::static_shape_text(ty.shape()) << " (axis " << ay[i] << ")";
  }
  std::vector<int> fx, fy;
  for (int i = 0; i < xn; ++i)
    if (std::find(ax.begin(), ax.end(), i) == ax.end()) fx.push_back(i);
  for (int i = 0; i < yn; ++i)
    if (std::find(ay.begin(), ay.end(), i) == ay.end()) fy.push_back(i);

  DimProduct free_x, free_y, summed;
  std::vector<DimProduct> out_dims;
  contraction_dims(x, y, fx, fy, ax, ay, out_dims, free_x, free_y, summed);
  std::vector<int> ox = fx, oy = ay;
  ox.insert(ox.end(), ax.begin(), ax.end());
  oy.insert(oy.end(), fy.begin(), fy.end());
  const Var x2 = reshape_to(dimshuffle(x, ox), {free_x, summed});
  const Var y2 = reshape_to(dimshuffle(y, oy), {summed, free_y});
  return reshape_to(dot(x2, y2), out_dims);
}

namespace {

bool blas_float(DType d) { return d == DType::Float32 || d == DType::Float64; }

/// x and y with batch axis 0, ax / ay the summed axes (never 0), both
/// checked: (B, x free..., y free...).
Var batched_contract(const Var& x, const Var& y, const std::vector<int>& ax, const std::vector<int>& ay) {
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const int xn = tx.ndim(), yn = ty.ndim();
  std::vector<int> fx, fy;
  for (int i = 1; i < xn; ++i)
    if (std::find(ax.begin(), ax.end(), i) == ax.end()) fx.push_back(i);
  for (int i = 1; i < yn; ++i)
    if (std::find(ay.begin(), ay.end(), i) == ay.end()) fy.push_back(i);
  const DType od = promote_types(tx.dtype(), ty.dtype());
  if (!blas_float(od)) {
    // (B, x free..., 1..., summed...) * (B, 1..., y free..., summed...), summed.
    std::vector<int> ox{0}, oy{0};
    for (int i : fx) {
      ox.push_back(i);
      oy.push_back(kNewAxis);
    }
    for (int i : fy) {
      ox.push_back(kNewAxis);
      oy.push_back(i);
    }
    ox.insert(ox.end(), ax.begin(), ax.end());
    oy.insert(oy.end(), ay.begin(), ay.end());
    const int free = 1 + static_cast<int>(fx.size() + fy.size());
    std::vector<int> summed;
    for (std::size_t i = 0; i < ax.size(); ++i) summed.push_back(free + static_cast<int>(i));
    const Var p = mul(dimshuffle(x, ox), dimshuffle(y, oy));
    return summed.empty() ? cast(p, od) : sum(p, Axes(summed), false, {}, od);
  }
  const Var xc = tx.dtype() == od ? x : cast(x, od);
  const Var yc = ty.dtype() == od ? y : cast(y, od);
  DimProduct batch, free_x, free_y, summed;
  std::vector<DimProduct> out_dims(1);
  if (tx.shape()[0]) batch.times(x, 0);
  else batch.times(y, 0);
  out_dims[0] = batch;
  contraction_dims(x, y, fx, fy, ax, ay, out_dims, free_x, free_y, summed);
  std::vector<int> ox{0}, oy{0};
  ox.insert(ox.end(), fx.begin(), fx.end());
  ox.insert(ox.end(), ax.begin(), ax.end());
  oy.insert(oy.end(), ay.begin(), ay.end());
  oy.insert(oy.end(), fy.begin(), fy.end());
  const Var x3 = reshape_to(dimshuffle(xc, ox), {batch, free_x, summed});
  const Var y3 = reshape_to(dimshuffle(yc, oy), {batch, summed, free_y});
  return reshape_to(batched_dot3(x3, y3), out_dims);
}

/// ShapeError when the static batch sizes (axis 0) of x and y differ.
void check_batch(const char* fn, const Var& x, const Var& y) {
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const Dim &bx = tx.shape()[0], &by = ty.shape()[0];
  THEANO_USER_CHECK(!bx || !by || *bx == *by, ShapeError)
      << fn << ": batch sizes differ: " << x.str() << " has static shape " << detail::static_shape_text(tx.shape())
      << " and " << y.str() << " has static shape " << detail::static_shape_text(ty.shape());
}

}  // namespace

Var batched_tensordot(const TensorLike& a, const TensorLike& b, const TensordotAxes& axes) {
  const Var x = as_tensor_variable(a.var()), y = as_tensor_variable(b.var());
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const int xn = tx.ndim(), yn = ty.ndim();
  THEANO_USER_CHECK(xn >= 1 && yn >= 1, TypeError)
      << "batched_tensordot: both operands need a batch axis, got " << x.str() << " of type " << tx.str() << " and "
      << y.str() << " of type " << ty.str();
  check_batch("batched_tensordot", x, y);
  std::vector<int> ax, ay;
  if (axes.is_count()) {
    const int n = axes.count();
    THEANO_USER_CHECK(n >= 0 && n < xn && n < yn, ValueError)
        << "batched_tensordot: axes=" << n << " needs 0 <= axes < the ranks of both operands (axis 0 is the batch), "
        << "got " << x.str() << " (" << xn << " dimensions) and " << y.str() << " (" << yn << " dimensions)";
    for (int i = 0; i < n; ++i) {
      ax.push_back(xn - n + i);
      ay.push_back(1 + i);
    }
  } else {
    THEANO_USER_CHECK(axes.a_axes().size() == axes.b_axes().size(), ValueError)
        << "batched_tensordot: the two axis lists must have the same length, got "
        << detail::axes_text(axes.a_axes()) << " and " << detail::axes_text(axes.b_axes());
    ax = normalize_axes(axes.a_axes(), xn, x, "the first operand", "batched_tensordot");
    ay = normalize_axes(axes.b_axes(), yn, y, "the second operand", "batched_tensordot");
    for (std::size_t i = 0; i < ax.size(); ++i)
      THEANO_USER_CHECK(ax[i] != 0 && ay[i] != 0, ValueError)
          << "batched_tensordot: axis 0 is the batch axis and cannot be summed, got the axis lists "
          << detail::axes_text(axes.a_axes()) << " and " << detail::axes_text(axes.b_axes());
  }
  for (std::size_t i = 0; i < ax.size(); ++i) {
    const Dim &dx = tx.shape()[static_cast<std::size_t>(ax[i])], &dy = ty.shape()[static_cast<std::size_t>(ay[i])];
    THEANO_USER_CHECK(!dx || !dy || *dx == *dy, ShapeError)
        << "batched_tensordot: shape mismatch for summed axes: " << x.str() << " has static shape "
        << detail::static_shape_text(tx.shape()) << " (axis " << ax[i] << ") and " << y.str()
        << " has static shape " << detail::static_shape_text(ty.shape()) << " (axis " << ay[i] << ")";
  }
  return batched_contract(x, y, ax, ay);
}

Var batched_dot(const TensorLike& a, const TensorLike& b) {
  const Var &x = a.var(), &y = b.var();
  const TensorType& tx = *tensor_type(x);
  const TensorType& ty = *tensor_type(y);
  const int xn = tx.ndim(), yn = ty.ndim();
  THEANO_USER_CHECK(xn >= 2 && yn >= 2, TypeError)
      << "batched_dot: both operands need a batch axis and at least one more, got " << x.str() << " of type "
      << tx.str() << " and " << y.str() << " of type " << ty.str();
  check_batch("batched_dot", x, y);
  // Per batch element: dot(x[i], y[i]) contracts x's last axis with y[i]'s
  // second-to-last (its first when y[i] is a vector).
  const int ky = std::max(1, yn - 2);
  const Dim &kx_d = tx.shape().back(), &ky_d = ty.shape()[static_cast<std::size_t>(ky)];
  THEANO_USER_CHECK(!kx_d || !ky_d || *kx_d == *ky_d, ShapeError)
      << "batched_dot: shapes " << detail::static_shape_text(tx.shape()) << " and "
      << detail::static_shape_text(ty.shape()) << " are not aligned: " << x.str() << " has " << *kx_d
      << " along its last axis but " << y.str() << " has " << *ky_d << " along axis " << ky;
  // The output dtype is Dot's (promotion), not sum's widened integer default.
  return batched_contract(x, y, {xn - 1}, {ky});
}

}  // namespace theano::tensor
