/// \file
/// The Canonizer (add/mul canonicalization), algebra simplifications, fill cut /
/// fill sink and the stabilizations (helper work in progress).
#include "rewrites.h"

namespace theano::rewrite::detail {

void register_algebra_rewrites(SequenceDB&) {}

}  // namespace theano::rewrite::detail
