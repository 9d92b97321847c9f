/// \file
/// `local_batched_dot_to_dot22`: a BatchedDot whose b is one matrix (every
/// batch dimension of b statically 1, e.g. matmul(batch, matrix) or an
/// einsum contraction with a batch of size 1) is a plain matrix product:
/// reshape(dot22(reshape(a, (rows, k)), b[0...]), (batch..., m, n)) — one
/// large gemm instead of one per item, and a Dot22 the other BLAS rewrites
/// see. Registered in the blas_opt stage (tags fast_run, blas, dot22).
#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

/// Axis d of v: its static size as a constant, else shape_i.
Var dim_of(const Var& v, int d) {
  const T::Dim s = T::tensor_type(v)->shape()[static_cast<std::size_t>(d)];
  return s ? T::constant(NDArray::scalar<int64_t>(*s)) : T::shape_i(v, d);
}

}  // namespace

NodeRewriterPtr local_batched_dot_to_dot22() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_batched_dot_to_dot22", {"BatchedDot"},
      "BatchedDot(a, b) -> reshape(dot22(reshape(a, (batch * m, k)), b as a matrix), out shape) when every batch "
      "dimension of b is statically 1",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var &a = node.input(0), &b = node.input(1);
        const T::TensorType& tb = *T::tensor_type(b);
        const int nd = tb.ndim();
        for (int d = 0; d < nd - 2; ++d)
          if (tb.shape()[static_cast<std::size_t>(d)] != T::Dim(1))
            return RewriteResult::fail("b has a batch dimension not statically 1");
        const Var b2 = T::dimshuffle(b, {nd - 2, nd - 1});
        std::vector<Var> out_shape;
        for (int d = 0; d < nd - 1; ++d) out_shape.push_back(dim_of(a, d));
        out_shape.push_back(dim_of(b, nd - 1));
        // The row count as a product, not -1: a reshape cannot infer -1 when k == 0.
        int64_t rows_known = 1;
        bool all_known = true;
        Var rows;
        for (int d = 0; d < nd - 1; ++d) {
          const T::Dim s = T::tensor_type(a)->shape()[static_cast<std::size_t>(d)];
          if (!s) all_known = false;
          else if (__builtin_mul_overflow(rows_known, *s, &rows_known))
            return RewriteResult::fail("the static row count leaves int64");
          rows = rows ? T::mul(rows, dim_of(a, d)) : dim_of(a, d);
        }
        if (all_known) rows = T::constant(NDArray::scalar<int64_t>(rows_known));
        const Var a2 = T::reshape(a, T::make_vector({rows, dim_of(a, nd - 1)}, DType::Int64), 2);
        const Var v = T::reshape(T::dot22(a2, b2), T::make_vector(out_shape, DType::Int64), nd);
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("the reshaped Dot22's type differs from the BatchedDot's");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail
