/// \file
/// `ARange` (numpy.arange with Theano's dtype rule) and `Eye` (numpy.eye): the
/// creation ops whose sizes come from scalar inputs.
#include <complex>
#include <cmath>
#include <limits>
#include <sstream>

#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/runtime/scalar_cast.h"
#include "shape_util.h"
#include "theano/config.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {

using detail::SymInt;

namespace {

bool is_int_like(DType d) { return is_integer(d) || is_bool(d); }

/// numpy's element count of arange(start, stop, step): the rule generated code
/// runs too (shape_rules.h).
std::int64_t arange_length(const NDArray& start, const NDArray& stop, const NDArray& step) {
  std::int64_t n = 0;
  int rule;
  if (is_int_like(start.dtype()) && is_int_like(stop.dtype()) && is_int_like(step.dtype()))
    rule = theano_arange_length_int(start.item<std::int64_t>(), stop.item<std::int64_t>(), step.item<std::int64_t>(),
                                    &n);
  else
    rule = theano_arange_length_real(start.item<double>(), stop.item<double>(), step.item<double>(), &n);
  if (rule != THEANO_RULE_OK)
    throw_shape_rule(rule, "ARange", 0);
  return n;
}

}  // namespace

std::string ARange::name() const { return "ARange{dtype='" + std::string(dtype_name(dtype_)) + "'}"; }

THEANO_REGISTER_OP(ARange);

// GPU form: made from host scalars alone (no GPU input; the GpuOp names its context).
std::optional<GpuPlacement> ARange::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin(), false); }

ApplyPtr ARange::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError) << name() << " takes 3 inputs (start, stop, step), got "
                                                   << inputs.size();
  static const char* names[] = {"start", "stop", "step"};
  std::vector<Var> ins;
  bool all_const = true;
  for (std::size_t i = 0; i < 3; ++i) {
    Var v = as_tensor_variable(inputs[i]);
    const TensorType* t = tensor_type(v);
    THEANO_USER_CHECK(t->ndim() == 0 && !is_complex(t->dtype()), TypeError)
        << name() << ": " << names[i] << " must be a real scalar (0-d), got " << v.str() << " of type "
        << v.type()->str();
    all_const = all_const && v.is_constant();
    ins.push_back(v);
  }
  Dim len;
  if (all_const) len = arange_length(ins[0].as_constant()->data(), ins[1].as_constant()->data(), ins[2].as_constant()->data());
  Var o = TensorType::make(dtype_, {len})->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void ARange::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const std::int64_t n = arange_length(inputs[0], inputs[1], inputs[2]);
  NDArray out = NDArray::empty({n}, dtype_);
  if (is_int_like(inputs[0].dtype()) && is_int_like(inputs[2].dtype())) {
    const std::int64_t a = inputs[0].item<std::int64_t>(), s = inputs[2].item<std::int64_t>();
    visit_dtype(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = out.data_as<T>();
      // a + i*s wraps like NumPy's int64 arithmetic (no signed overflow).
      for (std::int64_t i = 0; i < n; ++i)
        p[i] = scalar_cast<T>(static_cast<std::int64_t>(static_cast<std::uint64_t>(a) +
                                                        static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(s)));
    });
  } else {
    // numpy fills start, start + delta, then start + i * delta in the output dtype.
    const double a = inputs[0].item<double>(), s = inputs[2].item<double>();
    visit_dtype(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = out.data_as<T>();
      if (n == 0) return;
      p[0] = scalar_cast<T>(a);
      if (n == 1) return;
      p[1] = scalar_cast<T>(a + s);
      if constexpr (std::is_floating_point_v<T>) {
        const T first = p[0], delta = static_cast<T>(p[1] - p[0]);
        for (std::int64_t i = 2; i < n; ++i) p[i] = static_cast<T>(first + static_cast<T>(i) * delta);
      } else {
        for (std::int64_t i = 2; i < n; ++i) p[i] = scalar_cast<T>(a + static_cast<double>(i) * s);
      }
    });
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> ARange::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  const Var &start = node.input(0), &stop = node.input(1), &step = node.input(2);
  const bool ints = is_int_like(tensor_type(start)->dtype()) && is_int_like(tensor_type(stop)->dtype()) &&
                    is_int_like(tensor_type(step)->dtype());
  if (ints) {
    const SymInt a = SymInt::of(start), b = SymInt::of(stop), s = SymInt::of(step);
    return {{max(SymInt(0), SymInt(0) - floordiv(a - b, s)).var()}};
  }
  auto f64 = [](const Var& v) { return tensor_type(v)->dtype() == DType::Float64 ? v : cast(v, DType::Float64); };
  Var n = cast(ceil(true_div(sub(f64(stop), f64(start)), f64(step))), DType::Int64);
  return {{maximum(n, detail::int64_const(0))}};
}

std::vector<Var> ARange::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(3);
  const Var& gz = output_grads[0];
  if (!gz || !(is_float(dtype_) || is_complex(dtype_))) return r;
  auto fit = [](const Var& g, const Var& like) {
    const DType d = tensor_type(like)->dtype();
    return tensor_type(g)->dtype() == d ? g : cast(g, d);
  };
  const Var& start = node.input(0);
  const Var& step = node.input(2);
  if (is_float(tensor_type(start)->dtype())) r[0] = fit(sum(gz), start);
  if (is_float(tensor_type(step)->dtype())) {
    Var n = shape_i(node.output(0), 0);
    r[2] = fit(sum(mul(gz, arange(detail::int64_const(0), n, detail::int64_const(1), dtype_))), step);
  }
  return r;
}

std::vector<std::vector<bool>> ARange::connection_pattern(const Apply&) const { return {{true}, {false}, {true}}; }

// ---- Eye -------------------------------------------------------------------------------

std::string Eye::name() const { return "Eye{dtype='" + std::string(dtype_name(dtype_)) + "'}"; }

THEANO_REGISTER_OP(Eye);

// GPU form: made from host scalars alone (no GPU input; the GpuOp names its context).
std::optional<GpuPlacement> Eye::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin(), false); }

ApplyPtr Eye::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError) << name() << " takes 3 inputs (n, m, k), got " << inputs.size();
  static const char* names[] = {"n", "m", "k"};
  StaticShape out(2);
  for (std::size_t i = 0; i < 3; ++i) {
    detail::check_int_scalar(inputs[i], "Eye", names[i]);
    if (i == 2) continue;
    if (auto c = detail::constant_int(inputs[i])) {
      THEANO_USER_CHECK(*c >= 0, ValueError) << name() << ": " << names[i] << " must be >= 0, got " << *c;
      out[i] = *c;
    }
  }
  Var o = TensorType::make(dtype_, std::move(out))->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {o});
}

void Eye::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const std::int64_t n = inputs[0].item<std::int64_t>(), m = inputs[1].item<std::int64_t>(),
                     k = inputs[2].item<std::int64_t>();
  THEANO_USER_CHECK(n >= 0 && m >= 0, ValueError) << name() << ": negative dimensions are not allowed (n=" << n
                                                  << ", m=" << m << ")";
  NDArray out = NDArray::zeros({n, m}, dtype_);
  // Only the rows whose diagonal element lies in [0, m): the rule generated
  // code runs too (shape_rules.h).
  std::int64_t lo = 0, hi = 0;
  theano_eye_rows(n, m, k, &lo, &hi);
  for (std::int64_t i = lo; i < hi; ++i) out.index(0, i).index(0, i + k).fill(1);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Eye::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  return {{detail::as_int64(node.input(0)), detail::as_int64(node.input(1))}};
}

std::vector<Var> Eye::grad(const Apply&, const std::vector<Var>&) const { return {Var(), Var(), Var()}; }

std::vector<std::vector<bool>> Eye::connection_pattern(const Apply&) const { return {{false}, {false}, {false}}; }

// ---- functions -------------------------------------------------------------------------

Var arange(const TensorLike& stop) { return arange(0, stop, 1); }

Var arange(const TensorLike& stop, DType dtype) { return arange(0, stop, 1, dtype); }

Var arange(const TensorLike& start, const TensorLike& stop, const TensorLike& step, std::optional<DType> dtype) {
  if (!dtype) {
    DType d = promote_types(promote_types(tensor_type(start)->dtype(), tensor_type(stop)->dtype()),
                            tensor_type(step)->dtype());
    if (is_unsigned(d))
      d = DType::UInt64;
    else if (is_integer(d) || is_bool(d))
      d = DType::Int64;
    dtype = d;
  }
  return OpPtr(new ARange(*dtype))->apply1({start.var(), stop.var(), step.var()});
}

Var eye(const TensorLike& n, std::optional<TensorLike> m, const TensorLike& k, std::optional<DType> dtype) {
  const Var mv = m ? m->var() : n.var();
  return OpPtr(new Eye(dtype.value_or(config().floatX)))->apply1({n.var(), mv, k.var()});
}

}  // namespace theano::tensor
