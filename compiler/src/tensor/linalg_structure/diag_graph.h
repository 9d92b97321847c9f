// The graph forms the ops of linalg_structure.h share: a diagonal as a
// strided slice of the matrix reshaped to a vector, its inverse (zeros with
// that slice set), the diagonal's length, and the axis permutations that
// move a plane's two axes last and back. ExtractDiag's and AllocDiag's
// `expanded` and ExtractDiag's gradient are built from these, so the one
// index rule (element i of diagonal `offset` of an n x m plane is element
// start + i * (m + 1) of its row-major flattening) is written once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano::tensor::linalg::detail {

/// `axis` (negative counts from the end) resolved against rank nd; a ValueError naming `fn`, the axis (`which`),
/// its value and `subject` ("x of rank 2") otherwise.
int resolve_axis(int axis, int nd, const char* fn, const char* which, const std::string& subject);
/// Both axes resolved; a ValueError when they name one axis.
std::pair<int, int> resolve_axis_pair(int axis1, int axis2, int nd, const char* fn, const std::string& subject);
/// An int64 scalar constant.
Var int64_constant(std::int64_t v);
/// The length of diagonal `offset` of an n x m plane, max(0, min(n - max(-offset, 0), m - max(offset, 0))),
/// for int64 scalars n and m.
Var diag_length(const Var& n, const Var& m, int offset);
/// The same for known sizes (checked: |offset| may be as large as an int).
std::int64_t diag_length(std::int64_t n, std::int64_t m, int offset);
/// Diagonal `offset` of the planes spanned by the last two axes of x (rank >= 2), appended as the last axis
/// to x's leading axes: x reshaped to (..., n * m) (a view when the strides allow) and sliced
/// [start : start + (k - 1) * (m + 1) + 1 : m + 1].
Var take_diagonal(const Var& x, int offset);
/// g (..., k) on diagonal `offset` of zeros of shape (..., n, m): the inverse of take_diagonal; k must be the
/// diagonal's length (set_subtensor's shape check says so otherwise).
Var place_diagonal(const Var& g, int offset, const Var& n, const Var& m);
/// The permutation of a rank-nd tensor that keeps the other axes in order and puts axis1, then axis2, last.
std::vector<int> axes_last(int nd, int axis1, int axis2);
/// The inverse permutation.
std::vector<int> inverse_permutation(const std::vector<int>& perm);
/// dimshuffle(x, perm), or x when perm is the identity.
Var permuted(const Var& x, const std::vector<int>& perm);

}  // namespace theano::tensor::linalg::detail
