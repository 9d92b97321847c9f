// The loop-thread pool (see thread_pool.h).
//
// One job at a time. Its state is a single 64-bit ticket, (generation, parts,
// next unclaimed part), that workers and the caller claim parts from by
// compare-and-swap; the job's fields are read only after a successful claim,
// and the caller does not publish the next job before every part of this one
// is done, so a claimed part always sees its own job.
#include "theano/runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace theano {
namespace {

constexpr std::int64_t kAlign = 64;                               // part boundaries: multiples of 64 indices
constexpr auto kWorkerSpin = std::chrono::microseconds(50);        // a worker's busy wait before it sleeps
// A small job (fewer than this many minimal parts) that comes alone (no job
// in the last kStreamNs) while every worker sleeps runs on the caller: waking
// a worker costs a system call and more than such a job saves. In a stream of
// jobs (a training loop) the workers are awake and small jobs split too.
constexpr std::int64_t kSmallJobParts = 16;
constexpr std::int64_t kStreamNs = 1'000'000;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Ticket layout: generation << 32 | parts << 16 | next.
constexpr std::uint64_t pack(std::uint64_t gen, std::uint64_t parts, std::uint64_t next) {
  return gen << 32 | parts << 16 | next;
}
constexpr std::uint64_t gen_of(std::uint64_t t) { return t >> 32; }
constexpr std::int64_t parts_of(std::uint64_t t) { return static_cast<std::int64_t>((t >> 16) & 0xffff); }
constexpr std::int64_t next_of(std::uint64_t t) { return static_cast<std::int64_t>(t & 0xffff); }

struct Split {
  std::int64_t parts = 1, chunk = 0;
};

Split split(std::int64_t n, std::int64_t min_part, std::int64_t threads) {
  threads = std::clamp<std::int64_t>(threads, 1, kMaxParallelParts);
  min_part = std::max<std::int64_t>(min_part, 1);
  const std::int64_t p = std::min(threads, n / min_part);
  if (p < 2) return {1, n};
  const std::int64_t chunk = ((n + p - 1) / p + kAlign - 1) / kAlign * kAlign;
  return {(n + chunk - 1) / chunk, chunk};
}

// Runs the parts of `s` one after the other on the caller: the same cut, so a
// reduction that folds one partial per part gets the same bits as when the
// parts run in parallel (a busy pool, a nested call or a small lone job must
// not change a result).
std::int64_t run_serially(const Split& s, std::int64_t n, ParallelBody body, void* closure) {
  for (std::int64_t k = 0; k < s.parts; ++k) {
    const std::int64_t begin = k * s.chunk;
    body(closure, begin, std::min(n, begin + s.chunk), k);
  }
  return s.parts;
}

struct Pool {
  std::mutex job_mu;             // held by the caller of the running job
  std::int64_t last_job_ns = 0;  // under job_mu
  // What the caller and the workers write go on cache lines of their own.
  alignas(64) std::atomic<std::uint64_t> ticket{0};
  alignas(64) std::atomic<std::int64_t> done{0};
  alignas(64) std::atomic<int> awake{0};  // workers spinning or running parts (not asleep)
  // The running job: written before its ticket is published.
  alignas(64) ParallelBody body = nullptr;
  void* closure = nullptr;
  std::int64_t n = 0, chunk = 0;

  std::mutex start_mu;
  std::atomic<int> workers{0};
  Pool* abandoned = nullptr;  // the parent's pool in a forked child, kept reachable

  void run_part(std::int64_t part) {
    const std::int64_t begin = part * chunk;
    body(closure, begin, std::min(n, begin + chunk), part);
  }

  // Claims and runs unclaimed parts of the job `t` belongs to (or of a newer
  // one the failed claims reload); returns when none is left.
  void run_parts(std::uint64_t t) {
    while (next_of(t) < parts_of(t)) {
      if (!ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
      run_part(next_of(t));
      done.fetch_add(1, std::memory_order_release);
      t = t + 1;
    }
  }

  [[noreturn]] void worker_main();

  void ensure_workers(int wanted) {
    if (workers.load(std::memory_order_acquire) >= wanted) return;
    std::lock_guard<std::mutex> lock(start_mu);
    while (workers.load(std::memory_order_relaxed) < wanted) {
      try {
        std::thread([this] { worker_main(); }).detach();
      } catch (...) {
        return;  // no more threads: the caller runs the parts nobody claims
      }
      workers.fetch_add(1, std::memory_order_release);
    }
  }
};

std::atomic<Pool*> g_pool{nullptr};

// True on pool workers, and on a caller while it runs its job's parts: a
// parallel_for from inside a part runs inline (and never re-locks job_mu).
thread_local bool t_in_job = false;

void Pool::worker_main() {
  t_in_job = true;
  awake.fetch_add(1, std::memory_order_relaxed);
  for (;;) {
    std::uint64_t t = ticket.load(std::memory_order_acquire);
    auto spin_until = std::chrono::steady_clock::time_point::max();  // set at the first clock reading
    for (int k = 0; next_of(t) >= parts_of(t); ++k) {
      // The clock is read once every 64 polls (a reading costs more than a
      // poll), when the core also goes to a runnable BLAS thread if any.
      bool spin = true;
      if (k % 64 == 63) {
        const auto now = std::chrono::steady_clock::now();
        if (spin_until == std::chrono::steady_clock::time_point::max()) spin_until = now + kWorkerSpin;
        spin = now < spin_until;
        if (spin) sched_yield();
      }
      if (spin) {
        cpu_relax();
      } else {
        awake.fetch_sub(1, std::memory_order_relaxed);
        ticket.wait(t, std::memory_order_acquire);
        awake.fetch_add(1, std::memory_order_relaxed);
      }
      t = ticket.load(std::memory_order_acquire);
    }
    run_parts(t);
  }
}

void after_fork_in_child() {
  // The workers did not survive the fork, and a lock may be held by a thread
  // that no longer exists: start over with a fresh pool.
  Pool* old = g_pool.load(std::memory_order_relaxed);
  auto* fresh = new Pool;
  fresh->abandoned = old;
  g_pool.store(fresh, std::memory_order_release);
}

Pool& pool() {
  if (Pool* p = g_pool.load(std::memory_order_acquire)) return *p;
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork(nullptr, nullptr, &after_fork_in_child);
    g_pool.store(new Pool, std::memory_order_release);  // never freed: detached workers use it until exit
  });
  return *g_pool.load(std::memory_order_acquire);
}

}  // namespace

int hardware_threads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::int64_t parallel_parts(std::int64_t n, std::int64_t min_part, std::int64_t threads) {
  return split(n, min_part, threads).parts;
}

std::int64_t parallel_for(std::int64_t threads, std::int64_t n, std::int64_t min_part, ParallelBody body,
                          void* closure) noexcept {
  const Split s = split(n, min_part, threads);
  if (s.parts <= 1) {
    body(closure, 0, n, 0);
    return 1;
  }
  if (t_in_job) return run_serially(s, n, body, closure);  // nested: inside a part of a running job
  Pool& p = pool();
  std::unique_lock<std::mutex> lock(p.job_mu, std::try_to_lock);
  if (!lock.owns_lock()) return run_serially(s, n, body, closure);  // busy: another caller's job is running
  const std::int64_t now = now_ns();
  const bool stream = now - p.last_job_ns < kStreamNs;
  p.last_job_ns = now;
  if (n < kSmallJobParts * min_part && !stream && p.awake.load(std::memory_order_relaxed) == 0)
    return run_serially(s, n, body, closure);
  t_in_job = true;
  p.ensure_workers(static_cast<int>(s.parts) - 1);
  p.body = body;
  p.closure = closure;
  p.n = n;
  p.chunk = s.chunk;
  p.done.store(0, std::memory_order_relaxed);
  // Published with part 0 claimed: the caller runs it without a claim on the
  // ticket's cache line, which a worker is taking at that moment.
  const std::uint64_t t = pack(gen_of(p.ticket.load(std::memory_order_relaxed)) + 1,
                               static_cast<std::uint64_t>(s.parts), 1);
  p.ticket.store(t, std::memory_order_release);
  p.ticket.notify_all();
  p.run_part(0);
  p.done.fetch_add(1, std::memory_order_release);
  p.run_parts(p.ticket.load(std::memory_order_acquire));
  for (int k = 0; p.done.load(std::memory_order_acquire) < s.parts; ++k) {
    cpu_relax();
    if (k % 256 == 255) std::this_thread::yield();
  }
  t_in_job = false;
  return s.parts;
}

int thread_pool_workers() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  return p ? p->workers.load(std::memory_order_acquire) : 0;
}

}  // namespace theano
