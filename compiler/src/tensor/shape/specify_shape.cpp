/// \file
/// `SpecifyShape`: the user's (or a rewrite's) promise about a shape, checked at
/// run time, that lets the output type carry static sizes (the fix suggested by
/// the static-broadcasting errors of Elemwise).
#include <sstream>

#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {

using detail::static_shape_str;

SpecifyShape::SpecifyShape(std::vector<std::int64_t> spec) : spec_(std::move(spec)) {
  for (std::int64_t s : spec_)
    THEANO_USER_CHECK(s >= kSymbolic, ValueError) << "SpecifyShape: sizes must be >= 0, got " << s;
}

std::string SpecifyShape::name() const {
  std::ostringstream os;
  os << "SpecifyShape{(";
  for (std::size_t i = 0; i < spec_.size(); ++i) {
    if (i) os << ", ";
    if (spec_[i] == kUnspecified)
      os << "?";
    else if (spec_[i] == kSymbolic)
      os << "s";
    else
      os << spec_[i];
  }
  os << (spec_.size() == 1 ? ",)}" : ")}");
  return os.str();
}

THEANO_REGISTER_OP(SpecifyShape,
                   .no_cuda = "a shape check; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr SpecifyShape::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << "SpecifyShape needs an input";
  Var x = as_tensor_variable(inputs[0]);
  const TensorType* t = tensor_type(x);
  std::size_t n_sym = 0;
  for (std::int64_t s : spec_) n_sym += s == kSymbolic;
  THEANO_USER_CHECK(inputs.size() == 1 + n_sym, TypeError)
      << name() << " takes " << 1 + n_sym << " inputs (x and the symbolic sizes), got " << inputs.size();
  THEANO_USER_CHECK(static_cast<std::size_t>(t->ndim()) == spec_.size(), ShapeError)
      << "SpecifyShape: " << x.str() << " has " << t->ndim() << " dimensions (type " << x.type()->str()
      << "), but the specified shape has " << spec_.size() << " entries";
  StaticShape out = t->shape();
  for (std::size_t i = 0; i < spec_.size(); ++i) {
    if (spec_[i] < 0) continue;
    THEANO_USER_CHECK(!out[i] || *out[i] == spec_[i], ShapeError)
        << "SpecifyShape: dimension " << i << " of " << x.str() << " is known to be " << *out[i]
        << " (type " << x.type()->str() << "), but " << spec_[i] << " was specified";
    out[i] = spec_[i];
  }
  std::vector<Var> ins{x};
  for (std::size_t k = 1; k < inputs.size(); ++k) {
    detail::check_int_scalar(inputs[k], "SpecifyShape", "a symbolic size");
    ins.push_back(inputs[k]);
  }
  Var o = TensorType::make(t->dtype(), std::move(out))->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void SpecifyShape::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const std::string xname = node.input(0).str();
  THEANO_USER_CHECK(static_cast<std::size_t>(x.ndim()) == spec_.size(), ShapeError)
      << "SpecifyShape: " << xname << " has " << x.ndim() << " dimensions (shape " << shape_to_string(x.shape())
      << "), expected " << spec_.size();
  std::size_t k = 1;
  StaticShape expected(spec_.size());
  for (std::size_t i = 0; i < spec_.size(); ++i) {
    if (spec_[i] >= 0) expected[i] = spec_[i];
    if (spec_[i] == kSymbolic) expected[i] = inputs[k++].item<std::int64_t>();
  }
  for (std::size_t i = 0; i < spec_.size(); ++i)
    THEANO_USER_CHECK(!expected[i] || *expected[i] == x.shape()[i], ShapeError)
        << "SpecifyShape: dimension " << i << " of " << xname << " has size " << x.shape()[i] << ", expected "
        << *expected[i] << " (shape " << shape_to_string(x.shape()) << ", specified "
        << static_shape_str(expected) << ")";
  outputs[0] = x;
}

std::vector<std::vector<Var>> SpecifyShape::infer_shape(const Apply& node,
                                                        const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> r;
  int k = 1;
  for (std::size_t i = 0; i < spec_.size(); ++i) {
    if (spec_[i] >= 0)
      r.push_back(detail::int64_const(spec_[i]));
    else if (spec_[i] == kSymbolic)
      r.push_back(detail::as_int64(node.input(k++)));
    else
      r.push_back(input_shapes[0][i]);
  }
  return {r};
}

std::vector<Var> SpecifyShape::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  if (output_grads[0]) {
    std::vector<Var> ins = node.inputs();
    ins[0] = output_grads[0];
    r[0] = apply1(std::move(ins));
  }
  return r;
}

std::vector<std::vector<bool>> SpecifyShape::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  return r;
}

Var specify_shape(const Var& x, const StaticShape& shape) {
  std::vector<std::int64_t> spec;
  for (const Dim& d : shape) {
    THEANO_USER_CHECK(!d || *d >= 0, ValueError) << "specify_shape: sizes must be >= 0, got " << *d;
    spec.push_back(d ? *d : SpecifyShape::kUnspecified);
  }
  return OpPtr(new SpecifyShape(std::move(spec)))->apply1({as_tensor_variable(x)});
}

Var specify_shape(const Var& x, const std::vector<Var>& shape) {
  std::vector<std::int64_t> spec;
  std::vector<Var> ins{as_tensor_variable(x)};
  for (const Var& s : shape) {
    if (!s) {
      spec.push_back(SpecifyShape::kUnspecified);
      continue;
    }
    detail::check_int_scalar(s, "specify_shape", "each size");
    if (auto c = detail::constant_int(s)) {
      THEANO_USER_CHECK(*c >= 0, ValueError) << "specify_shape: sizes must be >= 0, got " << *c;
      spec.push_back(*c);
    } else {
      spec.push_back(SpecifyShape::kSymbolic);
      ins.push_back(s);
    }
  }
  return OpPtr(new SpecifyShape(std::move(spec)))->apply1(std::move(ins));
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::SpecifyShape::view_map() const { return {{0, {0}}}; }
