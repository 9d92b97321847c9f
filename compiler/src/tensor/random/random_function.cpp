/// \file
/// `RandomFunction` (see theano/tensor/random.h): the op behind every random
/// variable. It reads the stream state `{seed, counter}`, draws its sample
/// from the call key `philox_call_key(seed, counter)` and outputs the advanced
/// state `{seed, counter + 1}`; it never writes its input state, so the old
/// value stays valid for other readers and updates are ordinary outputs.
#include <complex>
#include <algorithm>
#include <limits>

#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "random_kernels.h"
#include "theano/tensor/index.h"
#include "theano/tensor/random.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

namespace {

std::string param_name(Distribution d, int k) {
  return std::string(distribution_spec(d).params[static_cast<std::size_t>(k)]);
}

// The parameter whose last axis is the sample's core axis (DistributionSpec::sample_core).
int core_param(const DistributionSpec& spec) {
  for (int k = 0; k < spec.nparams; ++k)
    if (spec.core[static_cast<std::size_t>(k)] > 0) return k;
  return -1;
}

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (std::size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
  return r + (s.size() == 1 ? ",)" : ")");
}

std::string static_text(const StaticShape& s) {
  std::string r = "(";
  for (std::size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + (s[k] ? std::to_string(*s[k]) : std::string("?"));
  return r + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

RandomFunction::RandomFunction(Distribution dist, DType dtype, bool size_from_params, bool inplace)
    : distribution_(dist), dtype_(dtype), size_from_params_(size_from_params), inplace_(inplace) {
  const std::string op = "RandomFunction{" + std::string(distribution_name(dist)) + "}";
  const DistributionSpec& spec = distribution_spec(dist);
  if (dist == Distribution::Binomial) {
    THEANO_USER_CHECK(!is_complex(dtype), TypeError)
        << op << ": dtype " << dtype_name(dtype) << " cannot hold a count (use an integer or float dtype)";
    return;
  }
  if (dist == Distribution::Permutation) {
    THEANO_USER_CHECK(dtype == DType::Int64, TypeError)
        << op << ": dtype " << dtype_name(dtype) << " cannot hold its indices (use int64)";
    return;
  }
  switch (spec.sample) {
    case RandomKind::Real:
      THEANO_USER_CHECK(is_float(dtype), TypeError)
          << op << ": dtype " << dtype_name(dtype) << " is not a floating-point type (use float16, float32 or float64)";
      break;
    case RandomKind::Integer:
      THEANO_USER_CHECK(is_integer(dtype) && !is_bool(dtype), TypeError)
          << op << ": dtype " << dtype_name(dtype) << " is not an integer type";
      break;
    case RandomKind::Count:
      // int64 holds every count the kernels return (capped below 2^63).
      THEANO_USER_CHECK(dtype == DType::Int64 || is_float(dtype), TypeError)
          << op << ": dtype " << dtype_name(dtype) << " cannot hold its counts (use int64 or a floating-point type)";
      break;
  }
}

std::string RandomFunction::name() const {
  return "RandomFunction{" + std::string(distribution_name(distribution_)) + (inplace_ ? ",inplace" : "") + "}";
}

ViewMap RandomFunction::destroy_map() const { return inplace_ ? ViewMap{{0, {0}}} : ViewMap{}; }

THEANO_REGISTER_OP(RandomFunction);

// GPU form: the distribution's parameters; the state and the size stay host
// values, and so does the advanced state (output 0), where the next call reads it.
// Every distribution has one; categorical, multinomial and permutation draw a
// row a thread (codegen's gpu_random_rows.cpp; permutation's x is placed on
// the GPU though only its shape is read).
std::optional<GpuPlacement> RandomFunction::gpu_form(const Apply& node) const {
  GpuPlacement p = GpuPlacement::only(node.nin(), {});
  for (int k = 2; k < node.nin(); ++k) p.inputs[static_cast<std::size_t>(k)] = true;
  p.outputs = {false, true};
  return p;
}

// Not folded: a draw must change between calls.
bool RandomFunction::foldable() const { return false; }

// RandomFunction{dist}(state, ...) -> RandomFunction{dist,inplace}(state, ...): the
// advanced state overwrites the old one (the op checks the state holds 2 words)
std::vector<InplaceVariant> RandomFunction::inplace_variants(const Apply&) const {
  if (inplace()) return {};
  return {
      {InplaceStage::Random, 0, OpPtr(new RandomFunction(distribution(), dtype(), size_from_params(), true)), true}};
}

ApplyPtr RandomFunction::make_node(std::vector<Var> inputs) const {
  const std::string op = name();
  const int np = nparams();
  std::string names;
  for (int k = 0; k < np; ++k) names += ", " + param_name(distribution_, k);
  THEANO_USER_CHECK(inputs.size() == static_cast<std::size_t>(2 + np), TypeError)
      << op << " takes " << 2 + np << " inputs (state, size" << names << "), got " << inputs.size();
  for (std::size_t k = 0; k < inputs.size(); ++k) THEANO_USER_CHECK(inputs[k], ValueError) << op << ": input " << k << " is a null Var";
  const TensorType* st = tensor_type(inputs[0]);
  THEANO_USER_CHECK(st && st->dtype() == DType::UInt64 && st->ndim() == 1, TypeError)
      << op << ": the state " << inputs[0].str() << " must be a uint64 vector {seed, counter} (a RandomStream state), got "
      << inputs[0].type()->str();
  const TensorType* zt = tensor_type(inputs[1]);
  THEANO_USER_CHECK(zt && is_integer(zt->dtype()) && !is_bool(zt->dtype()) && zt->ndim() == 1, TypeError)
      << op << ": the size " << inputs[1].str() << " must be an integer vector, got " << inputs[1].type()->str();
  THEANO_USER_CHECK(zt->shape()[0].has_value(), ValueError)
      << op << ": the size " << inputs[1].str() << " must have a statically known length (it fixes the rank of the "
      << "sample); got " << zt->str() << ". Use specify_shape on it or give a static size";
  if (size_from_params_) {
    THEANO_USER_CHECK(*zt->shape()[0] == 0, ValueError)
        << op << ": with size_from_params the size input must be an empty vector, got " << zt->str();
  }

  const DistributionSpec& spec = distribution_spec(distribution_);
  std::vector<const TensorType*> pt(static_cast<std::size_t>(np));
  for (int k = 0; k < np; ++k) {
    const Var& p = inputs[static_cast<std::size_t>(2 + k)];
    pt[k] = tensor_type(p);
    THEANO_USER_CHECK(pt[k], TypeError) << op << ": parameter " << param_name(distribution_, k) << " (" << p.str()
                                        << ") must be a tensor, got " << p.type()->str();
    const DType d = pt[k]->dtype();
    const bool int_param = spec.kinds[static_cast<std::size_t>(k)] == RandomKind::Integer;
    if (int_param)
      THEANO_USER_CHECK(is_integer(d) && !is_bool(d), TypeError)
          << op << ": parameter " << param_name(distribution_, k) << " (" << p.str() << ") must be an integer tensor, got "
          << dtype_name(d);
    else
      THEANO_USER_CHECK(!is_complex(d), TypeError) << op << ": parameter " << param_name(distribution_, k) << " (" << p.str()
                                                   << ") must be real, got " << dtype_name(d);
    const int core = spec.core[static_cast<std::size_t>(k)];
    if (core > 0) {
      THEANO_USER_CHECK(pt[k]->ndim() >= core, TypeError)
          << op << ": parameter " << param_name(distribution_, k) << " (" << p.str() << ") must have at least " << core
          << " axis (its last axis holds the categories), got a scalar";
      THEANO_USER_CHECK(distribution_ == Distribution::Permutation || d == DType::Float64 || d == DType::Float32,
                        TypeError)
          << op << ": parameter " << param_name(distribution_, k) << " (" << p.str()
          << ") must be float32 or float64 (weights), got " << dtype_name(d);
    }
  }
  // Parameter k's batch axes (its core axes, the categories, left out).
  auto batch = [&](int k) {
    const StaticShape& s = pt[static_cast<std::size_t>(k)]->shape();
    return StaticShape(s.begin(), s.end() - spec.core[static_cast<std::size_t>(k)]);
  };

  // "low (?,) and high (2, 3)": the parameters' static shapes.
  auto static_list = [&](const std::vector<const TensorType*>& ts) {
    std::string r;
    for (int k = 0; k < np; ++k)
      r += (k == 0 ? "" : k + 1 == np ? " and " : ", ") + param_name(distribution_, k) + " " +
           static_text(ts[static_cast<std::size_t>(k)]->shape());
    return r;
  };
  // The sample's static shape.
  StaticShape out;
  if (size_from_params_) {
    std::size_t nd = 0;
    for (int k = 0; k < np; ++k) nd = std::max(nd, batch(k).size());
    out.assign(nd, Dim(1));
    std::vector<bool> any_unknown(nd, false);
    for (int k = 0; k < np; ++k) {
      const StaticShape s = batch(k);
      for (std::size_t d = 0; d < s.size(); ++d) {
        const std::size_t od = nd - s.size() + d;
        if (!s[d]) {
          any_unknown[od] = true;
        } else if (*s[d] != 1) {
          THEANO_USER_CHECK(!out[od] || *out[od] == 1 || *out[od] == *s[d], ShapeError)
              << op << ": parameters " << static_list(pt) << " do not broadcast together";
          out[od] = s[d];
        }
      }
    }
    for (std::size_t d = 0; d < nd; ++d)
      if (any_unknown[d] && out[d] == Dim(1)) out[d] = std::nullopt;
  } else {
    const std::size_t nd = static_cast<std::size_t>(*zt->shape()[0]);
    out.assign(nd, std::nullopt);
    if (const Constant* c = inputs[1].as_constant()) {
      const NDArray data = c->data().astype(DType::Int64).contiguous();
      for (std::size_t d = 0; d < nd; ++d) {
        const std::int64_t v = data.data_as<std::int64_t>()[d];
        THEANO_USER_CHECK(v >= 0, ValueError) << op << ": the size " << c->str() << " has a negative entry " << v;
        out[d] = v;
      }
    }
    for (int k = 0; k < np; ++k) {
      const StaticShape s = batch(k);
      THEANO_USER_CHECK(s.size() <= nd, ShapeError)
          << op << ": parameter " << param_name(distribution_, k) << " (" << inputs[static_cast<std::size_t>(2 + k)].str()
          << ") has rank " << s.size() << ", more than the sample's " << nd << "; give a size of rank >= " << s.size();
      for (std::size_t d = 0; d < s.size(); ++d) {
        const Dim& od = out[nd - s.size() + d];
        THEANO_USER_CHECK(!s[d] || !od || *s[d] == 1 || *s[d] == *od, ShapeError)
            << op << ": parameter " << param_name(distribution_, k) << " of static shape " << static_text(s)
            << " does not broadcast to the size " << static_text(out);
      }
    }
  }
  // A sample core axis: the core parameter's categories (multinomial, permutation).
  if (spec.sample_core) out.push_back(pt[static_cast<std::size_t>(core_param(spec))]->shape().back());
  std::vector<Var> outputs{inputs[0].type()->make_variable(), TensorType::make(dtype_, out)->make_variable()};
  return Apply::create(OpPtr(this), std::move(inputs), std::move(outputs));
}

void RandomFunction::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const std::string op = name();
  const NDArray& state = inputs[0];
  THEANO_USER_CHECK(state.dtype() == DType::UInt64 && state.ndim() == 1 && state.shape()[0] == 2, ValueError)
      << op << ": the state " << node.input(0).str() << " must hold {seed, counter} (2 uint64 values), got shape "
      << shape_text(state.shape());
  const auto seed = state.at<std::uint64_t>({0});
  const auto counter = state.at<std::uint64_t>({1});

  // "low of shape (2,) and high of shape (3,)": the parameters' shapes.
  auto shape_list = [&] {
    const int np = nparams();
    std::string r;
    for (int k = 0; k < np; ++k)
      r += (k == 0 ? "" : k + 1 == np ? " and " : ", ") + param_name(distribution_, k) + " of shape " +
           shape_text(inputs[static_cast<std::size_t>(2 + k)].shape());
    return r;
  };
  // The sample shape.
  std::vector<std::int64_t> shape;
  if (size_from_params_) {
    // (each parameter's batch axes: its core axes left out)
    auto bnd = [&](std::size_t k) {
      return static_cast<std::size_t>(inputs[k].ndim() - distribution_spec(distribution_).core[k - 2]);
    };
    std::size_t nd = 0;
    for (std::size_t k = 2; k < inputs.size(); ++k) nd = std::max(nd, bnd(k));
    shape.assign(nd, 1);
    for (std::size_t k = 2; k < inputs.size(); ++k)
      for (std::size_t d = 0; d < bnd(k); ++d) {
        const std::int64_t v = inputs[k].shape()[d];
        const std::size_t od = nd - bnd(k) + d;
        if (v != 1) {
          THEANO_USER_CHECK(shape[od] == 1 || shape[od] == v, ShapeError)
              << op << ": parameters " << shape_list() << " do not broadcast together";
          shape[od] = v;
        }
      }
  } else {
    const NDArray size = inputs[1].astype(DType::Int64).contiguous();
    shape.assign(size.data_as<std::int64_t>(), size.data_as<std::int64_t>() + size.size());
    for (std::int64_t v : shape)
      THEANO_USER_CHECK(v >= 0, ValueError) << op << ": the size " << shape_text(shape) << " has a negative entry";
  }
  // The sample's size by the rule generated code uses too (shape_rules.h);
  // with a sample core axis (its length k) `n` counts the rows.
  const DistributionSpec& spec = distribution_spec(distribution_);
  std::vector<std::int64_t> full = shape;
  if (spec.sample_core) full.push_back(inputs[static_cast<std::size_t>(2 + core_param(spec))].shape().back());
  std::int64_t n = 0, bad = 0;
  const DType out_dtype = tensor_type(node.output(1))->dtype();
  const int rule = theano_shape_size(full.data(), static_cast<std::int64_t>(full.size()),
                                     static_cast<std::int64_t>(dtype_size(out_dtype)), &n, &bad);
  if (rule != THEANO_RULE_OK) throw_shape_rule(rule, op + ": invalid size " + shape_text(full), bad);
  if (spec.sample_core) {
    n = full.back() == 0 ? 0 : n / full.back();  // (no row drawn when k = 0)
  }

  // Parameters, broadcast to the sample shape (one value per element).
  auto param = [&](int k, DType as) {
    const NDArray& p = inputs[static_cast<std::size_t>(2 + k)];
    // The sample shape, then the parameter's core axes (categorical's categories).
    std::vector<std::int64_t> target = shape;
    const int core = distribution_spec(distribution_).core[static_cast<std::size_t>(k)];
    for (int c = core; c > 0; --c) target.push_back(p.shape()[static_cast<std::size_t>(p.ndim() - c)]);
    // numpy's rule, the function generated code calls (shape_rules.h).
    std::int64_t bad = 0;
    if (const int rule = theano_broadcast_to_rule(p.ndim(), p.shape().data(), nullptr,
                                                  static_cast<std::int64_t>(target.size()), target.data(), &bad))
      throw_shape_rule(rule,
                       op + ": parameter " + std::string(param_name(distribution_, k)) + " (" + node.input(2 + k).str() +
                           ") of shape " + shape_text(p.shape()) + ", size " + shape_text(shape),
                       bad);
    return p.broadcast_to(target).astype(as).contiguous();
  };

  const PhiloxKey key = philox_call_key(seed, counter);
  const bool single = dtype_ != DType::Float64;
  NDArray sample;
  if (distribution_spec(distribution_).generic) {
    // Every parameter as float64 per element; the kernel file's rule, then its draws.
    std::vector<NDArray> held;
    std::vector<const double*> ps;
    for (int k = 0; k < nparams(); ++k) {
      held.push_back(param(k, DType::Float64));
      ps.push_back(held.back().data_as<double>());
    }
    random_detail::check_generic(distribution_, n, ps, op);
    sample = NDArray::from_vector(random_detail::sample_generic(distribution_, key, n, ps), shape).astype(dtype_);
  } else switch (distribution_) {
    case Distribution::Uniform:
    case Distribution::Normal: {
      const NDArray a = param(0, DType::Float64), b = param(1, DType::Float64);
      const double* pa = a.data_as<double>();
      const double* pb = b.data_as<double>();
      if (distribution_ == Distribution::Normal) {
        for (std::int64_t i = 0; i < n; ++i)
          THEANO_USER_CHECK(pb[i] >= 0, ValueError)
              << op << ": std (" << node.input(3).str() << ") must be >= 0, got " << pb[i] << " at element " << i;
      }
      std::vector<double> v = distribution_ == Distribution::Uniform ? random_detail::sample_uniform(key, n, single, pa, pb)
                                                             : random_detail::sample_normal(key, n, single, pa, pb);
      sample = NDArray::from_vector(v, shape).astype(dtype_);
      break;
    }
    case Distribution::Binomial: {
      const NDArray a = param(0, DType::Int64), b = param(1, DType::Float64);
      const std::int64_t* trials = a.data_as<std::int64_t>();
      const double* p = b.data_as<double>();
      for (std::int64_t i = 0; i < n; ++i) {
        THEANO_USER_CHECK(trials[i] >= 0, ValueError)
            << op << ": n (" << node.input(2).str() << ") must be >= 0, got " << trials[i] << " at element " << i;
        THEANO_USER_CHECK(p[i] >= 0 && p[i] <= 1, ValueError)
            << op << ": p (" << node.input(3).str() << ") must be in [0, 1], got " << p[i] << " at element " << i;
      }
      sample = NDArray::from_vector(random_detail::sample_binomial(key, n, trials, p), shape).astype(dtype_);
      break;
    }
    case Distribution::Integers: {
      const NDArray a = param(0, DType::Int64), b = param(1, DType::Int64);
      const std::int64_t* lo = a.data_as<std::int64_t>();
      const std::int64_t* hi = b.data_as<std::int64_t>();
      // The largest and smallest values the output dtype holds.
      const auto [dmin, dmax] = visit_dtype(dtype_, [](auto tag) -> std::pair<double, double> {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_integral_v<T>)
          return {static_cast<double>(std::numeric_limits<T>::min()), static_cast<double>(std::numeric_limits<T>::max())};
        else
          return {0.0, 0.0};
      });
      for (std::int64_t i = 0; i < n; ++i) {
        THEANO_USER_CHECK(lo[i] < hi[i], ValueError)
            << op << ": low (" << node.input(2).str() << ") must be < high (" << node.input(3).str() << "), got low = "
            << lo[i] << ", high = " << hi[i] << " at element " << i;
        THEANO_USER_CHECK(static_cast<double>(lo[i]) >= dmin && static_cast<double>(hi[i]) - 1 <= dmax, ValueError)
            << op << ": the range [" << lo[i] << ", " << hi[i] << ") does not fit dtype " << dtype_name(dtype_);
      }
      sample = NDArray::from_vector(random_detail::sample_integers(key, n, lo, hi), shape).astype(dtype_);
      break;
    }
    case Distribution::Multinomial: {
      const NDArray trials = param(0, DType::Float64), p = param(1, DType::Float64);
      const std::int64_t k = p.shape().back();
      sample = NDArray::from_vector(
                   random_detail::sample_multinomial(key, n, k, trials.data_as<double>(), p.data_as<double>(), op), full)
                   .astype(dtype_);
      break;
    }
    case Distribution::Permutation:
      (void)param(0, inputs[2].dtype());  // (its broadcast checked; the values are not read)
      sample = NDArray::from_vector(random_detail::sample_permutation(key, n, full.back()), full);
      break;
    case Distribution::Categorical: {
      const NDArray p = param(0, DType::Float64);
      const std::int64_t k = p.shape().back();
      sample = NDArray::from_vector(random_detail::sample_categorical(key, n, k, p.data_as<double>(), op), shape)
                   .astype(dtype_);
      break;
    }
    default:
      THEANO_INTERNAL_CHECK(false) << op << ": no sampler";
  }
  const NDArray next = NDArray::from_vector(std::vector<std::uint64_t>{seed, counter + 1}, {2});
  if (inplace_) {
    NDArray target = inputs[0];
    target.assign(next);
    outputs[0] = target;
  } else {
    outputs[0] = next;
  }
  outputs[1] = std::move(sample);
}

std::vector<std::vector<Var>> RandomFunction::infer_shape(const Apply& node,
                                                          const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> out;
  const auto* tt = tensor_type(node.output(1));
  // The batch axes (a sample core axis, the last, left out).
  const bool sample_core = distribution_spec(distribution_).sample_core;
  const std::size_t nd = static_cast<std::size_t>(tt->ndim()) - (sample_core ? 1 : 0);
  if (size_from_params_) {
    // Per dimension: a parameter whose static size there is not 1 gives it
    // (a dimension broadcasts only when its type says size 1).
    for (std::size_t d = 0; d < nd; ++d) {
      Var dim;
      for (int k = 2; k < node.nin() && !dim; ++k) {
        const auto* pt = tensor_type(node.input(k));
        // (its batch axes: the core axes, categorical's categories, left out)
        const std::size_t pn =
            static_cast<std::size_t>(pt->ndim() - distribution_spec(distribution_).core[static_cast<std::size_t>(k - 2)]);
        if (d + pn < nd) continue;
        const std::size_t pd = d + pn - nd;
        if (pt->shape()[pd] != Dim(1)) dim = input_shapes[static_cast<std::size_t>(k)][pd];
      }
      out.push_back(dim ? dim : constant(NDArray::scalar<std::int64_t>(1)));
    }
  } else {
    for (std::size_t d = 0; d < nd; ++d) {
      if (tt->shape()[d])
        out.push_back(constant(NDArray::scalar<std::int64_t>(*tt->shape()[d])));
      else
        out.push_back(node.input(1)[Index(static_cast<std::int64_t>(d))].astype(DType::Int64));
    }
  }
  if (sample_core) {
    // The sample core axis: the core parameter's last axis.
    const std::size_t k = static_cast<std::size_t>(2 + core_param(distribution_spec(distribution_)));
    out.push_back(input_shapes[k].back());
  }
  return {input_shapes[0], out};
}

std::vector<Var> RandomFunction::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  (void)output_grads;
  std::string params;
  for (int k = 0; k < nparams(); ++k)
    params += (k == 0 ? "" : k + 1 == nparams() ? " and " : ", ") + param_name(distribution_, k) + " (" +
              node.input(2 + k).str() + ")";
  throw TypeError("grad: the gradient through " + name() + " (" + node.output(1).str() + ") with respect to its " +
                  "parameters " + params + " is undefined: no gradient is defined through raw random numbers "
                  "(Theano's grad_undefined). Reparameterise instead, e.g. low + (high - low) * uniform(size, 0, 1) "
                  "or avg + std * normal(size, 0, 1), or mark the sample with consider_constant");
}

std::vector<std::vector<bool>> RandomFunction::connection_pattern(const Apply& node) const {
  // [input][output]: the state feeds both outputs; size (integers) and the
  // parameters only the sample, and no gradient flows from size.
  std::vector<std::vector<bool>> r{{true, true}, {false, false}};
  for (int k = 2; k < node.nin(); ++k) r.push_back({false, true});
  return r;
}

}  // namespace theano::tensor
