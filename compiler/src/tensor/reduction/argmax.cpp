// Argmax / Argmin: the int64 position of the extreme element along some axes
// (several axes count in C order over those axes, like numpy on a flattened
// array). Kept separate from CAReduce because the fold carries an index.
#include <complex>
#include <algorithm>
#include <type_traits>

#include "fold_rules.h"
#include "kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

ArgReduce::ArgReduce(bool is_max, std::vector<int> axes) : is_max_(is_max), axes_(std::move(axes)) {
  std::sort(axes_.begin(), axes_.end());
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    THEANO_USER_CHECK(axes_[i] >= 0, ValueError)
        << type_name() << ": axis " << axes_[i] << " must be non-negative here (resolve negative axes first)";
    THEANO_USER_CHECK(i == 0 || axes_[i] != axes_[i - 1], ValueError)
        << type_name() << ": axis " << axes_[i] << " is repeated";
  }
}

THEANO_REGISTER_OP(ArgReduce, .kinds = {"Argmax", "Argmin"});

// GPU form: the input.
std::optional<GpuPlacement> ArgReduce::gpu_form(const Apply& node) const { return GpuPlacement::all(node.nin()); }

ApplyPtr ArgReduce::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  for (int a : axes_)
    THEANO_USER_CHECK(a < t.ndim(), ValueError) << type_name() << ": axis " << a << " is out of range for "
                                                << x.str() << " of type " << t.str() << " (" << t.ndim()
                                                << " dimensions)";
  THEANO_USER_CHECK(!is_complex(t.dtype()), TypeError)
      << type_name() << ": complex values are not ordered; " << x.str() << " has dtype " << t.dtype();
  StaticShape shape;
  for (int i = 0; i < t.ndim(); ++i)
    if (!std::binary_search(axes_.begin(), axes_.end(), i)) shape.push_back(t.shape()[static_cast<std::size_t>(i)]);
  Var out = TensorType::make(DType::Int64, std::move(shape))->make_variable();
  return Apply::create(OpPtr(this), {x}, {out});
}

void ArgReduce::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x0 = inputs[0];
  const auto [perm, out_shape, group] = detail::reduction_layout(x0, axes_, name());
  NDArray out = NDArray::empty(out_shape, DType::Int64);
  THEANO_USER_CHECK(group > 0 || out.size() == 0, ValueError)
      << "attempt to get " << (is_max_ ? "argmax" : "argmin") << " of an empty sequence (axes "
      << detail::axes_text(axes_) << " of shape " << shape_to_string(x0.shape()) << ")";
  const NDArray x = x0.dtype() == DType::Float16 ? x0.transpose(perm).astype(DType::Float32) : x0.transpose(perm);
  int64_t* o = out.data_as<int64_t>();
  const bool is_max = is_max_;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, half> || is_complex_type<T>::value) {
      THEANO_INTERNAL_CHECK(false) << "ArgReduce kernel called with " << x.dtype();
    } else {
      using R = detail::FoldRules<T>;
      T best{};
      int64_t best_i = 0, j = 0;
      // The first NaN wins (numpy), ties keep the first: the rule generated
      // code follows too (theano/runtime/kernels/reduce_rules.h).
      detail::for_each_element(x, [&](const std::byte* p) {
        const T v = *reinterpret_cast<const T*>(p);
        const bool better = j == 0 || (is_max ? R::arg_max_better(best, v) : R::arg_min_better(best, v));
        if (better) {
          best = v;
          best_i = j;
        }
        if (++j == group) {
          *o++ = best_i;
          j = 0;
        }
      });
    }
  });
  outputs[0] = out;
}

std::vector<std::vector<Var>> ArgReduce::infer_shape(const Apply&,
                                                     const std::vector<std::vector<Var>>& input_shapes) const {
  std::vector<Var> out;
  const auto& in = input_shapes.at(0);
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!std::binary_search(axes_.begin(), axes_.end(), static_cast<int>(i))) out.push_back(in[i]);
  return {out};
}

std::vector<Var> ArgReduce::grad(const Apply&, const std::vector<Var>&) const { return {Var()}; }

std::vector<std::vector<bool>> ArgReduce::connection_pattern(const Apply&) const { return {{false}}; }

}  // namespace theano::tensor
