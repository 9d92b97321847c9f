/// \file
/// Aliasing and connectivity queries: `view_roots` follows `view_map` back to
/// the variables whose memory a view shares (DestroyHandler uses it), and
/// `io_connection_pattern` says which inputs each output depends on (grad and
/// inner-graph ops use it).
#pragma once

#include <vector>

#include "theano/graph/basic.h"

namespace theano {

/// The variables whose storage `r` may alias through chains of view_map
/// (`r` itself when it is not a view).
std::vector<Var> view_roots(const Var& r);

/// `[input][output]`: whether output depends on input through the ops'
/// connection patterns.
std::vector<std::vector<bool>> io_connection_pattern(const std::vector<Var>& inputs, const std::vector<Var>& outputs);

}  // namespace theano
