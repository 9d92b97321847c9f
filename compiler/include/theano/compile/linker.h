/// \file
/// The `Linker` interface and its registry (docs/architecture.md, "Layers": compiler/ defines the
/// interface, codegen/ registers its JIT linkers), plus the modes that pick a
/// linker.
///
/// Why: `function()` must not know how a FunctionGraph becomes something that
/// runs. A Linker turns a (finished) FunctionGraph into a `Thunk`: a callable
/// that reads one value per graph input and writes one value per graph output.
/// The reference linker, `PerformLinker` ("py", also "perform"), walks the
/// toposort and calls each op's `perform`; codegen/'s CLinker ("cpp", also "c",
/// and "opwise") emits and compiles C++ instead. Linkers are created by name
/// through `make_linker`, so codegen/ registers its linkers at start-up
/// without compiler/ depending on it.
///
/// Invariants: a Thunk never mutates the FunctionGraph; `run` is const and
/// may be called from several threads at once, so one Thunk serves every
/// copy of a Function (a thunk that keeps buffers between calls keeps one set
/// per concurrent call). A Thunk never writes into an input
/// value unless its `LinkOptions::mutable_inputs` flag allows it (an op with a
/// destroy_map on a protected input receives a copy).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "theano/function_ref.h"
#include "theano/runtime/ndarray.h"

namespace theano {

class Apply;
class FunctionGraph;
class Var;

/// What a linker measured while building a thunk, and per-node run times when
/// it keeps them (the "opwise" linker with LinkOptions::profile).
struct ThunkStats {
  double codegen_ms = 0;         ///< lowering the graph to source
  double compile_ms = 0;         ///< the C++ compiler
  /// compile_ms by phase (a single translation unit; several: the slowest
  /// unit's): front end, -O pipeline, machine code. 0 on a cache hit.
  double frontend_ms = 0, optimize_ms = 0, machine_code_ms = 0;
  /// Loading the code: linking the object (ORC), or dlopen of the
  /// compiledir's shared library (on the miss that made the object, linking
  /// that library too, 1-3 ms).
  double load_ms = 0;
  /// The code was loaded as the compiledir's shared library (dlopen), not
  /// linked into the process by the JIT.
  bool shared_library = false;
  std::size_t source_bytes = 0;  ///< size of the generated source (all its translation units)
  std::size_t translation_units = 0;  ///< the source's translation units, compiled on as many threads
  /// Of those, the units whose front end read the prelude precompiled
  /// (docs/jit-and-cache.md, "The precompiled prelude").
  std::size_t precompiled_preludes = 0;
  std::string source_path;       ///< where the generated source was kept (THEANO_FLAGS keep_sources), else ""
  std::string cache;             ///< compile cache: "hit", "miss", "off", or "" for linkers without one
  /// The thunk came from a function record (Linker::thunk_for_request, a
  /// "hit"): no rewrite, source generation or compile ran for it.
  bool function_record = false;
  double cache_ms = 0;           ///< key, look-up, lock wait and publish time (compile excluded)
  std::string cache_key;         ///< the compiledir key of the generated code
  /// Tiered compilation (THEANO_FLAGS tiered_compile): "" when the code was
  /// compiled once; else the code the calls run now: "-O0, optimizing"
  /// while the optimized code compiles in the background, "-O2" once it took
  /// over, "-O0 (optimizing failed: <why>)".
  std::string tier;
  /// The GPU side (functions with GPU nodes), e.g. "cubin sm_90, cache hit,
  /// 41.2 ms" or "emulated (host object), cache miss, 70.1 ms"; "" without.
  std::string gpu;
  struct Node {
    std::string name;  ///< "node 3 (Elemwise{add})"
    double seconds = 0;
    std::uint64_t calls = 0;
  };
  std::vector<Node> nodes;  ///< per node in toposort order, when timed
};

/// A compiled program for one FunctionGraph.
class Thunk {
 public:
  virtual ~Thunk() = default;
  /// Build times and, when the thunk keeps them, per-node run times so far.
  virtual ThunkStats stats() const { return {}; }
  /// `inputs[i]` is the value of `fgraph.inputs()[i]` (already filtered into its
  /// type); `outputs` (sized like `fgraph.outputs()`) receives the results.
  /// Errors raised by an op are rethrown with the same exception type and a
  /// message naming the Apply node, its toposort index and its input
  /// types/shapes.
  virtual void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const = 0;
  /// run() on values the caller holds (function() passes its arguments so,
  /// without a copy of each per call). The default copies them for run().
  virtual void run_refs(std::span<const NDArray* const> inputs, std::span<NDArray> outputs) const;
  /// The constant values the compiled program reads (an output may alias
  /// one; function() copies such outputs). Empty when the thunk's graph's
  /// constants are all it uses.
  virtual std::vector<NDArray> constant_values() const { return {}; }
};

/// One node's run, as a linker that runs node by node reports it to a
/// NodeObserver (the checking modes, debug_mode.h and nan_guard.h).
struct NodeRun {
  std::size_t index;  ///< toposort index
  const Apply& node;
  std::span<const NDArray> inputs;         ///< what the node read (an input it destroys holds its new contents)
  std::span<const NDArray> inputs_before;  ///< copies taken before it ran, when asked for; else empty
  std::span<const NDArray> outputs;        ///< what it produced (may be reused by later nodes: check now)
};

/// Called by the thunk after every node (LinkOptions::observer). `after_node`
/// may throw: the call is abandoned with that exception. It runs on the thread
/// calling the thunk, so it must be thread-safe.
class NodeObserver {
 public:
  virtual ~NodeObserver() = default;
  /// Whether NodeRun::inputs_before is wanted (one copy of every input per node).
  virtual bool wants_inputs_before() const { return false; }
  virtual void after_node(const NodeRun& run) const = 0;
};

struct LinkOptions {
  /// One flag per graph input: true when ops may overwrite that input's value
  /// in place (In::mutable_). Missing entries mean "protected".
  std::vector<bool> mutable_inputs;
  /// One flag per graph output: true when the caller accepts that the returned
  /// array is recycled by the next call (Out::borrow). Missing entries: false.
  std::vector<bool> borrow_outputs;
  /// Favour compilation speed over run-time speed (modes fast_compile / o1):
  /// the cpp linker compiles at -O0.
  bool fast_compile = false;
  /// Time every node on every call (the "opwise" linker does).
  bool profile = false;
  /// Observe every node (the checking modes): "py" calls it after each
  /// perform, the cpp linkers then run node by node as "opwise" does.
  std::shared_ptr<const NodeObserver> observer;
  /// The function request's canonical text (compile/request_text.h), or "":
  /// a linker with a cache records what make_thunk built under it, for
  /// `thunk_for_request`.
  std::string request;
};

class Linker {
 public:
  virtual ~Linker() = default;
  /// The registered name, e.g. "py".
  virtual std::string_view name() const = 0;
  /// Called by function() before it rewrites the graph: a back end may start
  /// one-time setup in the background here (the JIT creates its ORC session).
  virtual void prepare() const {}
  /// The thunk a make_thunk with an equal `options.request` built before (in
  /// this process or another, through the linker's cache), made without
  /// rewriting, generating or compiling anything; null when there is none
  /// or the linker keeps no such records. `inputs` are the request's
  /// inputs (the user's variables: no FunctionGraph is built for a hit), and
  /// the thunk has `noutputs` outputs.
  virtual std::unique_ptr<Thunk> thunk_for_request(const std::vector<Var>& inputs, std::size_t noutputs,
                                                   const LinkOptions& options) const {
    (void)inputs;
    (void)noutputs;
    (void)options;
    return nullptr;
  }
  /// Whether make_thunk records requests and thunk_for_request can find
  /// them now (function() only writes a request's text when it can be used).
  virtual bool keeps_function_records() const { return false; }
  /// Prepares `fgraph` for execution. The Thunk keeps `fgraph` alive.
  virtual std::unique_ptr<Thunk> make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                            const LinkOptions& options = {}) const = 0;
};

using LinkerFactory = Callback<std::unique_ptr<Linker>()>;

/// Registers (or replaces) the linker `name`. Thread-safe.
void register_linker(std::string name, LinkerFactory factory);
/// A new linker by name; ValueError listing the registered names when unknown.
std::unique_ptr<Linker> make_linker(std::string_view name);
/// The registered linker names, sorted.
std::vector<std::string> registered_linkers();

/// The reference VM: calls each op's `perform` in toposort order, with
/// Constants preloaded and every intermediate value released as soon as its
/// last client has run. Registered as "py" and "perform".
std::unique_ptr<Linker> make_perform_linker();

/// A compilation mode: the optimizer query (named by the mode, see
/// rewrite::mode_query) and the linker to use.
struct Mode {
  std::string name;    ///< canonical lower-case name, e.g. "fast_run"
  std::string linker;  ///< registered linker name
};

/// The modes `function()` accepts (case-insensitive): fast_run (= o4),
/// fast_compile (= o1), o1, o2, o3, o4, stabilize, unsafe, and unoptimized
/// (no rewrites). Each runs its optimizer query (optdb_layout.cpp) and links
/// with the JIT linker "cpp" when codegen/ is linked into the program (the
/// `theano` target), else with the PerformLinker "py"; fast_compile compiles
/// the generated code at -O0 (LinkOptions::fast_compile). The checking modes
/// DebugMode and NanGuardMode (debug_mode.h, nan_guard.h) optimize as fast_run
/// and observe every node of that linker.
std::vector<std::string> valid_modes();
/// Resolves `name` (empty: THEANO_FLAGS `mode`, else fast_run) and the linker
/// (THEANO_FLAGS `linker` overrides the mode's). ValueError listing the valid
/// modes (or linkers) when unknown.
Mode get_mode(std::string_view name = {});

}  // namespace theano
