/// \file
/// ShapeFeature and shape promotion, reshape chain, inc_subtensor serialization
/// (work in progress).
#include "rewrites.h"

namespace theano::rewrite::detail {

void register_shape_rewrites(SequenceDB&) {}

}  // namespace theano::rewrite::detail
