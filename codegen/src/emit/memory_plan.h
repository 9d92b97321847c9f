/// \file
/// The memory plan of a compiled function (internal to codegen/; docs/architecture.md,
/// "Generated code"), shared by the back ends: which intermediate buffers share a slot
/// that the host keeps between calls, which graph inputs an op overwrites.
#pragma once

#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/graph/basic.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace theano::codegen {

/// The memory plan (docs/architecture.md, "Generated code"): every buffer an op allocates for an
/// intermediate gets a slot; buffers whose lives do not overlap share a slot,
/// which the host keeps between calls and grows when a call needs more.
/// A buffer lives from its producer to the last reader of any view of it
/// (views and destroyed-in-place inputs are followed through view_map and
/// destroy_map), so a view never outlives its base. Buffers that reach a graph
/// output are fresh each call, unless the output is borrowed (Out::borrow),
/// in which case they get a slot of their own that is recycled on the next
/// call (Theano's no_recycling rule).
struct MemoryPlan {
  std::unordered_map<const Variable*, std::int64_t> slot;  // allocated variable -> slot (absent: fresh)
  std::int64_t nslots = 0;
  std::unordered_map<const Variable*, const Variable*> root;  // variable -> buffer it lives in (the first of several for an IfElse view)
  std::vector<std::size_t> destroyed_inputs;                  // graph inputs some op overwrites
};

/// The plan for `fg` run in the toposort `order`; `options.borrow_outputs`
/// says which outputs are borrowed.
MemoryPlan plan_memory(const FunctionGraph& fg, const std::vector<Apply*>& order, const LinkOptions& options);

}  // namespace theano::codegen
