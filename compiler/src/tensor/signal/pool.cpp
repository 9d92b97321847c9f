// The pooling ops (Pool, MaxPoolGrad, AveragePoolGrad,
// DownsampleFactorMaxGradGrad; theano/tensor/pool.h): make_node's checks,
// perform through the shared kernels (kernels/pool.h, which the generated
// C++ and the CUDA form call too), infer_shape, the gradients, and the user
// functions pool_2d / pool_3d.
#include "theano/tensor/pool.h"

#include <string>
#include <utility>

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/pool.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::signal {
namespace {

/// The dtypes the kernels take, as messages list them.
constexpr const char* kDtypes = "float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64";

bool supported(DType d) {
  switch (d) {
    case DType::Float64: case DType::Float32: case DType::Int64: case DType::Int32: case DType::Int16:
    case DType::Int8: case DType::UInt64: case DType::UInt32: case DType::UInt16: case DType::UInt8:
      return true;
    default:
      return false;
  }
}

int mode_code(PoolMode m) {
  switch (m) {
    case PoolMode::Max: return THEANO_POOL_MAX;
    case PoolMode::Sum: return THEANO_POOL_SUM;
    case PoolMode::AverageIncPad: return THEANO_POOL_AVG_INC;
    case PoolMode::AverageExcPad: return THEANO_POOL_AVG_EXC;
  }
  return THEANO_POOL_MAX;
}

/// The constructors' check: the counts of the entries (the values are
/// checked by make_node, which can name the variable).
void check_counts(const char* op, const PoolParams& p, bool max_only) {
  THEANO_USER_CHECK(p.ndim >= 1 && p.ndim <= 3, ValueError)
      << op << ": pools 1 to 3 axes, got ndim " << p.ndim;
  const auto n = static_cast<std::size_t>(p.ndim);
  THEANO_USER_CHECK(p.ws.size() == n && p.stride.size() == n && p.pad.size() == n, ValueError)
      << op << ": ws, stride and pad need " << p.ndim << " entries each (one per pooled axis), got "
      << p.ws.size() << ", " << p.stride.size() << " and " << p.pad.size();
  THEANO_USER_CHECK(!max_only || p.mode == PoolMode::Max, ValueError)
      << op << ": mode must be 'max', got '" << pool_mode_name(p.mode) << "'";
}

/// make_node's checks of input `k` (`what`): a tensor of a kernel dtype with
/// at least ndim axes; a later input must match x's dtype and rank.
Var check_input(const Op& op, const PoolParams& p, const Var& in, const char* what, const Var* x) {
  const Var v = as_tensor_variable(in);
  const TensorType& t = *tensor_type(v);
  THEANO_USER_CHECK(supported(t.dtype()), TypeError)
      << op.name() << ": " << what << " " << v.str() << " has dtype " << dtype_name(t.dtype())
      << "; pooling supports " << kDtypes;
  THEANO_USER_CHECK(t.ndim() >= p.ndim, TypeError)
      << op.name() << ": " << what << " " << v.str() << " of type " << t.str() << " has " << t.ndim()
      << " axes; pooling " << p.ndim << " axes needs at least " << p.ndim;
  if (x) {
    const TensorType& tx = *tensor_type(*x);
    THEANO_USER_CHECK(t.dtype() == tx.dtype() && t.ndim() == tx.ndim(), TypeError)
        << op.name() << ": " << what << " " << v.str() << " of type " << t.str() << " must have the type of x "
        << x->str() << ", " << tx.str();
  }
  return v;
}

/// The parameter rule of kernels/pool.h on every axis, naming the op and x.
void check_params(const Op& op, const PoolParams& p, const Var& x) {
  for (int k = 0; k < p.ndim; ++k) {
    const auto u = static_cast<std::size_t>(k);
    int64_t bad = 0;
    const int code = theano_pool_param_rule(p.ws[u], p.stride[u], p.pad[u], p.ignore_border ? 1 : 0, &bad);
    THEANO_USER_CHECK(code == THEANO_POOL_OK, ValueError)
        << op.name() << ": pooling " << x.str() << ": " << theano_pool_rule_text(code) << bad
        << " (pooled axis " << k << ")";
  }
}

/// The pooled axis lengths of x's static shape (unknown stays unknown).
StaticShape pooled_static_shape(const PoolParams& p, const TensorType& t) {
  StaticShape s = t.shape();
  const int lead = t.ndim() - p.ndim;
  for (int k = 0; k < p.ndim; ++k) {
    Dim& d = s[static_cast<std::size_t>(lead + k)];
    if (!d) continue;
    int64_t out = 0, bad = 0;
    const auto u = static_cast<std::size_t>(k);
    if (theano_pool_out_len(*d, p.ws[u], p.stride[u], p.pad[u], p.ignore_border ? 1 : 0, &out, &bad) ==
        THEANO_POOL_OK)
      d = out;
    else
      d = std::nullopt;  // the run-time check reports it
  }
  return s;
}

/// The pooled shape of a value of shape `shape` (perform), checked.
std::vector<int64_t> pooled_shape(const Op& op, const PoolParams& p, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out = shape;
  const std::size_t lead = shape.size() - static_cast<std::size_t>(p.ndim);
  for (std::size_t k = 0; k < static_cast<std::size_t>(p.ndim); ++k) {
    int64_t bad = 0;
    const int code =
        theano_pool_out_len(shape[lead + k], p.ws[k], p.stride[k], p.pad[k], p.ignore_border ? 1 : 0, &out[lead + k], &bad);
    THEANO_USER_CHECK(code == THEANO_POOL_OK, ValueError)
        << op.name() << ": " << theano_pool_rule_text(code) << bad << " (input shape " << shape_to_string(shape) << ")";
  }
  return out;
}

/// The kernels' 3-axis view of an image: per slot, the pooled axis it holds
/// (a 2-d pool leaves slot 0 a dummy axis of length 1) and its parameters.
struct Geometry {
  int nd = 0;
  int64_t nb = 1;                          ///< images: the product of the leading axes
  int64_t v[3], ws[3], st[3], pad[3], zl[3];
  int mode = THEANO_POOL_MAX;
};

Geometry geometry(const PoolParams& p, const std::vector<int64_t>& xshape, const std::vector<int64_t>& zshape) {
  Geometry g;
  g.nd = p.ndim;
  g.mode = mode_code(p.mode);
  const std::size_t lead = xshape.size() - static_cast<std::size_t>(p.ndim);
  for (std::size_t d = 0; d < lead; ++d) g.nb *= xshape[d];
  for (int s = 0; s < 3; ++s) {
    const int k = s - (3 - p.ndim);
    if (k < 0) {
      g.v[s] = g.ws[s] = g.st[s] = g.zl[s] = 1;
      g.pad[s] = 0;
      continue;
    }
    const auto u = static_cast<std::size_t>(k);
    g.v[s] = xshape[lead + u];
    g.zl[s] = zshape[lead + u];
    g.ws[s] = p.ws[u];
    g.st[s] = p.stride[u];
    g.pad[s] = p.pad[u];
  }
  return g;
}

/// An array's image walk: the byte strides of its 3 slots and the address
/// of image b (b counts the leading axes in C order).
struct Images {
  const char* base;
  int64_t s[3];
  std::vector<int64_t> lead_shape, lead_strides;

  Images(const NDArray& a, int nd) : base(static_cast<const char*>(a.data())) {
    const std::size_t lead = static_cast<std::size_t>(a.ndim() - nd);
    for (int k = 0; k < 3; ++k) {
      const int ax = k - (3 - nd);
      s[k] = ax < 0 ? 0 : a.strides()[lead + static_cast<std::size_t>(ax)];
    }
    lead_shape.assign(a.shape().begin(), a.shape().begin() + static_cast<std::ptrdiff_t>(lead));
    lead_strides.assign(a.strides().begin(), a.strides().begin() + static_cast<std::ptrdiff_t>(lead));
  }
  const char* image(int64_t b) const {
    const char* p = base;
    for (std::size_t d = lead_shape.size(); d-- > 0;) {
      p += (b % lead_shape[d]) * lead_strides[d];
      b /= lead_shape[d];
    }
    return p;
  }
};

/// Fills `out` (C-contiguous, fresh) over its images and 3 slots of lengths
/// `len`: per image b, `image(b)` gives the function of (i0, i1, i2) that
/// computes an element (the image's addresses found once).
template <class T, class F>
void for_each_out(NDArray& out, int64_t nb, const int64_t* len, F&& image) {
  T* o = static_cast<T*>(out.data());
  for (int64_t b = 0; b < nb; ++b) {
    const auto f = image(b);
    for (int64_t a = 0; a < len[0]; ++a)
      for (int64_t c = 0; c < len[1]; ++c)
        for (int64_t e = 0; e < len[2]; ++e) *o++ = f(a, c, e);
  }
}

/// Calls, per image b, `image(b)`'s function of (o0, o1, o2) on every output
/// index of lengths `len` (the gradients' window-by-window walk).
template <class F>
void for_each_window(int64_t nb, const int64_t* len, F&& image) {
  for (int64_t b = 0; b < nb; ++b) {
    const auto f = image(b);
    for (int64_t a = 0; a < len[0]; ++a)
      for (int64_t c = 0; c < len[1]; ++c)
        for (int64_t e = 0; e < len[2]; ++e) f(a, c, e);
  }
}

Var int64_constant(int64_t v) { return constant(NDArray::scalar<int64_t>(v)); }

// One case per dtype: `BODY(T, SFX)` with the kernel suffix.
#define THEANO_POOL_DISPATCH(DT, BODY)                                                          \
  switch (DT) {                                                                                 \
    case DType::Float64: BODY(double, f64) break;                                               \
    case DType::Float32: BODY(float, f32) break;                                                \
    case DType::Int64: BODY(int64_t, i64) break;                                                \
    case DType::Int32: BODY(int32_t, i32) break;                                                \
    case DType::Int16: BODY(int16_t, i16) break;                                                \
    case DType::Int8: BODY(int8_t, i8) break;                                                   \
    case DType::UInt64: BODY(uint64_t, u64) break;                                              \
    case DType::UInt32: BODY(uint32_t, u32) break;                                              \
    case DType::UInt16: BODY(uint16_t, u16) break;                                              \
    case DType::UInt8: BODY(uint8_t, u8) break;                                                 \
    default: THEANO_USER_CHECK(false, TypeError) << "pooling supports " << kDtypes << ", got " << dtype_name(DT); \
  }

/// ShapeError unless `z` (input `what` of a gradient op) has x's pooled shape.
void check_pooled(const Op& op, const PoolParams& p, const NDArray& x, const NDArray& z, const char* what) {
  int64_t bad = 0, want = 0;
  const int code = x.ndim() == z.ndim()
                       ? theano_pool_shape_rule(x.shape().data(), z.shape().data(), x.ndim(), p.ndim, p.ws.data(),
                                                p.stride.data(), p.pad.data(), p.ignore_border ? 1 : 0, &bad, &want)
                       : THEANO_POOL_SHAPE;
  THEANO_USER_CHECK(code == THEANO_POOL_OK, ShapeError)
      << op.name() << ": " << what << " has shape " << shape_to_string(z.shape()) << ", not the pooled shape of x "
      << shape_to_string(x.shape()) << ": " << theano_pool_rule_text(code) << bad << ", expected length " << want;
}

/// Symbolic pooled lengths (infer_shape): Theano's out_shape on int64 scalars.
std::vector<Var> pooled_shape_vars(const PoolParams& p, const std::vector<Var>& shape) {
  std::vector<Var> out = shape;
  const std::size_t lead = shape.size() - static_cast<std::size_t>(p.ndim);
  for (std::size_t k = 0; k < static_cast<std::size_t>(p.ndim); ++k) {
    const Var& v = shape[lead + k];
    const int64_t ws = p.ws[k], st = p.stride[k], pad = p.pad[k];
    const Var padded = pad == 0 ? v : add(v, int64_constant(2 * pad));
    if (p.ignore_border) {
      const Var whole = maximum(add(int_div(sub(padded, int64_constant(ws)), int64_constant(st)), int64_constant(1)),
                                int64_constant(0));
      out[lead + k] = pad == 0 ? whole : switch_(eq(v, int64_constant(0)), int64_constant(0), whole);
    } else {
      const Var nonempty = st >= ws ? add(int_div(sub(v, int64_constant(1)), int64_constant(st)), int64_constant(1))
                                    : add(maximum(int_div(sub(v, int64_constant(ws - st + 1)), int64_constant(st)),
                                                  int64_constant(0)),
                                          int64_constant(1));
      out[lead + k] = switch_(eq(v, int64_constant(0)), int64_constant(0), nonempty);
    }
  }
  return out;
}

std::optional<GpuPlacement> float_on_gpu(const Apply& node) {
  const DType d = tensor_type(node.output(0))->dtype();
  if (d != DType::Float32 && d != DType::Float64) return std::nullopt;
  return GpuPlacement::all(node.nin());
}

Var pool_nd(const char* fn, int nd, const TensorLike& input, std::vector<std::int64_t> ws, const PoolOptions& o) {
  const auto n = static_cast<std::size_t>(nd);
  THEANO_USER_CHECK(ws.size() == n, ValueError) << fn << ": ws needs " << nd << " entries, got " << ws.size();
  THEANO_USER_CHECK(o.stride.empty() || o.stride.size() == n, ValueError)
      << fn << ": stride needs " << nd << " entries (or none: ws), got " << o.stride.size();
  THEANO_USER_CHECK(o.pad.empty() || o.pad.size() == n, ValueError)
      << fn << ": pad needs " << nd << " entries (or none: zeros), got " << o.pad.size();
  PoolParams p{nd, ws, o.stride.empty() ? ws : o.stride, o.pad.empty() ? std::vector<int64_t>(n, 0) : o.pad,
               o.ignore_border, o.mode};
  return OpPtr(new Pool(std::move(p)))->apply1({input.var()});
}

}  // namespace

const char* pool_mode_name(PoolMode m) {
  switch (m) {
    case PoolMode::Max: return "max";
    case PoolMode::Sum: return "sum";
    case PoolMode::AverageIncPad: return "average_inc_pad";
    case PoolMode::AverageExcPad: return "average_exc_pad";
  }
  return "?";
}

Var pool_2d(const TensorLike& input, std::vector<std::int64_t> ws, const PoolOptions& opts) {
  return pool_nd("pool_2d", 2, input, std::move(ws), opts);
}
Var pool_3d(const TensorLike& input, std::vector<std::int64_t> ws, const PoolOptions& opts) {
  return pool_nd("pool_3d", 3, input, std::move(ws), opts);
}

#define THEANO_POOL_CTOR(CLASS, MAX_ONLY)                                                                   \
  CLASS::CLASS(PoolParams p)                                                                                \
      : ndim_(p.ndim), ws_(std::move(p.ws)), stride_(std::move(p.stride)), pad_(std::move(p.pad)),         \
        ignore_border_(p.ignore_border), mode_(p.mode) {                                                    \
    check_counts(#CLASS, params(), MAX_ONLY);                                                               \
  }
THEANO_POOL_CTOR(Pool, false)
THEANO_POOL_CTOR(MaxPoolGrad, true)
THEANO_POOL_CTOR(DownsampleFactorMaxGradGrad, true)
#undef THEANO_POOL_CTOR

AveragePoolGrad::AveragePoolGrad(PoolParams p)
    : ndim_(p.ndim), ws_(std::move(p.ws)), stride_(std::move(p.stride)), pad_(std::move(p.pad)),
      ignore_border_(p.ignore_border), mode_(p.mode) {
  check_counts("AveragePoolGrad", params(), false);
  THEANO_USER_CHECK(mode_ != PoolMode::Max, ValueError)
      << "AveragePoolGrad: mode must be 'sum', 'average_inc_pad' or 'average_exc_pad', got 'max'";
}

THEANO_REGISTER_OP(Pool);
THEANO_REGISTER_OP(MaxPoolGrad);
THEANO_REGISTER_OP(AveragePoolGrad);
THEANO_REGISTER_OP(DownsampleFactorMaxGradGrad);

// ---- Pool

ApplyPtr Pool::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const PoolParams p = params();
  const Var x = check_input(*this, p, inputs[0], "input", nullptr);
  check_params(*this, p, x);
  const TensorType& t = *tensor_type(x);
  return Apply::create(OpPtr(this), {x}, {TensorType::make(t.dtype(), pooled_static_shape(p, t))->make_variable()});
}

void Pool::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const PoolParams p = params();
  const NDArray& x = inputs[0];
  THEANO_USER_CHECK(x.ndim() >= p.ndim, ValueError) << name() << ": a value of rank " << x.ndim() << " for " << p.ndim << " pooled axes";
  NDArray out = NDArray::empty(pooled_shape(*this, p, x.shape()), x.dtype());
  if (out.size() != 0) {
    const Geometry g = geometry(p, x.shape(), out.shape());
    const Images xi(x, p.ndim);
#define THEANO_POOL_FWD(T, SFX)                                                                    \
  for_each_out<T>(out, g.nb, g.zl, [&](int64_t b) {                                     \
    const char* xb = xi.image(b);                                                       \
    return [&, xb](int64_t o0, int64_t o1, int64_t o2) {                                \
      return theano_pool_fwd_##SFX(xb, xi.s, g.v, g.ws, g.st, g.pad, g.mode, o0, o1, o2); \
    };                                                                                  \
  });
    THEANO_POOL_DISPATCH(x.dtype(), THEANO_POOL_FWD)
#undef THEANO_POOL_FWD
  }
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> Pool::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {pooled_shape_vars(params(), shapes[0])};
}

std::vector<Var> Pool::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& x = node.input(0);
  if (mode_ == PoolMode::Max) return {OpPtr(new MaxPoolGrad(params()))->apply1({x, node.output(0), gz})};
  return {OpPtr(new AveragePoolGrad(params()))->apply1({x, gz})};
}

std::optional<GpuPlacement> Pool::gpu_form(const Apply& node) const { return float_on_gpu(node); }

// ---- MaxPoolGrad

ApplyPtr MaxPoolGrad::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError) << name() << " takes 3 inputs (x, maxout, gz), got " << inputs.size();
  const PoolParams p = params();
  const Var x = check_input(*this, p, inputs[0], "x", nullptr);
  const Var z = check_input(*this, p, inputs[1], "maxout", &x);
  const Var gz = check_input(*this, p, inputs[2], "gz", &x);
  check_params(*this, p, x);
  return Apply::create(OpPtr(this), {x, z, gz}, {tensor_type(x)->make_variable()});
}

void MaxPoolGrad::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const PoolParams p = params();
  const NDArray &x = inputs[0], &z = inputs[1], &gz = inputs[2];
  check_pooled(*this, p, x, z, "maxout");
  check_pooled(*this, p, x, gz, "gz");
  // Window by window (kernels/pool.h's scatter form), into zeros; image by
  // image where the windows tile the input (its tiled form: the same values,
  // every element written, so no zero fill first).
  if (x.size() == 0) {
    outputs[0] = NDArray::zeros(x.shape(), x.dtype());
    return;
  }
  const Geometry g = geometry(p, x.shape(), z.shape());
  const bool tiled = theano_pool_tiles(g.ws, g.st, g.pad) != 0;
  NDArray gx = tiled ? NDArray::empty(x.shape(), x.dtype()) : NDArray::zeros(x.shape(), x.dtype());
  {
    const Images xi(x, p.ndim), zi(z, p.ndim), gi(gz, p.ndim), oi(gx, p.ndim);
    const int64_t image_bytes = gx.nbytes() / g.nb;
#define THEANO_POOL_MAXGRAD(T, SFX)                                                                    \
  if (tiled) {                                                                                        \
    for (int64_t b = 0; b < g.nb; ++b)                                                                \
      theano_pool_max_grad_tiled_##SFX(xi.image(b), xi.s, zi.image(b), zi.s, gi.image(b), gi.s,       \
                                       static_cast<char*>(gx.data()) + b * image_bytes, oi.s, g.v,    \
                                       g.ws, g.zl);                                                   \
  } else                                                                                              \
  for_each_window(g.nb, g.zl, [&](int64_t b) {                                                        \
    const char *xb = xi.image(b), *zb = zi.image(b), *gb = gi.image(b);                              \
    char* ob = static_cast<char*>(gx.data()) + b * image_bytes;                                      \
    return [&, xb, zb, gb, ob](int64_t o0, int64_t o1, int64_t o2) {                                 \
      theano_pool_max_grad_add_##SFX(xb, xi.s, zb, zi.s, gb, gi.s, ob, oi.s, g.v, g.ws, g.st, g.pad, o0, o1, o2); \
    };                                                                                               \
  });
    THEANO_POOL_DISPATCH(x.dtype(), THEANO_POOL_MAXGRAD)
#undef THEANO_POOL_MAXGRAD
  }
  outputs[0] = std::move(gx);
}

std::vector<std::vector<Var>> MaxPoolGrad::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> MaxPoolGrad::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& ggx = output_grads.at(0);
  if (!ggx) return {Var(), Var(), Var()};
  const Var &x = node.input(0), &z = node.input(1);
  return {zeros_like(x), zeros_like(z), OpPtr(new DownsampleFactorMaxGradGrad(params()))->apply1({x, z, ggx})};
}

std::optional<GpuPlacement> MaxPoolGrad::gpu_form(const Apply& node) const { return float_on_gpu(node); }

// ---- AveragePoolGrad

ApplyPtr AveragePoolGrad::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs (x, gz), got " << inputs.size();
  const PoolParams p = params();
  const Var x = check_input(*this, p, inputs[0], "x", nullptr);
  const Var gz = check_input(*this, p, inputs[1], "gz", &x);
  check_params(*this, p, x);
  return Apply::create(OpPtr(this), {x, gz}, {tensor_type(x)->make_variable()});
}

void AveragePoolGrad::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const PoolParams p = params();
  const NDArray &x = inputs[0], &gz = inputs[1];
  check_pooled(*this, p, x, gz, "gz");
  // Window by window (kernels/pool.h's scatter form), into zeros.
  NDArray gx = NDArray::zeros(x.shape(), x.dtype());
  if (gx.size() != 0) {
    const Geometry g = geometry(p, x.shape(), gz.shape());
    const Images gi(gz, p.ndim), oi(gx, p.ndim);
    const int64_t image_bytes = gx.nbytes() / g.nb;
#define THEANO_POOL_AVGGRAD(T, SFX)                                                                   \
  for_each_window(g.nb, g.zl, [&](int64_t b) {                                                       \
    const char* gb = gi.image(b);                                                                    \
    char* ob = static_cast<char*>(gx.data()) + b * image_bytes;                                     \
    return [&, gb, ob](int64_t o0, int64_t o1, int64_t o2) {                                        \
      theano_pool_avg_grad_add_##SFX(gb, gi.s, ob, oi.s, g.v, g.ws, g.st, g.pad, g.mode, o0, o1, o2); \
    };                                                                                              \
  });
    THEANO_POOL_DISPATCH(x.dtype(), THEANO_POOL_AVGGRAD)
#undef THEANO_POOL_AVGGRAD
  }
  outputs[0] = std::move(gx);
}

std::vector<std::vector<Var>> AveragePoolGrad::infer_shape(const Apply&,
                                                           const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> AveragePoolGrad::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& ggx = output_grads.at(0);
  if (!ggx) return {Var(), Var()};
  return {zeros_like(node.input(0)), OpPtr(new Pool(params()))->apply1({ggx})};
}

std::optional<GpuPlacement> AveragePoolGrad::gpu_form(const Apply& node) const { return float_on_gpu(node); }

// ---- DownsampleFactorMaxGradGrad

ApplyPtr DownsampleFactorMaxGradGrad::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError)
      << name() << " takes 3 inputs (x, maxout, ggx), got " << inputs.size();
  const PoolParams p = params();
  const Var x = check_input(*this, p, inputs[0], "x", nullptr);
  const Var z = check_input(*this, p, inputs[1], "maxout", &x);
  const Var ggx = check_input(*this, p, inputs[2], "ggx", &x);
  check_params(*this, p, x);
  return Apply::create(OpPtr(this), {x, z, ggx}, {tensor_type(z)->make_variable()});
}

void DownsampleFactorMaxGradGrad::perform(const Apply&, std::span<const NDArray> inputs,
                                          std::span<NDArray> outputs) const {
  const PoolParams p = params();
  const NDArray &x = inputs[0], &z = inputs[1], &ggx = inputs[2];
  check_pooled(*this, p, x, z, "maxout");
  THEANO_USER_CHECK(ggx.shape() == x.shape(), ShapeError)
      << name() << ": ggx has shape " << shape_to_string(ggx.shape()) << ", not the shape of x "
      << shape_to_string(x.shape());
  NDArray ggz = NDArray::empty(z.shape(), x.dtype());
  if (ggz.size() != 0) {
    const Geometry g = geometry(p, x.shape(), z.shape());
    const Images xi(x, p.ndim), zi(z, p.ndim), gi(ggx, p.ndim);
#define THEANO_POOL_GRADGRAD(T, SFX)                                                                            \
  for_each_out<T>(ggz, g.nb, g.zl, [&](int64_t b) {                                                   \
    const char *xb = xi.image(b), *zb = zi.image(b), *gb = gi.image(b);                               \
    return [&, xb, zb, gb](int64_t o0, int64_t o1, int64_t o2) {                                      \
      return theano_pool_max_gradgrad_##SFX(xb, xi.s, zb, zi.s, gb, gi.s, g.v, g.ws, g.st, g.pad, o0, o1, o2); \
    };                                                                                                \
  });
    THEANO_POOL_DISPATCH(x.dtype(), THEANO_POOL_GRADGRAD)
#undef THEANO_POOL_GRADGRAD
  }
  outputs[0] = std::move(ggz);
}

std::vector<std::vector<Var>> DownsampleFactorMaxGradGrad::infer_shape(
    const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[1]};
}

std::vector<Var> DownsampleFactorMaxGradGrad::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var(), Var(), Var()};
  const Var &x = node.input(0), &z = node.input(1);
  return {zeros_like(x), zeros_like(z), OpPtr(new MaxPoolGrad(params()))->apply1({x, z, gz})};
}

std::optional<GpuPlacement> DownsampleFactorMaxGradGrad::gpu_form(const Apply& node) const {
  return float_on_gpu(node);
}

}  // namespace theano::tensor::signal
