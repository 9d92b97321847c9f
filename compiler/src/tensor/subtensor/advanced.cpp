/// \file
/// `AdvancedSubtensor1` (gather rows by an integer vector; a copy),
/// `AdvancedIncSubtensor1` (scatter: set keeps the last write, inc accumulates
/// repeated indices like numpy.add.at) and `take`, which reaches other axes
/// through transposes as Theano does.
#include "../shape/shape_util.h"
#include "idx_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

namespace {

void check_ilist(const std::string& op, const Var& ilist) {
  const TensorType* t = tensor_type(ilist);
  THEANO_USER_CHECK(t && t->ndim() == 1 && is_integer(t->dtype()), TypeError)
      << op << ": the index must be an integer vector, got " << ilist.str() << " of type "
      << (ilist ? ilist.type()->str() : std::string("<null>"));
}

/// ilist[j] normalized against size n; IndexError naming the index as given.
std::int64_t checked_index(const NDArray& ilist, std::int64_t j, std::int64_t n, const std::string& op,
                           const std::string& xname) {
  const std::int64_t i = ilist.index(0, j).item<std::int64_t>();
  std::int64_t at = 0;  // the rule generated code runs too (shape_rules.h)
  THEANO_USER_CHECK(theano_index_rule(n, i, &at) == THEANO_RULE_OK, IndexError)
      << op << ": index " << i << " is out of bounds for axis 0 with size " << n << " (position " << j
      << " of the index vector, indexing " << xname << ")";
  return at;
}

}  // namespace

// ---- AdvancedSubtensor1 -------------------------------------------------------------------

THEANO_REGISTER_OP(AdvancedSubtensor1);

// GPU form: x and the index vector.
std::optional<GpuPlacement> AdvancedSubtensor1::gpu_form(const Apply& node) const {
  return GpuPlacement::all(node.nin());
}

ApplyPtr AdvancedSubtensor1::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs (x, ilist), got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  const TensorType* tx = tensor_type(x);
  THEANO_USER_CHECK(tx->ndim() >= 1, TypeError) << name() << ": cannot index into " << x.str()
                                                << ", a scalar (type " << tx->str() << ")";
  check_ilist(name(), inputs[1]);
  StaticShape out = tx->shape();
  out[0] = tensor_type(inputs[1])->shape()[0];
  Var o = TensorType::make(tx->dtype(), std::move(out))->make_variable();
  return Apply::create(OpPtr(this), {x, inputs[1]}, {o});
}

void AdvancedSubtensor1::perform(const Apply& node, std::span<const NDArray> inputs,
                                 std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const NDArray& ilist = inputs[1];
  const std::int64_t k = ilist.shape()[0], n = x.shape()[0];
  std::vector<std::int64_t> shape = x.shape();
  shape[0] = k;
  NDArray out = NDArray::empty(shape, x.dtype());
  const std::string xname = node.input(0).str();
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t i = checked_index(ilist, j, n, name(), xname);
    if (out.size() > 0) out.index(0, j).assign(x.index(0, i));
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> AdvancedSubtensor1::infer_shape(const Apply&,
                                                              const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> s = input_shapes[0];
  s[0] = input_shapes[1][0];
  return {s};
}

std::vector<Var> AdvancedSubtensor1::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& x = node.input(0);
  const DType dx = tensor_type(x)->dtype();
  if (!output_grads[0] || !(is_float(dx) || is_complex(dx))) return {Var(), Var()};
  Var gx = OpPtr(new AdvancedIncSubtensor1())->apply1({zeros_like(x), output_grads[0], node.input(1)});
  return {gx, Var()};
}

std::vector<std::vector<bool>> AdvancedSubtensor1::connection_pattern(const Apply&) const { return {{true}, {false}}; }

// ---- AdvancedIncSubtensor1 ----------------------------------------------------------------

std::string AdvancedIncSubtensor1::name() const {
  return std::string("AdvancedIncSubtensor1{") + (inplace_ ? "inplace" : "no_inplace") +
         (set_instead_of_inc_ ? ",set}" : ",inc}");
}

THEANO_REGISTER_OP(AdvancedIncSubtensor1);

// GPU form: x, the value and the index vector. Increments repeated by an
// index need an atomic add of x's dtype.
std::optional<GpuPlacement> AdvancedIncSubtensor1::gpu_form(const Apply& node) const {
  const TensorType* x = tensor_type(node.input(0));
  const bool atomic =
      x && (x->dtype() == DType::Float32 || x->dtype() == DType::Float64 || x->dtype() == DType::Int32 ||
            x->dtype() == DType::UInt32 || x->dtype() == DType::Int64 || x->dtype() == DType::UInt64);
  if (!set_instead_of_inc() && !atomic) return std::nullopt;
  return GpuPlacement::all(node.nin());
}

// AdvancedIncSubtensor1{no_inplace}(x, y, idx) -> AdvancedIncSubtensor1{inplace}(x, y, idx)
std::vector<InplaceVariant> AdvancedIncSubtensor1::inplace_variants(const Apply&) const {
  if (inplace()) return {};
  return {{InplaceStage::SetSubtensor, 0, OpPtr(new AdvancedIncSubtensor1(true, set_instead_of_inc()))}};
}

ApplyPtr AdvancedIncSubtensor1::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError) << name() << " takes 3 inputs (x, y, ilist), got "
                                                   << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  Var y = as_tensor_variable(inputs[1]);
  const TensorType* tx = tensor_type(x);
  THEANO_USER_CHECK(tx->ndim() >= 1, TypeError) << name() << ": cannot index into " << x.str()
                                                << ", a scalar (type " << tx->str() << ")";
  check_ilist(name(), inputs[2]);
  StaticShape sub = tx->shape();
  sub[0] = tensor_type(inputs[2])->shape()[0];
  detail::check_inc_value(x, y, sub, name());
  Var o = x.type()->make_variable();
  return Apply::create(OpPtr(this), {x, y, inputs[2]}, {o});
}

void AdvancedIncSubtensor1::perform(const Apply& node, std::span<const NDArray> inputs,
                                    std::span<NDArray> outputs) const {
  NDArray out = inplace_ ? inputs[0] : inputs[0].copy();
  const NDArray& y = inputs[1];
  const NDArray& ilist = inputs[2];
  const std::int64_t k = ilist.shape()[0], n = out.shape()[0];
  std::vector<std::int64_t> target = out.shape();
  target[0] = k;
  detail::check_value_broadcast(y, *tensor_type(node.input(1)), target, name(), node.input(1).str());
  const NDArray yb = (y.dtype() == out.dtype() ? y : y.astype(out.dtype())).broadcast_to(target);
  const std::string xname = node.input(0).str();
  for (std::int64_t j = 0; j < k; ++j) {
    const std::int64_t i = checked_index(ilist, j, n, name(), xname);
    NDArray row = out.index(0, i);
    if (row.size() == 0) continue;
    if (set_instead_of_inc_)
      row.assign(yb.index(0, j));
    else
      detail::add_into(row, yb.index(0, j));
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> AdvancedIncSubtensor1::infer_shape(
    const Apply&, const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> AdvancedIncSubtensor1::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(3);
  const Var& gz = output_grads[0];
  const Var& x = node.input(0);
  const Var& y = node.input(1);
  const Var& ilist = node.input(2);
  const DType dx = tensor_type(x)->dtype(), dy = tensor_type(y)->dtype();
  if (!gz || !(is_float(dx) || is_complex(dx))) return r;
  r[0] = set_instead_of_inc_ ? OpPtr(new AdvancedIncSubtensor1(false, true))->apply1({gz, zeros_like(y), ilist}) : gz;
  if (is_float(dy) || is_complex(dy)) {
    Var gy = detail::sum_to_like(advanced_subtensor1(gz, ilist), y);
    if (tensor_type(gy)->dtype() != dy) gy = cast(gy, dy);
    r[1] = gy;
  }
  return r;
}

std::vector<std::vector<bool>> AdvancedIncSubtensor1::connection_pattern(const Apply&) const {
  return {{true}, {true}, {false}};
}

ViewMap AdvancedIncSubtensor1::destroy_map() const { return inplace_ ? ViewMap{{0, {0}}} : ViewMap{}; }

// ---- functions -------------------------------------------------------------------------------

Var advanced_subtensor1(const Var& x, const Var& ilist) {
  return OpPtr(new AdvancedSubtensor1())->apply1({as_tensor_variable(x), ilist});
}

Var take(const Var& x_in, const Var& indices, int axis) {
  Var x = as_tensor_variable(x_in);
  const int nd = tensor_type(x)->ndim();
  THEANO_USER_CHECK(axis >= -nd && axis < nd, IndexError)
      << "take: axis " << axis << " is out of bounds for " << x.str() << " of type " << x.type()->str();
  if (axis < 0) axis += nd;
  const TensorType* ti = tensor_type(indices);
  if (ti && ti->ndim() == 0) {
    std::vector<Index> idx(static_cast<std::size_t>(axis), Index(all));
    idx.emplace_back(indices);
    return subtensor(x, idx);
  }
  THEANO_USER_CHECK(ti && is_integer(ti->dtype()), TypeError)
      << "take: indices (" << indices.str() << ") must be an integer tensor, got type " << indices.type()->str();
  if (ti->ndim() >= 2) {
    // The gather by the flattened index, its axis then unflattened to the
    // index's shape by a Reshape marked of_index, which set_subtensor /
    // inc_subtensor undo (inc_subtensor.cpp).
    const Var flat = take(x, flatten(indices, 1), axis);
    std::vector<Var> shape;
    for (int d = 0; d < axis; ++d) shape.push_back(shape_i(x, d));
    for (int d = 0; d < ti->ndim(); ++d) shape.push_back(shape_i(indices, d));
    for (int d = axis + 1; d < nd; ++d) shape.push_back(shape_i(x, d));
    return OpPtr(new Reshape(nd - 1 + ti->ndim(), /*of_index=*/true))->apply1({flat, make_vector(shape, DType::Int64)});
  }
  if (axis == 0) return advanced_subtensor1(x, indices);
  std::vector<int> perm{axis};
  for (int d = 0; d < nd; ++d)
    if (d != axis) perm.push_back(d);
  std::vector<int> back;
  for (int d = 1; d <= axis; ++d) back.push_back(d);
  back.push_back(0);
  for (int d = axis + 1; d < nd; ++d) back.push_back(d);
  return dimshuffle(advanced_subtensor1(dimshuffle(x, perm), indices), back);
}

}  // namespace theano::tensor
