/// \file
/// The LAPACK-backed linear algebra of PyTensor's `linalg` / `slinalg` /
/// `nlinalg` (docs/linalg.md): decompositions (cholesky, lu, lu_factor, eigh,
/// svd, qr), solvers (solve, solve_triangular, cho_solve, lu_solve), inv,
/// det, slogdet (expm: theano/tensor/linalg_expm.h; eig / eigvals:
/// theano/tensor/linalg_eig.h); one
/// namespace, theano::tensor::linalg, as PyTensor's `pytensor.tensor.linalg`
/// gathers both of Theano's modules.
///
/// Every op takes leading batch dimensions: the core dims are the last two
/// (one for a vector right-hand side) and the batch dims broadcast as
/// numpy's (PyTensor's Blockwise). float32 and float64; the user functions
/// upcast integers to float64 and mixed inputs to their common float dtype.
/// perform and the generated C++ run one kernel text,
/// theano/runtime/kernels/linalg.h (LAPACK through OpenBLAS): the input
/// copied into a column-major work buffer, the routine, LAPACK's `info` turned
/// into an error naming the op and the matrix. A NaN or infinity in an input is
/// a ValueError (scipy's check_finite), except for cholesky(on_error="nan").
/// On a GPU function the nodes run on the host (no cuSOLVER form yet).
///
/// Gradients differentiate the function as computed: an op that reads one
/// triangle (cholesky, solve with assume_a sym/pos, eigh, cho_solve,
/// solve_triangular) gets a gradient in that triangle only (zeros in the
/// other), so verify_grad holds for any input; for a symmetric input
/// built from a parameter, the chain rule gives the same result as a
/// symmetrized gradient.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor::linalg {

/// The base of the LAPACK-backed ops: the kernel kind each computes
/// (THEANO_LA_* of kernels/linalg.h) and its options, which perform and the
/// C++ lowering hand to the kernel, and the core ranks of its inputs and
/// outputs (the dims past the batch dims).
class LapackOp : public Op {
 public:
  virtual int la_kind() const = 0;
  /// TheanoLaCall::opt, as kernels/linalg.h lists them for the kind.
  virtual std::vector<std::int64_t> la_options() const = 0;
  virtual std::vector<int> core_in_ranks() const = 0;
  virtual std::vector<int> core_out_ranks() const = 0;
  /// Every input and output on the device for the kinds with a cuSOLVER form
  /// (codegen/src/emit/lower/gpu_linalg.cpp, docs/linalg.md "On the GPU");
  /// none for the others, which run on the host.
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
};

/// The Cholesky factor of a symmetric positive-definite matrix: L with
/// A = L L^T (lower) or U with A = U^T U (upper); only that triangle of A is
/// read. A matrix that is not positive definite is a ValueError naming the
/// leading minor, or with nan_on_error an output of NaNs. Grad: Murray 2016,
/// "Differentiation of the Cholesky decomposition".
class Cholesky final : public LapackOp {
 public:
  Cholesky(bool lower, bool nan_on_error) : lower_(lower), nan_on_error_(nan_on_error) {}
  THEANO_OP_DECLARE("Cholesky")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {lower_, nan_on_error_}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {2}; }
  THEANO_OP_PROPS((bool, lower), (bool, nan_on_error))
};

/// Cholesky's gradient as one node: given the factor (input 0) and the
/// gradient of the cost with respect to it (input 1), the gradient with respect
/// to the factorized matrix, on the triangle Cholesky reads (Murray 2016, eq. 10:
/// Phi(L^-T (P + P^T) L^-1), P = Phi(L^T tril(L̄)); for the upper op the same
/// on the transposes). One trmm and two trsm (kernels/linalg.h), where the
/// graph of products and solves it replaces took a gemm, two solves and their
/// copies. Only the factor's triangle and that triangle of input 1 are read.
/// Grad: the Lop of that graph, so second derivatives go through.
class CholeskyGrad final : public LapackOp {
 public:
  explicit CholeskyGrad(bool lower) : lower_(lower) {}
  THEANO_OP_DECLARE("CholeskyGrad")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {lower_}; }
  std::vector<int> core_in_ranks() const override { return {2, 2}; }
  std::vector<int> core_out_ranks() const override { return {2}; }
  THEANO_OP_PROPS((bool, lower))
};

/// x with op(A) x = b for a triangular A (the `lower` triangle read; trans:
/// op(A) = A^T; unit_diagonal: A's diagonal taken as ones, not read).
/// b_ndim: 1 for a vector right-hand side, 2 for a matrix. A zero on the
/// diagonal is a ValueError.
class SolveTriangular final : public LapackOp {
 public:
  SolveTriangular(bool lower, bool trans, bool unit_diagonal, int b_ndim)
      : lower_(lower), trans_(trans), unit_diagonal_(unit_diagonal), b_ndim_(b_ndim) {}
  THEANO_OP_DECLARE("SolveTriangular")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {lower_, trans_, unit_diagonal_, b_ndim_}; }
  std::vector<int> core_in_ranks() const override { return {2, b_ndim_}; }
  std::vector<int> core_out_ranks() const override { return {b_ndim_}; }
  THEANO_OP_PROPS((bool, lower), (bool, trans), (bool, unit_diagonal), (int, b_ndim))
};

/// x with A x = b given A's Cholesky factor C (lower: A = C C^T, else
/// A = C^T U); C's `lower` triangle read.
class CholeskySolve final : public LapackOp {
 public:
  CholeskySolve(bool lower, int b_ndim) : lower_(lower), b_ndim_(b_ndim) {}
  THEANO_OP_DECLARE("CholeskySolve")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {lower_, b_ndim_}; }
  std::vector<int> core_in_ranks() const override { return {2, b_ndim_}; }
  std::vector<int> core_out_ranks() const override { return {b_ndim_}; }
  THEANO_OP_PROPS((bool, lower), (int, b_ndim))
};

/// x with A x = b. assume_a "gen" (LU with partial pivoting; a singular A
/// is a ValueError), "sym" (A symmetric: its `lower` triangle read) or "pos"
/// (A positive definite, through Cholesky; its `lower` triangle read).
/// Grad: Giles 2008 (b̄ = A^-T x̄, Ā = -b̄ x^T), folded onto the triangle
/// read for sym / pos.
class Solve final : public LapackOp {
 public:
  Solve(std::string assume_a, bool lower, int b_ndim);
  THEANO_OP_DECLARE("Solve")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override;
  std::vector<int> core_in_ranks() const override { return {2, b_ndim_}; }
  std::vector<int> core_out_ranks() const override { return {b_ndim_}; }
  THEANO_OP_PROPS((std::string, assume_a), (bool, lower), (int, b_ndim))
};

/// The inverse of a square matrix (LU; a singular matrix is a ValueError).
/// Grad: Ā = -X^T X̄ X^T (Giles 2008).
class MatrixInverse final : public LapackOp {
 public:
  MatrixInverse() = default;
  THEANO_OP_DECLARE("MatrixInverse")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {2}; }
};

/// The Moore-Penrose pseudo-inverse (n x m) of an m x n matrix, through the
/// SVD; singular values at or below 1e-15 times the largest count as zero
/// (numpy.linalg.pinv's default rcond). Grad (Golub & Pereyra 1973, where the
/// rank is locally constant): Ā = -Z^T Z̄ Z^T + (I - A Z) Z̄^T Z Z^T
/// + Z^T Z Z̄^T (I - Z A).
class MatrixPinv final : public LapackOp {
 public:
  MatrixPinv() = default;
  THEANO_OP_DECLARE("MatrixPinv")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {2}; }
};

/// The determinant (LU; 0 for a singular matrix, 1 for a 0 x 0 one).
/// Grad: Ā = d̄ det(A) A^-T (Giles 2008), undefined where A is singular.
class Det final : public LapackOp {
 public:
  Det() = default;
  THEANO_OP_DECLARE("Det")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {0}; }
};

/// (sign, log|det|) of a square matrix, as numpy.linalg.slogdet: sign 0 and
/// log|det| = -inf for a singular matrix. Grad of log|det|: A^-T; the sign has none.
class SLogDet final : public LapackOp {
 public:
  SLogDet() = default;
  THEANO_OP_DECLARE("SLogDet")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {0, 0}; }
};

/// The eigenvalues (ascending) and, with compute_v, the eigenvectors (the
/// columns of v) of a symmetric matrix whose `lower` triangle (UPLO="L") is
/// read (LAPACK's syevd). Grad: Ā = V (diag(w̄) + F ∘ (V^T V̄)) V^T with
/// F_ij = 1 / (w_j - w_i) off the diagonal, folded onto the triangle read
/// (PyTensor's EighGrad); undefined for repeated eigenvalues when v̄ is used.
class Eigh final : public LapackOp {
 public:
  Eigh(bool lower, bool compute_v) : lower_(lower), compute_v_(compute_v) {}
  THEANO_OP_DECLARE("Eigh")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {lower_, compute_v_}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override;
  THEANO_OP_PROPS((bool, lower), (bool, compute_v))
};

/// The singular value decomposition A = U diag(S) Vt (LAPACK's gesdd), S
/// descending; with compute_uv, the outputs (U, S, Vt), U m x m and Vt n x n
/// with full_matrices, else m x k and k x n (k = min(m, n)); without, S only.
/// Grad: S only, Ā = U diag(S̄) Vt; (U, S, Vt) without full_matrices:
/// Townsend 2016 "Differentiating the singular value decomposition" (distinct
/// nonzero singular values); with full_matrices none (as PyTensor).
class SVD final : public LapackOp {
 public:
  SVD(bool full_matrices, bool compute_uv) : full_matrices_(full_matrices), compute_uv_(compute_uv) {}
  THEANO_OP_DECLARE("SVD")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {full_matrices_, compute_uv_}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override;
  THEANO_OP_PROPS((bool, full_matrices), (bool, compute_uv))
};

/// The QR decomposition A = Q R (Householder: geqrf, orgqr), numpy's modes:
/// "reduced" (Q m x k, R k x n), "complete" (Q m x m, R m x n), "r" (R
/// only, k x n). Grad ("reduced" with m >= n, or "r" with m >= n):
/// Walter & Lehmann 2018 / Seeger et al. 2017, Ā = (Q̄ + Q copyltu(M)) R^-T,
/// M = R R̄^T - Q̄^T Q.
class QR final : public LapackOp {
 public:
  explicit QR(std::string mode);
  THEANO_OP_DECLARE("QR")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override;
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override;
  THEANO_OP_PROPS((std::string, mode))
};

/// The LU factorization with partial pivoting of a square matrix (getrf), as
/// scipy's lu_factor: outputs LU (L's strict lower part, L's unit diagonal
/// implied, and U) and the int32 pivots (0-based: row i was swapped with row
/// piv[i], in order). A singular matrix factors (U has a zero on its
/// diagonal), as scipy's. Grad (of LU; the pivots are piecewise constant):
/// from P^T dA = dL U + L dU, Ā = P L^-T (tril(L^T L̄, -1) + triu(Ū U^T)) U^-T
/// with L̄ = tril(LU‾, -1), Ū = triu(LU‾).
class LUFactor final : public LapackOp {
 public:
  LUFactor() = default;
  THEANO_OP_DECLARE("LUFactor")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {2, 1}; }
};

/// LAPACK's sequential row swaps (lu_factor's int32 pivots) as a row order,
/// int64: perm with A[perm] = L U, or with `inverse` p with A = L[p] U
/// (scipy's lu(p_indices=True)). Pivots that are not LAPACK's (piv[i] < i or
/// >= n) are a ValueError. No gradient (integers).
class PivotToPermutation final : public LapackOp {
 public:
  explicit PivotToPermutation(bool inverse) : inverse_(inverse) {}
  THEANO_OP_DECLARE("PivotToPermutation")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {inverse_}; }
  std::vector<int> core_in_ranks() const override { return {1}; }
  std::vector<int> core_out_ranks() const override { return {1}; }
  THEANO_OP_PROPS((bool, inverse))
};

/// cholesky(x, lower=true, on_error="raise" | "nan").
Var cholesky(const TensorLike& x, bool lower = true, std::string_view on_error = "raise");
/// solve_triangular(a, b, trans (0/"N", 1/"T"), lower, unit_diagonal), scipy's argument order.
Var solve_triangular(const TensorLike& a, const TensorLike& b, bool lower = false, int trans = 0,
                     bool unit_diagonal = false);
/// cho_solve((c, lower), b): x with A x = b where c is A's Cholesky factor.
Var cho_solve(const std::pair<TensorLike, bool>& c_and_lower, const TensorLike& b);
/// solve(a, b, assume_a = "gen" | "sym" | "pos", lower). A 1-d b (b_ndim 1) is a vector.
Var solve(const TensorLike& a, const TensorLike& b, std::string_view assume_a = "gen", bool lower = false);
Var inv(const TensorLike& x);
/// numpy.linalg.pinv(x) (MatrixPinv).
Var pinv(const TensorLike& x);
/// The minimum-norm least-squares solution of a x = b (numpy's lstsq's first
/// output; lstsq_full gives the others): for a matrix a lstsq_full's x (NumPy's
/// rank cut), for a batch of matrices pinv(a) b (pinv's cut, 1e-15 s[0]).
Var lstsq(const TensorLike& a, const TensorLike& b);
/// numpy.linalg.lstsq(a, b, rcond=None) for a matrix a (m x n) and b of rank
/// 1 or 2: {x, residuals, rank, s}. x = V diag(1 / s) U^T b over the
/// singular values above the rank's cut (NumPy's; lstsq's pinv cuts at
/// 1e-15 s[0], which float32 rounding passes); residuals: the squared
/// 2-norm of each column of a x - b, shape (k,) ((1,) for a vector b), and
/// empty (0,) unless rank == n < m (NumPy's rule: the length is decided at
/// run time); rank (int64, 0-d): the singular values above
/// eps * max(m, n) * s[0] (NumPy's default rcond); s: svdvals(a).
std::vector<Var> lstsq_full(const TensorLike& a, const TensorLike& b);
Var det(const TensorLike& x);
/// {sign, log|det|}.
std::pair<Var, Var> slogdet(const TensorLike& x);
/// {w, v}: eigenvalues ascending, eigenvectors as columns; UPLO "L" or "U".
std::pair<Var, Var> eigh(const TensorLike& x, std::string_view UPLO = "L");
Var eigvalsh(const TensorLike& x, std::string_view UPLO = "L");
/// {U, S, Vt} (compute_uv; PyTensor's svd(x, full_matrices, compute_uv)).
std::vector<Var> svd(const TensorLike& x, bool full_matrices = true, bool compute_uv = true);
/// The singular values alone (svd with compute_uv=false).
Var svdvals(const TensorLike& x);
/// {Q, R} ("reduced", "complete") or {R} ("r").
std::vector<Var> qr(const TensorLike& x, std::string_view mode = "reduced");

/// {LU, piv} as scipy's lu_factor.
std::pair<Var, Var> lu_factor(const TensorLike& x);
/// x with A x = b (trans 0) or A^T x = b (trans 1) from lu_factor's {LU, piv}:
/// two triangular solves on LU and the rows permuted (a graph of
/// SolveTriangular and PivotToPermutation, so its gradient is theirs).
Var lu_solve(const std::pair<TensorLike, TensorLike>& lu_and_piv, const TensorLike& b, int trans = 0);
/// scipy's lu: {P, L, U} with A = P L U; p_indices: {p, L, U} with
/// A = L[p] U (p int64); permute_l: {P L, U}. Built on lu_factor.
std::vector<Var> lu(const TensorLike& x, bool permute_l = false, bool p_indices = false);
/// PivotToPermutation on lu_factor's pivots.
Var pivot_to_permutation(const TensorLike& piv, bool inverse = false);

/// x with its last two axes swapped (PyTensor's `.mT`).
Var matrix_transpose(const TensorLike& x);
/// numpy.matmul (batch dims broadcast; a 1-d operand gets an axis that is
/// dropped from the result): Dot for operands of rank <= 2, else one
/// BatchedDot (batched_blas.h) of float operands, a broadcast product summed
/// over the contracted axis for other dtypes. docs/einsum.md.
Var matmul(const TensorLike& a, const TensorLike& b);

}  // namespace theano::tensor::linalg
