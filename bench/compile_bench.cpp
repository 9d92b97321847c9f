// Compile-time benchmark (issue 5): for each workload W1..W7, the wall time
// of function() in a fresh process on an empty compiledir (cold) and in
// another fresh process on the compiledir the first one populated (warm),
// with the breakdown (rewrite / codegen / clang / cache / load). The warm
// breakdown also says what a structural key (a key computed from the graph,
// skipping rewriting and code generation on a hit) could save at most.
//
// Usage: theano_compile_bench [--only W1,W3] [--dtype float64|float32|all] [--warm-runs N]
// (internally: theano_compile_bench --child ID DTYPE, run with THEANO_FLAGS=compiledir=...)
#include <theano/codegen/compiledir.h>
#include <theano/theano.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "workloads.h"

extern char** environ;

using namespace theano;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// One compile in a child process.
struct Sample {
  double total_ms = 0, rewrite_ms = 0, codegen_ms = 0, clang_ms = 0, cache_ms = 0, load_ms = 0;
  double next_ms = 0;  // the same function compiled again in the same process
  std::string cache;
  bool ok = false;
};

int child(const std::string& id, const std::string& dtype) {
  const DType d = dtype == "float32" ? DType::Float32 : DType::Float64;
  const bench::Workload w = bench::make_workload(id, d, /*with_args=*/false);
  const auto t0 = Clock::now();
  Function f = bench::compile_workload(w);
  const double total = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const ProfileStats p = f.profile();
  // The same workload built again in this process: a compile without the
  // process's one-time costs (the ORC session, mapping LLVM's code).
  const bench::Workload w2 = bench::make_workload(id, d, /*with_args=*/false);
  const auto t1 = Clock::now();
  Function g = bench::compile_workload(w2);
  const double next = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  std::printf("total=%.4f rewrite=%.4f codegen=%.4f clang=%.4f cache_ms=%.4f load=%.4f next=%.4f cache=%s\n", total,
              p.rewrite_ms, p.build.codegen_ms, p.build.compile_ms, p.build.cache_ms, p.build.load_ms, next,
              p.build.cache.c_str());
  return 0;
}

Sample run_child(const std::string& self, const fs::path& compiledir, const std::string& id, const std::string& dtype) {
  const std::string flags = "THEANO_FLAGS=compiledir=" + compiledir.string();
  std::vector<std::string> env{flags};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "THEANO_FLAGS=", 13) != 0) env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args{self, "--child", id, dtype};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const fs::path out = compiledir.parent_path() / "child.out";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Sample s;
  const int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return s;
  int status = 0;
  ::waitpid(pid, &status, 0);
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

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) {
    try {
      return child(argv[2], argv[3]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  std::vector<std::string> only, dtypes{"float64", "float32"};
  int warm_runs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = split(argv[++i]);
    else if (a == "--dtype" && i + 1 < argc) {
      const std::string v = argv[++i];
      dtypes = v == "all" ? std::vector<std::string>{"float64", "float32"} : std::vector<std::string>{v};
    } else if (a == "--warm-runs" && i + 1 < argc) warm_runs = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--only W1,W3] [--dtype float64|float32|all] [--warm-runs N]\n", argv[0]);
      return 2;
    }
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const fs::path root = fs::temp_directory_path() / ("theano-compile-bench-" + std::to_string(::getpid()));
  std::printf("Compile time of W1..W7 (workloads.md), each in a fresh process: cold = empty compiledir,\n"
              "warm = the compiledir the cold process populated (median of %d processes).\n"
              "Targets: cold W1 < 60 ms, cold W3 < 500 ms, warm < 2 ms per function.\n"
              "'warm ms' is the first function of a fresh process (it pays the process's one-time costs:\n"
              "creating the ORC session, mapping LLVM's code); 'next' is the same function compiled again\n"
              "in that process (still a compiledir hit). 'skippable' = rewrite + codegen of the warm run:\n"
              "the most a structural key could save.\n\n",
              warm_runs);
  std::printf("%-5s %-8s %9s %9s | %8s %8s %8s %8s %8s %9s | %7s\n", "", "dtype", "cold ms", "(clang)", "warm ms",
              "rewrite", "codegen", "cache", "load", "skippable", "next");
  int failures = 0;
  for (const std::string& dtype : dtypes) {
    for (const std::string& id : bench::workload_ids()) {
      if (!only.empty() && std::find(only.begin(), only.end(), id) == only.end()) continue;
      std::error_code ec;
      fs::remove_all(root, ec);
      fs::create_directories(root);
      const fs::path cd = root / "compiledir";
      const Sample cold = run_child(self, cd, id, dtype);
      std::vector<Sample> warm;
      for (int r = 0; r < warm_runs; ++r) warm.push_back(run_child(self, cd, id, dtype));
      const bool ok = cold.ok && cold.cache == "miss" &&
                      std::all_of(warm.begin(), warm.end(), [](const Sample& s) { return s.ok && s.cache == "hit"; });
      if (!ok) {
        ++failures;
        std::printf("%-5s %-8s FAILED (a child process failed, or the warm runs did not hit the cache)\n", id.c_str(),
                    dtype.c_str());
        continue;
      }
      std::sort(warm.begin(), warm.end(), [](const Sample& a, const Sample& b) { return a.total_ms < b.total_ms; });
      const Sample& m = warm[warm.size() / 2];
      std::printf("%-5s %-8s %9.1f %9.1f | %8.2f %8.2f %8.2f %8.2f %8.2f %9.2f | %7.2f\n", id.c_str(),
                  dtype.c_str(), cold.total_ms, cold.clang_ms, m.total_ms, m.rewrite_ms, m.codegen_ms, m.cache_ms,
                  m.load_ms, m.rewrite_ms + m.codegen_ms, m.next_ms);
      std::fflush(stdout);
    }
  }
  std::error_code ec;
  fs::remove_all(root, ec);
  return failures ? 1 : 0;
}
