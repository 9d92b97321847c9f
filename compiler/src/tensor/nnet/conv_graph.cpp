// The symbolic side of the convolution ops: infer_shape (Theano's
// get_conv_output_shape on int64 scalars), the gradients (each direction's
// are the other two directions, so second derivatives work) and the user
// functions conv2d / conv3d and their grad_wrt_* forms.
#include <string>
#include <utility>

#include "theano/runtime/error.h"
#include "theano/runtime/kernels/conv.h"
#include "theano/tensor/conv.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor::nnet {
namespace {

// The spatial sizes of `v` (axes 2..) as an int64 vector.
Var spatial_shape(const Var& v, int convdim) {
  std::vector<Var> dims;
  for (int d = 0; d < convdim; ++d) dims.push_back(shape_i(v, d + 2));
  return make_vector(dims, DType::Int64);
}

// (in + 2 pad - span) // stride + 1 with span = dil (k - 1) + 1, pad from `spec`.
Var out_size(const Var& in, const Var& k, std::int64_t spec, std::int64_t stride, std::int64_t dil) {
  const Var span = add(mul(sub(k, 1), dil), 1);
  Var pad2;
  if (spec == THEANO_CONV_FULL)
    pad2 = mul(sub(span, 1), 2);
  else if (spec == THEANO_CONV_HALF)
    pad2 = mul(int_div(span, 2), 2);
  else
    pad2 = constant(NDArray::scalar<std::int64_t>(2 * spec));
  return add(int_div(sub(add(in, pad2), span), stride), 1);
}

Var entry(const Var& vec, int i) { return cast(subtensor(vec, {Index(i)}), DType::Int64); }

std::vector<std::int64_t> hint_of(const std::optional<std::vector<std::optional<std::int64_t>>>& h, int nd,
                                  const char* what, const char* fn) {
  if (!h) return {};
  THEANO_USER_CHECK(static_cast<int>(h->size()) == nd, ValueError)
      << fn << ": " << what << " needs " << nd << " entries (the full shape), got " << h->size();
  std::vector<std::int64_t> r;
  for (const auto& v : *h) {
    THEANO_USER_CHECK(!v || *v >= 0, ValueError) << fn << ": " << what << " has a negative entry " << *v;
    r.push_back(v ? *v : -1);
  }
  return r;
}

OpPtr abstract_op(ConvDirection dir, int convdim, const ConvOptions& o, const char* fn) {
  return OpPtr(new AbstractConv(dir, convdim, o.border_mode, o.subsample, o.filter_flip, o.filter_dilation,
                                o.num_groups, hint_of(o.input_shape, convdim + 2, "input_shape", fn),
                                hint_of(o.filter_shape, convdim + 2, "filter_shape", fn)));
}

// A user's shape argument (all convdim + 2 entries or the convdim spatial
// ones) as the op's int vector of the spatial ones.
Var spatial_arg(const TensorLike& shape, int convdim, const char* fn) {
  Var v = shape.var();
  const TensorType& t = *tensor_type(v);
  THEANO_USER_CHECK(t.ndim() == 1 && is_integer(t.dtype()), TypeError)
      << fn << ": the shape must be an integer vector, got " << v.str() << " of type " << t.str();
  const Dim n = t.shape()[0];
  THEANO_USER_CHECK(n && (*n == convdim || *n == convdim + 2), ValueError)
      << fn << ": the shape must have " << convdim + 2 << " (or " << convdim << " spatial) entries, got " << v.str()
      << " of type " << t.str();
  if (*n == convdim) return v;
  // A constant shape stays a constant (the op then knows the output's static shape).
  if (const Constant* c = v.as_constant()) {
    const NDArray all = c->data().astype(DType::Int64).contiguous();
    const std::int64_t* p = all.data_as<std::int64_t>();
    return constant(NDArray::from_vector<std::int64_t>(std::vector<std::int64_t>(p + 2, p + convdim + 2), {convdim}));
  }
  return subtensor(v, {Index(slice(2, none))});
}

}  // namespace

std::vector<std::vector<Var>> ConvBase::infer_shape(const Apply& node,
                                                    const std::vector<std::vector<Var>>& shapes) const {
  const int n = convdim();
  std::vector<Var> out;
  if (direction() == ConvDirection::Forward) {
    const std::vector<std::int64_t> pads = border_mode().pad_spec(n, type_name());
    out = {shapes[0][0], shapes[1][0]};
    for (int d = 0; d < n; ++d) {
      const auto du = static_cast<std::size_t>(d);
      out.push_back(out_size(shapes[0][du + 2], shapes[1][du + 2], pads[du], subsample()[du], filter_dilation()[du]));
    }
  } else if (direction() == ConvDirection::GradWeights) {  // (input, top, shape) -> (F, C/G, k...)
    out = {shapes[1][1], int_div(shapes[0][1], num_groups())};
    for (int d = 0; d < n; ++d) out.push_back(entry(node.input(2), d));
  } else {  // (filters, top, shape) -> (B, C, s...)
    out = {shapes[1][0], mul(shapes[0][1], num_groups())};
    for (int d = 0; d < n; ++d) out.push_back(entry(node.input(2), d));
  }
  for (auto& v : out) v = cast(v, DType::Int64);
  return {out};
}

std::vector<std::vector<bool>> ConvBase::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), std::vector<bool>{true});
  if (direction() != ConvDirection::Forward) r[2] = {false};
  return r;
}

// Forward:      out = A_w x = B_x w: dx = A_w^T gz (gradInputs), dw = B_x^T gz (gradWeights).
// GradWeights:  out = B_x^T top:     dx = gradInputs(g, top), dtop = B_x g = forward(x, g).
// GradInputs:   out = A_w^T top:     dw = gradWeights(g, top), dtop = A_w g = forward(g, w).
std::vector<Var> ConvBase::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  const int n = convdim();
  const Var& a = node.input(0);
  const Var& b = node.input(1);
  if (!g) return std::vector<Var>(static_cast<std::size_t>(node.nin()));
  const OpPtr fwd = sibling(ConvDirection::Forward), gw = sibling(ConvDirection::GradWeights),
              gi = sibling(ConvDirection::GradInputs);
  switch (direction()) {
    case ConvDirection::Forward:
      return {gi->apply1({b, g, spatial_shape(a, n)}), gw->apply1({a, g, spatial_shape(b, n)})};
    case ConvDirection::GradWeights:
      return {gi->apply1({g, b, spatial_shape(a, n)}), fwd->apply1({a, g}), Var()};
    default:
      return {gw->apply1({g, b, spatial_shape(a, n)}), fwd->apply1({g, a}), Var()};
  }
}

Var conv2d(const TensorLike& input, const TensorLike& filters, const ConvOptions& opts) {
  return abstract_op(ConvDirection::Forward, 2, opts, "conv2d")->apply1({input.var(), filters.var()});
}
Var conv3d(const TensorLike& input, const TensorLike& filters, const ConvOptions& opts) {
  return abstract_op(ConvDirection::Forward, 3, opts, "conv3d")->apply1({input.var(), filters.var()});
}
Var conv2d_grad_wrt_inputs(const TensorLike& output_grad, const TensorLike& filters, const TensorLike& input_shape,
                           const ConvOptions& opts) {
  const char* fn = "conv2d_grad_wrt_inputs";
  return abstract_op(ConvDirection::GradInputs, 2, opts, fn)
      ->apply1({filters.var(), output_grad.var(), spatial_arg(input_shape, 2, fn)});
}
Var conv2d_grad_wrt_weights(const TensorLike& input, const TensorLike& output_grad, const TensorLike& filter_shape,
                            const ConvOptions& opts) {
  const char* fn = "conv2d_grad_wrt_weights";
  return abstract_op(ConvDirection::GradWeights, 2, opts, fn)
      ->apply1({input.var(), output_grad.var(), spatial_arg(filter_shape, 2, fn)});
}
Var conv3d_grad_wrt_inputs(const TensorLike& output_grad, const TensorLike& filters, const TensorLike& input_shape,
                           const ConvOptions& opts) {
  const char* fn = "conv3d_grad_wrt_inputs";
  return abstract_op(ConvDirection::GradInputs, 3, opts, fn)
      ->apply1({filters.var(), output_grad.var(), spatial_arg(input_shape, 3, fn)});
}
Var conv3d_grad_wrt_weights(const TensorLike& input, const TensorLike& output_grad, const TensorLike& filter_shape,
                            const ConvOptions& opts) {
  const char* fn = "conv3d_grad_wrt_weights";
  return abstract_op(ConvDirection::GradWeights, 3, opts, fn)
      ->apply1({input.var(), output_grad.var(), spatial_arg(filter_shape, 3, fn)});
}

}  // namespace theano::tensor::nnet
