/// \file
/// `IncSubtensor` (x with x[idx] set to / incremented by a broadcast value) and
/// the user entry points `set_subtensor` / `inc_subtensor`, which read the
/// indexing op that produced their first argument, as Theano does.
#include "../shape/shape_util.h"
#include "idx_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

IncSubtensor::IncSubtensor(IdxList idx_list, bool inplace, bool set_instead_of_inc)
    : idx_list_(std::move(idx_list)), inplace_(inplace), set_instead_of_inc_(set_instead_of_inc) {
  for (const IdxEntry& e : idx_list_)
    THEANO_USER_CHECK(!(e.is_slice && e.step.is_constant() && e.step.value == 0), ValueError)
        << "IncSubtensor: slice step cannot be zero";
}

std::string IncSubtensor::name() const {
  return "IncSubtensor{" + std::string(inplace_ ? "Inplace" : "") + (set_instead_of_inc_ ? "Set" : "Inc") + ";" +
         idx_list_str(idx_list_) + "}";
}

THEANO_REGISTER_OP(IncSubtensor);

// GPU form: x and the value; the bounds stay host scalars.
std::optional<GpuPlacement> IncSubtensor::gpu_form(const Apply& node) const {
  return GpuPlacement::only(node.nin(), {0, 1});
}

// IncSubtensor{no_inplace}(x, y, idx) -> IncSubtensor{inplace}(x, y, idx)
std::vector<InplaceVariant> IncSubtensor::inplace_variants(const Apply&) const {
  if (inplace()) return {};
  return {{InplaceStage::SetSubtensor, 0, OpPtr(new IncSubtensor(idx_list(), true, set_instead_of_inc()))}};
}

ApplyPtr IncSubtensor::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() >= 2, TypeError) << name() << " needs inputs x and y";
  Var x = as_tensor_variable(inputs[0]);
  Var y = as_tensor_variable(inputs[1]);
  std::span<const Var> sym(inputs.data() + 2, inputs.size() - 2);
  detail::check_idx_inputs(idx_list_, x, sym, name());
  detail::check_inc_value(x, y, detail::idx_static_shape(x, idx_list_, name()), name());
  std::vector<Var> ins{x, y};
  ins.insert(ins.end(), sym.begin(), sym.end());
  Var o = x.type()->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void IncSubtensor::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  NDArray out = inplace_ ? inputs[0] : inputs[0].copy();
  const NDArray& y = inputs[1];
  NDArray view = detail::apply_idx(out, idx_list_, inputs.subspan(2), name(), node.input(0).str());
  detail::check_value_broadcast(y, *tensor_type(node.input(1)), view.shape(), name(), node.input(1).str());
  if (view.size() > 0) {
    if (set_instead_of_inc_)
      view.assign(y);
    else
      detail::add_into(view, y);
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> IncSubtensor::infer_shape(const Apply&,
                                                        const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> IncSubtensor::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  const Var& gz = output_grads[0];
  const Var& x = node.input(0);
  const Var& y = node.input(1);
  const DType dx = tensor_type(x)->dtype(), dy = tensor_type(y)->dtype();
  if (!gz || !(is_float(dx) || is_complex(dx))) return r;
  std::vector<Var> sym;
  for (int i = 2; i < node.nin(); ++i) sym.push_back(node.input(i));
  if (set_instead_of_inc_) {
    std::vector<Var> ins{gz, zeros_like(y)};
    ins.insert(ins.end(), sym.begin(), sym.end());
    r[0] = OpPtr(new IncSubtensor(idx_list_, false, true))->apply1(std::move(ins));
  } else {
    r[0] = gz;
  }
  if (is_float(dy) || is_complex(dy)) {
    std::vector<Var> ins{gz};
    ins.insert(ins.end(), sym.begin(), sym.end());
    Var gy = detail::sum_to_like(OpPtr(new Subtensor(idx_list_))->apply1(std::move(ins)), y);
    if (tensor_type(gy)->dtype() != dy) gy = cast(gy, dy);
    r[1] = gy;
  }
  return r;
}

std::vector<std::vector<bool>> IncSubtensor::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  r[1] = {true};
  return r;
}

ViewMap IncSubtensor::destroy_map() const { return inplace_ ? ViewMap{{0, {0}}} : ViewMap{}; }

// ---- set_subtensor / inc_subtensor ---------------------------------------------------------

namespace {

Var inc_impl(const Var& x_sub, const Var& y, bool set, const char* fname) {
  Apply* owner = x_sub ? x_sub.owner() : nullptr;
  const Op* op = owner ? owner->op().get() : nullptr;
  if (const auto* s = dynamic_cast<const Subtensor*>(op)) {
    std::vector<Var> ins{owner->input(0), y};
    for (int i = 1; i < owner->nin(); ++i) ins.push_back(owner->input(i));
    return OpPtr(new IncSubtensor(s->idx_list(), false, set))->apply1(std::move(ins));
  }
  if (dynamic_cast<const IndexExpression*>(op)) return detail::general_update(*owner, y, set, fname);
  if (const auto* r = dynamic_cast<const Reshape*>(op); r && r->of_index()) {
    // x[idx] with idx of rank >= 2 (take): y broadcast to x_sub's shape and
    // flattened as the gather by the flattened index, which is then updated.
    const Var& flat = owner->input(0);
    const int ynd = tensor_type(y)->ndim(), nd = tensor_type(x_sub)->ndim();
    THEANO_USER_CHECK(ynd <= nd, TypeError) << fname << ": the value " << y.str() << " has " << ynd
                                            << " dimensions, more than the " << nd << " of " << x_sub.str();
    const Var yflat = reshape(alloc(y, shape(x_sub)), shape(flat), tensor_type(flat)->ndim());
    return inc_impl(flat, yflat, set, fname);
  }
  if (dynamic_cast<const AdvancedSubtensor1*>(op)) {
    const Var& base = owner->input(0);
    const auto* merged = base.owner() ? dynamic_cast<const Reshape*>(base.owner()->op().get()) : nullptr;
    if (merged && merged->of_index()) {  // x[i, j]: update x with its leading axes merged, then unmerge
      const Var& x = base.owner()->input(0);
      Var r = OpPtr(new AdvancedIncSubtensor1(false, set))->apply1({base, y, owner->input(1)});
      return reshape(r, shape(x), tensor_type(x)->ndim());
    }
    return OpPtr(new AdvancedIncSubtensor1(false, set))->apply1({base, y, owner->input(1)});
  }
  if (const auto* ds = dynamic_cast<const DimShuffle*>(op); ds && ds->is_transpose()) {
    // x_sub = inner.dimshuffle(order) (take() on an axis other than 0 makes this):
    // update inner with y permuted the inverse way, then permute the result back.
    const std::vector<int>& order = ds->new_order();
    const int nd = static_cast<int>(order.size());
    const int ynd = tensor_type(y)->ndim();
    THEANO_USER_CHECK(ynd <= nd, TypeError) << fname << ": the value " << y.str() << " has " << ynd
                                            << " dimensions, more than the " << nd << " of " << x_sub.str();
    std::vector<int> inv(static_cast<std::size_t>(nd));
    for (int i = 0; i < nd; ++i) inv[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
    Var yp = dimshuffle(ynd < nd ? shape_padleft(y, nd - ynd) : y, inv);
    return dimshuffle(inc_impl(owner->input(0), yp, set, fname), order);
  }
  THEANO_USER_CHECK(false, TypeError) << fname << ": the first argument must be the result of indexing a tensor "
                                      << "(x[...]), but " << x_sub.str() << " is "
                                      << (op ? "the output of " + op->name() : std::string("not computed by an op"));
  return Var();
}

}  // namespace

Var set_subtensor(const Var& x_sub, const TensorLike& value) { return inc_impl(x_sub, value.var(), true, "set_subtensor"); }

Var inc_subtensor(const Var& x_sub, const TensorLike& value) { return inc_impl(x_sub, value.var(), false, "inc_subtensor"); }

}  // namespace theano::tensor
