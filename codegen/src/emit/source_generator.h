/// \file
/// The source generator of the CLinker (internal to codegen/): walks a
/// FunctionGraph in toposort order, lowers each node through the lowering
/// table (emit/lower/lowering.h) into a node function, plans memory
/// (memory_plan.h), and writes the host translation unit(s) plus, for GPU
/// nodes, the function's CUDA unit (emit/cuda_unit.h). c_linker.cpp compiles
/// and loads what it writes; the host thunk (c_thunk.h) runs it.
#pragma once

#include <theano/codegen/code_writer.h>
#include <theano/compile/lazy_schedule.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/graph/basic.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "array_ref.h"
#include "cuda_unit.h"
#include "lower/lowering.h"
#include "memory_plan.h"

namespace theano::codegen {

/// One generation: the graph, the options, and what lowering it produced.
struct Generator {
  const FunctionGraph& fg;
  LinkOptions options;
  bool allow_fallback = true;
  /// OpWise: every node output lives in ctx->vars and `theano_step(ctx, t)`
  /// runs node t alone, so the host can call (and time) the nodes one by one.
  bool opwise = false;
  std::vector<const Apply*> fallback;                      // nodes that run their perform through the host
  std::vector<std::string> labels;                         // per node, for profiles
  std::int64_t nvars = 0;                                  // OpWise: size of ctx->vars
  std::unordered_map<const Variable*, std::string> names;  // variable -> `const TheanoArray*` expression
  std::unordered_map<const Variable*, ArrayRef> refs;      // OpWise: variable -> where it lives
  std::vector<std::vector<ArrayRef>> step_in, step_out;    // OpWise: per node
  std::vector<const Apply*> step_nodes;                    // the order (the lazy schedule's)
  LazySchedule schedule;                                   // which nodes run under which IfElse branch
  std::vector<const Constant*> constants;
  std::vector<std::string> support_keys;
  CodeWriter support;  // shared helpers requested by lowerings
  /// Per node, its function (with its file-scope helpers) and what compiling
  /// it costs, roughly (source size; a tenth for unoptimized functions).
  struct NodeFunction {
    std::string text;         // `THEANO_LINKAGE` stands for its linkage
    std::string declaration;  // for a translation unit that calls it from outside
    std::size_t weight = 0;
  };
  std::vector<NodeFunction> functions;
  std::vector<NodeCode> blocks;
  MemoryPlan plan;
  cuda::CudaUnit cuda;      // the kernels of GPU nodes: the function's CUDA translation unit
  std::string gpu_context;  // the GPU context of the function's GPU arrays ("" for none)

  /// An inner graph (a scan's step, lower_scan): the prefixes of its node
  /// functions' names and messages, and the first memory slot it may use
  /// (its slots follow the outer graph's).
  std::string fn_prefix, label_prefix;
  std::int64_t slot_base = 0;

  std::string name_of(const Var& v);

  /// A node whose op has no lowering (or refused this node's types) calls
  /// the op's `perform` through the host, when the linker allows it (else
  /// LoweringError with `reason`; `why` goes into its message and the code).
  void perform_fallback(lower::NodeLowering& L, LoweringReason reason, const std::string& why);

  /// One GPU context per function (its kernels are one CUDA unit on one device).
  void note_gpu_context(const Apply& node);

  void lower_node(std::size_t t, const Apply& node);
  /// The C condition under which node t runs ("" when it always does): its
  /// guard's IfElse conditions, tested outermost first with &&.
  std::string guard_condition(std::size_t t);

  /// The translation units of the graph: one, or up to `max_units` when the
  /// node functions are big enough to be worth compiling on several threads
  /// (kSplitWeight each). Unit 0 holds the entry; the node functions of the
  /// others have external linkage and are declared in unit 0.
  std::vector<std::string> run(int max_units = 1);

  /// For an inner graph: its node functions and the function
  /// `static int <name>(TheanoContext*, const TheanoArray* const* in,
  /// TheanoArray* const* out)` that runs them in order (lazily under
  /// IfElse) and sets out[k] to output k (a view where the graph's output
  /// is one). Outputs are recycled buffers (slots), valid until the next run.
  std::string run_body(const std::string& name);
  /// The lowering of a Scan node (scan_lowering.cpp): its step graph
  /// through an inner Generator (node functions in this node's text) and a
  /// loop over the steps in the node function, writing each step's outputs
  /// into the stacked results. No call back into the host per step.
  void lower_scan(lower::NodeLowering& L);
};

/// The units as one text (keep_sources, the cache key).
std::string join_units(const std::vector<std::string>& units);

}  // namespace theano::codegen
