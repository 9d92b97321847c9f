/// \file
/// `ProfileStats`: what compiling and calling one Function cost, in the spirit
/// of Theano's ProfileStats: the compile-time breakdown (rewrite / codegen /
/// clang / load), call count and time, and per-node times when the function was
/// linked with the OpWise linker ("opwise") and profiling is on
/// (`FunctionOptions::profile` or THEANO_FLAGS profile=True).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/compile/linker.h"

namespace theano {

struct ProfileStats {
  std::string name;    ///< the function's name ("" when unnamed)
  std::string mode;    ///< canonical mode name
  std::string linker;  ///< linker name
  bool enabled = false;  ///< calls and nodes are timed only when profiling is on
  double rewrite_ms = 0;
  ThunkStats build;     ///< codegen / compile / load times, kept source path, per-node times
  std::uint64_t calls = 0;
  double call_seconds = 0;  ///< total wall time inside calls (argument checks included)
  /// A printable report: compile breakdown, calls, and the nodes sorted by
  /// time with their share of the total.
  std::string summary() const;
};

/// The back end that caches compiled code reports the process's cache
/// statistics through this (one line: hits, misses, compiles, bytes, time
/// saved); summary() prints it. compiler/ knows no cache, so codegen sets it.
void set_compile_cache_reporter(std::string (*reporter)());

}  // namespace theano
