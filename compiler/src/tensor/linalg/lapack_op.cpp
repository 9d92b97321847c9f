// The LAPACK-backed ops' shared parts: make_node's checks and static shapes,
// perform's driver over kernels/linalg.h (the rule, the workspace, the run;
// the kernel's code and message turned into the exception naming the op),
// infer_shape's batch dims, and the batched graph pieces of the gradients.
#include "theano/runtime/kernels/linalg.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "linalg_util.h"
#include "theano/runtime/blas_library.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace theano::tensor::linalg {
namespace detail {

StaticShape core_static(const Var& v, int rank) {
  const StaticShape& s = tensor_type(v)->shape();
  return StaticShape(s.end() - rank, s.end());
}

StaticShape square_core(const Var& x) {
  if (tensor_type(x)->ndim() < 2) return {};
  StaticShape core = core_static(x, 2);
  if (!core[0]) core[0] = core[1];
  if (!core[1]) core[1] = core[0];
  return core;
}

std::vector<std::vector<Var>> eigen_shapes(const std::vector<Var>& s, bool compute_v) {
  std::vector<Var> w(s.begin(), s.end() - 1);
  if (!compute_v) return {w};
  return {w, s};
}

ApplyPtr make_lapack_node(const LapackOp& op, std::vector<Var> inputs, const std::vector<StaticShape>& core_out,
                          const std::vector<std::optional<DType>>& out_dtypes) {
  const std::vector<int> ranks = op.core_in_ranks();
  THEANO_USER_CHECK(inputs.size() == ranks.size(), TypeError)
      << op.name() << " takes " << ranks.size() << " input(s), got " << inputs.size();
  std::size_t nb = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    inputs[i] = as_tensor_variable(inputs[i]);
    const TensorType& t = *tensor_type(inputs[i]);
    if (op.la_kind() == THEANO_LA_PIV_TO_PERM) {
      THEANO_USER_CHECK(t.dtype() == DType::Int32 && t.ndim() >= 1, TypeError)
          << op.name() << ": input " << i << " (" << inputs[i].str()
          << ") must be int32 pivots of rank >= 1 (lu_factor's), got " << t.str();
      nb = static_cast<std::size_t>(t.ndim() - 1);
      continue;
    }
    THEANO_USER_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, TypeError)
        << op.name() << ": input " << i << " (" << inputs[i].str() << ") must be float32 or float64, got " << t.str()
        << " (the user functions upcast integers)";
    THEANO_USER_CHECK(t.dtype() == tensor_type(inputs[0])->dtype(), TypeError)
        << op.name() << ": input " << i << " (" << inputs[i].str() << ") is " << t.str() << " but input 0 is "
        << tensor_type(inputs[0])->str() << " (the user functions cast both to their common dtype)";
    THEANO_USER_CHECK(t.ndim() >= ranks[i], TypeError)
        << op.name() << ": input " << i << " (" << inputs[i].str() << ") must have rank >= " << ranks[i] << ", got "
        << t.str();
    nb = std::max(nb, static_cast<std::size_t>(t.ndim() - ranks[i]));
  }
  // The batch dims: numpy's broadcast of the static sizes (known 1 only when all are 1).
  StaticShape batch(nb, Dim(1));
  for (std::size_t d = 0; d < nb; ++d) {
    bool unknown = false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const StaticShape& s = tensor_type(inputs[i])->shape();
      const std::size_t bi = s.size() - static_cast<std::size_t>(ranks[i]);
      if (d + bi < nb) continue;
      const Dim& di = s[d + bi - nb];
      if (!di) {
        unknown = true;
      } else if (*di != 1) {
        THEANO_USER_CHECK(batch[d] == Dim(1) || batch[d] == di, ShapeError)
            << op.name() << ": the batch dimensions do not broadcast: at batch dimension " << d << ", input " << i
            << " has size " << *di << " but an earlier input has " << *batch[d];
        batch[d] = di;
      }
    }
    if (unknown && batch[d] == Dim(1)) batch[d] = std::nullopt;
  }
  // The static core shapes: square matrices, right-hand sides with the matrix's rows.
  const int kind = op.la_kind();
  const bool square = kind != THEANO_LA_SVD && kind != THEANO_LA_QR && kind != THEANO_LA_PIV_TO_PERM;
  const StaticShape a = square ? core_static(inputs[0], 2) : StaticShape{Dim(), Dim()};
  THEANO_USER_CHECK(!square || !a[0] || !a[1] || *a[0] == *a[1], ShapeError)
      << op.name() << ": input 0 (" << inputs[0].str() << ") must be square matrices, got core shape (" << *a[0]
      << ", " << *a[1] << ")";
  if (inputs.size() == 2) {
    const Dim rows = core_static(inputs[1], ranks[1])[0], n = a[0] ? a[0] : a[1];
    THEANO_USER_CHECK(!rows || !n || *rows == *n, ShapeError)
        << op.name() << ": the right-hand side (input 1, " << inputs[1].str() << ") has " << *rows
        << " rows but the matrix (input 0) has " << *n;
  }
  std::vector<Var> outs;
  for (std::size_t k = 0; k < core_out.size(); ++k) {
    StaticShape s = batch;
    s.insert(s.end(), core_out[k].begin(), core_out[k].end());
    const DType dt = k < out_dtypes.size() && out_dtypes[k] ? *out_dtypes[k] : tensor_type(inputs[0])->dtype();
    outs.push_back(TensorType::make(dt, s)->make_variable());
  }
  return Apply::create(OpPtr(&op), std::move(inputs), std::move(outs));
}

void run_lapack(const LapackOp& op, const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) {
  const std::vector<std::int64_t> opts = op.la_options();
  TheanoLaCall c;
  theano_la_init(&c, op.la_kind(), static_cast<int64_t>(inputs.size()), static_cast<int64_t>(outputs.size()));
  for (std::size_t i = 0; i < opts.size(); ++i) c.opt[i] = opts[i];
  // The element type the kernel runs in (the pivots' op: any; its code is the same).
  const bool pivots = op.la_kind() == THEANO_LA_PIV_TO_PERM;
  const DType dt = pivots ? DType::Float64 : inputs[0].dtype();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    THEANO_USER_CHECK(pivots ? inputs[i].dtype() == DType::Int32
                             : inputs[i].dtype() == dt && (dt == DType::Float32 || dt == DType::Float64),
                      TypeError)
        << op.name() << ": input " << i << " has dtype " << dtype_name(inputs[i].dtype())
        << (pivots ? ", expected int32 pivots" : ", expected float32 or float64 as input 0");
    c.in[i] = static_cast<const char*>(inputs[i].data());
    c.in_nd[i] = inputs[i].ndim();
    c.in_shape[i] = inputs[i].shape().data();
    c.in_strides[i] = inputs[i].strides().data();
  }
  auto check = [&](int code) {
    if (code == THEANO_LA_OK) return;
    if (code == THEANO_LA_SHAPE) THEANO_USER_CHECK(false, ShapeError) << op.name() << ": " << c.msg;
    if (code == THEANO_LA_INTERNAL) THEANO_INTERNAL_CHECK(false) << op.name() << ": " << c.msg;
    THEANO_USER_CHECK(false, ValueError) << op.name() << ": " << c.msg;
  };
  check(theano_la_rule(&c));
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::vector<int64_t> shape(c.out_shape[k], c.out_shape[k] + c.out_nd[k]);
    outputs[k] = NDArray::empty(std::move(shape), tensor_type(node.output(static_cast<int>(k)))->dtype());
    c.out[k] = static_cast<char*>(outputs[k].data());
  }
  runtime::load_blas();  // throws where OpenBLAS cannot be opened; the kernels could only abort
  int64_t bytes = 0;
  check(dt == DType::Float64 ? theano_la_work_f64(&c, &bytes) : theano_la_work_f32(&c, &bytes));
  std::unique_ptr<double[]> work(new double[static_cast<std::size_t>(bytes / 8 + 2)]);
  c.work = reinterpret_cast<char*>(work.get());
  check(dt == DType::Float64 ? theano_la_run_f64(&c) : theano_la_run_f32(&c));
}

}  // namespace detail

// The kinds codegen/src/emit/lower/gpu_linalg.cpp lowers for the GPU
// (cuSOLVER / cuBLAS, LAPACK on the emulated device).
std::optional<GpuPlacement> LapackOp::gpu_form(const Apply& node) const {
  switch (la_kind()) {
    case THEANO_LA_CHOLESKY:
    case THEANO_LA_SOLVE_TRIANGULAR:
    case THEANO_LA_CHO_SOLVE:
    case THEANO_LA_SOLVE:
    case THEANO_LA_INV:
    case THEANO_LA_DET:
    case THEANO_LA_SLOGDET:
    case THEANO_LA_LU_FACTOR:
    case THEANO_LA_EIGH:
    case THEANO_LA_CHOLESKY_GRAD:
    case THEANO_LA_QR:
    case THEANO_LA_SVD:
    case THEANO_LA_PINV:
    case THEANO_LA_EXPM:  // codegen/src/emit/lower/gpu_expm.cpp
      return GpuPlacement::all(node.nin());
    default:
      return std::nullopt;
  }
}

namespace detail {

std::vector<Var> batch_shape(const LapackOp& op, const std::vector<std::vector<Var>>& shapes) {
  const std::vector<int> ranks = op.core_in_ranks();
  std::size_t nb = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    nb = std::max(nb, shapes[i].size() - static_cast<std::size_t>(ranks[i]));
  std::vector<Var> out;
  for (std::size_t d = 0; d < nb; ++d) {
    Var s;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const std::size_t bi = shapes[i].size() - static_cast<std::size_t>(ranks[i]);
      if (d + bi < nb) continue;
      const Var& si = shapes[i][d + bi - nb];
      s = s ? maximum(s, si) : si;  // equal, or one of them 1
    }
    out.push_back(s);
  }
  return out;
}

Var as_float(const TensorLike& x) {
  Var v = as_tensor_variable(x);
  const DType d = tensor_type(v)->dtype();
  if (is_integer(d) || d == DType::Bool) v = cast(v, DType::Float64);  // others: make_node's TypeError
  return v;
}

std::pair<Var, Var> as_common_float(const TensorLike& a, const TensorLike& b) {
  Var x = as_float(a), y = as_float(b);
  const DType dx = tensor_type(x)->dtype(), dy = tensor_type(y)->dtype();
  if (dx != dy && is_float(dx) && is_float(dy)) {
    if (dx != DType::Float64) x = cast(x, DType::Float64);
    if (dy != DType::Float64) y = cast(y, DType::Float64);
  }
  return {x, y};
}

Var sum_to(const Var& g, const Var& like) {
  const int gn = tensor_type(g)->ndim(), ln = tensor_type(like)->ndim();
  Var r = g;
  if (gn > ln) {
    std::vector<int> lead;
    for (int d = 0; d < gn - ln; ++d) lead.push_back(d);
    r = sum(r, Axes(lead));
  }
  const StaticShape& ls = tensor_type(like)->shape();
  const StaticShape& rs = tensor_type(r)->shape();
  std::vector<int> ones;
  for (int d = 0; d < ln; ++d)
    if (ls[static_cast<std::size_t>(d)] == Dim(1) && rs[static_cast<std::size_t>(d)] != Dim(1)) ones.push_back(d);
  if (!ones.empty()) r = sum(r, Axes(ones), true);
  return r;
}

Var tril_mask(const Var& x) {
  const Var n = shape_i(x, tensor_type(x)->ndim() - 1);
  const Var i = arange(n, DType::Int64);
  return cast(ge(dimshuffle(i, {0, kNewAxis}), dimshuffle(i, {kNewAxis, 0})), tensor_type(x)->dtype());
}

Var eye_like(const Var& x) {
  const Var n = shape_i(x, tensor_type(x)->ndim() - 1);
  return cast(eye(n), tensor_type(x)->dtype());
}

Var phi(const Var& x) { return mul(x, sub(tril_mask(x), mul(eye_like(x), 0.5))); }

Var fold_onto_triangle(const Var& g, bool lower) {
  const Var f = phi(add(g, matrix_transpose(g)));
  return lower ? f : matrix_transpose(f);
}

bool any_grad(const std::vector<Var>& output_grads) {
  for (const Var& g : output_grads)
    if (g) return true;
  return false;
}

Var as_column(const Var& v, int b_ndim) {
  if (b_ndim == 2) return v;
  std::vector<int> order;
  for (int d = 0; d < tensor_type(v)->ndim(); ++d) order.push_back(d);
  order.push_back(kNewAxis);
  return dimshuffle(v, order);
}

Var from_column(const Var& v, int b_ndim) {
  if (b_ndim == 2) return v;
  const int nd = tensor_type(v)->ndim();
  if (tensor_type(v)->shape().back() != Dim(1)) return sum(v, Axes(nd - 1));  // one column: the same values
  std::vector<int> order;
  for (int d = 0; d < nd - 1; ++d) order.push_back(d);
  return dimshuffle(v, order);
}

Var batched_outer(const Var& a, const Var& b) { return matmul(as_column(a, 1), matrix_transpose(as_column(b, 1))); }

}  // namespace detail

Var matrix_transpose(const TensorLike& x) {
  const Var v = as_tensor_variable(x);
  const int nd = tensor_type(v)->ndim();
  THEANO_USER_CHECK(nd >= 2, ValueError) << "matrix_transpose: " << v.str() << " has rank " << nd << ", expected >= 2";
  std::vector<int> order;
  for (int d = 0; d < nd - 2; ++d) order.push_back(d);
  order.push_back(nd - 1);
  order.push_back(nd - 2);
  return dimshuffle(v, order);
}

// numpy.matmul: vectors get an axis (prepended to a, appended to b) that is
// dropped from the result; two matrices are a Dot (Dot22 after specialize);
// otherwise the operand of lower rank gets leading axes of size 1 and one
// BatchedDot multiplies with its batch dims broadcast (no copy; a BatchedDot
// whose b is one matrix becomes a Dot22 at specialize, rewrite/batched_dot.cpp).
// Dtypes BLAS lacks (integers, complex, float16) multiply broadcast operands and
// sum the contracted axis.
Var matmul(const TensorLike& a, const TensorLike& b) {
  Var x = as_tensor_variable(a), y = as_tensor_variable(b);
  int xn = tensor_type(x)->ndim(), yn = tensor_type(y)->ndim();
  THEANO_USER_CHECK(xn >= 1 && yn >= 1, ValueError)
      << "matmul: operands must have rank >= 1 (NumPy's matmul takes no scalars), got " << x.str() << " of rank "
      << xn << " and " << y.str() << " of rank " << yn;
  if (xn <= 2 && yn <= 2) return dot(x, y);
  const bool vx = xn == 1, vy = yn == 1;
  if (vx) x = dimshuffle(x, {kNewAxis, 0});
  if (vy) y = dimshuffle(y, {0, kNewAxis});
  xn = tensor_type(x)->ndim();
  yn = tensor_type(y)->ndim();
  const int nd = std::max(xn, yn);
  std::vector<int> xo, yo;
  for (int d = 0; d < nd - xn; ++d) xo.push_back(kNewAxis);
  for (int d = 0; d < xn; ++d) xo.push_back(d);
  for (int d = 0; d < nd - yn; ++d) yo.push_back(kNewAxis);
  for (int d = 0; d < yn; ++d) yo.push_back(d);
  if (nd > xn) x = dimshuffle(x, xo);
  if (nd > yn) y = dimshuffle(y, yo);
  const DType od = promote_types(tensor_type(x)->dtype(), tensor_type(y)->dtype());
  Var r;
  if (od == DType::Float32 || od == DType::Float64) {
    r = batched_dot3(tensor_type(x)->dtype() == od ? x : cast(x, od), tensor_type(y)->dtype() == od ? y : cast(y, od));
  } else {
    // x[..., m, k, 1] * y[..., 1, k, n], summed over k.
    std::vector<int> xe, ye;
    for (int d = 0; d < nd; ++d) xe.push_back(d);
    xe.push_back(kNewAxis);
    for (int d = 0; d < nd - 2; ++d) ye.push_back(d);
    ye.push_back(kNewAxis);
    ye.push_back(nd - 2);
    ye.push_back(nd - 1);
    r = sum(mul(dimshuffle(x, xe), dimshuffle(y, ye)), Axes(nd - 1), false, {}, od);
  }
  std::vector<int> keep;
  for (int d = 0; d < nd; ++d)
    if (!(vx && d == nd - 2) && !(vy && d == nd - 1)) keep.push_back(d);
  return static_cast<int>(keep.size()) == nd ? r : dimshuffle(r, keep);
}

}  // namespace theano::tensor::linalg
