// Compile time in fresh processes (see compile_child.h).
#include "compile_child.h"

#include <theano/theano.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "workloads.h"

extern char** environ;

namespace theano::bench {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

int child(const std::string& id, const std::string& dtype, bool next) {
  const DType d = dtype == "float32" ? DType::Float32 : DType::Float64;
  const Workload w = make_workload(id, d, /*with_args=*/false);
  struct rusage r0 {}, r1 {};
  ::getrusage(RUSAGE_SELF, &r0);
  const auto t0 = Clock::now();
  Function f = compile_workload(w);
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  ::getrusage(RUSAGE_SELF, &r1);
  const ProfileStats p = f.profile();
  double next_ms = 0;
  if (next) {
    // The same workload built again in this process: a compile without the
    // process's one-time costs.
    const Workload w2 = make_workload(id, d, /*with_args=*/false);
    const auto t1 = Clock::now();
    Function g = compile_workload(w2);
    next_ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  }
  // faults: the page faults of the first compile (a warm start's are most of
  // its time that instructions do not show: first touches of code and data).
  std::printf("total=%.4f rewrite=%.4f codegen=%.4f clang=%.4f cache_ms=%.4f load=%.4f next=%.4f cache=%s faults=%ld\n",
              total, p.rewrite_ms, p.build.codegen_ms, p.build.compile_ms, p.build.cache_ms, p.build.load_ms, next_ms,
              p.build.cache.empty() ? "none" : p.build.cache.c_str(), r1.ru_minflt - r0.ru_minflt);
  return 0;
}

}  // namespace

std::optional<int> run_compile_child_if_asked(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[1], "--child") != 0) return std::nullopt;
  const bool no_next = argc == 5 && std::strcmp(argv[4], "--no-next") == 0;
  if (argc > 5 || (argc == 5 && !no_next)) {
    std::fprintf(stderr, "usage: %s --child ID DTYPE [--no-next]\n", argv[0]);
    return 2;
  }
  try {
    return child(argv[2], argv[3], !no_next);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s %s: %s\n", argv[2], argv[3], e.what());
    return 1;
  }
}

CompileSample run_compile_child(const fs::path& compiledir, const std::string& id, const std::string& dtype,
                                bool next) {
  static const std::string self = fs::read_symlink("/proc/self/exe").string();
  // The user's flags, then the compiledir (a later key wins).
  std::string flags = "THEANO_FLAGS=";
  if (const char* user = std::getenv("THEANO_FLAGS"); user && *user) flags += std::string(user) + ",";
  flags += "compiledir=" + compiledir.string();
  std::vector<std::string> env{flags};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "THEANO_FLAGS=", 13) != 0) env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args{self, "--child", id, dtype};
  if (!next) args.emplace_back("--no-next");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const fs::path out = compiledir.parent_path() / "child.out";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  CompileSample s;
  const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return s;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  char cache[16] = {};
  s.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
         std::sscanf(line.c_str(),
                     "total=%lf rewrite=%lf codegen=%lf clang=%lf cache_ms=%lf load=%lf next=%lf cache=%15s",
                     &s.total_ms, &s.rewrite_ms, &s.codegen_ms, &s.clang_ms, &s.cache_ms, &s.load_ms, &s.next_ms,
                     cache) == 8;
  s.cache = cache;
  return s;
}

}  // namespace theano::bench
