/// \file
/// Which FunctionGraph a node belongs to (private to compiler/src/fgraph).
///
/// Why: Theano lets a Variable or Apply sit in one FunctionGraph at a time
/// (`r.fgraph`), so two graphs built with `clone=False` over the same nodes
/// cannot fight over their inputs. The nodes carry no field for it; this
/// process-wide registry maps a node's address to its graph instead.
///
/// Invariants: an address is registered only while the node is inside that
/// graph, which keeps it alive, so an address is never reused while
/// registered. Graphs register Apply nodes and owner-less non-constant
/// Variables (an owned Variable belongs wherever its owner does; Constants are
/// immutable and may be shared).
#pragma once

namespace theano {

class FunctionGraph;

namespace fgraph_membership {

/// The graph holding `key`, or nullptr.
const FunctionGraph* owner(const void* key);
/// Records `key` as held by `fg` (overwrites).
void claim(const void* key, const FunctionGraph* fg);
/// Forgets `key` if `fg` holds it.
void release(const void* key, const FunctionGraph* fg) noexcept;

}  // namespace fgraph_membership
}  // namespace theano
