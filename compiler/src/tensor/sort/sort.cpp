// SortOp and ArgSortOp (sort, argsort): make_node's dtype and axis rules,
// perform over the lines along the axis through the shared kernels
// (kernels/sort.h, the text generated code and the CUDA form run through the
// ops' kernel form), infer_shape and the gradients.
#include "theano/runtime/kernels/sort.h"
#include "theano/runtime/kernels/topk.h"

#include <string>
#include <utility>

#include "../reduction/kernel_util.h"
#include "../shape/shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/axes.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

using LineKernel = void (*)(const char*, int64_t, char*, int64_t, int64_t);

/// The sort (or, with `indices`, argsort) kernel for dtype `d`, or nullptr
/// (bool, float16 and complex have none).
LineKernel line_kernel(bool indices, DType d) {
  switch (d) {
#define THEANO_SORT_CASE(DT, SUFFIX) \
  case DType::DT:                    \
    return indices ? &theano_argsort_##SUFFIX : &theano_sort_##SUFFIX;
    THEANO_SORT_CASE(Float64, f64)
    THEANO_SORT_CASE(Float32, f32)
    THEANO_SORT_CASE(Int64, i64)
    THEANO_SORT_CASE(Int32, i32)
    THEANO_SORT_CASE(Int16, i16)
    THEANO_SORT_CASE(Int8, i8)
    THEANO_SORT_CASE(UInt64, u64)
    THEANO_SORT_CASE(UInt32, u32)
    THEANO_SORT_CASE(UInt16, u16)
    THEANO_SORT_CASE(UInt8, u8)
#undef THEANO_SORT_CASE
    default:
      return nullptr;
  }
}

/// The node of either op: x checked, the output of x's shape and `out_dtype`
/// (nullopt: x's dtype).
ApplyPtr make_sort_node(const Op& op, int axis, std::vector<Var> inputs, std::optional<DType> out_dtype) {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << op.name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(line_kernel(false, t.dtype()) != nullptr, TypeError)
      << op.name() << ": expected an integer or float32/float64 tensor, got " << x.str() << " of type " << t.str();
  THEANO_USER_CHECK(axis < t.ndim(), ValueError)
      << op.name() << ": axis " << axis << " is out of range for " << x.str() << " of type " << t.str();
  return Apply::create(OpPtr(&op), {x}, {TensorType::make(out_dtype.value_or(t.dtype()), t.shape())->make_variable()});
}

/// The kernel form of either op: the lines along `axis`, the kernel of the input's dtype.
std::optional<KernelForm> sort_kernel_form(bool indices, int axis, const KernelSignature& sig) {
  if (sig.in_dtypes.size() != 1) return std::nullopt;
  const std::string_view suffix = kernel_dtype_suffix(sig.in_dtypes[0]);
  if (suffix.empty()) return std::nullopt;
  return KernelForm{KernelForm::Kind::Lines, "sort.h",
                    std::string(indices ? "theano_argsort_" : "theano_sort_") + std::string(suffix), axis};
}

/// Runs `kernel` on every line along `axis` of x (any layout), writing the
/// lines of `out` (C-contiguous, x's shape).
void run_lines(const NDArray& x, NDArray& out, int axis, LineKernel kernel, const std::string& who) {
  THEANO_USER_CHECK(axis < x.ndim(), ValueError)
      << who << ": axis " << axis << " is out of range for a value of shape " << shape_to_string(x.shape());
  if (out.size() == 0) return;
  const NDArray xc = x.copy();  // C-contiguous, so its line i starts at element i of out's too
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = out.shape()[ax], xs = xc.strides()[ax], os = out.strides()[ax];
  const auto* out_base = static_cast<const std::byte*>(out.data());
  const auto* x_base = static_cast<const char*>(xc.data());
  const auto x_item = static_cast<int64_t>(xc.itemsize()), o_item = static_cast<int64_t>(out.itemsize());
  detail::for_each_element(out.index(axis, 0), [&](const std::byte* p) {
    const int64_t e = (p - out_base) / o_item;
    kernel(x_base + e * x_item, xs, reinterpret_cast<char*>(const_cast<std::byte*>(p)), os, n);
  });
}

Var sorted(const TensorLike& x, std::optional<int> axis, std::string_view kind, bool indices) {
  const char* what = indices ? "argsort" : "sort";
  THEANO_USER_CHECK(kind == "quicksort" || kind == "mergesort" || kind == "heapsort" || kind == "stable", ValueError)
      << what << ": kind must be 'quicksort', 'mergesort', 'heapsort' or 'stable', got '" << kind << "'";
  Var v = x.var();
  int ax = 0;
  if (!axis) {
    if (tensor_type(v)->ndim() != 1) v = flatten(v, 1);
  } else if (tensor_type(v)->ndim() == 0) {
    THEANO_USER_CHECK(false, ValueError) << what << ": axis " << *axis << " is out of range for " << v.str()
                                         << " of rank 0 (axis=None sorts it as a 1-d array)";
  } else {
    ax = Axes(*axis).resolve(tensor_type(v)->ndim(), what)[0];
  }
  const OpPtr op = indices ? OpPtr(new ArgSortOp(ax)) : OpPtr(new SortOp(ax));
  return op->apply1({v});
}

void check_axis(const Op& op, int axis) {
  THEANO_USER_CHECK(axis >= 0, ValueError) << op.type_name() << ": axis " << axis << " must be non-negative here";
}

}  // namespace

SortOp::SortOp(int axis) : axis_(axis) { check_axis(*this, axis_); }
ArgSortOp::ArgSortOp(int axis) : axis_(axis) { check_axis(*this, axis_); }

THEANO_REGISTER_OP(SortOp);
THEANO_REGISTER_OP(ArgSortOp);

ApplyPtr SortOp::make_node(std::vector<Var> inputs) const {
  return make_sort_node(*this, axis_, std::move(inputs), std::nullopt);
}
ApplyPtr ArgSortOp::make_node(std::vector<Var> inputs) const {
  return make_sort_node(*this, axis_, std::move(inputs), DType::Int64);
}

std::optional<KernelForm> SortOp::kernel_form(const KernelSignature& sig) const {
  return sort_kernel_form(false, axis_, sig);
}
std::optional<KernelForm> ArgSortOp::kernel_form(const KernelSignature& sig) const {
  return sort_kernel_form(true, axis_, sig);
}

void SortOp::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const LineKernel kernel = line_kernel(false, x.dtype());
  THEANO_USER_CHECK(kernel != nullptr, TypeError) << name() << ": no kernel for dtype " << dtype_name(x.dtype());
  NDArray out = NDArray::empty(x.shape(), x.dtype());
  run_lines(x, out, axis_, kernel, name());
  outputs[0] = std::move(out);
}

void ArgSortOp::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const LineKernel kernel = line_kernel(true, x.dtype());
  THEANO_USER_CHECK(kernel != nullptr, TypeError) << name() << ": no kernel for dtype " << dtype_name(x.dtype());
  NDArray out = NDArray::empty(x.shape(), DType::Int64);
  run_lines(x, out, axis_, kernel, name());
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> SortOp::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}
std::vector<std::vector<Var>> ArgSortOp::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> SortOp::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& x = node.input(0);
  const int nd = tensor_type(x)->ndim();
  // Sorted element j of a line came from element idx[j] of it: the gradient
  // of x puts gz[j] at idx[j]. With the axis moved last and everything
  // flattened, line l's element idx[j] sits at idx[j] + l * n, and
  // l * n = p - p % n for the flat position p of j.
  std::vector<int> perm, back(static_cast<std::size_t>(nd));
  for (int d = 0; d < nd; ++d)
    if (d != axis_) perm.push_back(d);
  perm.push_back(axis_);
  for (int d = 0; d < nd; ++d) back[static_cast<std::size_t>(perm[static_cast<std::size_t>(d)])] = d;
  const Var gz_t = dimshuffle(gz, perm);
  const Var idx = flatten(dimshuffle(OpPtr(new ArgSortOp(axis_))->apply1({x}), perm), 1);
  const Var n = shape_i(x, axis_);
  const Var p = arange(shape_i(idx, 0), DType::Int64);
  const Var target = add(idx, sub(p, mod(p, n)));
  const Var g = flatten(gz_t, 1);
  const Var gx = set_subtensor(advanced_subtensor1(zeros_like(g), target), g);
  return {dimshuffle(reshape(gx, shape(gz_t), nd), back)};
}

std::vector<Var> ArgSortOp::grad(const Apply& node, const std::vector<Var>&) const {
  return {zeros_like(node.input(0))};
}

Var sort(const TensorLike& x, std::optional<int> axis, std::string_view kind) { return sorted(x, axis, kind, false); }

Var argsort(const TensorLike& x, std::optional<int> axis, std::string_view kind) { return sorted(x, axis, kind, true); }

// ---- ArgTopKOp -----------------------------------------------------------------------------

namespace {

using TopKKernel = void (*)(const char*, int64_t, char*, int64_t, int64_t, int64_t);

TopKKernel topk_kernel(bool largest, DType d) {
  switch (d) {
#define THEANO_TOPK_CASE(DT, SUFFIX) \
  case DType::DT:                    \
    return largest ? &theano_argtopk_max_##SUFFIX : &theano_argtopk_min_##SUFFIX;
    THEANO_TOPK_CASE(Float64, f64)
    THEANO_TOPK_CASE(Float32, f32)
    THEANO_TOPK_CASE(Int64, i64)
    THEANO_TOPK_CASE(Int32, i32)
    THEANO_TOPK_CASE(Int16, i16)
    THEANO_TOPK_CASE(Int8, i8)
    THEANO_TOPK_CASE(UInt64, u64)
    THEANO_TOPK_CASE(UInt32, u32)
    THEANO_TOPK_CASE(UInt16, u16)
    THEANO_TOPK_CASE(UInt8, u8)
#undef THEANO_TOPK_CASE
    default:
      return nullptr;
  }
}

}  // namespace

ArgTopKOp::ArgTopKOp(int axis, std::int64_t kth) : axis_(axis), kth_(kth) {
  check_axis(*this, axis_);
  THEANO_USER_CHECK(kth_ != 0 && kth_ != INT64_MIN, ValueError) << "ArgTopKOp: kth must be a nonzero int64, got " << kth_;
}

THEANO_REGISTER_OP(ArgTopKOp);

ApplyPtr ArgTopKOp::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(topk_kernel(true, t.dtype()) != nullptr, TypeError)
      << name() << ": expected an integer or float32/float64 tensor, got " << x.str() << " of type " << t.str();
  THEANO_USER_CHECK(axis_ < t.ndim(), ValueError)
      << name() << ": axis " << axis_ << " is out of range for " << x.str() << " of type " << t.str();
  const std::int64_t k = kth_ < 0 ? -kth_ : kth_;
  StaticShape shape = t.shape();
  const Dim n = shape[static_cast<std::size_t>(axis_)];
  THEANO_USER_CHECK(!n || k <= *n, ValueError)
      << name() << ": |kth| = " << k << " exceeds the length " << *n << " of axis " << axis_ << " of " << x.str();
  shape[static_cast<std::size_t>(axis_)] = k;
  return Apply::create(OpPtr(this), {x}, {TensorType::make(DType::Int64, std::move(shape))->make_variable()});
}

std::optional<KernelForm> ArgTopKOp::kernel_form(const KernelSignature& sig) const {
  if (sig.in_dtypes.size() != 1) return std::nullopt;
  const std::string_view suffix = kernel_dtype_suffix(sig.in_dtypes[0]);
  if (suffix.empty()) return std::nullopt;
  KernelForm f{KernelForm::Kind::LinesResized, "topk.h",
               std::string(kth_ > 0 ? "theano_argtopk_max_" : "theano_argtopk_min_") + std::string(suffix), axis_};
  f.out_len = kth_ < 0 ? -kth_ : kth_;
  return f;
}

void ArgTopKOp::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const TopKKernel kernel = topk_kernel(kth_ > 0, x.dtype());
  THEANO_USER_CHECK(kernel != nullptr, TypeError) << name() << ": no kernel for dtype " << dtype_name(x.dtype());
  const auto ax = static_cast<std::size_t>(axis_);
  const std::int64_t k = kth_ < 0 ? -kth_ : kth_, n = x.shape()[ax];
  THEANO_USER_CHECK(n >= k, ValueError) << name() << ": axis " << axis_ << " has length " << n << ", fewer than the "
                                        << k << " elements this op takes from each line";
  std::vector<std::int64_t> shape = x.shape();
  shape[ax] = k;
  NDArray out = NDArray::empty(shape, DType::Int64);
  if (out.size() > 0) {
    const NDArray xc = x.copy();  // C-contiguous: line e of out (its other axes' position) starts at xc's line e
    const int64_t xs = xc.strides()[ax], os = out.strides()[ax];
    const auto* out_base = static_cast<const std::byte*>(out.data());
    const auto* x_base = static_cast<const char*>(xc.data());
    // Lines are numbered by the position of the other axes; in xc that position's element offset
    // is the out offset with out's axis length k replaced by n.
    detail::for_each_element(out.index(axis_, 0), [&](const std::byte* p) {
      const int64_t e = (p - out_base) / 8;  // element offset in out, a multiple of k * inner below the axis
      int64_t inner = 1;
      for (std::size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
      const int64_t outer = e / (k * inner), rest = e % inner;
      kernel(x_base + (outer * n * inner + rest) * static_cast<int64_t>(xc.itemsize()), xs,
             reinterpret_cast<char*>(const_cast<std::byte*>(p)), os, n, k);
    });
  }
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> ArgTopKOp::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  std::vector<Var> s = shapes[0];
  s[static_cast<std::size_t>(axis_)] = detail::int64_const(kth_ < 0 ? -kth_ : kth_);
  return {s};
}

std::vector<Var> ArgTopKOp::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::vector<std::vector<bool>> ArgTopKOp::connection_pattern(const Apply&) const { return {{false}}; }

}  // namespace theano::tensor
