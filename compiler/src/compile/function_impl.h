/// \file
/// The compiled, immutable part of a Function, shared by its copies (private
/// to compiler/src/compile).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "theano/compile/function.h"
#include "theano/fgraph/function_graph.h"
#include "theano/rewrite/rewriter.h"

namespace theano::detail {

// The FunctionGraph's outputs: the user's outputs, then the In::update
// expressions (input_updates), then the shared variables' updates.
struct FunctionImpl {
  std::string name;
  Mode mode;
  std::vector<In> ins;                       // as given (user variables)
  std::vector<Var> input_vars;               // ins[i].variable
  std::vector<Var> user_outputs;             // as given (Function::outputs)
  std::vector<Var> outputs;                  // the compiled ones: a sparse output's four components in its place
  std::vector<bool> out_borrow;              // per compiled output
  bool sparse_outputs = false;               // whether some user output is sparse (sparse::call)
  std::vector<std::size_t> input_updates;    // explicit inputs with In::update, in graph-output order
  std::vector<std::pair<Var, Var>> updates;  // (user shared variable, expression), defaults included
  std::vector<Var> shared_vars;              // user shared variables, in graph-input order
  std::vector<int> update_target;            // per update: index into shared_vars
  std::vector<std::size_t> overwritable;     // thunk inputs code may overwrite: In::mutable_, then updated shared
  std::vector<bool> strict, allow_downcast;  // per explicit input
  std::vector<bool> downcast_unset;          // per explicit input: neither In nor the options set allow_downcast
  FunctionOptions options;                   // as given (Function::copy(delete_updates) compiles again)
  std::vector<NDArray> constants;            // constant values inside the graph (aliasing checks)
  std::size_t nresults = 0;                  // the thunk's outputs: the outputs, then the update values
  std::shared_ptr<const FunctionGraph> fgraph;
  // Set when the thunk came from a function record (function.cpp,
  // find_request): no FunctionGraph was built and the optimizer did not run
  // (`fgraph` is null), and Function::fgraph() builds the optimized graph on
  // first use.
  std::function<std::shared_ptr<const FunctionGraph>()> optimize_later;
  mutable std::once_flag optimized_once;
  mutable std::shared_ptr<const FunctionGraph> optimized;
  std::unique_ptr<Thunk> thunk;
  rewrite::RewriteStats rewrite_stats;     // what the optimizer did
  bool trust_input = false;
  bool profile = false;
  double rewrite_ms = 0;
  std::optional<std::string> gpu_context;  // THEANO_FLAGS device's GPU (gpu/context.h), nullopt: the CPU
  mutable std::mutex profile_mutex;  // guards calls / call_seconds
  mutable std::uint64_t calls = 0;
  mutable double call_seconds = 0;

  /// `function "name"` or `function` for messages.
  std::string what() const { return name.empty() ? std::string("function") : "function \"" + name + "\""; }
};

/// A copy(swap)'s view of its shared variables: `vars[k]` stands for
/// FunctionImpl::shared_vars[k] (the replacement where one was swapped in),
/// and `updates` are FunctionImpl::updates with the same substitution of the
/// updated variables.
struct Swapped {
  std::vector<Var> vars;
  std::vector<std::pair<Var, Var>> updates;
};

}  // namespace theano::detail
