/// \file
/// Debugging aid: turn a JIT object into a `.so` with the system C compiler, so a
/// generated function can be loaded by gdb, perf or a standalone test program.
///
/// Why a subprocess: this is off the hot path (never used by function()), and the
/// system `cc` already knows the default library paths; the JIT itself needs no
/// linker at all.
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch_dir.h"

extern char** environ;

namespace theano::codegen {

void export_shared_object(std::string_view object, const std::string& path) {
  namespace fs = std::filesystem;
  // The objects and the compiler's log go to a private scratch directory
  // (scratch_dir.h), never to a predictable shared /tmp name.
  const detail::ScratchDir dir("export_shared_object", "export");
  const fs::path log = dir.path() / "cc.log";
  std::vector<fs::path> objs;  // one file per object of a bundle
  for (std::string_view o : unbundle_objects(object))
    objs.push_back(dir.write("object-" + std::to_string(objs.size()) + ".o", o));
  const char* cc = std::getenv("CC");
  std::vector<std::string> args = {cc && *cc ? cc : "cc", "-shared", "-o", path};
  for (const fs::path& o : objs) args.push_back(o.string());
  for (const char* lib : {"-lopenblas", "-lmvec", "-lm"}) args.push_back(lib);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  if (rc == 0) ::waitpid(pid, &status, 0);
  std::stringstream output;
  output << std::ifstream(log).rdbuf();
  if (rc != 0) throw LoadError("export_shared_object: cannot run '" + args[0] + "': " + std::strerror(rc));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw LoadError("export_shared_object: '" + args[0] + " -shared' failed:\n" + output.str() +
                    "\n(was the object compiled with CompileOptions::pic = true?)");
}

}  // namespace theano::codegen
