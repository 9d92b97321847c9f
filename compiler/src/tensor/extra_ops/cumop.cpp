// CumOp (cumsum, cumprod): make_node's dtype and axis rules, perform over the
// lines along the axis through the shared kernels (kernels/cumulative.h, the
// text generated code and the CUDA form run), infer_shape and the gradients.
#include <string>
#include <utility>

#include "../reduction/kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/cumulative.h"
#include "theano/tensor/axes.h"
#include "theano/tensor/extra_ops.h"
#include "theano/tensor/index.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

using LineKernel = void (*)(const char*, int64_t, char*, int64_t, int64_t);

/// The kernel of `mode` for dtype `d`, or nullptr where there is none
/// (bool is cast to int64 by make_node; float16 and complex are refused).
LineKernel line_kernel(const std::string& mode, DType d) {
  const bool add = mode == "add";
  switch (d) {
#define THEANO_CUM_CASE(DT, SUFFIX) \
  case DType::DT:                   \
    return add ? &theano_cumsum_##SUFFIX : &theano_cumprod_##SUFFIX;
    THEANO_CUM_CASE(Float64, f64)
    THEANO_CUM_CASE(Float32, f32)
    THEANO_CUM_CASE(Int64, i64)
    THEANO_CUM_CASE(Int32, i32)
    THEANO_CUM_CASE(Int16, i16)
    THEANO_CUM_CASE(Int8, i8)
    THEANO_CUM_CASE(UInt64, u64)
    THEANO_CUM_CASE(UInt32, u32)
    THEANO_CUM_CASE(UInt16, u16)
    THEANO_CUM_CASE(UInt8, u8)
#undef THEANO_CUM_CASE
    default:
      return nullptr;
  }
}

/// x reversed along `axis` (a view: Subtensor with step -1).
Var reversed(const Var& x, int axis) {
  std::vector<Index> idx(static_cast<std::size_t>(axis), Index(all));
  idx.emplace_back(slice(none, none, -1));
  return subtensor(x, idx);
}

Var cumulative(const TensorLike& x, std::optional<int> axis, const char* mode, const char* what) {
  const Var& v = x.var();
  if (axis) {
    const int nd = tensor_type(v)->ndim();
    // A 0-d input has no axis; NumPy accepts axis 0 / -1 there as over the one element.
    if (nd == 0) {
      THEANO_USER_CHECK(*axis == 0 || *axis == -1, ValueError)
          << what << ": axis " << *axis << " is out of range for " << v.str() << " of rank 0";
      return OpPtr(new CumOp(0, mode))->apply1({flatten(v, 1)});
    }
    return OpPtr(new CumOp(Axes(*axis).resolve(nd, what)[0], mode))->apply1({v});
  }
  return OpPtr(new CumOp(0, mode))->apply1({tensor_type(v)->ndim() == 1 ? v : flatten(v, 1)});
}

}  // namespace

CumOp::CumOp(int axis, std::string mode) : axis_(axis), mode_(std::move(mode)) {
  THEANO_USER_CHECK(axis_ >= 0, ValueError) << "CumOp: axis " << axis_ << " must be non-negative here";
  THEANO_USER_CHECK(mode_ == "add" || mode_ == "mul", ValueError)
      << "CumOp: mode must be 'add' or 'mul', got '" << mode_ << "'";
}

THEANO_REGISTER_OP(CumOp);

// Generated code (C++ and CUDA) calls the line kernel perform calls; the GPU
// form runs one thread a line.
std::optional<KernelForm> CumOp::kernel_form(const KernelSignature& sig) const {
  if (sig.out_dtypes.size() != 1) return std::nullopt;
  const std::string_view suffix = kernel_dtype_suffix(sig.out_dtypes[0]);
  if (suffix.empty()) return std::nullopt;
  return KernelForm{KernelForm::Kind::Lines, "cumulative.h",
                    std::string(mode_ == "add" ? "theano_cumsum_" : "theano_cumprod_") + std::string(suffix), axis_};
}

ApplyPtr CumOp::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  // NumPy accumulates bools as integers: the node's input is x as int64, so
  // the input and the output always share one dtype (and one kernel).
  if (tensor_type(x)->dtype() == DType::Bool) x = cast(x, DType::Int64);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(line_kernel(mode_, t.dtype()) != nullptr, TypeError)
      << name() << ": expected an integer or float32/float64 tensor, got " << x.str() << " of type " << t.str();
  THEANO_USER_CHECK(axis_ < t.ndim(), ValueError)
      << name() << ": axis " << axis_ << " is out of range for " << x.str() << " of type " << t.str();
  return Apply::create(OpPtr(this), {x}, {t.make_variable()});
}

void CumOp::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  THEANO_USER_CHECK(axis_ < x.ndim(), ValueError)
      << name() << ": axis " << axis_ << " is out of range for a value of shape " << shape_to_string(x.shape());
  const LineKernel kernel = line_kernel(mode_, x.dtype());
  THEANO_USER_CHECK(kernel != nullptr, TypeError) << name() << ": no kernel for dtype " << dtype_name(x.dtype());
  NDArray out = x.copy();  // a fresh C-contiguous copy, accumulated in place line by line
  const auto ax = static_cast<std::size_t>(axis_);
  const int64_t n = out.shape()[ax];
  if (out.size() != 0) {
    const int64_t stride = out.strides()[ax];
    detail::for_each_element(out.index(axis_, 0), [&](const std::byte* p) {
      char* line = reinterpret_cast<char*>(const_cast<std::byte*>(p));
      kernel(line, stride, line, stride, n);
    });
  }
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> CumOp::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

std::vector<Var> CumOp::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  const Var& x = node.input(0);
  const OpPtr sum_op(new CumOp(axis_, "add"));
  // d out_j / d x_i = 1 for j >= i: the gradient at i sums gz over j >= i,
  // the cumulative sum of gz taken from the end of the axis.
  auto backward_sum = [&](const Var& g) { return reversed(sum_op->apply1({reversed(g, axis_)}), axis_); };
  if (mode_ == "add") return {backward_sum(gz)};
  // Theano's formula: d out_j / d x_i = out_j / x_i for j >= i, so the
  // gradient is backward_sum(out * gz) / x. At a zero x_i it is 0 / 0 = NaN
  // (the true value, the sum over j >= i of gz_j times the product of the
  // other factors, is finite); after a zero it is 0, which is right. As
  // Theano's, it is exact only where x has no zeros.
  return {true_div(backward_sum(mul(node.output(0), gz)), x)};
}

Var cumsum(const TensorLike& x, std::optional<int> axis) { return cumulative(x, axis, "add", "cumsum"); }

Var cumprod(const TensorLike& x, std::optional<int> axis) { return cumulative(x, axis, "mul", "cumprod"); }

}  // namespace theano::tensor
