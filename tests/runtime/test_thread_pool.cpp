// The loop-thread pool: how a range is cut, that every index runs exactly
// once in the part the cut says, concurrent and nested callers (which run the
// same parts on the caller), bit-stable reductions under contention, and a
// forked child that gets a working pool of its own.
#include <doctest/doctest.h>

#include <theano/runtime/thread_pool.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

using namespace theano;

namespace {

struct Record {
  std::vector<std::atomic<int>> hits;
  std::vector<std::atomic<std::int64_t>> part_begin;
  std::atomic<int> calls{0};
  explicit Record(std::int64_t n) : hits(static_cast<std::size_t>(n)), part_begin(kMaxParallelParts) {
    for (auto& b : part_begin) b = -1;
  }
};

void record_body(void* closure, std::int64_t begin, std::int64_t end, std::int64_t part) {
  auto* r = static_cast<Record*>(closure);
  r->calls.fetch_add(1);
  r->part_begin[static_cast<std::size_t>(part)] = begin;
  for (std::int64_t i = begin; i < end; ++i) r->hits[static_cast<std::size_t>(i)].fetch_add(1);
}

// Sums 0..n-1 into per-part slots.
struct Sum {
  std::int64_t partial[kMaxParallelParts] = {};
};
void sum_body(void* closure, std::int64_t begin, std::int64_t end, std::int64_t part) {
  auto* s = static_cast<Sum*>(closure);
  std::int64_t a = 0;
  for (std::int64_t i = begin; i < end; ++i) a += i;
  s->partial[part] = a;
}
std::int64_t parallel_sum(std::int64_t threads, std::int64_t n, std::int64_t min_part) {
  Sum s;
  const std::int64_t parts = parallel_for(threads, n, min_part, &sum_body, &s);
  std::int64_t total = 0;
  for (std::int64_t p = 0; p < parts; ++p) total += s.partial[p];
  return total;
}

}  // namespace

TEST_SUITE("thread pool") {
  TEST_CASE("parts: at most `threads`, each at least min_part indices, 1 for small ranges") {
    CHECK(hardware_threads() >= 1);
    CHECK(parallel_parts(100, 64, 4) == 1);
    CHECK(parallel_parts(127, 64, 4) == 1);
    CHECK(parallel_parts(1000, 100, 2) == 2);
    CHECK(parallel_parts(1000, 100, 1) == 1);
    CHECK(parallel_parts(1000, 100, 3) == 3);
    CHECK(parallel_parts(1 << 20, 1, 1000) == kMaxParallelParts);
    CHECK(parallel_parts(0, 1, 4) == 1);
  }

  TEST_CASE("every index runs once, in the part the cut says, boundaries are multiples of 64") {
    for (std::int64_t threads : {1, 2, 3, 5}) {
      for (std::int64_t n : {1, 64, 1000, 4097, 100003}) {
        CAPTURE(threads);
        CAPTURE(n);
        Record r(n);
        const std::int64_t parts = parallel_for(threads, n, 100, &record_body, &r);
        // Always the cut: run in parallel or, for a small lone job, on the caller.
        CHECK(parts == parallel_parts(n, 100, threads));
        CHECK(r.calls.load() == parts);
        for (const auto& h : r.hits) REQUIRE(h.load() == 1);
        for (std::int64_t p = 0; p < parts; ++p) {
          const std::int64_t b = r.part_begin[static_cast<std::size_t>(p)];
          CHECK(b % 64 == 0);
          if (p > 0) CHECK(b > r.part_begin[static_cast<std::size_t>(p - 1)]);
        }
        CHECK(r.part_begin[0] == 0);
      }
    }
    CHECK(thread_pool_workers() >= 1);
  }

  TEST_CASE("a small job that comes alone while the workers sleep runs its parts on the caller") {
    REQUIRE(parallel_sum(2, 1 << 16, 64) > 0);  // workers started
    struct Threads {
      std::thread::id id[kMaxParallelParts];
    };
    auto body = [](void* c, std::int64_t, std::int64_t, std::int64_t part) {
      static_cast<Threads*>(c)->id[part] = std::this_thread::get_id();
    };
    // Workers sleep 50 us after their last job; a lone job 20 ms later finds
    // them asleep (retried: a loaded machine may not have run them yet). It
    // still runs the two parts of its cut, both on the caller.
    bool caller_only = false;
    for (int k = 0; k < 10 && !caller_only; ++k) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Threads t;
      REQUIRE(parallel_for(2, 1000, 100, body, &t) == 2);
      caller_only = t.id[0] == std::this_thread::get_id() && t.id[1] == std::this_thread::get_id();
    }
    CHECK(caller_only);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Record big(100000);
    CHECK(parallel_for(2, 100000, 100, &record_body, &big) == 2);  // 1000 minimal parts: always split
    for (const auto& h : big.hits) REQUIRE(h.load() == 1);
  }

  TEST_CASE("the caller runs part 0 of every job itself, and a worker the other part of a stream of jobs") {
    struct Threads {
      std::thread::id id[kMaxParallelParts];
    };
    auto body = [](void* c, std::int64_t begin, std::int64_t end, std::int64_t part) {
      static_cast<Threads*>(c)->id[part] = std::this_thread::get_id();
      volatile double x = 0;
      for (std::int64_t i = begin; i < end; ++i) x = x + 1.0;  // a part long enough for a worker to claim the next
    };
    int on_worker = 0;
    for (int k = 0; k < 2000; ++k) {
      Threads t;
      REQUIRE(parallel_for(2, 1 << 14, 64, body, &t) == 2);
      REQUIRE(t.id[0] == std::this_thread::get_id());
      on_worker += t.id[1] != std::this_thread::get_id();
    }
    CHECK(on_worker > 0);  // the jobs came back to back: the workers were awake
  }

  TEST_CASE("a float reduction gives the same bits whatever the pool is doing (busy, nested, idle)") {
    // Partial sums of values of very different magnitudes: the result depends
    // on how the range is cut, so any change of cut changes the bits.
    constexpr std::int64_t n = 12288;
    std::vector<double> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = (i % 7 ? 1.0 : 1e13) * (1.0 + static_cast<double>(i) * 1e-7);
    struct Fold {
      const double* v;
      double partial[kMaxParallelParts];
    };
    auto body = [](void* c, std::int64_t b, std::int64_t e, std::int64_t part) {
      auto* f = static_cast<Fold*>(c);
      double a = 0;
      for (std::int64_t i = b; i < e; ++i) a += f->v[i];
      f->partial[part] = a;
    };
    auto reduce = [&] {
      Fold f{v.data(), {}};
      const std::int64_t parts = parallel_for(2, n, 1024, body, &f);
      double total = 0;
      for (std::int64_t p = 0; p < parts; ++p) total += f.partial[p];
      return total;
    };
    const double want = reduce();
    {  // The check can fail: one part over the whole range gives other bits.
      Fold whole{v.data(), {}};
      body(&whole, 0, n, 0);
      REQUIRE(whole.partial[0] != want);
    }
    std::atomic<bool> stop{false};
    std::atomic<int> differ{0};
    // Contention: other callers keep the pool busy, and one nests.
    std::vector<std::thread> others;
    for (int t = 0; t < 3; ++t)
      others.emplace_back([&] {
        while (!stop.load()) {
          if (reduce() != want) differ.fetch_add(1);
          parallel_for(
              2, 4096, 64, [](void*, std::int64_t, std::int64_t, std::int64_t) {}, nullptr);
        }
      });
    for (int k = 0; k < 40; ++k) {
      if (reduce() != want) differ.fetch_add(1);
      if (k % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // idle: a lone job
    }
    stop = true;
    for (auto& t : others) t.join();
    struct Nest {
      decltype(reduce)* r;
      double want;
      std::atomic<int> differ{0};
    } nest{&reduce, want};
    parallel_for(
        2, 4096, 64,
        [](void* c, std::int64_t, std::int64_t, std::int64_t) {
          auto* self = static_cast<Nest*>(c);
          if ((*self->r)() != self->want) self->differ.fetch_add(1);
        },
        &nest);
    CHECK(differ.load() == 0);
    CHECK(nest.differ.load() == 0);
  }

  TEST_CASE("concurrent callers all get correct results (a busy pool runs a caller's parts on the caller)") {
    constexpr std::int64_t n = 200000;
    const std::int64_t want = n * (n - 1) / 2;
    std::atomic<int> wrong{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
      callers.emplace_back([&] {
        for (int k = 0; k < 200; ++k)
          if (parallel_sum(3, n, 1000) != want) wrong.fetch_add(1);
      });
    for (auto& c : callers) c.join();
    CHECK(wrong.load() == 0);
  }

  TEST_CASE("a nested call from inside a part runs its parts on the caller") {
    struct Nested {
      std::atomic<std::int64_t> total{0};
    } nested;
    parallel_for(
        2, 4096, 64,
        [](void* c, std::int64_t b, std::int64_t e, std::int64_t) {
          auto* self = static_cast<Nested*>(c);
          self->total.fetch_add(parallel_sum(2, e - b, 64) + 0 * b);
        },
        &nested);
    // Parts [0, 2048) and [2048, 4096): each sums 0..2047.
    CHECK(nested.total.load() == 2 * (2048 * 2047 / 2));
  }

  TEST_CASE("a forked child gets a pool of its own") {
    REQUIRE(parallel_sum(2, 1 << 16, 64) == (std::int64_t{1} << 16) * ((1 << 16) - 1) / 2);  // workers started
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      const std::int64_t n = 1 << 18;
      bool ok = true;
      for (int k = 0; k < 50; ++k) ok = ok && parallel_sum(2, n, 64) == n * (n - 1) / 2;
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}
