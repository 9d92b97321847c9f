// kron (NumPy's, any ranks) as a graph: the broadcast product of a and b with
// their axes interleaved, (a0, b0, a1, b1, ...), reshaped to (a0 * b0, a1 * b1,
// ...) (the product is C-contiguous, so the reshape is a view). Its gradient
// is the graph's.
#include <algorithm>

#include "diag_graph.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

Var kron(const TensorLike& a_in, const TensorLike& b_in) {
  Var a = a_in.var(), b = b_in.var();
  const int na = tensor_type(a)->ndim(), nb = tensor_type(b)->ndim(), nd = std::max(na, nb);
  if (na < nd) a = shape_padleft(a, nd - na);
  if (nb < nd) b = shape_padleft(b, nd - nb);
  if (nd == 0) return mul(a, b);
  std::vector<int> a_order, b_order;
  std::vector<Var> dims;
  for (int d = 0; d < nd; ++d) {
    a_order.insert(a_order.end(), {d, kNewAxis});
    b_order.insert(b_order.end(), {kNewAxis, d});
    dims.push_back(mul(shape_i(a, d), shape_i(b, d)));
  }
  return reshape(mul(dimshuffle(a, a_order), dimshuffle(b, b_order)), make_vector(dims, DType::Int64), nd);
}

}  // namespace theano::tensor::linalg
