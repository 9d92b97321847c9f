/// \file
/// Internal: the prelude every generated unit starts with, parsed once per
/// process and flag set into a precompiled header (PCH) held in memory
/// (docs/jit-and-cache.md, "The precompiled prelude").
///
/// Why: the prelude is about 60 KB of declarations, the same in every unit,
/// and its parsing was most of a small function's front end (13-19 ms of a
/// 25-40 ms compile of one addition). Clang reads a PCH lazily, declarations
/// on use, so a unit pays only for what it names.
#pragma once

#include "clang_driver.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace theano::codegen::detail {

/// The virtual paths the prelude and its PCH have in a compile's file system.
inline constexpr const char* kPreludeHeader = "/__theano_jit__/__theano_prelude__.h";
inline constexpr const char* kPreludePch = "/__theano_jit__/__theano_prelude__.pch";

/// One prelude, precompiled.
struct PreludePch {
  std::string prelude;    ///< the text it was built from, through the end marker
  std::string bytes;      ///< the serialized AST (Clang's raw PCH format)
  std::string store_key;  ///< its key in a PreludeStore
  int lines = 0;          ///< newlines in `prelude`: the body's first line is lines + 1
};

/// Where `source`'s prelude ends (just past the line kPreludeEnd), or 0 when
/// the source has no such line.
std::size_t prelude_end(std::string_view source);

/// The PCH of `prelude` for `driver`'s flag set: from this process's memory,
/// else (the first time it is asked for) from `store` when given, else (the
/// second time) built now, kept and saved to `store`. Null when there is none:
/// the first time with nothing stored, while another compile loads or builds
/// it, and when it cannot be built. The caller then compiles its whole
/// source (which reports the prelude's errors, if it has any).
std::shared_ptr<const PreludePch> prelude_pch(const DriverResult& driver, std::string_view prelude,
                                              const PreludeStore* store);

/// Drops `pch` (Clang refused it: a compile with it failed where the whole
/// source compiles): this process parses that prelude from now on, and
/// `store` loses it, so the next process builds it again.
void forget_prelude_pch(const PreludePch& pch, const PreludeStore* store, const std::string& why);

}  // namespace theano::codegen::detail
