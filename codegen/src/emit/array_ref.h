/// \file
/// ArrayRef (internal to codegen/): where one array of a compiled function
/// lives in its TheanoContext ('i': ctx->inputs, 'c': ctx->constants, 'v':
/// ctx->vars), by index.
///
/// Why a header of its own: the source generator assigns these (OpWise: each
/// node's inputs and outputs) and the host thunk reads them to hand a
/// NodeObserver the node's values; neither side should include the other's
/// header for it.
#pragma once

#include <cstdint>

namespace theano::codegen {

/// OpWise: where a node's input or output lives.
struct ArrayRef {
  char kind;
  std::int64_t index;
};

}  // namespace theano::codegen
