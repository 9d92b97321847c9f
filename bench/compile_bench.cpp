// Compile-time benchmark (issue 5): for each workload W1..W13 and the chains
// T1000 / T10000 of tanh (issue 33: compile time linear in the graph), the wall time
// of function() in a fresh process on an empty compiledir (cold) and in
// another fresh process on the compiledir the first one populated (warm),
// with the breakdown (rewrite / codegen / clang / cache / load). The warm
// breakdown also says what a structural key (a key computed from the graph,
// skipping rewriting and code generation on a hit) could save at most.
//
// Usage: theano_compile_bench [--only W1,W3] [--dtype float64|float32|all] [--warm-runs N]
// (internally: theano_compile_bench --child ID DTYPE, see compile_child.h)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "compile_child.h"
#include "targets.h"
#include "workloads.h"

using namespace theano;
namespace fs = std::filesystem;
using bench::CompileSample;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (const auto rc = bench::run_compile_child_if_asked(argc, argv)) return *rc;
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
  const fs::path root = fs::temp_directory_path() / ("theano-compile-bench-" + std::to_string(::getpid()));
  std::printf("Compile time of W1..W13 (workloads.md), each in a fresh process: cold = empty compiledir,\n"
              "warm = the compiledir the cold process populated (median of %d processes).\n"
              "Targets (bench/targets.h): cold W1 <= %.0f ms, W3 <= %.0f ms, W7 <= %.0f ms, W9 <= %.0f ms,\n"
              "T1000 <= %.0f ms, T10000 <= %.0f ms; warm <= %.0f ms per function.\n"
              "'warm ms' is the first function of a fresh process (it pays the process's one-time costs:\n"
              "opening the runtime libraries, mapping LLVM's code); 'next' is the same function compiled again\n"
              "in that process (still a compiledir hit). 'skippable' = rewrite + codegen of the warm run:\n"
              "what the function record skips (0 when the warm run found it).\n\n",
              warm_runs, bench::targets::kColdCompileW1Ms, bench::targets::kColdCompileW3Ms,
              bench::targets::kColdCompileW7Ms, bench::targets::kColdCompileW9Ms,
              bench::targets::kColdCompileT1000Ms, bench::targets::kColdCompileT10000Ms, bench::targets::kWarmCompileMs);
  std::printf("%-5s %-8s %9s %9s | %8s %8s %8s %8s %8s %9s | %7s\n", "", "dtype", "cold ms", "(clang)", "warm ms",
              "rewrite", "codegen", "cache", "load", "skippable", "next");
  int failures = 0;
  for (const std::string& dtype : dtypes) {
    std::vector<std::string> ids = bench::workload_ids();
    const std::vector<std::string>& chains = bench::chain_ids();
    ids.insert(ids.end(), chains.begin(), chains.end());
    for (const std::string& id : ids) {
      if (!only.empty() && std::find(only.begin(), only.end(), id) == only.end()) continue;
      std::error_code ec;
      fs::remove_all(root, ec);
      fs::create_directories(root);
      const fs::path cd = root / "compiledir";
      const CompileSample cold = bench::run_compile_child(cd, id, dtype, /*next=*/true);
      std::vector<CompileSample> warm;
      for (int r = 0; r < warm_runs; ++r) warm.push_back(bench::run_compile_child(cd, id, dtype, /*next=*/true));
      const bool ok = cold.ok && cold.cache == "miss" &&
                      std::all_of(warm.begin(), warm.end(),
                                  [](const CompileSample& s) { return s.ok && s.cache == "hit"; });
      if (!ok) {
        ++failures;
        std::printf("%-5s %-8s FAILED (a child process failed, or the warm runs did not hit the cache)\n", id.c_str(),
                    dtype.c_str());
        continue;
      }
      std::sort(warm.begin(), warm.end(),
                [](const CompileSample& a, const CompileSample& b) { return a.total_ms < b.total_ms; });
      const CompileSample& m = warm[warm.size() / 2];
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
