// CAReduce: one commutative-associative scalar op (add, mul, maximum, minimum,
// and, or, mul_without_zeros) folded over a set of axes. perform transposes the
// reduced axes to the end (a view) and folds consecutive groups of elements in
// the accumulator dtype by the fold rules of
// theano/runtime/kernels/reduce_rules.h, which generated code calls too
// (integer arithmetic wraps as in NumPy; max / min propagate NaN).
#include <complex>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "fold_rules.h"
#include "kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

ReduceKind reduce_kind(std::string_view s) {
  if (s == "add") return ReduceKind::Add;
  if (s == "mul") return ReduceKind::Mul;
  if (s == "maximum") return ReduceKind::Max;
  if (s == "minimum") return ReduceKind::Min;
  if (s == "and") return ReduceKind::And;
  if (s == "or") return ReduceKind::Or;
  if (s == "mul_without_zeros") return ReduceKind::MulNoZeros;
  throw ValueError("CAReduce: unknown scalar op '" + std::string(s) +
                   "' (expected add, mul, maximum, minimum, and, or or mul_without_zeros)");
}

namespace {

using Kind = ReduceKind;

const char* display_name(Kind k) {
  switch (k) {
    case Kind::Add:
      return "Sum";
    case Kind::Mul:
      return "Prod";
    case Kind::Max:
      return "Max";
    case Kind::Min:
      return "Min";
    case Kind::And:
      return "All";
    case Kind::Or:
      return "Any";
    case Kind::MulNoZeros:
      break;
  }
  return "ProdWithoutZeros";
}

// Folds each run of `k` consecutive C-order elements of `x` (dtype T) into one
// element of `out` (C-contiguous, dtype T), starting from `init`.
template <class T, class Fold>
void fold_groups(const NDArray& x, int64_t k, T init, NDArray& out, Fold fold) {
  T* o = out.data_as<T>();
  if (k == 0) {
    std::fill(o, o + out.size(), init);
    return;
  }
  T acc = init;
  int64_t j = 0;
  detail::for_each_element(x, [&](const std::byte* p) {
    acc = fold(acc, *reinterpret_cast<const T*>(p));
    if (++j == k) {
      *o++ = acc;
      acc = init;
      j = 0;
    }
  });
}

// The dtype the kernel computes in: float16 goes through float32.
DType compute_dtype(DType d) { return d == DType::Float16 ? DType::Float32 : d; }

// Folds the groups by the rules of scalar op `kind` for compute type T
// (fold_rules.h: theano/runtime/kernels/reduce_rules.h, the rules generated
// code calls).
template <class T>
void fold_kinds(Kind kind, const NDArray& xa, int64_t k, NDArray& out) {
  using R = detail::FoldRules<T>;
  switch (kind) {
    case Kind::Add:
      return fold_groups<T>(xa, k, R::add_id(), out, [](T a, T v) { return R::add(a, v); });
    case Kind::Mul:
      return fold_groups<T>(xa, k, R::mul_id(), out, [](T a, T v) { return R::mul(a, v); });
    case Kind::MulNoZeros:
      return fold_groups<T>(xa, k, R::mul_nz_id(), out, [](T a, T v) { return R::mul_nz(a, v); });
    case Kind::Max:
      return fold_groups<T>(xa, k, R::max_id(), out, [](T a, T v) { return R::max(a, v); });
    case Kind::Min:
      return fold_groups<T>(xa, k, R::min_id(), out, [](T a, T v) { return R::min(a, v); });
    case Kind::And:
    case Kind::Or:
      if constexpr (std::is_same_v<T, bool>) {
        if (kind == Kind::And) return fold_groups<T>(xa, k, R::all_id(), out, [](T a, T v) { return R::all(a, v); });
        return fold_groups<T>(xa, k, R::any_id(), out, [](T a, T v) { return R::any(a, v); });
      }
      break;
  }
  THEANO_INTERNAL_CHECK(false) << "CAReduce: all / any fold in bool";
}

// Complex sums and products: perform's only, as no back end generates code
// for complex dtypes.
template <class T>
void fold_complex(Kind kind, const NDArray& xa, int64_t k, NDArray& out) {
  switch (kind) {
    case Kind::Add:
      return fold_groups<T>(xa, k, T(0), out, [](T a, T v) { return a + v; });
    case Kind::Mul:
      return fold_groups<T>(xa, k, T(1), out, [](T a, T v) { return a * v; });
    case Kind::MulNoZeros:
      return fold_groups<T>(xa, k, T(1), out, [](T a, T v) { return v == T(0) ? a : a * v; });
    default:
      break;
  }
  THEANO_INTERNAL_CHECK(false) << "CAReduce: max, min, all or any of complex values";
}

NDArray reduce_kernel(Kind kind, const NDArray& xt, int64_t k, const std::vector<int64_t>& out_shape, DType cd) {
  // An empty input is not converted: no element is read (the groups are
  // empty, or there are none), and its copy in a wider dtype may not exist
  // (a uint8 (0, 2^62) array is valid, its uint64 copy is not).
  NDArray xa = xt.dtype() == cd || xt.size() == 0 ? xt : xt.astype(cd);
  NDArray out = NDArray::empty(out_shape, cd);
  visit_dtype(cd, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, half>) {
      THEANO_INTERNAL_CHECK(false) << "CAReduce kernel called with float16";
    } else if constexpr (is_complex_type<T>::value) {
      fold_complex<T>(kind, xa, k, out);
    } else {
      fold_kinds<T>(kind, xa, k, out);
    }
  });
  return out;
}

}  // namespace

DType sum_default_dtype(DType in) {
  switch (in) {
    case DType::Bool:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
      return DType::Int64;
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
      return DType::UInt64;
    default:
      return in;
  }
}

CAReduce::CAReduce(std::string scalar_op, std::vector<int> axes, std::optional<DType> dtype,
                   std::optional<DType> acc_dtype, ScalarOpPtr pre)
    : scalar_op_(std::move(scalar_op)),
      axes_(std::move(axes)),
      dtype_(dtype),
      acc_dtype_(acc_dtype),
      pre_(std::move(pre)) {
  THEANO_USER_CHECK(!pre_ || pre_->nout() == 1, ValueError)
      << "CAReduce: the fused elementwise op " << pre_->name() << " must have one output";
  const Kind k = reduce_kind(scalar_op_);
  std::sort(axes_.begin(), axes_.end());
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    THEANO_USER_CHECK(axes_[i] >= 0, ValueError)
        << display_name(k) << ": axis " << axes_[i] << " must be non-negative here (resolve negative axes first)";
    THEANO_USER_CHECK(i == 0 || axes_[i] != axes_[i - 1], ValueError)
        << display_name(k) << ": axis " << axes_[i] << " is repeated";
  }
  if (!is_arith(k)) {
    THEANO_USER_CHECK(!acc_dtype_, ValueError) << display_name(k) << ": acc_dtype applies to sum and prod only";
  }
}

OpPtr CAReduce::plain() const { return OpPtr(new CAReduce(scalar_op_, axes_, dtype_, acc_dtype_)); }
OpPtr CAReduce::with_pre(ScalarOpPtr f) const {
  return OpPtr(new CAReduce(scalar_op_, axes_, dtype_, acc_dtype_, std::move(f)));
}

CAReduce::Unfused CAReduce::unfused(const std::vector<Var>& inputs) const {
  Unfused u;
  u.elemwise = OpPtr(new Elemwise(pre_))->make_node(inputs);
  u.reduce = plain()->make_node({u.elemwise->output(0)});
  return u;
}

std::string CAReduce::name() const {
  std::string r = std::string(display_name(reduce_kind(scalar_op_))) + "{axes=" + detail::axes_text(axes_);
  if (dtype_) r += ", dtype=" + std::string(dtype_name(*dtype_));
  if (acc_dtype_) r += ", acc_dtype=" + std::string(dtype_name(*acc_dtype_));
  if (pre_) r += ", fused=" + pre_->name();
  return r + "}";
}

DType CAReduce::out_dtype(DType in) const {
  switch (reduce_kind(scalar_op_)) {
    case Kind::Add:
    case Kind::Mul:
    case Kind::MulNoZeros:
      return dtype_ ? *dtype_ : sum_default_dtype(in);
    case Kind::Max:
    case Kind::Min:
      return in;
    case Kind::And:
    case Kind::Or:
      break;
  }
  return DType::Bool;
}

DType CAReduce::acc_dtype(DType in) const {
  const Kind k = reduce_kind(scalar_op_);
  if (!is_arith(k)) return out_dtype(in);
  if (acc_dtype_) return *acc_dtype_;
  return compute_dtype(out_dtype(in));
}

THEANO_REGISTER_OP(CAReduce);

// GPU form: every input (a fused reduction's too).
std::optional<GpuPlacement> CAReduce::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin()); }

ApplyPtr CAReduce::make_node(std::vector<Var> inputs) const {
  const Kind k = reduce_kind(scalar_op_);
  if (pre_) {
    THEANO_USER_CHECK(pre_->nin() < 0 || static_cast<int>(inputs.size()) == pre_->nin(), TypeError)
        << name() << " takes " << pre_->nin() << " inputs, got " << inputs.size();
    for (Var& in : inputs) in = as_tensor_variable(in);
    for (const Var& in : inputs)
      THEANO_USER_CHECK(tensor_type(in)->broadcastable() == tensor_type(inputs[0])->broadcastable(), TypeError)
          << name() << ": every input must have the broadcast pattern of the first (" << inputs[0].str() << " of type "
          << inputs[0].type()->str() << "), got " << in.str() << " of type " << in.type()->str();
    const Unfused u = unfused(inputs);
    return Apply::create(OpPtr(this), std::move(inputs), {u.reduce->output(0).type()->make_variable()});
  }
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  for (int a : axes_) {
    THEANO_USER_CHECK(a < t.ndim(), ValueError)
        << display_name(k) << ": axis " << a << " is out of range for " << x.str() << " of type " << t.str() << " ("
        << t.ndim() << " dimensions)";
  }
  if (k == Kind::Max || k == Kind::Min) {
    THEANO_USER_CHECK(!is_complex(t.dtype()), TypeError)
        << display_name(k) << ": complex values are not ordered; " << x.str() << " has dtype " << t.dtype();
  }
  if (dtype_ && !is_arith(k)) {
    THEANO_USER_CHECK(*dtype_ == out_dtype(t.dtype()), TypeError)
        << name() << ": the output dtype of " << display_name(k) << " of " << x.str() << " is " << out_dtype(t.dtype())
        << ", not " << *dtype_;
  }
  StaticShape shape;
  for (int i = 0; i < t.ndim(); ++i)
    if (!std::binary_search(axes_.begin(), axes_.end(), i)) shape.push_back(t.shape()[static_cast<std::size_t>(i)]);
  Var out = TensorType::make(out_dtype(t.dtype()), std::move(shape))->make_variable();
  return Apply::create(OpPtr(this), {x}, {out});
}

void CAReduce::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  if (pre_) {
    const Unfused u = unfused(node.inputs());
    std::vector<NDArray> mapped(1);
    u.elemwise->op()->perform(*u.elemwise, inputs, mapped);
    u.reduce->op()->perform(*u.reduce, mapped, outputs);
    return;
  }
  const Kind k = reduce_kind(scalar_op_);
  const NDArray& x = inputs[0];
  const auto [perm, out_shape, group] = detail::reduction_layout(x, axes_, name());
  int64_t n_out = 1;
  for (int64_t s : out_shape) n_out *= s;
  if (k == Kind::Max || k == Kind::Min) {
    THEANO_USER_CHECK(group > 0 || n_out == 0, ValueError)
        << name() << ": zero-size array to reduction operation " << scalar_op_
        << " which has no identity (reducing axes " << detail::axes_text(axes_) << " of shape "
        << shape_to_string(x.shape()) << ")";
  }
  const DType out_dt = out_dtype(x.dtype());
  DType cd;
  if (is_arith(k))
    cd = compute_dtype(acc_dtype(x.dtype()));
  else if (k == Kind::And || k == Kind::Or)
    cd = DType::Bool;
  else
    cd = compute_dtype(x.dtype());
  NDArray r = reduce_kernel(k, x.transpose(perm), group, out_shape, cd);
  outputs[0] = r.dtype() == out_dt ? r : r.astype(out_dt);
}

std::vector<std::vector<Var>> CAReduce::infer_shape(const Apply& node,
                                                    const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> out;
  const auto& in = input_shapes.at(0);  // with `pre`, every input has the same broadcast pattern
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!std::binary_search(axes_.begin(), axes_.end(), static_cast<int>(i))) out.push_back(in[i]);
  return {out};
}

std::vector<Var> CAReduce::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  if (pre_) {  // through the unfused pair
    const Unfused u = unfused(node.inputs());
    const std::vector<Var> g = u.reduce->op()->grad(*u.reduce, output_grads);
    if (!g.at(0)) return std::vector<Var>(static_cast<std::size_t>(node.nin()));
    return u.elemwise->op()->grad(*u.elemwise, g);
  }
  const Kind k = reduce_kind(scalar_op_);
  const Var& x = node.input(0);
  const Var& gz = output_grads.at(0);
  const DType xd = tensor_type(x)->dtype();
  if (!gz || !(is_float(xd) || is_complex(xd))) return {Var()};
  if (k == Kind::And || k == Kind::Or || k == Kind::MulNoZeros) return {Var()};
  const int nd = tensor_type(x)->ndim();
  auto pad = [&](const Var& v) { return detail::restore_reduced_axes(v, nd, axes_); };
  auto as_x = [&](const Var& v) { return tensor_type(v)->dtype() == xd ? v : cast(v, xd); };
  const Var gz_pad = pad(gz);
  if (k == Kind::Add) return {as_x(second(x, gz_pad))};
  if (k == Kind::Max || k == Kind::Min) return {as_x(mul(eq(x, pad(node.output(0))), gz_pad))};

  // prod (Theano's Prod.L_op): gz*prod/x where a group has no zero; where it has
  // exactly one zero, that position gets gz*prod_without_zeros; else 0.
  const Var prod_pad = pad(node.output(0));
  const Var grad_without_zeros = true_div(mul(gz_pad, prod_pad), x);
  const Var where_zeros = eq(x, 0.0);
  const Var sum_where_zeros = sum(where_zeros, axes_);
  const Var groups_with_single_zero = pad(eq(sum_where_zeros, 1));
  const Var where_single_zero = and_(groups_with_single_zero, where_zeros);
  // Only groups with one zero and a non-zero incoming gradient need the product
  // of the other elements; zero the rest of the input to keep that product cheap.
  const Var take = and_(groups_with_single_zero, neq(gz_pad, 0.0));
  const Var pwz = pad(prod_without_zeros(mul(take, x), axes_));
  const Var groups_without_zeros = pad(eq(sum_where_zeros, 0));
  const Var zero = constant(NDArray::zeros({}, xd));
  return {as_x(switch_(groups_without_zeros, grad_without_zeros, mul(switch_(where_single_zero, pwz, zero), gz_pad)))};
}

}  // namespace theano::tensor
