// Tiered compilation (THEANO_FLAGS tiered_compile, issue 39): on a compile
// cache miss the function runs code compiled at -O0 at once, while the -O2
// object compiles on the background thread, is published in the compiledir
// with its function record, and takes over the calls. Tested: the results of
// both tiers, the switch (also while other threads call the function), a
// function dropped before its optimized code arrives, no compiledir, a hit
// (no tiers), a child forked while a compile is queued, and the wait at exit
// that publishes a process's last optimized object.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/config.h>
#include <theano/theano.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "compiledir_test_util.h"
#include "sanitized.h"
#include "temp_dir.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using theano::test::TempDir;
using theano::test::from_record;
using theano::test::with_compiledir;
namespace fs = std::filesystem;

namespace {

Config tiered(const fs::path& compiledir) {
  Config c = with_compiledir(compiledir);
  c.flags["tiered_compile"] = "True";
  return c;
}

/// A function worth optimizing: a fused loop with transcendental calls and a
/// reduction. `scale` changes the source (and so the cache key).
Function build(double scale) {
  Var x = dvector("x");
  Var y = tanh(x * scale) + exp(-x * x) * 0.5;
  return function({x}, {y, sum(y * y)});
}

NDArray input(std::int64_t n) {
  NDArray a = NDArray::empty({n}, DType::Float64);
  for (std::int64_t i = 0; i < n; ++i) a.data_as<double>()[i] = 0.001 * static_cast<double>(i % 4001) - 2.0;
  return a;
}

double expect_sum(const NDArray& x, double scale) {
  double s = 0;
  for (std::int64_t i = 0; i < x.shape()[0]; ++i) {
    const double v = x.data_as<double>()[i];
    const double y = std::tanh(v * scale) + std::exp(-v * v) * 0.5;
    s += y * y;
  }
  return s;
}

}  // namespace

TEST_SUITE("tiered compile") {
  TEST_CASE("a miss runs -O0 code at once, the -O2 code takes over and stays in the compiledir") {
    TempDir d;
    ConfigGuard guard(tiered(d.path / "cd"));
    const NDArray x = input(10000);
    Function f = build(1.5);
    const ThunkStats first = f.profile().build;
    CHECK(first.cache == "miss");
    CHECK(first.tier.rfind("-O", 0) == 0);  // "-O0, optimizing", or "-O2" already
    CHECK(first.compile_ms > 0);
    const std::vector<NDArray> quick = f({x});
    CHECK(quick[1].item<double>() == doctest::Approx(expect_sum(x, 1.5)).epsilon(1e-12));
    codegen::wait_for_optimized_code();
    CHECK(f.profile().build.tier == "-O2");
    const std::vector<NDArray> optimized = f({x});
    CHECK(allclose(optimized[0], quick[0], 1e-14, 1e-14));
    CHECK(optimized[1].item<double>() == doctest::Approx(expect_sum(x, 1.5)).epsilon(1e-12));
    // The next function of this request: its record and the -O2 object, no tiers.
    Function g = build(1.5);
    CHECK(from_record(g));
    CHECK(g.profile().build.cache == "hit");
    CHECK(g.profile().build.tier.empty());
    CHECK(allclose(g({x})[0], optimized[0], 0, 0));
  }

  TEST_CASE("calls from other threads run through the switch") {
    TempDir d;
    ConfigGuard guard(tiered(d.path / "cd"));
    const NDArray x = input(4000);
    const double want = expect_sum(x, 0.75);
    Function f = build(0.75);
    std::atomic<int> wrong{0}, calls{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> callers;
    for (int t = 0; t < 2; ++t)
      callers.emplace_back([&] {
        while (!stop.load()) {
          const double got = f({x})[1].item<double>();
          if (std::fabs(got - want) > 1e-9 * std::fabs(want)) ++wrong;
          ++calls;
        }
      });
    codegen::wait_for_optimized_code();
    const int before = calls.load();
    while (calls.load() < before + 20) std::this_thread::yield();  // some calls after the switch
    stop = true;
    for (std::thread& t : callers) t.join();
    CHECK(wrong.load() == 0);
    CHECK(f.profile().build.tier == "-O2");
  }

  TEST_CASE("a function dropped before its optimized code arrives, and no compiledir") {
    TempDir d;
    {
      ConfigGuard guard(tiered(d.path / "cd"));
      { Function f = build(2.5); }  // gone at once: the job still publishes the object
      codegen::wait_for_optimized_code();
      Function g = build(2.5);
      CHECK(g.profile().build.cache == "hit");
      CHECK(g.profile().build.tier.empty());
    }
    ConfigGuard off(tiered("off"));
    const NDArray x = input(3000);
    Function f = build(3.5);
    CHECK(f.profile().build.cache == "off");
    CHECK_FALSE(f.profile().build.tier.empty());
    codegen::wait_for_optimized_code();
    CHECK(f.profile().build.tier == "-O2");
    CHECK(f({x})[1].item<double>() == doctest::Approx(expect_sum(x, 3.5)).epsilon(1e-12));
  }

  TEST_CASE("fast_compile and a hit compile once: no tiers") {
    TempDir d;
    ConfigGuard guard(tiered(d.path / "cd"));
    Var x = dvector("x");
    Function f = function({x}, {x * 2.0}, {.mode = "fast_compile"});
    CHECK(f.profile().build.tier.empty());
    Function g = build(4.5);
    codegen::wait_for_optimized_code();
    Config no_records = tiered(d.path / "cd");
    no_records.flags["threads"] = "1";  // another request text: no record, the object hits
    ConfigGuard other(no_records);
    Function h = build(4.5);
    CHECK_FALSE(from_record(h));
    CHECK(h.profile().build.cache == "hit");
    CHECK(h.profile().build.tier.empty());
  }

#if !THEANO_TESTS_SANITIZED  // GCC 12's libasan allocator is not fork-safe (test_fork_safety.cpp)
  TEST_CASE("a child forked while an optimizing compile is queued compiles and exits on its own") {
    TempDir d;
    ConfigGuard guard(tiered(d.path / "cd"));
    Function f = build(5.5);  // its -O2 compile queued or running: fork() waits for a running one
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      alarm(120);  // a hang fails the test instead of stalling it
      int rc = 0;
      try {
        const NDArray x = input(1000);
        Function g = build(6.5);  // the child's own job, on the child's own thread
        codegen::wait_for_optimized_code();
        if (g.profile().build.tier != "-O2") rc = 2;
        if (std::fabs(g({x})[1].item<double>() - expect_sum(x, 6.5)) > 1e-9 * expect_sum(x, 6.5)) rc = 3;
        if (std::fabs(f({x})[1].item<double>() - expect_sum(x, 5.5)) > 1e-9 * expect_sum(x, 5.5)) rc = 4;
        Function h = build(7.5);  // not waited for here: the exit handler waits for it
        (void)h;
      } catch (...) {
        rc = 5;
      }
      std::exit(rc);  // runs the exit handler: it waits for the child's queue only
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CAPTURE(WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    codegen::wait_for_optimized_code();
    CHECK(f.profile().build.tier == "-O2");
    // The child's exit waited for its last optimizing compile: published.
    Function h = build(7.5);
    CHECK(from_record(h));
    CHECK(h.profile().build.tier.empty());
  }
#endif
}
