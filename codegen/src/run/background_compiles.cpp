// The background compile thread (see background_compiles.h).
#include "background_compiles.h"

#include <theano/runtime/fork_guard.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include <unistd.h>

namespace theano::codegen::detail {
namespace {

/// One process's queue. Never destroyed (its thread may outlive main's
/// statics), and replaced, not reused, in a forked child: its mutex and
/// condition variables may hold the state of threads the child lacks.
struct Queue {
  std::mutex mu;
  std::condition_variable work, idle;
  std::deque<std::function<void()>> jobs;
  bool busy = false;
};

// The current process's queue and who made it. Guarded by `current_mu`,
// which only callers of function() take (under their ForkGuard), never the
// worker: fork() finds it unlocked.
std::mutex current_mu;
Queue* current = nullptr;
pid_t current_pid = 0;

void wait_at_exit() { wait_background(); }

/// exit() runs its handlers and static destructors in the reverse order of
/// their registration, so the wait must be registered after every static a
/// job uses, or exit() would destroy one under a running job. Registered
/// again at every enqueue (after the caller's own first-use statics) and
/// after every job (after those the job constructed); a process that exits
/// during its first job is covered for what the caller's -O0 compile and
/// load constructed first (the same front end, driver, caches and JIT).
/// Waiting twice costs nothing: the queue is empty by then.
void register_exit_wait() { std::atexit(wait_at_exit); }

void worker(Queue* q) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(q->mu);
      q->work.wait(lock, [&] { return !q->jobs.empty(); });
      job = std::move(q->jobs.front());
      q->jobs.pop_front();
      q->busy = true;
    }
    {
      ForkGuard no_fork_while_compiling;
      try {
        job();
      } catch (...) {
      }
      job = nullptr;  // its captures (a loaded module among them) released under the guard
    }
    register_exit_wait();  // after the statics the job constructed
    {
      std::lock_guard lock(q->mu);
      q->busy = false;
    }
    q->idle.notify_all();
  }
}

/// This process's queue, or null when it has none (none made, or the one a
/// parent made before fork()).
Queue* own_queue() {
  std::lock_guard lock(current_mu);
  return current != nullptr && current_pid == ::getpid() ? current : nullptr;
}

}  // namespace

void run_in_background(std::function<void()> job) {
  Queue* q = nullptr;
  {
    std::lock_guard lock(current_mu);
    if (current == nullptr || current_pid != ::getpid()) {
      auto* fresh = new Queue();
      std::thread(worker, fresh).detach();  // may throw: nothing changed yet
      current = fresh;
      current_pid = ::getpid();
    }
    q = current;
  }
  register_exit_wait();
  {
    std::lock_guard lock(q->mu);
    q->jobs.push_back(std::move(job));
  }
  q->work.notify_one();
}

void wait_background() {
  Queue* q = own_queue();
  if (q == nullptr) return;
  std::unique_lock lock(q->mu);
  q->idle.wait(lock, [&] { return q->jobs.empty() && !q->busy; });
}

}  // namespace theano::codegen::detail
