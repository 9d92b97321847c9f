// Definitions of the internal helpers in kernel_util.h.
#include "kernel_util.h"

#include <algorithm>

#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"

namespace theano::tensor::detail {

const TensorType& tensor_type_of(const Var& v, const char* what) {
  const TensorType* t = v ? tensor_type(v) : nullptr;
  THEANO_USER_CHECK(t, TypeError) << what << ": expected a tensor, got " << v.str() << " of type "
                                  << (v ? v.type()->str() : std::string("none"));
  return *t;
}

std::vector<int> keepdims_order(int ndim, const std::vector<int>& axes) {
  std::vector<int> order;
  int j = 0;
  for (int i = 0; i < ndim; ++i)
    order.push_back(std::find(axes.begin(), axes.end(), i) != axes.end() ? kNewAxis : j++);
  return order;
}

Var restore_reduced_axes(const Var& r, int ndim, const std::vector<int>& axes) {
  if (axes.empty()) return r;
  return dimshuffle(r, keepdims_order(ndim, axes));
}

std::string axes_text(const std::vector<int>& axes) {
  std::string r = "(";
  for (std::size_t i = 0; i < axes.size(); ++i) r += (i ? ", " : "") + std::to_string(axes[i]);
  return r + (axes.size() == 1 ? ",)" : ")");
}

ReductionLayout reduction_layout(const NDArray& x, const std::vector<int>& axes, const std::string& op_name) {
  ReductionLayout l;
  const int nd = x.ndim();
  for (int i = 0; i < nd; ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) {
      l.perm.push_back(i);
      l.out_shape.push_back(x.shape()[static_cast<std::size_t>(i)]);
    }
  for (int a : axes) {
    THEANO_USER_CHECK(a < nd, ValueError) << op_name << ": axis " << a << " is out of range for a value of shape "
                                          << shape_to_string(x.shape());
    l.perm.push_back(a);
    l.group *= x.shape()[static_cast<std::size_t>(a)];
  }
  return l;
}

}  // namespace theano::tensor::detail
