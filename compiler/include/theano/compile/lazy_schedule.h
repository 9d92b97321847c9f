/// \file
/// The lazy schedule of a FunctionGraph: which nodes only a branch of an
/// IfElse needs (control/ifelse.h), and an order that computes each
/// condition before the nodes it guards. Both linkers use it: the reference
/// VM skips a node whose guard is false, the cpp linker emits the node's
/// call inside `if (...)`. One place, so the two agree on what runs.
///
/// A node's guard is a conjunction of (IfElse, branch) terms: the node runs
/// iff every condition has the listed truth. It is computed from the
/// clients, outputs first: a graph output runs always; a node read by a
/// client C runs under C's guard, plus (I, then/else) when C is IfElse I and
/// the node's value is only one of I's branch inputs; a node with several
/// readers runs under the terms all of them share (a safe
/// over-approximation: a node may run in vain, never be missing). Guards are
/// closed: a term (I, b) comes with I's own guard, so evaluating the terms
/// in `guards` order with short-circuit only reads conditions that were
/// computed.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

class FunctionGraph;

struct LazySchedule {
  /// One term of a guard: the condition input of the IfElse node at
  /// `order[ifelse]` must be `truth`.
  struct Term {
    std::size_t ifelse;
    bool truth;
  };
  /// A toposort (FunctionGraph::toposort's orderings included) in which
  /// every guarded node comes after the producers of its conditions.
  std::vector<Apply*> order;
  /// Per node of `order`: its guard (empty: always runs), terms outermost first.
  std::vector<std::vector<Term>> guards;
  /// Whether any node is guarded.
  bool lazy() const;
};

/// The schedule of `fg`. `lazy_ok(node)` says whether an IfElse node's
/// condition can be tested where the linker runs (the cpp linker: a host
/// scalar of a dtype it compiles); IfElse nodes it refuses, and graphs where
/// the guard orderings would cycle with an in-place op's orderings, run
/// eagerly (every node, as without IfElse).
LazySchedule lazy_schedule(const FunctionGraph& fg, const std::function<bool(const Apply&)>& lazy_ok = {});

}  // namespace theano
