/// \file
/// What a node rewriter's `tracks` may name (op_kinds.cpp): checked by
/// EquilibriumDB::register_rewrite. Internal to compiler/src/rewrite.
#pragma once

#include <string>
#include <string_view>

#include "theano/rewrite/rewriter.h"

namespace theano::rewrite {

/// Empty when `track` is something a node is dispatched on (dispatch_keys): a
/// registered op kind (the library's, or register_op_kind's), `Gpu` + one
/// (GpuOp), or `Elemwise:<row of the scalar op table>`; otherwise why not.
std::string invalid_track_reason(std::string_view track);

}  // namespace theano::rewrite
