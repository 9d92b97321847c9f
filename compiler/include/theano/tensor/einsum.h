/// \file
/// numpy.einsum's string form over symbolic tensors: `einsum("bij,bjk->bik",
/// {a, b})`. Why a graph function and not an op: every einsum is a sequence of
/// pairwise contractions, each of which is a tensordot (Dot22) or a BatchedDot
/// once its operands are transposed and reshaped, so the BLAS rewrites,
/// gradients, lowerings and the GPU forms of those ops serve einsum at no
/// extra cost. docs/einsum.md.
#pragma once

#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

/// numpy.einsum(subscripts, *operands): letters a-z, A-Z name axes, `...`
/// stands for the leading (broadcast) axes, `->` gives the output (implicit:
/// `...` first, then the letters used once, in alphabetical order, uppercase
/// before lowercase as NumPy). A letter repeated in one operand takes its
/// diagonal; a letter absent from the output is summed. An axis of static
/// size 1 broadcasts against the same letter's other sizes. The contraction
/// order is opt_einsum's greedy path (each step contracts the pair whose
/// result is smallest relative to its operands). Output dtype: NumPy's
/// promotion of the operands. ValueError for bad subscripts (naming the
/// subscripts and the operand), ShapeError for static sizes of one letter
/// that differ.
Var einsum(const std::string& subscripts, const std::vector<TensorLike>& operands);

/// The contraction order einsum takes: pairs of positions in the list of
/// operands still to contract (each step removes the two and appends their
/// result), as opt_einsum's `contract_path` lists them. For tests and docs.
std::vector<std::pair<int, int>> einsum_path(const std::string& subscripts, const std::vector<TensorLike>& operands);

}  // namespace theano::tensor
