/// \file
/// Batched matrix products: the `BatchedDot` op (a (B, m, k) x b (B, k, n) ->
/// (B, m, n), one gemm per batch item, PyTensor's BatchedDot) and the graph
/// functions built on it: `batched_tensordot` (Theano's: tensordot with a
/// leading batch axis). `batched_dot` (blas.h) and `linalg::matmul` (linalg.h)
/// reach it too.
///
/// Why an op rather than a broadcast product: the product `a[:, :, :, None] *
/// b[:, None, :, :]` summed over k materialises B*m*k*n values and runs no
/// BLAS; BatchedDot calls cblas_?gemm per batch item (cuBLAS on the GPU), so a
/// batch of matrices costs what its gemms cost. docs/einsum.md.
#pragma once

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/blas.h"

namespace theano::tensor {

/// Inputs (a, b): float32 / float64 tensors of one dtype and one rank nd >= 3,
/// a (..., m, k), b (..., k, n) -> out (..., m, n), out[i] = dot(a[i], b[i])
/// over the batch dimensions (all but the last two). PyTensor's BatchedDot is
/// the rank-3 case (B, m, k) x (B, k, n); here batch dimensions may also
/// broadcast where an operand's type says size 1 (Theano's Elemwise rule), so
/// `matmul` needs no copy of a broadcast operand. A batch or inner dimension
/// mismatch is a ShapeError naming the axis and both sizes (at make_node when
/// the static shapes know it, else at run time). Gradients: BatchedDot of
/// the transposed operands, summed over the broadcast dimensions.
class BatchedDot final : public Op {
 public:
  THEANO_OP_DECLARE("BatchedDot")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// The op itself (no reshaping, no casting): operands of one rank >= 3.
Var batched_dot3(const TensorLike& a, const TensorLike& b);

/// Theano's batched_tensordot: tensordot over every batch item, the leading
/// axis of both operands being the batch (never summed). `axes` as
/// tensordot's: a count n (the last n axes of a with axes 1..n of b) or two
/// axis lists (counted in the whole operands, so never 0). Result: (B, a's
/// free axes..., b's free axes...). float32 / float64 operands go through one
/// BatchedDot (a reshaped to (B, M, K), b to (B, K, N)); other dtypes use a
/// broadcast product summed over the contracted axes. ValueError for bad
/// axes, ShapeError for known sizes that differ.
Var batched_tensordot(const TensorLike& a, const TensorLike& b, const TensordotAxes& axes = 2);

}  // namespace theano::tensor
