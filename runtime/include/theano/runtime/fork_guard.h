/// \file
/// Makes fork() safe while other threads compile.
///
/// Why: compiling a function takes many process-wide locks (the type table,
/// Clang and LLVM internals, the compile cache, the JIT session). A child
/// forked while another thread holds one of them inherits it locked, by a
/// thread that does not exist in the child, and deadlocks on its first
/// compile. Instead of making each lock fork-aware, every compile runs under a
/// ForkGuard (a shared hold of one process-wide, writer-preferring
/// reader-writer lock), and a pthread_atfork handler takes that lock
/// exclusively: fork() waits until no compile is in flight, and no new one
/// starts until the child exists. The child also gets a fresh loop pool
/// (thread_pool.h) and a JIT whose background preparation, if any, finished.
///
/// Held by: function() (every compile), the JIT's loads, symbol look-ups and
/// unloads (a Function going out of scope), the FunctionGraph registry.
///
/// The rule for users (README, "Threads and fork"): fork() from any thread
/// while others compile (function(), eval), call or destroy compiled
/// functions; the child compiles and runs its own. Building graphs (Var
/// arithmetic) takes short process-wide locks outside any compile: a program
/// that forks while other threads build graphs holds a ForkGuard around that
/// building. A fork from inside a compile (a thread that holds a ForkGuard)
/// does not wait for itself.
#pragma once

#include <mutex>

namespace theano {

class ForkGuard {
 public:
  /// Holds the compile side of the lock (re-entrant per thread: only the
  /// outermost guard of a thread takes it, so nesting never deadlocks behind
  /// a waiting fork).
  ForkGuard();
  /// Holds it only if no fork is waiting (owns() says): for a helper thread
  /// that a compile waits for, which must not queue behind a fork that itself
  /// waits for that compile.
  explicit ForkGuard(std::try_to_lock_t);
  ~ForkGuard();
  bool owns() const { return owns_; }
  ForkGuard(const ForkGuard&) = delete;
  ForkGuard& operator=(const ForkGuard&) = delete;

 private:
  bool owns_ = true;
};

}  // namespace theano
