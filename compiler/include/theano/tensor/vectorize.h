/// \file
/// PyTensor's `vectorize` and Blockwise: a computation written for core
/// inputs (their ranks given by a NumPy gufunc signature such as
/// "(m,n),(n)->(m)") applied over the leading batch axes of its inputs,
/// broadcast together as NumPy broadcasts. The batch is flattened into one
/// axis and run as a Scan map over it, so the result has the Scan's C++
/// form and gradient; a core op that already takes batch axes (the linear
/// algebra ops, BatchedDot) is better called directly (docs/array-ops.md,
/// "vectorize").
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"

namespace theano::tensor {

/// The core ranks of a gufunc signature: one per input, one per output.
struct CoreSignature {
  std::vector<int> inputs, outputs;
};
/// Parses "(m,n),(n)->(m)" ("()" a scalar); ValueError naming the text.
CoreSignature parse_signature(std::string_view signature);

/// fn(core inputs) -> core outputs, applied over the batch axes of `inputs`
/// (each input's leading axes beyond its core rank; broadcast together, a
/// size-1 batch axis broadcasting where its type says 1). Outputs: the batch
/// shape followed by each core output's shape. No batch axis: fn(inputs).
std::vector<Var> vectorize(const std::function<std::vector<Var>(const std::vector<Var>&)>& fn,
                           const std::vector<Var>& inputs, std::string_view signature);

/// PyTensor's Blockwise: `core_op` applied over the batch axes of `inputs`
/// (vectorize of one node of it).
std::vector<Var> blockwise(const OpPtr& core_op, const std::vector<Var>& inputs, std::string_view signature);

}  // namespace theano::tensor
