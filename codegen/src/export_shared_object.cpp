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

extern char** environ;

namespace theano::codegen {

void export_shared_object(std::string_view object, const std::string& path) {
  namespace fs = std::filesystem;
  const char* tmp = std::getenv("TMPDIR");
  fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp");
  std::string stem = "theano-export-" + std::to_string(::getpid()) + "-" +
                     std::to_string(reinterpret_cast<std::uintptr_t>(&object));
  fs::path log = dir / (stem + ".log");
  std::vector<fs::path> objs;  // one file per object of a bundle
  for (std::string_view o : unbundle_objects(object)) {
    objs.push_back(dir / (stem + "-" + std::to_string(objs.size()) + ".o"));
    std::ofstream out(objs.back(), std::ios::binary);
    out.write(o.data(), static_cast<std::streamsize>(o.size()));
    if (!out) throw LoadError("export_shared_object: cannot write " + objs.back().string());
  }
  const char* cc = std::getenv("CC");
  std::vector<std::string> args = {cc && *cc ? cc : "cc", "-shared", "-o", path};
  for (const fs::path& o : objs) args.push_back(o.string());
  for (const char* lib : {"-lopenblas", "-lmvec", "-lm"}) args.push_back(lib);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  if (rc == 0) ::waitpid(pid, &status, 0);
  std::stringstream output;
  output << std::ifstream(log).rdbuf();
  std::error_code ec;
  for (const fs::path& o : objs) fs::remove(o, ec);
  fs::remove(log, ec);
  if (rc != 0) throw LoadError("export_shared_object: cannot run '" + args[0] + "': " + std::strerror(rc));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw LoadError("export_shared_object: '" + args[0] + " -shared' failed:\n" + output.str() +
                    "\n(was the object compiled with CompileOptions::pic = true?)");
}

}  // namespace theano::codegen
