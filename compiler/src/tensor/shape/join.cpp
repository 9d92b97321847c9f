/// \file
/// `Join` (numpy.concatenate) with stack/concatenate built on it. Sizes off the
/// axis must agree exactly (no broadcasting), checked statically where the types
/// know them and at run time otherwise.
#include <algorithm>
#include <sstream>

#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "shape_util.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

using detail::SymInt;

Join::Join(int axis) : axis_(axis) {
  THEANO_USER_CHECK(axis >= 0, ValueError) << "Join: the axis must be normalized (>= 0), got " << axis;
}

THEANO_REGISTER_OP(Join);

// GPU form: every input, copied by a kernel of the output's dtype, so only
// when every input has that dtype.
std::optional<GpuPlacement> Join::gpu_form(const Apply& node) const {
  const TensorType* out = tensor_type(node.output(0));
  for (const Var& v : node.inputs()) {
    const TensorType* t = tensor_type(v);
    if (!out || !t || t->dtype() != out->dtype()) return std::nullopt;
  }
  return GpuPlacement::all(node.nin());
}

ApplyPtr Join::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), ValueError) << name() << ": cannot join an empty list of tensors";
  std::vector<Var> ins;
  for (const Var& v : inputs) ins.push_back(as_tensor_variable(v));
  const TensorType* t0 = tensor_type(ins[0]);
  const int nd = t0->ndim();
  THEANO_USER_CHECK(nd > 0, TypeError) << name() << ": cannot join 0-d tensors (" << ins[0].str()
                                       << "); use stack for scalars";
  THEANO_USER_CHECK(axis_ < nd, IndexError)
      << name() << ": axis " << axis_ << " is out of bounds for tensors of rank " << nd;
  DType dtype = t0->dtype();
  StaticShape out = t0->shape();
  std::vector<int> known_from(static_cast<std::size_t>(nd), 0);  // which input told each known size
  for (std::size_t i = 1; i < ins.size(); ++i) {
    const TensorType* t = tensor_type(ins[i]);
    THEANO_USER_CHECK(t->ndim() == nd, TypeError)
        << name() << ": all tensors must have the same rank, but " << ins[0].str() << " has type " << t0->str()
        << " and " << ins[i].str() << " (input " << i << ") has type " << t->str();
    dtype = promote_types(dtype, t->dtype());
    for (int d = 0; d < nd; ++d) {
      const auto du = static_cast<std::size_t>(d);
      const Dim& di = t->shape()[du];
      if (d == axis_) {
        out[du] = (out[du] && di) ? Dim(*out[du] + *di) : std::nullopt;
        continue;
      }
      if (!di) continue;
      if (out[du]) {
        THEANO_USER_CHECK(*out[du] == *di, ShapeError)
            << name() << ": sizes must match except along the axis, but dimension " << d << " of input "
            << known_from[du] << " (" << ins[static_cast<std::size_t>(known_from[du])].str() << ", type "
            << tensor_type(ins[static_cast<std::size_t>(known_from[du])])->str() << ") is " << *out[du]
            << " and of input " << i << " (" << ins[i].str() << ", type " << t->str() << ") is " << *di;
      } else {
        out[du] = di;
        known_from[du] = static_cast<int>(i);
      }
    }
  }
  Var o = TensorType::make(dtype, std::move(out))->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void Join::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& a0 = inputs[0];
  std::vector<std::int64_t> shape = a0.shape();
  const auto ax = static_cast<std::size_t>(axis_);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const NDArray& a = inputs[i];
    THEANO_USER_CHECK(a.ndim() == a0.ndim(), ShapeError)
        << name() << ": input " << i << " (" << node.input(static_cast<int>(i)).str() << ") has " << a.ndim()
        << " dimensions, input 0 has " << a0.ndim();
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (d == ax) continue;
      THEANO_USER_CHECK(a.shape()[d] == a0.shape()[d], ShapeError)
          << name() << ": all the input array dimensions except for the concatenation axis must match exactly, "
          << "but along dimension " << d << ", input 0 (" << node.input(0).str() << ") has size " << a0.shape()[d]
          << " and input " << i << " (" << node.input(static_cast<int>(i)).str() << ") has size " << a.shape()[d]
          << " (shapes " << shape_to_string(a0.shape()) << " and " << shape_to_string(a.shape()) << ")";
    }
  }
  // The sum generated code checks too (shape_rules.h): 0-size inputs can be long.
  std::vector<std::int64_t> lengths;
  for (const NDArray& a : inputs) lengths.push_back(a.shape()[ax]);
  std::int64_t bad = 0;
  const int rule = theano_join_length(lengths.data(), static_cast<std::int64_t>(lengths.size()), &shape[ax], &bad);
  if (rule != THEANO_RULE_OK) throw_shape_rule(rule, name() + ": the joined length", bad);
  NDArray out = NDArray::empty(shape, tensor_type(node.output(0))->dtype());
  std::int64_t off = 0;
  for (const NDArray& a : inputs) {
    const std::int64_t len = a.shape()[ax];
    if (len > 0 && a.size() > 0) out.slice(axis_, off, off + len).assign(a);
    off += len;
  }
  outputs[0] = out;
}

std::vector<std::vector<Var>> Join::infer_shape(const Apply& node,
                                                const std::vector<std::vector<Var>>& input_shapes) const {
  const TensorType* to = tensor_type(node.output(0));
  std::vector<Var> r;
  for (int d = 0; d < to->ndim(); ++d) {
    const auto du = static_cast<std::size_t>(d);
    if (to->shape()[du]) {
      r.push_back(detail::int64_const(*to->shape()[du]));
    } else if (d == axis_) {
      SymInt total = 0;
      for (const auto& s : input_shapes) total = total + SymInt::of(s[du]);
      r.push_back(total.var());
    } else {
      r.push_back(input_shapes[0][du]);
    }
  }
  return {r};
}

std::vector<Var> Join::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  const Var& gz = output_grads[0];
  const DType od = tensor_type(node.output(0))->dtype();
  if (!gz || !(is_float(od) || is_complex(od))) return r;
  SymInt off = 0;
  for (int i = 0; i < node.nin(); ++i) {
    const Var& x = node.input(i);
    const TensorType* tx = tensor_type(x);
    const Dim& d = tx->shape()[static_cast<std::size_t>(axis_)];
    const SymInt len = d ? SymInt(*d) : SymInt::of(shape_i(x, axis_));
    const SymInt end = off + len;
    auto bound = [](const SymInt& s) { return s.is_constant() ? Bound(s.constant()) : Bound(s.var()); };
    std::vector<Index> idx(static_cast<std::size_t>(axis_), Index(all));
    idx.emplace_back(slice(bound(off), bound(end)));
    off = end;
    if (!is_float(tx->dtype()) && !is_complex(tx->dtype())) continue;
    Var g = subtensor(gz, idx);
    if (tensor_type(g)->dtype() != tx->dtype()) g = cast(g, tx->dtype());
    r[static_cast<std::size_t>(i)] = detail::match_static_shape(g, x);
  }
  return r;
}

// ---- functions -------------------------------------------------------------------------

Var join(int axis, const std::vector<Var>& tensors) {
  THEANO_USER_CHECK(!tensors.empty(), ValueError) << "join: cannot join an empty list of tensors";
  Var t0 = as_tensor_variable(tensors[0]);
  if (tensors.size() == 1) return t0;
  const int nd = tensor_type(t0)->ndim();
  THEANO_USER_CHECK(axis >= -nd && axis < std::max(nd, 1), IndexError)
      << "join: axis " << axis << " is out of bounds for tensors of rank " << nd;
  if (axis < 0) axis += nd;
  return OpPtr(new Join(axis))->apply1(tensors);
}

Var concatenate(const std::vector<Var>& tensors, int axis) { return join(axis, tensors); }

Var stack(const std::vector<Var>& tensors, int axis) {
  THEANO_USER_CHECK(!tensors.empty(), ValueError) << "stack: cannot stack an empty list of tensors";
  std::vector<Var> ts;
  bool all_scalars = true;
  for (const Var& t : tensors) {
    ts.push_back(as_tensor_variable(t));
    all_scalars = all_scalars && tensor_type(ts.back())->ndim() == 0;
  }
  if (all_scalars && (axis == 0 || axis == -1)) return make_vector(ts);
  const int nd = tensor_type(ts[0])->ndim();
  THEANO_USER_CHECK(axis >= -(nd + 1) && axis <= nd, IndexError)
      << "stack: axis " << axis << " is out of bounds for a result of rank " << nd + 1;
  if (axis < 0) axis += nd + 1;
  std::vector<Var> padded;
  for (const Var& t : ts) {
    const int tnd = tensor_type(t)->ndim();
    THEANO_USER_CHECK(tnd == nd, TypeError) << "stack: all tensors must have the same rank, but " << ts[0].str()
                                            << " has type " << ts[0].type()->str() << " and " << t.str()
                                            << " has type " << t.type()->str();
    std::vector<int> order;
    for (int d = 0; d < axis; ++d) order.push_back(d);
    order.push_back(kNewAxis);
    for (int d = axis; d < nd; ++d) order.push_back(d);
    padded.push_back(dimshuffle(t, order));
  }
  if (padded.size() == 1) return padded[0];
  return OpPtr(new Join(axis))->apply1(padded);
}

}  // namespace theano::tensor
