/// \file
/// Debugging aid: turn a JIT object into a `.so` with the system C compiler, so a
/// generated function can be loaded by gdb, perf or a standalone test program.
///
/// Why a subprocess: this is off the hot path (never used by function()), and the
/// system `cc` already knows the default library paths; the JIT itself needs no
/// linker at all.
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>
#include <theano/cache/dir_security.h>

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
  // The objects and the compiler's log go to a fresh mkdtemp directory inside
  // this user's private directory (0700), never to a predictable shared /tmp
  // name; each file is created O_EXCL|O_NOFOLLOW.
  const fs::path root = cache::private_dir();
  if (root.empty()) throw LoadError("export_shared_object: no private temporary directory");
  std::string templ = (root / "export-XXXXXX").string();
  if (!::mkdtemp(templ.data()))
    throw LoadError("export_shared_object: cannot create a directory in " + root.string() + ": " + std::strerror(errno));
  const fs::path dir(templ);
  struct RemoveDir {
    fs::path d;
    ~RemoveDir() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};
  const fs::path log = dir / "cc.log";
  std::vector<fs::path> objs;  // one file per object of a bundle
  for (std::string_view o : unbundle_objects(object)) {
    objs.push_back(dir / ("object-" + std::to_string(objs.size()) + ".o"));
    const int fd = cache::create_exclusive(objs.back(), 0600);
    bool ok = fd >= 0;
    for (std::size_t done = 0; ok && done < o.size();) {
      const ssize_t n = ::write(fd, o.data() + done, o.size() - done);
      if (n < 0 && errno == EINTR) continue;
      ok = n > 0;
      if (ok) done += static_cast<std::size_t>(n);
    }
    if (fd >= 0 && ::close(fd) != 0) ok = false;
    if (!ok) throw LoadError("export_shared_object: cannot write " + objs.back().string());
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
