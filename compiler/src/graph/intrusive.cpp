// Creation ids and the deferred-deletion loop of graph nodes (see intrusive.h).
#include "theano/graph/intrusive.h"

#include <vector>

namespace theano {
namespace {

std::atomic<std::uint64_t> g_next_id{1};
std::atomic<std::int64_t> g_live{0};

// Nodes whose count reached zero on this thread, deleted by the outermost
// release. A destructor that releases its inputs only appends here, so deleting a
// long chain takes a loop, not a recursion as deep as the chain.
struct DeletionQueue {
  std::vector<const GraphNode*> pending;
  bool draining = false;
};
thread_local DeletionQueue t_queue;

}  // namespace

GraphNode::GraphNode() : id_(g_next_id.fetch_add(1, std::memory_order_relaxed)) {
  g_live.fetch_add(1, std::memory_order_relaxed);
}

GraphNode::~GraphNode() { g_live.fetch_sub(1, std::memory_order_relaxed); }

std::int64_t GraphNode::live_nodes() noexcept { return g_live.load(std::memory_order_relaxed); }

void GraphNode::node_release() const noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  DeletionQueue& q = t_queue;
  q.pending.push_back(this);
  if (q.draining) return;
  q.draining = true;
  while (!q.pending.empty()) {
    const GraphNode* n = q.pending.back();
    q.pending.pop_back();
    delete n;
  }
  q.draining = false;
}

}  // namespace theano
