/// \file
/// The anchor workloads W1..W13 of docs/workloads.md as graphs: one
/// builder per workload, so the compile benchmark (cold / warm, in fresh
/// processes) and the call benchmarks build exactly the same functions.
///
/// A Workload holds what `function()` needs (inputs, outputs, options with
/// the shared-variable updates), the shared variables whose values after one
/// call enter the checksum, and optionally the call arguments generated bit
/// for bit from the SplitMix64 recipe. Building the graph is cheap; generating
/// the arguments of the big workloads is not, hence `with_args`.
#pragma once

#include <theano/theano.hpp>

#include <string>
#include <vector>

namespace theano::bench {

struct Workload {
  /// "W1", "W1s" (n = 10^3), "W2", "W3", "W4a".."W4c", "W5", "W6", "W6t" (W6
  /// with trust_input), "W7", "W7s", "W8", "W8g" (W8's gradient), "W9" (the RNN step), "W10" (the LeNet-5 step); "W1d" (W1 with its arrays on the GPU
  /// THEANO_FLAGS device selects: bench/run --device adds it after W1)
  std::string id;
  std::string size;  ///< as docs/workloads.md states it ("n=10^7", "4000x784", ...)
  DType dtype = DType::Float64;
  std::vector<In> inputs;
  std::vector<Out> outputs;
  FunctionOptions options;
  std::vector<NDArray> args;     ///< call arguments (empty unless built with_args)
  std::vector<Var> state;        ///< shared variables whose values after one call are checksummed
  std::vector<double> expected;  ///< float64 checksums of docs/workloads.md: outputs, then state
  double checksum_rtol = 1e-9;   ///< W4's sums depend on the summation order
  /// The call benchmark also times a second function compiled with
  /// THEANO_FLAGS threads=1 (W8, W8g: the single-thread figure beside the
  /// peers' single-threaded SciPy).
  bool one_thread_figure = false;
};

/// Every workload id, in docs/workloads.md order.
const std::vector<std::string>& workload_ids();

/// The compile-time-only rows of theano_compile_bench: "T1000", "T10000", a
/// chain of that many tanh (make_workload builds them; no arguments, no checksum).
const std::vector<std::string>& chain_ids();

/// Builds workload `id` in `dtype` (float64 or float32). ValueError for an
/// unknown id. With `with_args` the call arguments are generated too.
Workload make_workload(const std::string& id, DType dtype, bool with_args);

/// Compiles `w` (the timed part of a compile benchmark).
Function compile_workload(const Workload& w);

/// The checksums after a call that returned `outputs`: the float64 sum of
/// each output, then of each state variable's current value.
std::vector<double> checksums(const Workload& w, const std::vector<NDArray>& outputs);

}  // namespace theano::bench
