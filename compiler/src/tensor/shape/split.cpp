/// \file
/// `Split`: one tensor cut into `len_splits` views along an axis, with sizes
/// from an integer vector (constant or symbolic). Its gradient is a Join.
#include <numeric>
#include <sstream>

#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

namespace {
std::string list_str(const std::vector<std::int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}
}  // namespace

Split::Split(int len_splits, int axis) : len_splits_(len_splits), axis_(axis) {
  THEANO_USER_CHECK(len_splits >= 1, ValueError) << "Split: the number of splits must be >= 1, got " << len_splits;
  THEANO_USER_CHECK(axis >= 0, ValueError) << "Split: the axis must be normalized (>= 0), got " << axis;
}

THEANO_REGISTER_OP(Split);

// GPU form: views of the GPU array; the axis and the sizes stay host values.
std::optional<GpuPlacement> Split::gpu_form(const Apply& node) const { return GpuPlacement::only(node.nin(), {0}); }

ApplyPtr Split::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs (x, splits), got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  Var splits = as_tensor_variable(inputs[1]);
  const TensorType* tx = tensor_type(x);
  const TensorType* ts = tensor_type(splits);
  THEANO_USER_CHECK(axis_ < tx->ndim(), IndexError)
      << name() << ": axis " << axis_ << " is out of bounds for " << x.str() << " of type " << tx->str();
  THEANO_USER_CHECK(ts->ndim() == 1 && is_integer(ts->dtype()), TypeError)
      << name() << ": splits must be an integer vector, got " << splits.str() << " of type " << ts->str();
  THEANO_USER_CHECK(!ts->shape()[0] || *ts->shape()[0] == len_splits_, ValueError)
      << name() << ": splits " << splits.str() << " has " << *ts->shape()[0] << " entries, expected " << len_splits_;
  auto known = detail::partial_int_vector(splits);
  const Dim& dim = tx->shape()[static_cast<std::size_t>(axis_)];
  if (auto c = detail::constant_int_vector(splits)) {
    for (std::int64_t s : *c)
      THEANO_USER_CHECK(s >= 0, ValueError) << name() << ": split sizes must be >= 0, got " << list_str(*c);
    std::int64_t total = 0, bad = 0;
    THEANO_USER_CHECK(theano_join_length(c->data(), static_cast<std::int64_t>(c->size()), &total, &bad) ==
                          THEANO_RULE_OK,
                      ValueError)
        << name() << ": the split sizes " << list_str(*c) << " sum past the int64 limit";
    THEANO_USER_CHECK(!dim || *dim == total, ShapeError)
        << name() << ": the splits " << list_str(*c) << " sum to " << total << ", but dimension " << axis_ << " of "
        << x.str() << " has size " << *dim << " (type " << tx->str() << ")";
  }
  std::vector<Var> outs;
  for (int i = 0; i < len_splits_; ++i) {
    StaticShape s = tx->shape();
    s[static_cast<std::size_t>(axis_)] = known ? (*known)[static_cast<std::size_t>(i)] : std::nullopt;
    if (len_splits_ == 1) s[static_cast<std::size_t>(axis_)] = dim;
    outs.push_back(TensorType::make(tx->dtype(), std::move(s))->make_variable());
  }
  return Apply::create(OpPtr(this), {x, splits}, std::move(outs));
}

void Split::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const NDArray& s = inputs[1];
  THEANO_USER_CHECK(s.ndim() == 1 && s.shape()[0] == len_splits_, ValueError)
      << name() << ": got " << (s.ndim() == 1 ? s.shape()[0] : -1) << " split sizes, expected " << len_splits_;
  std::vector<std::int64_t> sizes;
  for (std::int64_t i = 0; i < len_splits_; ++i) sizes.push_back(s.index(0, i).item<std::int64_t>());
  const std::int64_t dim = x.shape()[static_cast<std::size_t>(axis_)];
  // The rule generated code runs too (shape_rules.h): sizes >= 0, a checked sum.
  std::int64_t bad = 0;
  const int rule = theano_split_rule(dim, sizes.data(), len_splits_, &bad);
  if (rule == THEANO_RULE_MISMATCH)
    throw ShapeError(name() + ": the splits " + list_str(sizes) + " sum to " + std::to_string(bad) +
                     ", but dimension " + std::to_string(axis_) + " of " + node.input(0).str() + " has size " +
                     std::to_string(dim) + " (shape " + shape_to_string(x.shape()) + ")");
  if (rule != THEANO_RULE_OK)
    throw_shape_rule(rule, name() + ": invalid split sizes " + list_str(sizes) + " for " + node.input(0).str(), bad);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    outputs[i] = x.slice(axis_, off, off + sizes[i]);
    off += sizes[i];
  }
}

std::vector<std::vector<Var>> Split::infer_shape(const Apply& node,
                                                 const std::vector<std::vector<Var>>& input_shapes) const {
  const Var& splits = node.input(1);
  auto known = detail::partial_int_vector(splits);
  std::vector<std::vector<Var>> r;
  for (int i = 0; i < len_splits_; ++i) {
    std::vector<Var> s = input_shapes[0];
    const auto k = static_cast<std::size_t>(i);
    s[static_cast<std::size_t>(axis_)] = (known && (*known)[k]) ? detail::int64_const(*(*known)[k])
                                                                : detail::as_int64(subtensor(splits, {Index(i)}));
    r.push_back(std::move(s));
  }
  return r;
}

std::vector<Var> Split::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& x = node.input(0);
  const DType dx = tensor_type(x)->dtype();
  bool any = false;
  for (const Var& g : output_grads) any = any || bool(g);
  if (!any || !(is_float(dx) || is_complex(dx))) return {Var(), Var()};
  std::vector<Var> parts;
  for (int i = 0; i < len_splits_; ++i) {
    const Var& g = output_grads[static_cast<std::size_t>(i)];
    parts.push_back(g ? g : zeros_like(node.output(i)));
  }
  Var gx = join(axis_, parts);
  if (tensor_type(gx)->dtype() != dx) gx = cast(gx, dx);
  return {detail::match_static_shape(gx, x), Var()};
}

std::vector<std::vector<bool>> Split::connection_pattern(const Apply&) const {
  const auto n = static_cast<std::size_t>(len_splits_);
  return {std::vector<bool>(n, true), std::vector<bool>(n, false)};
}

ViewMap Split::view_map() const {
  ViewMap m;
  for (int i = 0; i < len_splits_; ++i) m[i] = {0};
  return m;
}

std::vector<Var> split(const Var& x, const Var& splits, int n_splits, int axis) {
  Var t = as_tensor_variable(x);
  const int nd = tensor_type(t)->ndim();
  THEANO_USER_CHECK(axis >= -nd && axis < nd, IndexError)
      << "split: axis " << axis << " is out of bounds for " << t.str() << " of type " << t.type()->str();
  if (axis < 0) axis += nd;
  return (*OpPtr(new Split(n_splits, axis)))({t, splits});
}

std::vector<Var> split(const Var& x, const std::vector<std::int64_t>& splits, int axis) {
  Var s = constant(NDArray::from_vector(splits, {static_cast<std::int64_t>(splits.size())}));
  return split(x, s, static_cast<int>(splits.size()), axis);
}

}  // namespace theano::tensor
