/// \file
/// Compile time measured as a user sees it: `function()` of a workload timed
/// inside a fresh process, so the process's one-time costs (creating the ORC
/// session, mapping LLVM's code, OpenBLAS starting its threads) are included.
///
/// A benchmark program re-runs itself (posix_spawn of /proc/self/exe) with
/// `--child ID DTYPE [--no-next]` and the user's THEANO_FLAGS plus
/// `compiledir=<dir>` appended (later keys win). The child builds the
/// workload's graph (no call arguments), times `function()`, and prints one
/// line with the total and the breakdown from `Function::profile()`; unless
/// `--no-next`, it then compiles the same workload again in the same process
/// ("next": a compiledir hit without the one-time costs).
///
/// Cold = the first child on an empty compiledir (its cache says "miss");
/// warm = a later child on the directory the cold one populated ("hit").
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace theano::bench {

/// One compile in a child process.
struct CompileSample {
  double total_ms = 0, rewrite_ms = 0, codegen_ms = 0, clang_ms = 0, cache_ms = 0, load_ms = 0;
  double next_ms = 0;  ///< the same function compiled again in the child (0 with --no-next)
  std::string cache;   ///< "hit", "miss", "off" (the function's compile cache outcome)
  bool ok = false;     ///< the child ran, exited 0 and printed its line
};

/// When argv is a child invocation (`--child ID DTYPE [--no-next]`), runs it
/// and returns its exit status; otherwise nullopt. Call first in main().
std::optional<int> run_compile_child_if_asked(int argc, char** argv);

/// Runs one child of this executable on `compiledir` and waits for it. Its
/// output goes to a file beside `compiledir` (in compiledir's parent).
CompileSample run_compile_child(const std::filesystem::path& compiledir, const std::string& id,
                                const std::string& dtype, bool next);

}  // namespace theano::bench
