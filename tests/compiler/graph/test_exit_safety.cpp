// Releasing graph nodes at process exit (issue 15): a static Var is destroyed
// after the thread's thread_local objects, so node release must not use a
// thread_local with a destructor. The test forks a child that holds a static
// Var and exits; the child must exit cleanly having freed the Var's nodes.
#include <doctest/doctest.h>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "fake_ops.h"
#include "theano/graph/intrusive.h"

using namespace theano;
using namespace theano::testing;

namespace {

std::int64_t g_expected_at_exit = -1;

// Registered before the static Var is constructed, so it runs after the Var
// was destroyed: its nodes must be gone by then (statics made later may have
// freed more).
void check_nodes_freed() {
  if (GraphNode::live_nodes() > g_expected_at_exit) std::_Exit(3);
}

[[noreturn]] void child() {
  // Large blocks come from mmap, so a use of a freed release queue faults
  // in a Release build (ASan reports it in any case).
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  {
    // One node with many inputs: its release queues them all at once (a
    // queue larger than any the parent process may have grown).
    constexpr int kWide = (1 << 17) + 1;
    std::vector<Var> ins;
    for (int k = 0; k < kWide; ++k) ins.push_back(var("i"));
    Var wide = ap(op("wide", kWide), std::move(ins));
  }
  g_expected_at_exit = GraphNode::live_nodes();
  std::atexit(&check_nodes_freed);
  static Var chain = [] {
    Var v = var("s");
    for (int k = 0; k < 1000; ++k) v = ap(op("f", 1), {v});
    return v;
  }();
  std::exit(0);
}

}  // namespace

TEST_CASE("a static Var released at process exit is freed cleanly") {
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) child();
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CAPTURE(status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
