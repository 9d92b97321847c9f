// Internal to einsum (einsum.cpp, parse.cpp): the subscripts as integer
// labels. A letter is its position in "A..Z a..z" (0-51, NumPy's order);
// the axes `...` stands for are labels kEllipsisLabel + i, right-aligned
// across operands (the i-th of the broadcast leading axes).
#pragma once

#include <string>
#include <vector>

#include "theano/graph/basic.h"

namespace theano::tensor::einsum_detail {

constexpr int kEllipsisLabel = 52;

struct Subscripts {
  std::vector<std::vector<int>> inputs;  ///< one label per axis of each operand
  std::vector<int> output;               ///< the output's labels, in order
};

/// Parses numpy.einsum's subscripts against the operands' ranks: ValueError
/// naming the subscripts and the operand for a bad character, a misplaced or
/// repeated `...`, a rank that differs from the letters given, an output
/// letter that no operand has or that repeats, and a missing `...` in an
/// explicit output when operands have axes under `...`.
Subscripts parse(const std::string& subscripts, const std::vector<Var>& operands);

/// "a", "Z", or "...[i]" for an axis under the ellipsis (messages).
std::string label_text(int label);

}  // namespace theano::tensor::einsum_detail
