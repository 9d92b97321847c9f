/// \file
/// Intrusive reference counting for graph objects (Types, Ops, Variables, Applies).
///
/// Why: docs/architecture.md ("Handles and ownership") asks for value handles over ref-counted nodes with no
/// ownership cycles. `RefCounted` is the plain base for immutable values (Types,
/// Ops). Graph nodes (Variables, Applies) derive from `GraphNode`, whose release
/// is *deferred*: when a node's count drops to zero it is queued and deleted by a
/// loop instead of recursively, so dropping the last handle to a chain of 10^6
/// nodes cannot overflow the stack.
///
/// Release is safe at any time, process exit included: the queue lives in the
/// stack frame of the outermost release (a thread_local holds only a plain
/// pointer to it, which is never destroyed), so a static or namespace-scope
/// `Var` released after the thread's thread_locals were destroyed still gets a
/// queue; and it never throws (when the queue cannot grow, the node is deleted
/// at once, recursively).
///
/// Graph nodes have no weak count. Instead a node can be *watched*: when a
/// watched node is destroyed, the process's death hook is called with its id
/// (the Var::eval cache uses it to drop the Function it compiled for a graph
/// nobody holds any more).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace theano {

/// Base for immutable shared values. Counts are atomic: graphs may be built on
/// one thread and compiled functions run on others.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) : refs_(0) {}
  RefCounted& operator=(const RefCounted&) { return *this; }
  virtual ~RefCounted() = default;

  void retain() const noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() const noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  int use_count() const noexcept { return refs_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int> refs_{0};
};

/// Smart pointer over any class with `retain()` / `release()`.
template <class T>
class IntrusivePtr {
 public:
  IntrusivePtr() noexcept = default;
  IntrusivePtr(std::nullptr_t) noexcept {}
  IntrusivePtr(T* p) noexcept : p_(p) {  // NOLINT: implicit from raw is the point of intrusive counts
    if (p_) p_->retain();
  }
  IntrusivePtr(const IntrusivePtr& o) noexcept : IntrusivePtr(o.p_) {}
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  IntrusivePtr(const IntrusivePtr<U>& o) noexcept : IntrusivePtr(o.get()) {}
  ~IntrusivePtr() {
    if (p_) p_->release();
  }
  IntrusivePtr& operator=(IntrusivePtr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  void reset() noexcept { IntrusivePtr().swap(*this); }
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }

  friend bool operator==(const IntrusivePtr& a, const IntrusivePtr& b) noexcept { return a.p_ == b.p_; }
  friend bool operator==(const IntrusivePtr& a, std::nullptr_t) noexcept { return a.p_ == nullptr; }

 private:
  T* p_ = nullptr;
};

class Apply;

/// Base of Variable and Apply: a creation id and a count whose zero-crossing
/// queues the node for iterative deletion. The counting policy (a Variable owned
/// by an Apply forwards to it) lives in the subclasses.
class GraphNode {
 public:
  GraphNode();
  GraphNode(const GraphNode&) = delete;
  GraphNode& operator=(const GraphNode&) = delete;
  virtual ~GraphNode();

  /// Number of Variables and Applies alive in the process (leak checks, stats).
  static std::int64_t live_nodes() noexcept;

  /// Monotonically increasing across all nodes of the process; used for
  /// deterministic tie-breaks and never reused.
  std::uint64_t id() const noexcept { return id_; }

  /// Called with the id of each watched node as it is destroyed (on the
  /// destroying thread, possibly inside another node's release or at process
  /// exit). It must not throw, and must not destroy graph nodes while holding
  /// a lock that it takes itself (their destruction may call it again).
  using DeathHook = void (*)(std::uint64_t id) noexcept;
  /// Sets the process's death hook (one per process: the Var::eval cache's).
  static void set_death_hook(DeathHook hook) noexcept;
  /// Makes this node's destruction call the death hook (cannot be undone).
  void watch() const noexcept { watched_.store(true, std::memory_order_relaxed); }

 protected:
  void node_retain() const noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  void node_release() const noexcept;
  int node_use_count() const noexcept { return refs_.load(std::memory_order_relaxed); }
  mutable std::atomic<int> refs_{0};

 private:
  mutable std::atomic<bool> watched_{false};  // fills the padding after refs_
  std::uint64_t id_;
};

}  // namespace theano
