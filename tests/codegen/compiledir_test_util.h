/// \file
/// Shared pieces of the tests that compile through a compiledir: the current
/// configuration pointed at a compiledir, and whether a Function came from
/// its function record (the warm start).
#pragma once

#include <theano/config.h>
#include <theano/theano.hpp>

#include <filesystem>

namespace theano::test {

/// config() with THEANO_FLAGS compiledir=<dir>.
inline Config with_compiledir(const std::filesystem::path& dir) {
  Config c = config();
  c.flags["compiledir"] = dir.string();
  return c;
}

/// Whether `f` was built from a function record: no rewrite, codegen or compile.
inline bool from_record(const Function& f) { return f.profile().build.function_record; }

}  // namespace theano::test
