/// \file
/// The structural matrix operations of PyTensor's `tensor.linalg` /
/// `tensor.basic` that need no LAPACK: diagonals (`diagonal`/`extract_diag`,
/// `diag`, `alloc_diag`, `trace`), triangular parts (`tril`, `triu`) and, as
/// graphs of existing ops, `kron`, `block_diag`, `matrix_power` and `norm`;
/// NumPy's semantics for offsets, axes and leading batch dimensions
/// (docs/linalg-structure.md).
///
/// Why ops and not just graphs: `ExtractDiag`, `AllocDiag` and `Tril`/`Triu`
/// are ops through canonicalize and stabilize, so that gradients are each
/// other (the gradient of a diagonal is an alloc_diag of the output gradient,
/// and the other way round) and rewrites see them (diagonal(alloc_diag(v)) ->
/// v, tril(tril(x)) -> tril(x), trace(dot(A, B)) -> sum(A * B.T)). At
/// specialize each becomes its graph form of existing ops (`expanded`), which
/// costs nothing at run time: a diagonal is a strided slice of the matrix
/// reshaped to a vector (a view when the strides allow, as Reshape's), an
/// alloc_diag is zeros with that slice set, a triangular part a fused switch
/// on a comparison of aranges. Generated C++ and the CUDA form are those
/// ops' own lowerings; `perform` (the py linker, constant folding, the
/// fallback of modes without specialize) is written here by index arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor::linalg {

/// An op of this header: what the specialize rewrite
/// `local_linalg_structure_expand` replaces by its graph form.
class StructuralOp : public Op {
 public:
  /// The node's output computed by existing ops from `inputs` (the node's
  /// inputs): same values, dtype and rank.
  virtual Var expanded(const std::vector<Var>& inputs) const = 0;
};

/// `ExtractDiag{offset, axis1, axis2}` (NumPy's `diagonal`): the elements
/// x[..., i, ..., i + offset, ...] of the 2-d planes spanned by axis1 (rows)
/// and axis2 (columns); the output drops both axes and appends the diagonal
/// as its last axis, of length max(0, min(n + min(offset, 0), m - max(offset,
/// 0))) for n rows and m columns. The output is a view of x (view_map), as
/// NumPy's. axis1 != axis2, both non-negative and below x's rank here (the
/// user functions resolve negative axes). Gradient: the output gradient
/// scattered onto the diagonal of zeros of x's shape (an alloc_diag when x is
/// square).
class ExtractDiag final : public StructuralOp {
 public:
  ExtractDiag(int offset, int axis1, int axis2);
  THEANO_OP_DECLARE("ExtractDiag")
  ViewMap view_map() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  Var expanded(const std::vector<Var>& inputs) const override;

  THEANO_OP_PROPS((int, offset), (int, axis1), (int, axis2))
};

/// `AllocDiag{offset, axis1, axis2}`: zeros of rank v.ndim + 1 whose planes
/// (axis1 rows, axis2 columns) are square of side k + |offset|, k = v's last
/// dimension, with v[..., i] on diagonal `offset` of each plane; v's leading
/// dimensions fill the other axes in order. The inverse of ExtractDiag with
/// the same props: diagonal(alloc_diag(v, o, a1, a2), o, a1, a2) == v.
/// (PyTensor swaps axis1 > axis2 first, which transposes the planes of a
/// nonzero offset; here axis1 is always the row axis.) Gradient: the
/// diagonal of the output gradient.
class AllocDiag final : public StructuralOp {
 public:
  AllocDiag(int offset, int axis1, int axis2);
  THEANO_OP_DECLARE("AllocDiag")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  Var expanded(const std::vector<Var>& inputs) const override;

  THEANO_OP_PROPS((int, offset), (int, axis1), (int, axis2))
};

/// `Tril{k}` / `Triu{k}` (NumPy's tril / triu over the last two axes, leading
/// axes a batch): x[..., i, j] where j <= i + k (Tril) or j >= i + k (Triu),
/// else 0 (also where x is NaN or inf, as NumPy's). Same shape and dtype as
/// x, rank >= 2. Gradient: the same op on the output gradient.
class TriangularPart final : public StructuralOp {
 public:
  /// `lower`: Tril, else Triu.
  TriangularPart(bool lower, int k);
  std::string_view type_name() const override { return lower_ ? "Tril" : "Triu"; }
  bool lower() const { return lower_; }

  ApplyPtr make_node(std::vector<Var> inputs) const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& input_shapes) const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  Var expanded(const std::vector<Var>& inputs) const override;

 private:
  bool lower_;  // not a prop: it picks the type name, Tril or Triu

  THEANO_OP_PROPS((int, k))
};

/// NumPy's `diagonal(x, offset, axis1, axis2)`: negative axes count from the
/// end; x of rank >= 2; axis1 and axis2 distinct (ValueError naming the
/// function, the axes and x otherwise). A view of x.
Var diagonal(const TensorLike& x, int offset = 0, int axis1 = 0, int axis2 = 1);
/// PyTensor's name for diagonal.
Var extract_diag(const TensorLike& x, int offset = 0, int axis1 = 0, int axis2 = 1);
/// PyTensor's `alloc_diag(v, offset, axis1, axis2)`: v of rank >= 1, axes
/// counted in the output's rank v.ndim + 1 (see AllocDiag).
Var alloc_diag(const TensorLike& v, int offset = 0, int axis1 = 0, int axis2 = 1);
/// NumPy's `diag(v, k)`: a vector gives the square matrix with v on diagonal
/// k; a matrix gives its diagonal k. Other ranks are a ValueError.
Var diag(const TensorLike& v_or_m, int k = 0);
/// NumPy's `trace(x, offset, axis1, axis2)`: the sum of diagonal(x, offset,
/// axis1, axis2) along its last axis (in sum's default dtype, as NumPy's).
Var trace(const TensorLike& x, int offset = 0, int axis1 = 0, int axis2 = 1);
/// NumPy's `tril(x, k)` / `triu(x, k)` over the last two axes of x (rank >= 2).
Var tril(const TensorLike& x, int k = 0);
Var triu(const TensorLike& x, int k = 0);

/// NumPy's `kron(a, b)` for any ranks: the smaller rank is padded with
/// leading 1s; out[i0 * b0 + j0, i1 * b1 + j1, ...] = a[i0, i1, ...] *
/// b[j0, j1, ...], of shape a.shape * b.shape (dtype: mul's). A graph of a
/// broadcast product and a reshape.
Var kron(const TensorLike& a, const TensorLike& b);
/// SciPy's / PyTensor's `block_diag(*matrices)`: the matrices on the
/// diagonal of zeros of shape (sum of rows, sum of columns), in their
/// promoted dtype. Inputs of one rank >= 2; leading axes are a batch (sizes
/// broadcast). A ValueError for no input or mismatched ranks.
Var block_diag(const std::vector<Var>& matrices);
/// NumPy's `matrix_power(M, n)` over the last two axes of M (square; leading
/// axes a batch), by repeated squaring (about 2 log2(|n|) products; n == 0
/// gives the identity; n < 0 the power -n of `inv(M)` (docs/linalg.md), a
/// singular M a ValueError at run time). A non-square M is a ValueError when
/// its shape is known, else an assertion failure at run time.
Var matrix_power(const TensorLike& M, int n);

/// The `ord` of `norm`: None (the default), a number p (1, 2, inf, -inf, 0,
/// any real), or "fro" / "nuc".
class NormOrd {
 public:
  NormOrd() = default;
  NormOrd(double p) : kind_(Kind::Number), p_(p) {}  // NOLINT: implicit, as NumPy's ord=2
  NormOrd(int p) : kind_(Kind::Number), p_(p) {}     // NOLINT
  NormOrd(const char* name);                         // NOLINT: "fro" or "nuc" (ValueError otherwise)
  bool is_none() const { return kind_ == Kind::None; }
  bool is_number() const { return kind_ == Kind::Number; }
  bool is_fro() const { return kind_ == Kind::Fro; }
  bool is_nuc() const { return kind_ == Kind::Nuc; }
  double p() const { return p_; }
  /// As NumPy prints it: None, 2, inf, -inf, 'fro', 'nuc'.
  std::string str() const;

 private:
  enum class Kind : char { None, Number, Fro, Nuc };
  Kind kind_ = Kind::None;
  double p_ = 0;
};

/// NumPy's `norm(x, ord, axis, keepdims)`. `axis` empty (None): x's vector
/// norm when x is 1-d, its matrix norm when 2-d, and with ord None the
/// 2-norm of all elements for any rank. One axis: vector norms along it:
/// None / 2 (sqrt of the sum of squares), 1, inf (max |x|), -inf (min |x|),
/// 0 (count of nonzeros), any p (sum |x|^p)^(1/p). Two axes (rows, columns):
/// matrix norms None / "fro", 1 / -1 (max / min column sum of |x|), inf /
/// -inf (max / min row sum), 2 / -2 (largest / smallest singular value) and
/// "nuc" (their sum), the last three through `svdvals` (docs/linalg.md), the
/// two axes moved last (other axes a batch). Integer inputs
/// are computed in float64, as NumPy's. Other ords, axes out of range or
/// repeated are ValueErrors naming norm and the values.
Var norm(const TensorLike& x, const NormOrd& ord = {}, const std::vector<int>& axis = {}, bool keepdims = false);

}  // namespace theano::tensor::linalg
