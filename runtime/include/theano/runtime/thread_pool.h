/// \file
/// The process-wide pool of loop threads that generated code splits large
/// elementwise and reduction loops across.
///
/// Why: one core streams about half of the machine's memory bandwidth, and
/// transcendental loops are compute-bound, so a loop over 10^7 elements runs
/// about twice as fast on two cores. Theano had no such thing (OpenMP was an
/// opt-in flag); here every large loop is split by default.
///
/// How it behaves:
///  * Static partition: [0, n) is cut into `parts` ranges that depend only on
///    n, `min_part` and the thread count, and those parts always run (in
///    parallel, or one after the other on the caller), so a reduction that
///    combines one partial result per part in part order gives the same bits
///    on every call, whatever the pool is doing.
///  * The caller runs parts too, so `threads` = N uses N - 1 pool workers. It
///    publishes a job with part 0 already its own and runs it at once; the
///    workers claim the others (a hand-off of a 2-part job costs about 0.2 us,
///    mostly the cache lines of the job's ticket and count crossing cores).
///  * Workers start lazily (a program that never splits a loop has no extra
///    threads), spin briefly after a job (back-to-back loops of one graph do
///    not pay a wake-up) and then sleep on a futex. A small job (under 16
///    minimal parts) that comes alone while every worker sleeps runs on the
///    caller: waking a thread would cost more than it saves. In a stream of
///    jobs (within 1 ms of each other) small jobs are split too.
///  * One job at a time: a caller that finds the pool busy (another thread
///    calling a compiled function concurrently, or a nested call) runs its
///    job's parts itself, one after the other, so the pool never has more
///    runnable threads than it was asked for.
///  * fork(): the child gets a fresh, empty pool.
#pragma once

#include <cstdint>

namespace theano {

/// A part of a split loop: body(closure, begin, end, part).
using ParallelBody = void (*)(void* closure, std::int64_t begin, std::int64_t end, std::int64_t part);

/// The most parts a loop is ever split into (generated code sizes its
/// per-part partial results with it).
inline constexpr int kMaxParallelParts = 64;

/// Number of hardware threads (at least 1).
int hardware_threads();

/// How many parts parallel_for cuts [0, n) into: at most `threads` (and
/// kMaxParallelParts), each of at least `min_part` indices; 1 means inline.
std::int64_t parallel_parts(std::int64_t n, std::int64_t min_part, std::int64_t threads);

/// Runs `body` over parallel_parts(n, min_part, threads) consecutive ranges
/// covering [0, n) (range boundaries are multiples of 64 except the last),
/// part 0 on the calling thread, and returns when all are done; for a small
/// lone job, a busy pool or a nested call, the same ranges run one after the
/// other on the caller. Returns the number of parts (the same either way).
/// `body` must not throw.
std::int64_t parallel_for(std::int64_t threads, std::int64_t n, std::int64_t min_part, ParallelBody body,
                          void* closure) noexcept;

/// Pool workers started so far (for tests and diagnostics).
int thread_pool_workers();

}  // namespace theano
