// fork() while theano-cpp is busy (issue 15): a child forked while the JIT
// session is being created on its background thread, or while another thread
// loads compiled code, compiles and runs functions of its own (no deadlock on
// a lock held by a thread that did not survive the fork, no join of a thread
// that does not exist). Each child runs under a time limit (alarm): a hang is
// a failure, not a stuck test.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/jit_loader.h>
#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/runtime/fork_guard.h>
#include <theano/tensor/type.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitized.h"

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

// Forks per run. Under AddressSanitizer the test does not run: GCC 12's
// libasan allocator is not fork-safe. A child forked while another thread
// holds the lock of one of its size classes (SizeClassAllocator64's region
// mutex) blocks forever in its first allocation of that class. A stack of
// such a hung child (gdb, issue 16's stop) showed it in
// __sanitizer::SizeClassAllocator64::GetFromAllocator under operator new,
// called from the source generator: no lock of ours. The Release build runs
// the test with 40 forks.
constexpr int kForks = 40;

/// In a forked child: compiles and runs a fresh function (a constant that no
/// other test uses, so it really compiles), then _exit(0) or 1; SIGALRM
/// after `seconds` kills a hung child (exit status 142).
[[noreturn]] void child_compiles(double c, unsigned seconds) {
  alarm(seconds);
  int rc = 1;
  try {
    Var x = dvector("x");
    Function f = function({x}, {x * c + 1.0});
    rc = f({NDArray::full({3}, 2.0, DType::Float64)})[0].data_as<double>()[0] == 2.0 * c + 1.0 ? 0 : 1;
  } catch (...) {
    rc = 2;
  }
  _exit(rc);
}

/// Waits for `pid`; its exit status (128 + signal when killed).
int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_SUITE("fork safety") {
  TEST_CASE("a child forked while other threads load compiled code compiles and runs its own") {
#if defined(THEANO_TESTS_SANITIZED)
    MESSAGE("skipped under AddressSanitizer: its allocator's locks are not fork-safe (see kForks)");
    return;
#endif
    codegen::register_linkers();
    Config cfg = config();
    cfg.flags["compiledir"] = "off";
    ConfigGuard guard(cfg);
    codegen::JitLoader::instance().prepare_async();
    std::atomic<bool> stop{false};
    std::vector<std::thread> loaders;
    for (int t = 0; t < 2; ++t)
      loaders.emplace_back([&, t] {
        int k = 0;
        while (!stop.load()) {
          // Graph building takes short process-wide locks outside any
          // compile: a program that forks meanwhile holds a ForkGuard around
          // it (the documented rule). Compiling, calling and destroying the
          // function are the library's to guard.
          std::optional<ForkGuard> building(std::in_place);
          Var y = dvector("y");
          Var out = y * static_cast<double>(1000 * t + k++);
          building.reset();
          Function g = function({y}, {out}, {.mode = "fast_compile"});
          g({NDArray::full({2}, 1.0, DType::Float64)});
        }
      });
    std::vector<int> codes;
    for (int k = 0; k < kForks; ++k) {
      std::this_thread::sleep_for(std::chrono::microseconds(300 + 731 * k % 5000));
      const pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) child_compiles(3.25 + k, 180);
      codes.push_back(wait_exit(pid));
    }
    stop = true;
    for (auto& t : loaders) t.join();
    for (int c : codes) {
      CAPTURE(c);
      CHECK(c == 0);
    }
  }
}
