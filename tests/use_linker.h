// A scope that compiles with one named linker ("py", "cpp", "opwise", ...):
// registers the JIT linkers and sets THEANO_FLAGS linker until it ends.
// For suites that link theano_codegen.
#pragma once

#include <string>

#include "theano/codegen/c_linker.h"
#include "theano/config.h"

namespace theano::test {

struct UseLinker {
  explicit UseLinker(const std::string& name) : guard(with(name)) {}
  static Config with(const std::string& name) {
    codegen::register_linkers();
    Config c = config();
    c.flags["linker"] = name;
    return c;
  }
  ConfigGuard guard;
};

}  // namespace theano::test
