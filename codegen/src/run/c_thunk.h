/// \file
/// The host side of generated code (internal to codegen/): the Thunk that
/// runs a loaded module, its per-call workspaces, and the host callbacks
/// generated code calls (perform fallback, output allocation; for GPU nodes,
/// GPU memory, transfers and kernel launches through the GpuProgram). CLinker
/// (c_linker.cpp) generates, compiles and loads the code and hands the module
/// and these parts to make_c_thunk.
#pragma once

#include <theano/codegen/jit_loader.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/ndarray.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../emit/array_ref.h"
#include "../thunk_abi.h"

namespace theano::codegen {

namespace cuda {
class GpuProgram;
}

/// The optimized code of a thunk whose first code was compiled without
/// optimization (tiered compilation, c_linker.cpp): the background compile
/// loads it here, and the thunk's calls switch to its entry. The module the
/// thunk started with stays loaded until the thunk dies (a call may still be
/// running it).
struct TierSlot {
  using Entry = int (*)(TheanoContext*);
  std::atomic<Entry> entry{nullptr};  ///< the optimized entry, once loaded
  std::mutex mu;
  LoadedModule optimized;  ///< under mu
  std::string state = "-O0, optimizing";  ///< ThunkStats::tier, under mu
};

/// What make_thunk hands the thunk besides the loaded module.
struct ThunkParts {
  std::vector<NDArray> constants;
  std::int64_t nslots = 0;
  std::vector<std::size_t> copy_inputs;  // protected inputs some op overwrites
  std::vector<const Apply*> fallback;    // perform-fallback nodes
  bool opwise = false;
  bool profile = false;      // OpWise: time every node
  std::int64_t threads = 1;  // loop threads (THEANO_FLAGS threads)
  std::int64_t nvars = 0;
  std::vector<std::string> labels;
  ThunkStats stats;                                      // build times
  std::shared_ptr<const NodeObserver> observer;          // OpWise: called after every node
  std::vector<std::vector<ArrayRef>> step_in, step_out;  // OpWise: per node, for the observer
  std::vector<const Apply*> step_nodes;
  /// The function's kernels on its GPU (null for a CPU-only function).
  std::shared_ptr<const cuda::GpuProgram> gpu;
  /// Tiered compilation: where the optimized code arrives (null: the module
  /// is the code).
  std::shared_ptr<TierSlot> tier;
};

/// The most arrays one call of `thunk` (a thunk of make_c_thunk; 0 for
/// another) held in its workspace at once: the memory a call keeps besides
/// its planned slots; a scan's loop releases each step's (for tests).
std::size_t peak_arrays(const Thunk& thunk);

/// What a thunk's calls check their arguments against: the function's
/// inputs (their types; their names in the messages) and its number of
/// outputs. `graph` keeps the graph that the parts' Apply pointers
/// (fallback, step_nodes) point into alive; null for a thunk made from a
/// function record, which has none.
struct ThunkSignature {
  std::vector<Var> inputs;
  std::size_t noutputs = 0;
  std::shared_ptr<const FunctionGraph> graph;
};

/// The thunk over `module` (the loaded code of `signature`'s function);
/// `load_start` is when loading began (the entry symbols are looked up here:
/// part of load_ms).
std::unique_ptr<Thunk> make_c_thunk(ThunkSignature signature, LoadedModule module, ThunkParts parts,
                                    std::chrono::steady_clock::time_point load_start);
/// The same for a thunk of `fg` (its inputs and outputs; the thunk keeps it).
std::unique_ptr<Thunk> make_c_thunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, ThunkParts parts,
                                    std::chrono::steady_clock::time_point load_start);

}  // namespace theano::codegen
