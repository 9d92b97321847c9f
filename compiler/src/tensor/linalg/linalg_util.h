// What the LAPACK-backed ops' files share (internal to compiler/src/tensor/linalg):
// make_node's checks and static shapes, perform's driver over the kernel
// layer (kernels/linalg.h) and the batched graph pieces the gradients use.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg::detail {

/// The node of a LapackOp: `inputs` checked (count, float32/float64 of one
/// dtype, rank >= the core rank) and outputs of that dtype whose static
/// shapes are the broadcast batch dims followed by `core_out[k]` (unknown
/// sizes as std::nullopt).
/// `out_dtypes[k]`, where given, is output k's dtype instead. The pivots'
/// op (PIV_TO_PERM) takes an int32 input instead of a float one.
ApplyPtr make_lapack_node(const LapackOp& op, std::vector<Var> inputs, const std::vector<StaticShape>& core_out,
                          const std::vector<std::optional<DType>>& out_dtypes = {});
/// The static core dims (the last `rank`) of input v.
StaticShape core_static(const Var& v, int rank);
/// The static core (n, n) of a square-matrix input, either known side filling
/// the other; empty for a rank below 2 (make_node's check then names it).
StaticShape square_core(const Var& x);
/// An eigendecomposition's output shapes from its input's: {w (..., n)} and,
/// with compute_v, the vectors' (..., n, n).
std::vector<std::vector<Var>> eigen_shapes(const std::vector<Var>& s, bool compute_v);
/// Runs the kernel of `op` on the inputs, writing the outputs (perform).
void run_lapack(const LapackOp& op, const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs);
/// infer_shape: the broadcast batch dims, then the core dims given for each output.
std::vector<Var> batch_shape(const LapackOp& op, const std::vector<std::vector<Var>>& shapes);
/// The user functions' input: a tensor, integers upcast to float64.
Var as_float(const TensorLike& x);
/// Both operands in their common float dtype.
std::pair<Var, Var> as_common_float(const TensorLike& a, const TensorLike& b);

/// g summed over the batch dims that `like` broadcast (extra leading dims, and
/// dims of static size 1 in `like`), so a gradient has its input's shape.
Var sum_to(const Var& g, const Var& like);
/// The n x n lower-triangular mask (ones on and below the diagonal) of x's
/// last dimension, in x's dtype.
Var tril_mask(const Var& x);
/// The identity of x's last dimension, in x's dtype.
Var eye_like(const Var& x);
/// Murray's Φ: the lower triangle of x with its diagonal halved.
Var phi(const Var& x);
/// The gradient `g` of a symmetric matrix folded onto the triangle an op
/// reads: lower, g_ij + g_ji below the diagonal and g_ii on it; zeros above
/// (the transposed for the upper triangle).
Var fold_onto_triangle(const Var& g, bool lower);
/// Whether any output gradient is given (an op without a gradient then refuses).
bool any_grad(const std::vector<Var>& output_grads);
/// A vector right-hand side as a column (b_ndim 1), and back.
Var as_column(const Var& v, int b_ndim);
Var from_column(const Var& v, int b_ndim);
/// a[..., :, None] * b[..., None, :] for batches of vectors.
Var batched_outer(const Var& a, const Var& b);

}  // namespace theano::tensor::linalg::detail
