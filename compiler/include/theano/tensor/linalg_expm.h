/// The matrix exponential, linalg::expm (docs/linalg.md): a LAPACK-backed op
/// (LapackOp, theano/tensor/linalg.h) whose kernel is
/// kernels/linalg_expm.h, Higham 2005's scaling and squaring with Padé
/// approximants, computed in double. Kept out of linalg.h so that the headers
/// most units include do not change with it.
#pragma once

#include "theano/tensor/linalg.h"

namespace theano::tensor::linalg {

/// exp(A) of a square matrix (leading dims a batch), scipy.linalg.expm.
/// Grad: the Fréchet derivative of exp at A^T applied to Ḡ, read from the
/// upper-right block of expm([[A^T, Ḡ], [0, A^T]]) (Mathias 1996; Higham
/// 2008, "Functions of Matrices", Thm. 3.6), itself an Expm of twice the size,
/// so gradients of any order exist.
class Expm final : public LapackOp {
 public:
  Expm() = default;
  THEANO_OP_DECLARE("Expm")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  int la_kind() const override;
  std::vector<std::int64_t> la_options() const override { return {}; }
  std::vector<int> core_in_ranks() const override { return {2}; }
  std::vector<int> core_out_ranks() const override { return {2}; }
};

/// scipy.linalg.expm(x) over the last two axes (integers upcast to float64).
Var expm(const TensorLike& x);

/// The Fréchet derivative L(A, E) of exp at A in direction E (scipy's
/// expm_frechet's second output): expm([[A, E], [0, A]])[..., :n, n:].
Var expm_frechet(const TensorLike& A, const TensorLike& E);

}  // namespace theano::tensor::linalg
