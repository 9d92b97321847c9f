// Creation ids, death notifications and the deferred-deletion loop of graph
// nodes (see intrusive.h).
#include "theano/graph/intrusive.h"

#include <vector>

namespace theano {
namespace {

std::atomic<std::uint64_t> g_next_id{1};
std::atomic<std::int64_t> g_live{0};
std::atomic<GraphNode::DeathHook> g_death_hook{nullptr};

// A stack of nodes to delete: the first few in place (most releases queue
// only a handful), the rest on the heap.
class Pending {
 public:
  void push(const GraphNode* n) {  // throws bad_alloc when the heap part cannot grow
    if (size_ < kInline) inline_[size_++] = n;
    else more_.push_back(n);
  }
  const GraphNode* pop() noexcept {  // null when empty
    if (!more_.empty()) {
      const GraphNode* n = more_.back();
      more_.pop_back();
      return n;
    }
    return size_ > 0 ? inline_[--size_] : nullptr;
  }

 private:
  static constexpr std::size_t kInline = 32;
  const GraphNode* inline_[kInline];
  std::size_t size_ = 0;
  std::vector<const GraphNode*> more_;
};

// The queue of the outermost release running on this thread (null when none):
// nodes whose count reached zero meanwhile, deleted by that release's loop. A
// destructor that releases its inputs only appends here, so deleting a long
// chain takes a loop, not a recursion as deep as the chain. A plain pointer,
// constant-initialized and never destroyed: a static Var released at exit,
// after this thread's thread_local objects were destroyed, finds it null and
// runs a loop of its own.
thread_local Pending* t_pending = nullptr;

}  // namespace

GraphNode::GraphNode() : id_(g_next_id.fetch_add(1, std::memory_order_relaxed)) {
  g_live.fetch_add(1, std::memory_order_relaxed);
}

GraphNode::~GraphNode() {
  g_live.fetch_sub(1, std::memory_order_relaxed);
  if (watched_.load(std::memory_order_relaxed))
    if (DeathHook hook = g_death_hook.load(std::memory_order_acquire)) hook(id_);
}

std::int64_t GraphNode::live_nodes() noexcept { return g_live.load(std::memory_order_relaxed); }

void GraphNode::set_death_hook(DeathHook hook) noexcept { g_death_hook.store(hook, std::memory_order_release); }

void GraphNode::node_release() const noexcept {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (Pending* q = t_pending) {
    // Inside a release on this thread: its loop deletes the node. When the
    // queue cannot grow, delete it now (a recursion, only under memory pressure).
    try {
      q->push(this);
    } catch (...) {
      delete this;
    }
    return;
  }
  Pending pending;
  t_pending = &pending;
  delete this;
  while (const GraphNode* n = pending.pop()) delete n;
  t_pending = nullptr;
}

}  // namespace theano
