/// \file
/// `Alloc` and the zeros/ones helpers built on it: a value broadcast to a shape
/// given as integer scalars. Only value dimensions whose type says size 1
/// broadcast (docs/architecture.md, "Types are values"), so the gradient (a sum over those dimensions) is
/// decided statically.
#include <algorithm>

#include "shape_util.h"
#include "theano/config.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

THEANO_REGISTER_OP(Alloc);

// GPU form: the value on the GPU; the sizes stay host scalars.
std::optional<GpuPlacement> Alloc::gpu_form(const Apply& node) const { return GpuPlacement::only(node.nin(), {0}); }

// Not folded: the output can be far larger than its inputs (folding would store the
// expanded array in the graph; Theano keeps it symbolic too).
bool Alloc::foldable() const { return false; }

ApplyPtr Alloc::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << "Alloc needs a value input";
  Var v = as_tensor_variable(inputs[0]);
  const TensorType* tv = tensor_type(v);
  const int nd = static_cast<int>(inputs.size()) - 1;
  THEANO_USER_CHECK(tv->ndim() <= nd, TypeError)
      << "Alloc: the value " << v.str() << " has " << tv->ndim() << " dimensions (type " << v.type()->str()
      << "), more than the " << nd << " of the requested shape";
  StaticShape out(static_cast<std::size_t>(nd));
  std::vector<Var> ins{v};
  for (int i = 0; i < nd; ++i) {
    const Var& s = inputs[static_cast<std::size_t>(i + 1)];
    detail::check_int_scalar(s, "Alloc", "shape entry " + std::to_string(i));
    if (auto c = detail::constant_int(s)) {
      THEANO_USER_CHECK(*c >= 0, ValueError) << "Alloc: shape entry " << i << " is negative (" << *c << ")";
      out[static_cast<std::size_t>(i)] = *c;
    }
    ins.push_back(s);
  }
  const int off = nd - tv->ndim();
  for (int j = 0; j < tv->ndim(); ++j) {
    const Dim& dv = tv->shape()[static_cast<std::size_t>(j)];
    Dim& d = out[static_cast<std::size_t>(j + off)];
    if (!dv || *dv == 1) continue;
    THEANO_USER_CHECK(!d || *d == *dv, ShapeError)
        << "Alloc: dimension " << j << " of the value " << v.str() << " has size " << *dv << " (type "
        << v.type()->str() << "), which cannot be broadcast to size " << *d << " (output dimension " << j + off
        << ")";
    d = dv;
  }
  Var o = TensorType::make(tv->dtype(), std::move(out))->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void Alloc::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& v = inputs[0];
  std::vector<std::int64_t> shape;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const std::int64_t s = inputs[i].item<std::int64_t>();
    THEANO_USER_CHECK(s >= 0, ValueError) << "Alloc: shape entry " << i - 1 << " is negative (" << s << ")";
    shape.push_back(s);
  }
  // Theano's rule, the function generated code calls (shape_rules.h).
  const TensorType* tv = tensor_type(node.input(0));
  std::vector<unsigned char> declared_one;
  for (const Dim& s : tv->shape()) declared_one.push_back(s && *s == 1);
  declared_one.resize(static_cast<std::size_t>(std::max(v.ndim(), 1)), 0);
  std::int64_t bad = 0;
  if (const int rule = theano_broadcast_to_rule(v.ndim(), v.shape().data(), declared_one.data(),
                                                static_cast<std::int64_t>(shape.size()), shape.data(), &bad))
    throw_shape_rule(rule,
                     "Alloc: the value " + node.input(0).str() + " of shape " + shape_to_string(v.shape()) + " (type " +
                         tv->str() + "; only dimensions whose type says size 1 broadcast), target shape " +
                         shape_to_string(shape),
                     bad);
  NDArray out = NDArray::empty(shape, v.dtype());
  if (out.size() > 0) out.assign(v);
  outputs[0] = out;
}

std::vector<std::vector<Var>> Alloc::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  std::vector<Var> r;
  for (int i = 1; i < node.nin(); ++i) r.push_back(detail::as_int64(node.input(i)));
  return {r};
}

std::vector<Var> Alloc::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  const Var& v = node.input(0);
  if (output_grads[0] && (is_float(tensor_type(v)->dtype()) || is_complex(tensor_type(v)->dtype())))
    r[0] = detail::sum_to_like(output_grads[0], v);
  return r;
}

std::vector<std::vector<bool>> Alloc::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  return r;
}

// ---- functions -------------------------------------------------------------------------

Var alloc(const TensorLike& value, const std::vector<TensorLike>& shape) {
  std::vector<Var> ins{value.var()};
  for (const TensorLike& s : shape) ins.push_back(s.var());
  return OpPtr(new Alloc())->apply1(std::move(ins));
}

Var alloc(const TensorLike& value, const Var& shape_vector) {
  Var sv = as_tensor_variable(shape_vector);
  const TensorType* t = tensor_type(sv);
  if (t->ndim() == 0 && is_integer(t->dtype())) return alloc(value, std::vector<TensorLike>{sv});  // zeros(n)
  THEANO_USER_CHECK(t->ndim() == 1 && is_integer(t->dtype()), TypeError)
      << "alloc: the shape must be an integer vector, got " << sv.str() << " of type " << sv.type()->str();
  auto known = detail::partial_int_vector(sv);
  THEANO_USER_CHECK(known.has_value(), ValueError)
      << "alloc: the length of the shape vector " << sv.str() << " must be known statically (type "
      << sv.type()->str() << "); use specify_shape or pass a list of scalars";
  std::vector<Var> ins{value.var()};
  for (std::size_t i = 0; i < known->size(); ++i)
    ins.push_back((*known)[i] ? detail::int64_const(*(*known)[i]) : subtensor(sv, {Index(static_cast<int>(i))}));
  return OpPtr(new Alloc())->apply1(std::move(ins));
}

static Var filled(double v, std::optional<DType> dtype) { return constant(NDArray::full({}, v, dtype.value_or(config().floatX))); }

Var zeros(const std::vector<TensorLike>& shape, std::optional<DType> dtype) { return alloc(filled(0, dtype), shape); }
Var zeros(const Var& shape_vector, std::optional<DType> dtype) { return alloc(filled(0, dtype), shape_vector); }
Var ones(const std::vector<TensorLike>& shape, std::optional<DType> dtype) { return alloc(filled(1, dtype), shape); }
Var ones(const Var& shape_vector, std::optional<DType> dtype) { return alloc(filled(1, dtype), shape_vector); }

}  // namespace theano::tensor
