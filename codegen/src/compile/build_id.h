/// \file
/// The GNU build id (NT_GNU_BUILD_ID, as lowercase hex) of a loaded ELF
/// object, read from its mapped notes. Private to codegen/.
///
/// Why: keys must change when the code that made or runs an entry changes.
/// A build id names one build of one object exactly, and reading it from the
/// notes the loader mapped costs no system call and runs none of that
/// object's code (asking Clang for its version string touched pages of
/// libclang-cpp that nothing else in a warm start uses).
#pragma once

#include <string>

namespace theano::codegen::detail {

/// The build id of the loaded object that contains `address` (a function or
/// variable of it), or "" when it has none or `address` is in no object.
std::string elf_build_id(const void* address);

}  // namespace theano::codegen::detail
