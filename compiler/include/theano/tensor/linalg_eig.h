/// The eigenproblem of a general real matrix, linalg::eig / eigvals
/// (docs/linalg.md): a LAPACK-backed op (LapackOp, theano/tensor/linalg.h)
/// whose kernel is kernels/linalg_eig.h (geev). Its outputs are complex:
/// complex dtypes are storage-only in this version (no elemwise arithmetic on
/// them; shapes, subtensors, joins and eval work), see docs/linalg.md.
#pragma once

#include <utility>

#include "theano/tensor/linalg.h"

namespace theano::tensor::linalg {

/// The eigenvalues w (n) and, with compute_v, the right eigenvectors v (the
/// columns, n x n, unit 2-norm with their largest component real) of a
/// square real matrix, as numpy.linalg.eig: complex128 for float64 input,
/// complex64 for float32. The order is LAPACK's (not sorted; a complex pair
/// consecutive, positive imaginary part first). No gradient (as PyTensor's
/// Eig): asking for one is a ValueError.
class Eig final : public LapackOp {
 public:
  explicit Eig(bool compute_v) : compute_v_(compute_v) {}
  THEANO_OP_DECLARE("Eig")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {compute_v_}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override;
  THEANO_OP_PROPS((bool, compute_v))
};

/// numpy.linalg.eig(x): {w, v}, complex (integers upcast to float64).
std::pair<Var, Var> eig(const TensorLike& x);
/// numpy.linalg.eigvals(x): w alone.
Var eigvals(const TensorLike& x);

}  // namespace theano::tensor::linalg
