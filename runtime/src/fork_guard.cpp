// The process-wide lock between compiles and fork() (see fork_guard.h).
#include "theano/runtime/fork_guard.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

namespace theano {
namespace {

// Writer-preferring: a fork that waits is not starved by back-to-back
// compiles of other threads. Replaced (never destroyed) in a forked child.
pthread_rwlock_t* new_lock() {
  auto* l = new pthread_rwlock_t;
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(l, &attr);
  pthread_rwlockattr_destroy(&attr);
  return l;
}

std::atomic<pthread_rwlock_t*> g_lock{nullptr};

pthread_rwlock_t* the_lock() {
  static pthread_rwlock_t* first = [] {
    pthread_rwlock_t* l = new_lock();
    g_lock.store(l, std::memory_order_release);
    return l;
  }();
  (void)first;
  return g_lock.load(std::memory_order_acquire);
}

thread_local int t_depth = 0;      // ForkGuards this thread holds
thread_local bool t_forking = false;  // this thread took the lock in prepare()

void prepare() {
  if (t_depth > 0) return;  // forking from inside a compile: do not wait for ourselves
  pthread_rwlock_wrlock(the_lock());
  t_forking = true;
}

void after_fork_in_parent() {
  if (!t_forking) return;
  t_forking = false;
  pthread_rwlock_unlock(the_lock());
}

// The child has one thread: the readers queued behind our hold in the parent
// do not exist here, but the lock's state still counts them. Start afresh
// (keeping this thread's own holds, when it forked from inside a compile).
void after_fork_in_child() {
  t_forking = false;
  pthread_rwlock_t* fresh = new_lock();
  if (t_depth > 0) pthread_rwlock_rdlock(fresh);
  g_lock.store(fresh, std::memory_order_release);
}

void register_once() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(&prepare, &after_fork_in_parent, &after_fork_in_child); });
}

}  // namespace

ForkGuard::ForkGuard() {
  if (t_depth++ > 0) return;
  register_once();
  pthread_rwlock_rdlock(the_lock());
}

ForkGuard::ForkGuard(std::try_to_lock_t) {
  if (t_depth > 0) {
    ++t_depth;
    return;
  }
  register_once();
  owns_ = pthread_rwlock_tryrdlock(the_lock()) == 0;
  if (owns_) ++t_depth;
}

ForkGuard::~ForkGuard() {
  if (!owns_) return;
  if (--t_depth > 0) return;
  pthread_rwlock_unlock(the_lock());
}

}  // namespace theano
