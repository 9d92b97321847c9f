// matrix_power (NumPy's) as a graph: repeated squaring of matrix products
// (linalg::matmul: dot for a matrix, one BatchedDot for a batch), the
// identity for n == 0, and for n < 0 the power -n of inv(M) (LAPACK's, as
// NumPy's), so the gradient is inv's and the products'.
#include <string>

#include "diag_graph.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

Var matrix_power(const TensorLike& m_in, int n) {
  Var m = m_in.var();
  const TensorType& t = *tensor_type(m);
  const int nd = t.ndim();
  THEANO_USER_CHECK(nd >= 2, ValueError)
      << "matrix_power: expected " << m.str() << " of rank 2 or more (a square matrix or a batch), got " << t.str();
  const Dim rows = t.shape()[static_cast<std::size_t>(nd - 2)], cols = t.shape().back();
  THEANO_USER_CHECK(!rows || !cols || *rows == *cols, ValueError)
      << "matrix_power: " << m.str() << " of type " << t.str() << " is not square in its last two axes ("
      << *rows << " x " << *cols << ")";
  if (!rows || !cols)
    m = assert_op(m, {eq(shape_i(m, nd - 2), shape_i(m, nd - 1))},
                  "matrix_power: M is not square in its last two axes ({} x {})",
                  {shape_i(m, nd - 2), shape_i(m, nd - 1)});
  if (n == 0) return second(m, eye(shape_i(m, nd - 1), std::nullopt, 0, t.dtype()));
  Var result, base = n > 0 ? m : inv(m);  // inv upcasts integers to float64, as NumPy's
  for (long long e = n > 0 ? static_cast<long long>(n) : -static_cast<long long>(n);; e >>= 1) {
    if (e & 1) result = result ? matmul(result, base) : base;
    if (e <= 1) break;
    base = matmul(base, base);
  }
  return result;
}

}  // namespace theano::tensor::linalg
