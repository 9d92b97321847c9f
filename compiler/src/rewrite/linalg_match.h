/// \file
/// What the rewrites of the LAPACK-backed ops (linalg_solve.cpp,
/// linalg_det.cpp; docs/linalg.md, "Rewrites") ask of a graph: whether a
/// variable is a matrix transpose, the product of two operands (a Dot or the
/// batched matmul graph of theano/tensor/linalg.h), which structure its last
/// two axes are known to have (triangular, diagonal) and whether it is known
/// symmetric. Every answer is structural (read from the ops that compute the
/// variable, never from values), and "unknown" is always a safe answer:
/// a rewrite that gets it does not apply. Private to compiler/src/rewrite.
#pragma once

#include <optional>

#include "theano/graph/basic.h"

namespace theano::rewrite::detail::la {

template <class OpT>
const OpT* op_of(const Var& v) {
  return v && v.owner() ? dynamic_cast<const OpT*>(v.owner()->op().get()) : nullptr;
}

/// X when v = matrix_transpose(X): a DimShuffle that swaps the last two axes
/// and keeps the others in place; a null Var otherwise.
Var transpose_input(const Var& v);
/// v's matrix transpose without a double transpose: X when v = X.mT, else v.mT.
Var transposed(const Var& v);

/// What is known of the last two axes of a tensor: zeros above the diagonal
/// (Lower), below it (Upper), off it (Diagonal, both), or nothing (General).
enum class Structure { General, Lower, Upper, Diagonal };
/// From the ops computing v: Cholesky (its triangle), Tril (k <= 0), Triu
/// (k >= 0), AllocDiag (offset 0 on the last two axes), Eye (k = 0),
/// transposes of these, and elementwise mul / neg / true_div (numerator) of
/// them by anything (a 0 times a finite value stays 0), add / sub of
/// structured operands (the common structure).
Structure structure_of(const Var& v);
inline bool is_lower(Structure s) { return s == Structure::Lower || s == Structure::Diagonal; }
inline bool is_upper(Structure s) { return s == Structure::Upper || s == Structure::Diagonal; }

/// Whether v's last two axes are known to be square: equal static sizes, or
/// an op whose output is square by construction (Cholesky, MatrixInverse,
/// AllocDiag with offset 0 on the last two axes), through transposes and
/// elementwise ops.
bool is_square(const Var& v);

/// Whether v is known symmetric in its last two axes: a diagonal structure,
/// X X^T and X^T X, the transpose or the inverse of a symmetric matrix, an
/// elementwise op of symmetric operands and operands constant over the two
/// axes, and for add / mul also operands that come in transposed pairs
/// (a[:, None] + a[None, :]), a constant with symmetric values.
bool is_symmetric(const Var& v);

/// The operands of a matrix product: `left @ right` (each possibly a vector
/// for a Dot). `left` / `right` are the tensors multiplied (a transposed
/// operand of the matmul graph is returned as X.mT, built here when needed).
struct Product {
  Var left, right;
};
/// v = dot(a, b) (Dot, Dot22), v = BatchedDot(a, b) (what matmul of float
/// operands of rank >= 3 builds; an operand matmul padded with leading
/// size-1 axes is returned unpadded), or v = matmul(a, b) of other dtypes as
/// theano/tensor/linalg.h builds it (sum over the contracted axis of a
/// broadcast mul of two DimShuffles).
std::optional<Product> product_of(const Var& v);

}  // namespace theano::rewrite::detail::la
