/// \file
/// The canonical text of a function request: the user's graph as function()
/// receives it (before any rewrite), with everything else that decides what
/// gets compiled (mode, optimizer tags, flags, which inputs may be
/// overwritten, which outputs are borrowed). Private to compiler/src/compile.
///
/// Why: a linker with a cache keys the thunk it built by this text, so a
/// later function() with an equal request (in this process or another) finds
/// it without running the optimizer, generating source or compiling: the warm
/// start of issue 18. Two requests that could compile differently must never
/// get the same text, so it spells out everything exactly: every node's Op
/// (class and props, floats bit for bit), every type, every name (error
/// messages inside the compiled code quote them), every constant's bytes, all
/// THEANO_FLAGS but log_compile (it only reports), every inner graph (a
/// Scan's step) node by node. An Op whose props do not identify it
/// (Op::keyed_by_props) makes the request unkeyable: nullopt, and function()
/// takes the full path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"

namespace theano::detail {

struct RequestContext {
  std::string mode, linker;
  std::vector<std::string> including, excluding;  ///< FunctionOptions::optimizer_including / _excluding
  std::vector<bool> input_mutable, out_borrow;
  std::string device;  ///< the function's GPU context, or "" for the CPU
};

/// The canonical text of compiling the user's graph from `inputs` to
/// `outputs` (the FunctionGraph's inputs and outputs before it is built:
/// givens applied, nothing cloned) in `context` under the current config();
/// nullopt when some Op cannot be keyed. Written from the user's graph, so a
/// hit (Linker::thunk_for_request) builds no FunctionGraph at all.
std::optional<std::string> request_text(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                        const RequestContext& context);

}  // namespace theano::detail
