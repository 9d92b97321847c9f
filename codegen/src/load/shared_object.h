/// \file
/// Cached functions as shared libraries, so that a process whose functions all
/// come from the compiledir never starts LLVM's JIT.
///
/// Why: the first function of a process loaded through ORC pays for creating
/// the LLJIT session (about 1 ms) and JITLink (0.3-0.6 ms), more than the
/// whole warm-start budget. The compiledir therefore keeps, beside each CPU
/// object, the same code linked by lld (in-process, liblld) into a `.so`
/// (in its kLibrariesDir, kind "cpu shared object"); a hit loads it with dlopen
/// (0.05-0.1 ms). Linking costs 1-3 ms once, on the miss that compiled the
/// object. Whatever fails on this route (no lld result, a refused memfd,
/// dlopen errors) leaves ORC loading the object, as without a compiledir.
#pragma once

#include <string>
#include <string_view>

namespace theano::codegen::detail {

/// Links `object` (one ELF object, or a bundle of them: unbundle_objects) into
/// a shared library and returns its bytes. Undefined symbols stay undefined:
/// they resolve at dlopen against the process and the runtime libraries
/// (JitLoader). Calls are serialized (lld is not re-entrant). Throws LoadError
/// with lld's messages when linking fails, or when an earlier failure left
/// lld unusable in this process.
std::string link_shared_object(std::string_view object);

/// The compiledir key of the shared library linked from the object stored
/// under `object_key` (it names lld's version and the link flags).
std::string shared_object_key(const std::string& object_key);

/// The compiledir entry kind of those libraries.
inline constexpr const char* kSharedObjectKind = "cpu shared object";

}  // namespace theano::codegen::detail
