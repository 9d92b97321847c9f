/// \file
/// Internal: the process's background compile thread, which tiered
/// compilation (THEANO_FLAGS tiered_compile, c_linker.cpp) hands the
/// optimized compile of a function whose first code it compiled without
/// optimization.
///
/// Why one thread and a queue: a program that builds fifty functions would
/// otherwise start fifty optimizing compiles at once beside its own work.
/// Jobs run one at a time, in order, each under a ForkGuard (fork() waits for
/// the one running, as for any compile). The process waits for the queue at
/// exit, so the optimized objects reach the compiledir and no job runs while
/// LLVM's statics are destroyed. A child forked while jobs were queued does
/// not run them (their thunks keep the code they have); jobs it queues itself
/// run on its own thread.
#pragma once

#include <functional>

namespace theano::codegen::detail {

/// Runs `job` on the background compile thread (started on first use in
/// this process). `job` reports its own errors: what it throws is dropped.
void run_in_background(std::function<void()> job);

/// Returns once every job queued so far in this process has run.
void wait_background();

}  // namespace theano::codegen::detail
