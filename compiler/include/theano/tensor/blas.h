/// \file
/// Linear algebra: the user-level `Dot` (every vector/matrix combination) and the
/// BLAS-shaped ops the rewrites lower it to — `Dot22` (matrix x matrix),
/// `Gemm` (Z <- beta*Z + alpha*X.Y), `Gemv` (y <- beta*y + alpha*A.x), `Ger`
/// (A <- A + alpha*outer(x, y)) — plus `outer`, `tensordot` and `batched_dot`
/// built as graphs of dimshuffle / reshape / dot (BatchedDot, batched_blas.h)
/// / elementwise ops.
///
/// Why: as in Theano, users write `dot` and the optimizer turns
/// `a*dot(x, y) + b*z` into Gemm (GemmOptimizer) and makes it inplace later, so
/// these ops carry both a non-inplace form (the default) and an inplace form
/// (`destroy_map {0: [0]}`) selected by a prop.
///
/// perform calls OpenBLAS through CBLAS for float32/float64, passing transpose
/// flags for transposed (Fortran-ordered) views and copying other layouts
/// (negative, zero or non-unit inner strides); integer, bool, float16 and
/// complex dtypes use a plain, exact loop in the output dtype. A dimension
/// mismatch is a ShapeError naming both shapes (at make_node when static shapes
/// know it, else at run time).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/scalar.h"

namespace theano::tensor {

/// Inner product of vectors and matrices with NumPy's rules: (n)x(n) -> (),
/// (m,n)x(n) -> (m), (n)x(n,p) -> (p), (m,n)x(n,p) -> (m,p). Output dtype:
/// NumPy promotion of the inputs.
class Dot final : public Op {
 public:
  THEANO_OP_DECLARE("Dot")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// Matrix x matrix for float32 / float64 inputs of one dtype (Theano's Dot22):
/// what `dot` becomes after the specialize rewrites.
class Dot22 final : public Op {
 public:
  THEANO_OP_DECLARE("Dot22")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// What Gemm, Gemv and Ger share, written once: a form that overwrites input
/// 0 (`destroy_map {0: [0]}`), which the BLAS inplace stage offers for the
/// plain form, and a GPU form (cuBLAS) with the array inputs 0, 2 and 3 on the
/// device and the scalars on the host. `Self(true)` is the overwriting form,
/// and `Self::overwrites()` says whether an op is it (blas/blas_update.cpp).
template <class Self>
class BlasUpdateOp : public Op {
 public:
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  ViewMap destroy_map() const override;
};

/// Inputs (Z, alpha, X, Y, beta) -> beta*Z + alpha*dot(X, Y). Z, X, Y: matrices
/// of one float32/float64 dtype; alpha, beta: real 0-d tensors, converted to
/// Z's dtype at run time. When beta == 0, Z's values are not read (BLAS rule).
/// `inplace`: the output overwrites Z (`destroy_map {0: [0]}`).
class Gemm final : public BlasUpdateOp<Gemm> {
 public:
  explicit Gemm(bool inplace = false) : inplace_(inplace) {}
  THEANO_OP_DECLARE("Gemm")
  /// `Gemm{inplace}` / `Gemm{no_inplace}` as Theano prints it.
  std::string name() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  bool overwrites() const { return inplace_; }

  THEANO_OP_PROPS((bool, inplace))
};

/// Inputs (y, alpha, A, x, beta) -> beta*y + alpha*dot(A, x); y, x vectors, A a
/// matrix, one float32/float64 dtype; alpha, beta as for Gemm.
class Gemv final : public BlasUpdateOp<Gemv> {
 public:
  explicit Gemv(bool inplace = false) : inplace_(inplace) {}
  THEANO_OP_DECLARE("Gemv")
  std::string name() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  bool overwrites() const { return inplace_; }

  THEANO_OP_PROPS((bool, inplace))
};

/// Inputs (A, alpha, x, y) -> A + alpha*outer(x, y); one float32/float64 dtype.
/// `destructive`: the output overwrites A.
class Ger final : public BlasUpdateOp<Ger> {
 public:
  explicit Ger(bool destructive = false) : destructive_(destructive) {}
  THEANO_OP_DECLARE("Ger")
  /// `Ger{destructive}` / `Ger{non-destructive}`.
  std::string name() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  bool overwrites() const { return destructive_; }

  THEANO_OP_PROPS((bool, destructive))
};

/// The two matrix-vector products of a linear model's training step in one
/// pass over the matrix's rows: inputs (X, w, y, alpha, beta, e_1 .. e_k) ->
/// (z, g, r) with z = dot(X, w), r = fn(z, e_1 .. e_k) and g = beta*y +
/// alpha*dot(X^T, r), `fn` an elementwise scalar function (a Composite) of
/// z's element and the e's (vectors of z's length, or of length 1
/// broadcast); r is an output for r's other clients (logistic regression's
/// bias gradient sums it), which would otherwise compute fn again. X a
/// matrix, w, y vectors, of one float32/float64 dtype, as fn's value; alpha,
/// beta as for Gemm (beta == 0: y not read).
///
/// Why: z's element i is known once row i of X has been read, and fn is
/// elementwise, so the row serves both products while it is in cache: X is
/// read once instead of twice (logistic regression's step: X^T (p - y) / N
/// after p = sigmoid(X w), W2). Made by the stream_gemv rewrite
/// (compiler/src/rewrite/stream_gemv.cpp) from a Dot and a Gemv of X's
/// transpose, in functions without a GPU context; perform computes the two
/// products one after the other, the generated code in one pass where X
/// is larger than the cache keeps (row_stream_gemv_rules.h).
class RowStreamGemv final : public Op {
 public:
  explicit RowStreamGemv(ScalarOpPtr fn) : fn_(std::move(fn)) {}
  THEANO_OP_DECLARE("RowStreamGemv")
  /// As Elemwise: a Composite is identified by its inner graph, not its props.
  bool keyed_by_props() const override { return fn_->keyed_by_props(); }

  THEANO_OP_PROPS((ScalarOpPtr, fn))
};

extern template class BlasUpdateOp<Gemm>;
extern template class BlasUpdateOp<Gemv>;
extern template class BlasUpdateOp<Ger>;

/// numpy.dot: a 0-d operand multiplies elementwise; vectors and matrices use
/// Dot; higher ranks contract the last axis of `a` with the second-to-last of
/// `b` (through tensordot).
Var dot(const TensorLike& a, const TensorLike& b);
Var dot22(const TensorLike& a, const TensorLike& b);
Var gemm(const TensorLike& z, const TensorLike& alpha, const TensorLike& x, const TensorLike& y,
         const TensorLike& beta);
Var gemv(const TensorLike& y, const TensorLike& alpha, const TensorLike& a, const TensorLike& x,
         const TensorLike& beta);
Var ger(const TensorLike& a, const TensorLike& alpha, const TensorLike& x, const TensorLike& y);
/// Outer product of two vectors (an (m) x (n) -> (m, n) Dot of a column and a row).
Var outer(const TensorLike& x, const TensorLike& y);

/// numpy.tensordot's `axes`: an int n (the last n axes of a with the first n of
/// b) or two equal-length axis lists: `tensordot(a, b, 2)`,
/// `tensordot(a, b, {{1, 2}, {1, 0}})`.
class TensordotAxes {
 public:
  TensordotAxes(int n) : count_(n) {}  // NOLINT: implicit, as numpy's int axes
  TensordotAxes(std::vector<int> a_axes, std::vector<int> b_axes)
      : lists_(true), a_(std::move(a_axes)), b_(std::move(b_axes)) {}
  TensordotAxes(std::pair<std::vector<int>, std::vector<int>> lists)  // NOLINT: implicit
      : TensordotAxes(std::move(lists.first), std::move(lists.second)) {}

  /// Whether the axes were given as a count (else as two lists).
  bool is_count() const { return !lists_; }
  int count() const { return count_; }
  const std::vector<int>& a_axes() const { return a_; }
  const std::vector<int>& b_axes() const { return b_; }

 private:
  int count_ = 0;
  bool lists_ = false;
  std::vector<int> a_, b_;
};
/// Sums products over the given axes: transposes the summed axes together,
/// reshapes both operands to matrices, uses dot, and reshapes the result to
/// a's free axes followed by b's. ValueError for bad axes, ShapeError when
/// known summed sizes differ.
Var tensordot(const TensorLike& a, const TensorLike& b, const TensordotAxes& axes = 2);
/// Theano's batched_dot: dot over the leading (batch) axis, i.e.
/// out[i] = dot(a[i], b[i]) for a, b of rank 2 or 3 (and higher, contracting
/// the last axis of a with the second-to-last of b); batched_tensordot of
/// those axes (batched_blas.h): one BatchedDot for float operands, a
/// broadcast product summed for other dtypes.
Var batched_dot(const TensorLike& a, const TensorLike& b);

/// The number of threads BLAS calls use: OpenBLAS's own for LAPACK and larger
/// products; generated code cuts a product of 262144 to 3*10^7 multiply-adds
/// into that many parts on its loop threads (codegen/src/run/blas_split.h).
/// THEANO_FLAGS threads=N caps both. OpenBLAS opens on the first BLAS call
/// (theano/runtime/blas_library.h); a count set before that is kept for it.
int blas_threads();
void set_blas_threads(int n);

}  // namespace theano::tensor
