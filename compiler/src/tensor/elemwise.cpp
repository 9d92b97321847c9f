// Elemwise: type inference with static-shape broadcasting, the reference
// broadcasting loop, shape inference and the gradient (the scalar rows'
// gradients summed over broadcast dimensions).
#include "theano/tensor/elemwise.h"

#include <algorithm>
#include <sstream>

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

std::string shape_text(const std::vector<std::int64_t>& s) { return shape_to_string(s); }

std::string static_text(const TensorType& t) {
  std::string r = "(";
  for (std::size_t i = 0; i < t.shape().size(); ++i)
    r += (i ? ", " : "") + (t.shape()[i] ? std::to_string(*t.shape()[i]) : std::string("?"));
  return r + (t.shape().size() == 1 ? ",)" : ")");
}

}  // namespace

Elemwise::Elemwise(ScalarOpPtr scalar_op, InplacePattern inplace_pattern)
    : scalar_op_(std::move(scalar_op)), inplace_pattern_(std::move(inplace_pattern)) {
  THEANO_INTERNAL_CHECK(scalar_op_) << "Elemwise without a scalar op";
}

std::string Elemwise::name() const {
  if (inplace_pattern_.empty()) return "Elemwise{" + scalar_op_->name() + ",no_inplace}";
  std::string r = "Elemwise{" + scalar_op_->name() + ",inplace}";
  if (inplace_pattern_.size() != 1 || inplace_pattern_.begin()->first != 0 || inplace_pattern_.begin()->second != 0) {
    r += "[";
    for (auto [o, i] : inplace_pattern_) r += "(" + std::to_string(o) + ", " + std::to_string(i) + ")";
    r += "]";
  }
  return r;
}

ViewMap Elemwise::destroy_map() const {
  ViewMap m;
  for (auto [o, i] : inplace_pattern_) m[o] = {i};
  return m;
}

THEANO_REGISTER_OP(
    Elemwise, .no_cuda = "its GPU form is GpuElemwise (gpu/ops.h), lowered from the same scalar-table C expressions");

// Elemwise{op,no_inplace}(x, ...) -> Elemwise{op,inplace}(x, ...): output 0 overwrites
// one of the inputs. (Its GPU form is GpuElemwise, made by the GPU transfer rewrite.)
std::vector<InplaceVariant> Elemwise::inplace_variants(const Apply& node) const {
  if (!inplace_pattern().empty() || node.nout() != 1) return {};
  std::vector<InplaceVariant> out;
  for (int i = 0; i < node.nin(); ++i)
    out.push_back({InplaceStage::Elemwise, i, OpPtr(new Elemwise(scalar_op(), {{0, i}}))});
  return out;
}

ApplyPtr Elemwise::make_node(std::vector<Var> inputs) const {
  const std::string op_name = name();
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << op_name << " needs at least one input";
  int ndim = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    THEANO_USER_CHECK(inputs[i] && tensor_type(inputs[i]), TypeError)
        << op_name << ": input " << i << " must be a tensor, got "
        << (inputs[i] ? inputs[i].str() + " of type " + inputs[i].type()->str() : std::string("a null Var"));
    ndim = std::max(ndim, tensor_type(inputs[i])->ndim());
  }
  // Lower-rank inputs get broadcastable dimensions on the left, as in Theano.
  for (Var& in : inputs)
    if (const int nd = tensor_type(in)->ndim(); nd < ndim) in = shape_padleft(in, ndim - nd);

  std::vector<DType> dtypes;
  for (const Var& in : inputs) dtypes.push_back(tensor_type(in)->dtype());
  const DType out_dtype = scalar_op_->out_dtype(dtypes);
  std::vector<DType> out_dtypes{out_dtype};
  if (scalar_op_->nout() > 1) out_dtypes = static_cast<const Composite&>(*scalar_op_).out_dtypes();

  StaticShape out_shape(static_cast<std::size_t>(ndim));
  for (int d = 0; d < ndim; ++d) {
    Dim known;  // a known size other than 1
    bool all_one = true;
    int known_from = -1;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Dim& s = tensor_type(inputs[i])->shape()[static_cast<std::size_t>(d)];
      if (!s || *s != 1) all_one = false;
      if (s && *s != 1) {
        THEANO_USER_CHECK(!known || *known == *s, ShapeError)
            << op_name << ": dimension " << d << " of input " << i << " (" << inputs[i].str() << ", static shape "
            << static_text(*tensor_type(inputs[i])) << ") is " << *s << " but input " << known_from << " ("
            << inputs[static_cast<std::size_t>(known_from)].str() << ", static shape "
            << static_text(*tensor_type(inputs[static_cast<std::size_t>(known_from)])) << ") has " << *known
            << "; only dimensions of size 1 broadcast";
        known = s;
        known_from = static_cast<int>(i);
      }
    }
    out_shape[static_cast<std::size_t>(d)] = known ? known : (all_one ? Dim(1) : Dim());
  }
  std::vector<TypePtr> out_types;
  for (DType d : out_dtypes) out_types.push_back(TensorType::make(d, out_shape));
  for (auto [o, i] : inplace_pattern_) {
    THEANO_USER_CHECK(o >= 0 && o < static_cast<int>(out_types.size()) && i >= 0 && i < static_cast<int>(inputs.size()),
                      ValueError)
        << op_name << ": bad inplace pattern (" << o << ", " << i << ")";
    const Type& out_type = *out_types[static_cast<std::size_t>(o)];
    THEANO_USER_CHECK(*inputs[static_cast<std::size_t>(i)].type() == out_type, TypeError)
        << op_name << ": input " << i << " cannot be overwritten in place: its type "
        << inputs[static_cast<std::size_t>(i)].type()->str() << " differs from the output type " << out_type.str();
  }
  std::vector<Var> outs;
  for (const TypePtr& t : out_types) outs.push_back(t->make_variable());
  return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
}

void Elemwise::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const int ndim = tensor_type(node.output(0))->ndim();
  // Output shape: a dimension broadcasts only where the input's type says 1
  // (theano_broadcast_rule, the function generated code calls).
  std::vector<std::int64_t> shape(static_cast<std::size_t>(std::max(ndim, 1)), 1);
  std::vector<const std::int64_t*> in_shapes;
  std::vector<unsigned char> declared_one;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = *tensor_type(node.input(static_cast<int>(i)));
    THEANO_USER_CHECK(inputs[i].ndim() == ndim, ShapeError)
        << name() << ": input " << i << " (" << node.input(static_cast<int>(i)).str() << ") has " << inputs[i].ndim()
        << " dimensions, expected " << ndim;
    in_shapes.push_back(inputs[i].shape().data());
    for (const Dim& s : t.shape()) declared_one.push_back(s && *s == 1);
  }
  std::int64_t bad_input = 0, bad_dim = 0, bad_other = 0;
  if (const int rule = theano_broadcast_rule(static_cast<std::int64_t>(inputs.size()), ndim, in_shapes.data(),
                                             declared_one.data(), shape.data(), &bad_input, &bad_dim, &bad_other)) {
    // "at dimension D, input O (...) has size A but input I (...) has size B: <rule text>",
    // as the generated code's theano_fail_broadcast words it.
    auto describe = [&](std::int64_t i) {
      const auto ui = static_cast<std::size_t>(i);
      return "input " + std::to_string(i) + " (" + node.input(static_cast<int>(i)).str() + ", shape " +
             shape_text(inputs[ui].shape()) + ", type " + static_text(*tensor_type(node.input(static_cast<int>(i)))) +
             ") has size " + std::to_string(inputs[ui].shape()[static_cast<std::size_t>(bad_dim)]);
    };
    std::string msg = name() + ": at dimension " + std::to_string(bad_dim) + ", ";
    if (rule == THEANO_RULE_BCAST_MISMATCH) msg += describe(bad_other) + " but ";
    throw_shape_rule(rule, msg + describe(bad_input), 0);
  }
  shape.resize(static_cast<std::size_t>(ndim));

  const DType out_dtype = tensor_type(node.output(0))->dtype();
  const std::int64_t n = [&] {
    std::int64_t k = 1;
    for (std::int64_t s : shape) k *= s;
    return k;
  }();
  if (n == 0) {
    // Nothing to compute; the inputs are not converted to the compute dtype
    // (an empty float32 (0, 2^61 - 1) array is valid, its float64 copy is not).
    for (int k = 0; k < node.nout(); ++k) {
      if (auto it = inplace_pattern_.find(k); it != inplace_pattern_.end())
        outputs[static_cast<std::size_t>(k)] = inputs[static_cast<std::size_t>(it->second)];
      else
        outputs[static_cast<std::size_t>(k)] = NDArray::empty(shape, tensor_type(node.output(k))->dtype());
    }
    return;
  }
  if (dynamic_cast<const Composite*>(scalar_op_.get())) {
    perform_composite(node, inputs, outputs, shape, n);
    return;
  }
  // Reference loop: every input broadcast to the output shape and converted to
  // the compute domain (int64 or double, computes_in_int64), one scalar call
  // per element, then the conversion to the output dtype (astype).
  const std::size_t nin = inputs.size();
  std::vector<DType> in_dts;
  for (const NDArray& in : inputs) in_dts.push_back(in.dtype());
  const bool int64 = computes_in_int64(*scalar_op_, in_dts, out_dtype);
  NDArray result;
  if (int64) {
    std::vector<NDArray> args;
    for (const NDArray& in : inputs) args.push_back(in.broadcast_to(shape).astype(DType::Int64));
    result = NDArray::empty(shape, DType::Int64);
    auto* out = result.data_as<std::int64_t>();
    std::vector<const std::int64_t*> ptrs;
    for (const NDArray& a : args) ptrs.push_back(a.data_as<std::int64_t>());
    std::vector<std::int64_t> buf(nin);
    for (std::int64_t k = 0; k < n; ++k) {
      for (std::size_t i = 0; i < nin; ++i) buf[i] = ptrs[i][k];
      out[k] = apply_int64(*scalar_op_, buf, out_dtype);
    }
  } else {
    std::vector<NDArray> args;
    for (const NDArray& in : inputs) args.push_back(in.broadcast_to(shape).astype(DType::Float64));
    result = NDArray::empty(shape, DType::Float64);
    auto* out = result.data_as<double>();
    std::vector<const double*> ptrs;
    for (const NDArray& a : args) ptrs.push_back(a.data_as<double>());
    std::vector<double> buf(nin);
    for (std::int64_t k = 0; k < n; ++k) {
      for (std::size_t i = 0; i < nin; ++i) buf[i] = ptrs[i][k];
      out[k] = apply_double(*scalar_op_, buf);
    }
  }
  if (auto it = inplace_pattern_.find(0); it != inplace_pattern_.end()) {
    NDArray target = inputs[static_cast<std::size_t>(it->second)];
    target.assign(result);
    outputs[0] = target;
  } else {
    outputs[0] = result.astype(out_dtype);
  }
}

void Elemwise::perform_composite(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs,
                                 const std::vector<std::int64_t>& shape, std::int64_t n) const {
  // Every output from one evaluation of the inner graph per element, each
  // value held as a ScalarValue: int64 for integer and bool dtypes, double
  // for floats (Composite::evaluate computes each inner node as its own
  // Elemwise would).
  const auto& comp = static_cast<const Composite&>(*scalar_op_);
  const std::size_t nin = inputs.size(), nout = static_cast<std::size_t>(node.nout());
  auto domain = [](DType d) { return is_integer(d) || is_bool(d) ? DType::Int64 : DType::Float64; };
  std::vector<NDArray> args, results;
  for (const NDArray& in : inputs) args.push_back(in.broadcast_to(shape).astype(domain(in.dtype())));
  const std::vector<DType> out_dts = comp.out_dtypes();
  for (std::size_t o = 0; o < nout; ++o) results.push_back(NDArray::empty(shape, domain(out_dts[o])));
  std::vector<ScalarValue> in_buf(nin), out_buf(nout);
  for (std::int64_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < nin; ++i) {
      if (args[i].dtype() == DType::Int64)
        in_buf[i].i = args[i].data_as<std::int64_t>()[k];
      else
        in_buf[i].d = args[i].data_as<double>()[k];
    }
    comp.evaluate(in_buf.data(), out_buf.data());
    for (std::size_t o = 0; o < nout; ++o) {
      if (results[o].dtype() == DType::Int64)
        results[o].data_as<std::int64_t>()[k] = out_buf[o].i;
      else
        results[o].data_as<double>()[k] = out_buf[o].d;
    }
  }
  for (std::size_t o = 0; o < nout; ++o) {
    if (auto it = inplace_pattern_.find(static_cast<int>(o)); it != inplace_pattern_.end()) {
      NDArray target = inputs[static_cast<std::size_t>(it->second)];
      target.assign(results[o]);
      outputs[o] = target;
    } else {
      outputs[o] = results[o].astype(tensor_type(node.output(static_cast<int>(o)))->dtype());
    }
  }
}

std::vector<std::vector<Var>> Elemwise::infer_shape(const Apply& node,
                                                    const std::vector<std::vector<Var>>& input_shapes) const {
  const int ndim = tensor_type(node.output(0))->ndim();
  std::vector<Var> out;
  for (int d = 0; d < ndim; ++d) {
    const auto du = static_cast<std::size_t>(d);
    if (const Dim& s = tensor_type(node.output(0))->shape()[du]) {
      out.push_back(constant(NDArray::scalar<std::int64_t>(*s)));
      continue;
    }
    // The first input that is not declared broadcastable in this dimension.
    Var pick;
    for (int i = 0; i < node.nin() && !pick; ++i) {
      const Dim& s = tensor_type(node.input(i))->shape()[du];
      if (!(s && *s == 1)) pick = input_shapes[static_cast<std::size_t>(i)][du];
    }
    out.push_back(pick ? pick : constant(NDArray::scalar<std::int64_t>(1)));
  }
  return std::vector<std::vector<Var>>(static_cast<std::size_t>(node.nout()), out);
}

std::vector<Var> Elemwise::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const std::vector<Var> inputs = node.inputs();
  std::vector<Var> g = scalar_op_->nout() > 1
                           ? static_cast<const Composite&>(*scalar_op_).tensor_grad_all(inputs, output_grads)
                           : scalar_op_->tensor_grad(inputs, node.output(0), output_grads.at(0));
  THEANO_INTERNAL_CHECK(g.size() == inputs.size())
      << name() << ": the scalar gradient returned " << g.size() << " terms for " << inputs.size() << " inputs";
  const TensorType& out_t = *tensor_type(node.output(0));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!g[i]) continue;
    const TensorType& in_t = *tensor_type(inputs[i]);
    // Sum over the dimensions along which this input was broadcast.
    std::vector<int> axes;
    for (int d = 0; d < in_t.ndim(); ++d) {
      const auto du = static_cast<std::size_t>(d);
      const bool in_one = in_t.shape()[du] && *in_t.shape()[du] == 1;
      const bool out_one = out_t.shape()[du] && *out_t.shape()[du] == 1;
      if (in_one && !out_one) axes.push_back(d);
    }
    if (!axes.empty()) g[i] = sum(g[i], Axes(axes), true);
    if (is_float(in_t.dtype()) && tensor_type(g[i])->dtype() != in_t.dtype()) g[i] = cast(g[i], in_t.dtype());
  }
  return g;
}

Var elemwise(const ScalarOpPtr& op, std::vector<Var> inputs) {
  return OpPtr(new Elemwise(op))->make_node(std::move(inputs))->output(0);
}

Var elemwise(std::string_view scalar_name, std::vector<Var> inputs) {
  return elemwise(scalar_op(scalar_name), std::move(inputs));
}

const ScalarOp* elemwise_scalar_op(const Apply* node) {
  if (!node) return nullptr;
  const auto* e = dynamic_cast<const Elemwise*>(node->op().get());
  return e ? e->scalar_op().get() : nullptr;
}

bool is_elemwise(const Apply* node, std::string_view name) {
  const ScalarOp* s = elemwise_scalar_op(node);
  return s && s->name() == name;
}

}  // namespace theano::tensor
