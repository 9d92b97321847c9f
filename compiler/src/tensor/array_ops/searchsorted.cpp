/// \file
/// `SearchSorted` (a binary search per value, kernels/searchsorted.h, the
/// text its C++ lowering calls too) and numpy.searchsorted on it: v of any
/// rank goes through the op flattened and comes back in its shape; a and v
/// are brought to one dtype; a sorter is checked (length, range) by an Assert.
#include "theano/runtime/kernels/searchsorted.h"

#include "array_ops_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

using Kernel = void (*)(const char*, int64_t, int64_t, const char*, int64_t, const char*, int64_t, int64_t, char*,
                        int64_t, int);

Kernel kernel_of(DType d) {
  switch (d) {
#define THEANO_SS_CASE(DT, SUFFIX) \
  case DType::DT:                  \
    return &theano_searchsorted_##SUFFIX;
    THEANO_SS_CASE(Float64, f64)
    THEANO_SS_CASE(Float32, f32)
    THEANO_SS_CASE(Int64, i64)
    THEANO_SS_CASE(Int32, i32)
    THEANO_SS_CASE(Int16, i16)
    THEANO_SS_CASE(Int8, i8)
    THEANO_SS_CASE(UInt64, u64)
    THEANO_SS_CASE(UInt32, u32)
    THEANO_SS_CASE(UInt16, u16)
    THEANO_SS_CASE(UInt8, u8)
#undef THEANO_SS_CASE
    default:
      return nullptr;
  }
}

}  // namespace

THEANO_REGISTER_OP(SearchSorted);

// GPU form: a, v and the sorter on the device (one thread a value).
std::optional<GpuPlacement> SearchSorted::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin()); }

ApplyPtr SearchSorted::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2 || inputs.size() == 3, TypeError)
      << name() << " takes a, v and optionally sorter, got " << inputs.size() << " inputs";
  for (Var& v : inputs) v = as_tensor_variable(v);
  const TensorType* ta = tensor_type(inputs[0]);
  const TensorType* tv = tensor_type(inputs[1]);
  THEANO_USER_CHECK(ta->ndim() == 1 && tv->ndim() == 1, TypeError)
      << name() << ": a and v must be vectors (searchsorted() flattens v), got " << inputs[0].str() << " of type "
      << ta->str() << " and " << inputs[1].str() << " of type " << tv->str();
  THEANO_USER_CHECK(ta->dtype() == tv->dtype() && kernel_of(ta->dtype()) != nullptr, TypeError)
      << name() << ": a and v must have one real dtype (searchsorted() casts them), got " << ta->str() << " and "
      << tv->str();
  if (inputs.size() == 3) {
    const TensorType* ts = tensor_type(inputs[2]);
    THEANO_USER_CHECK(ts->ndim() == 1 && ts->dtype() == DType::Int64, TypeError)
        << name() << ": sorter must be an int64 vector, got " << inputs[2].str() << " of type " << ts->str();
  }
  const Var o = TensorType::make(DType::Int64, {tv->shape()[0]})->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {o});
}

void SearchSorted::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& a = inputs[0];
  const NDArray& v = inputs[1];
  const std::int64_t n = a.shape()[0], m = v.shape()[0];
  const char* sorter = nullptr;
  std::int64_t ss = 0;
  if (inputs.size() == 3) {
    const NDArray& s = inputs[2];
    THEANO_USER_CHECK(theano_searchsorted_sorter_len_ok(s.shape()[0], n), ValueError)
        << name() << ": " << THEANO_SS_SORTER_LEN_TEXT1 << s.shape()[0] << THEANO_SS_SORTER_LEN_TEXT2 << n;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t k = s.at<std::int64_t>({i});
      THEANO_USER_CHECK(theano_searchsorted_sorter_entry_ok(k, n), ValueError)
          << name() << ": " << THEANO_SS_SORTER_ENTRY_TEXT1 << i << THEANO_SS_SORTER_ENTRY_TEXT2 << k
          << THEANO_SS_SORTER_ENTRY_TEXT3 << n;
    }
    sorter = static_cast<const char*>(s.data());
    ss = s.strides()[0];
  }
  NDArray out = NDArray::empty({m}, DType::Int64);
  kernel_of(a.dtype())(static_cast<const char*>(a.data()), a.strides()[0], n, sorter, ss,
                       static_cast<const char*>(v.data()), v.strides()[0], m, static_cast<char*>(out.data()),
                       out.strides()[0], right_ ? 1 : 0);
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> SearchSorted::infer_shape(const Apply&,
                                                        const std::vector<std::vector<Var>>& input_shapes) const {
  return {{input_shapes[1][0]}};
}

std::vector<Var> SearchSorted::grad(const Apply& node, const std::vector<Var>&) const {
  return std::vector<Var>(static_cast<std::size_t>(node.nin()));
}

std::vector<std::vector<bool>> SearchSorted::connection_pattern(const Apply& node) const {
  return std::vector<std::vector<bool>>(static_cast<std::size_t>(node.nin()), {false});
}

Var searchsorted(const TensorLike& a_in, const TensorLike& v_in, std::string_view side, const Var& sorter) {
  THEANO_USER_CHECK(side == "left" || side == "right", ValueError)
      << "searchsorted: side must be \"left\" or \"right\", got \"" << side << "\"";
  Var a = a_in.var(), v = v_in.var();
  THEANO_USER_CHECK(tensor_type(a)->ndim() == 1, ValueError)
      << "searchsorted: a must be a vector, got " << a.str() << " of type " << a.type()->str();
  const DType da = tensor_type(a)->dtype(), dv = tensor_type(v)->dtype();
  for (const DType d : {da, dv})
    THEANO_USER_CHECK(is_integer(d) || d == DType::Float32 || d == DType::Float64, TypeError)
        << "searchsorted: a and v must be integer, float32 or float64, got " << a.str() << " of type "
        << a.type()->str() << " and " << v.str() << " of type " << v.type()->str();
  if (da != dv) {
    // One dtype for both: float64 when either is a float (float32 with float32), else int64.
    const DType d = (is_float(da) || is_float(dv)) ? DType::Float64 : DType::Int64;
    if (da != d) a = cast(a, d);
    if (dv != d) v = cast(v, d);
  }
  std::vector<Var> ins{a, flatten(v, 1)};
  if (sorter) {
    const TensorType* ts = tensor_type(sorter);
    THEANO_USER_CHECK(ts && ts->ndim() == 1 && is_integer(ts->dtype()), TypeError)
        << "searchsorted: sorter must be an integer vector, got " << sorter.str() << " of type "
        << sorter.type()->str();
    ins.push_back(ts->dtype() == DType::Int64 ? sorter : cast(sorter, DType::Int64));
  }
  const Var flat = OpPtr(new SearchSorted(side == "right"))->apply1(std::move(ins));
  return tensor_type(v)->ndim() == 1 ? flat : reshape(flat, shape(v), tensor_type(v)->ndim());
}

}  // namespace theano::tensor
