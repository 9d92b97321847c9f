// DimShuffle: transpose / add broadcastable axes / drop size-1 axes, as a view.
#include <algorithm>

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

std::string order_text(const std::vector<int>& order) {
  std::string r;
  for (std::size_t i = 0; i < order.size(); ++i)
    r += (i ? "," : "") + (order[i] == kNewAxis ? std::string("x") : std::to_string(order[i]));
  return r;
}

}  // namespace

DimShuffle::DimShuffle(int input_ndim, std::vector<int> new_order)
    : input_ndim_(input_ndim), new_order_(std::move(new_order)) {
  std::vector<bool> seen(static_cast<std::size_t>(std::max(input_ndim_, 0)), false);
  for (int a : new_order_) {
    THEANO_USER_CHECK(a == kNewAxis || (a >= 0 && a < input_ndim_), ValueError)
        << "DimShuffle{" << order_text(new_order_) << "}: axis " << a << " is out of range for a " << input_ndim_
        << "-d input";
    if (a == kNewAxis) continue;
    THEANO_USER_CHECK(!seen[static_cast<std::size_t>(a)], ValueError)
        << "DimShuffle{" << order_text(new_order_) << "}: axis " << a << " appears twice";
    seen[static_cast<std::size_t>(a)] = true;
  }
}

std::string DimShuffle::name() const { return "DimShuffle{" + order_text(new_order_) + "}"; }

bool DimShuffle::is_transpose() const {
  return static_cast<int>(new_order_.size()) == input_ndim_ &&
         std::none_of(new_order_.begin(), new_order_.end(), [](int a) { return a == kNewAxis; });
}

THEANO_REGISTER_OP(DimShuffle);

// GPU form: a view of the GPU array (its CUDA lowering is the C++ one on device addresses).
std::optional<GpuPlacement> DimShuffle::gpu_form(const Apply& node) const {
  return GpuPlacement::only(node.nin(), {0});
}

ApplyPtr DimShuffle::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const TensorType* t = tensor_type(inputs[0]);
  THEANO_USER_CHECK(t, TypeError) << name() << ": expected a tensor, got " << inputs[0].str();
  THEANO_USER_CHECK(t->ndim() == input_ndim_, TypeError)
      << name() << ": expected a " << input_ndim_ << "-d input, got " << inputs[0].str() << " of type " << t->str();
  for (int a = 0; a < input_ndim_; ++a) {
    if (std::find(new_order_.begin(), new_order_.end(), a) != new_order_.end()) continue;
    const Dim& s = t->shape()[static_cast<std::size_t>(a)];
    THEANO_USER_CHECK(s && *s == 1, ValueError)
        << name() << ": cannot drop dimension " << a << " of " << inputs[0].str() << " (type " << t->str()
        << "): only dimensions of static size 1 can be dropped";
  }
  StaticShape shape;
  for (int a : new_order_) shape.push_back(a == kNewAxis ? Dim(1) : t->shape()[static_cast<std::size_t>(a)]);
  Var out = TensorType::make(t->dtype(), std::move(shape))->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void DimShuffle::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  NDArray x = inputs[0];
  THEANO_USER_CHECK(x.ndim() == input_ndim_, ShapeError)
      << name() << ": expected a " << input_ndim_ << "-d value, got " << x.ndim() << " dimensions";
  // Drop the axes that are not kept (size 1), highest first, remembering where
  // the kept axes land.
  std::vector<int> position(static_cast<std::size_t>(input_ndim_));
  for (int a = 0; a < input_ndim_; ++a) position[static_cast<std::size_t>(a)] = a;
  for (int a = input_ndim_ - 1; a >= 0; --a) {
    if (std::find(new_order_.begin(), new_order_.end(), a) != new_order_.end()) continue;
    THEANO_USER_CHECK(x.shape()[static_cast<std::size_t>(a)] == 1, ShapeError)
        << name() << ": dimension " << a << " must have size 1 to be dropped, got shape "
        << shape_to_string(inputs[0].shape());
    x = x.squeeze(a);
    for (int b = a + 1; b < input_ndim_; ++b) --position[static_cast<std::size_t>(b)];
  }
  std::vector<int> perm;
  for (int a : new_order_)
    if (a != kNewAxis) perm.push_back(position[static_cast<std::size_t>(a)]);
  x = x.transpose(perm);
  for (std::size_t i = 0; i < new_order_.size(); ++i)
    if (new_order_[i] == kNewAxis) x = x.expand_dims(static_cast<int>(i));
  outputs[0] = x;
}

std::vector<std::vector<Var>> DimShuffle::infer_shape(const Apply&,
                                                      const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> out;
  for (int a : new_order_)
    out.push_back(a == kNewAxis ? constant(NDArray::scalar<std::int64_t>(1))
                                : input_shapes[0][static_cast<std::size_t>(a)]);
  return {out};
}

std::vector<Var> DimShuffle::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& x = node.input(0);
  const DType dt = tensor_type(x)->dtype();
  if (!is_float(dt)) return {Var()};
  std::vector<int> back(static_cast<std::size_t>(input_ndim_), kNewAxis);
  for (std::size_t i = 0; i < new_order_.size(); ++i)
    if (new_order_[i] != kNewAxis) back[static_cast<std::size_t>(new_order_[i])] = static_cast<int>(i);
  // Output axes that were added ('x') are size 1 in gz and are dropped.
  return {dimshuffle(output_grads.at(0), back)};
}

Var dimshuffle(const Var& x, std::vector<int> new_order) {
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(t, TypeError) << "dimshuffle: expected a tensor, got " << x.str();
  return OpPtr(new DimShuffle(t->ndim(), std::move(new_order)))->make_node({x})->output(0);
}

Var transpose(const Var& x, std::vector<int> axes) {
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(t, TypeError) << "transpose: expected a tensor, got " << x.str();
  if (axes.empty())
    for (int a = t->ndim() - 1; a >= 0; --a) axes.push_back(a);
  for (int& a : axes)
    if (a < 0) a += t->ndim();
  return dimshuffle(x, std::move(axes));
}

Var shape_padleft(const Var& x, int n) {
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(t, TypeError) << "shape_padleft: expected a tensor, got " << x.str();
  std::vector<int> order(static_cast<std::size_t>(n), kNewAxis);
  for (int a = 0; a < t->ndim(); ++a) order.push_back(a);
  return dimshuffle(x, std::move(order));
}

Var shape_padright(const Var& x, int n) {
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(t, TypeError) << "shape_padright: expected a tensor, got " << x.str();
  std::vector<int> order;
  for (int a = 0; a < t->ndim(); ++a) order.push_back(a);
  order.insert(order.end(), static_cast<std::size_t>(n), kNewAxis);
  return dimshuffle(x, std::move(order));
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::DimShuffle::view_map() const { return {{0, {0}}}; }
