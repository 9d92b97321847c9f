/// \file
/// `Subtensor` (basic indexing, a view of x) and `subtensor`, the entry point of
/// `x[...]`, which dispatches integer-vector indices to AdvancedSubtensor1.
#include "../shape/shape_util.h"
#include "idx_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

Subtensor::Subtensor(IdxList idx_list) : idx_list_(std::move(idx_list)) {
  for (const IdxEntry& e : idx_list_) {
    THEANO_USER_CHECK(e.is_slice || !e.index.is_none(), ValueError) << "Subtensor: an integer index cannot be None";
    THEANO_USER_CHECK(!(e.is_slice && e.step.is_constant() && e.step.value == 0), ValueError)
        << "Subtensor: slice step cannot be zero";
  }
}

THEANO_REGISTER_OP(Subtensor);

// GPU form: a view of the GPU array; the bounds stay host scalars.
std::optional<GpuPlacement> Subtensor::gpu_form(const Apply& node) const { return GpuPlacement::only(node.nin(), {0}); }

ApplyPtr Subtensor::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << name() << " needs an input";
  Var x = as_tensor_variable(inputs[0]);
  std::span<const Var> sym(inputs.data() + 1, inputs.size() - 1);
  detail::check_idx_inputs(idx_list_, x, sym, name());
  StaticShape out = detail::idx_static_shape(x, idx_list_, name());
  std::vector<Var> ins{x};
  ins.insert(ins.end(), sym.begin(), sym.end());
  Var o = TensorType::make(tensor_type(x)->dtype(), std::move(out))->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void Subtensor::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = detail::apply_idx(inputs[0], idx_list_, inputs.subspan(1), name(), node.input(0).str());
}

std::vector<std::vector<Var>> Subtensor::infer_shape(const Apply& node,
                                                     const std::vector<std::vector<Var>>& input_shapes) const {
  const auto& ins = node.inputs();
  return {detail::idx_infer_shape(input_shapes[0], idx_list_, std::span<const Var>(ins.data() + 1, ins.size() - 1))};
}

std::vector<Var> Subtensor::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  const Var& x = node.input(0);
  const DType dx = tensor_type(x)->dtype();
  const Var& gz = output_grads[0];
  if (!gz || !(is_float(dx) || is_complex(dx))) return r;
  std::vector<Var> ins{zeros_like(x), gz};
  for (int i = 1; i < node.nin(); ++i) ins.push_back(node.input(i));
  r[0] = OpPtr(new IncSubtensor(idx_list_))->apply1(std::move(ins));
  return r;
}

std::vector<std::vector<bool>> Subtensor::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  return r;
}

// ---- x[...] -------------------------------------------------------------------------------

namespace detail {

const TensorType* checked_index_type(const Var& x, std::size_t i, const Var& v) {
  const TensorType* tv = tensor_type(v);
  THEANO_USER_CHECK(tv && (is_integer(tv->dtype()) || tv->dtype() == DType::Bool), TypeError)
      << "x[...] on " << x.str() << ": index " << i << " (" << v.str()
      << ") must be an integer scalar, an integer array or a boolean array, got type "
      << (v ? v.type()->str() : "<null>");
  return tv;
}

bool is_full_slice(const Index& ix) {
  if (!ix.is_slice()) return false;
  const Slice& s = ix.as_slice();
  return s.start.is_none() && s.stop.is_none() && s.step.is_none();
}

void throw_wrong_index_kind(const char* accessor) {
  throw InternalError(std::string("internal error (this is a bug in theano-cpp): ") + accessor +
                      " called on an index of another kind");
}

// x[i0, ..., ik-1] with integer arrays (any rank) and scalars as the leading indices, at least one an
// array and at least two in all (the rest are full slices): numpy's advanced indexing, the index
// arrays broadcast together. Computed as a gather (take: AdvancedSubtensor1, whose gradient and GPU
// form exist) of the row-major flat index into x with its k leading axes merged. Each index is
// checked against its own axis first: merged, an out-of-range x[0, 5] would otherwise read row 1.
Var multi_index(const Var& x, const std::vector<Index>& indices) {
  const TensorType* tx = tensor_type(x);
  const int nd = tx->ndim();
  int k = 0;
  while (k < static_cast<int>(indices.size()) && !indices[static_cast<std::size_t>(k)].is_slice()) ++k;
  for (std::size_t i = static_cast<std::size_t>(k); i < indices.size(); ++i)
    THEANO_USER_CHECK(detail::is_full_slice(indices[i]), ValueError)
        << "x[...] on " << x.str() << ": with several integer-vector indices (advanced indexing) they must come "
        << "first, the other axes whole (all); index " << i << " is not";
  std::string names;
  Var lin;
  std::vector<Var> valid;
  for (int a = 0; a < k; ++a) {
    const Index& ix = indices[static_cast<std::size_t>(a)];
    Var i = ix.is_variable() ? ix.variable() : constant(NDArray::scalar<std::int64_t>(ix.scalar_constant()));
    names += (a ? ", " : "") + (i.name().empty() ? std::string("<index ") + std::to_string(a) + ">" : i.name());
    i = cast(i, DType::Int64);
    const Var d = shape_i(x, a);
    valid.push_back(tensor::all_(tensor::and_(tensor::ge(i, tensor::neg(d)), tensor::lt(i, d))));
    const Var in = tensor::switch_(tensor::lt(i, constant(NDArray::scalar<std::int64_t>(0))), tensor::add(i, d), i);
    lin = a == 0 ? in : tensor::add(tensor::mul(lin, d), in);
  }
  const std::string xname = x.name().empty() ? std::string("x") : x.name();
  lin = assert_op(lin, valid, "IndexError: " + xname + "[" + names + "]: an index is out of bounds for its axis");
  std::vector<Var> shape{shape_i(x, 0)};
  for (int a = 1; a < k; ++a) shape[0] = tensor::mul(shape[0], shape_i(x, a));
  for (int a = k; a < nd; ++a) shape.push_back(shape_i(x, a));
  const Var merged = OpPtr(new Reshape(nd - k + 1, /*of_index=*/true))->apply1({x, make_vector(shape, DType::Int64)});
  return take(merged, lin, 0);
}

}  // namespace detail

Var subtensor(const Var& x_in, const std::vector<Index>& indices) {
  Var x = as_tensor_variable(x_in);
  const TensorType* tx = tensor_type(x);
  // What the ops express alone: integers and slices (Subtensor), one integer
  // array with full slices elsewhere (take), leading integer arrays and
  // scalars (multi_index). Everything else NumPy allows: general_index.
  bool general = false;
  int advanced_axis = -1, arrays = 0;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const Index& ix = indices[i];
    if (ix.is_newaxis() || ix.is_ellipsis()) general = true;
    if (!ix.is_variable()) continue;
    const TensorType* tv = detail::checked_index_type(x, i, ix.variable());
    if (tv->dtype() == DType::Bool) general = true;
    if (tv->ndim() >= 1) {
      ++arrays;
      if (advanced_axis < 0) advanced_axis = static_cast<int>(i);
    }
  }
  if (general) return detail::general_index(x, indices);
  THEANO_USER_CHECK(indices.size() <= static_cast<std::size_t>(tx->ndim()), IndexError)
      << "x[...]: too many indices (" << indices.size() << ") for " << x.str() << ", which has " << tx->ndim()
      << " dimensions (type " << tx->str() << ")";
  if (arrays >= 1) {
    // Leading integers and arrays, the rest full slices: multi_index (several) or take (one).
    std::size_t k = 0;
    while (k < indices.size() && !indices[k].is_slice()) ++k;
    bool rest_full = true;
    for (std::size_t i = k; i < indices.size(); ++i) rest_full = rest_full && detail::is_full_slice(indices[i]);
    int non_slices = 0;
    for (const Index& ix : indices) non_slices += ix.is_slice() ? 0 : 1;
    if (non_slices > 1) return rest_full ? detail::multi_index(x, indices) : detail::general_index(x, indices);
    for (std::size_t i = 0; i < indices.size(); ++i)
      if (static_cast<int>(i) != advanced_axis && !detail::is_full_slice(indices[i]))
        return detail::general_index(x, indices);
    return take(x, indices[static_cast<std::size_t>(advanced_axis)].variable(), advanced_axis);
  }
  detail::ParsedIdx p = detail::parse_basic_indices(x, indices);
  std::vector<Var> ins{x};
  ins.insert(ins.end(), p.inputs.begin(), p.inputs.end());
  return OpPtr(new Subtensor(std::move(p.idx)))->apply1(std::move(ins));
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::Subtensor::view_map() const { return {{0, {0}}}; }
