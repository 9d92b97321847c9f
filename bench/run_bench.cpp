// Runs the anchor workloads W1..W7 (bench/workloads.h): compiles each, calls
// it once from its initial state and compares the checksums with
// workloads.md, then times steady-state calls (median, min, max of at least
// 20 calls after 2 warm-up calls). Exits 1 on a checksum mismatch.
//
// Usage: theano_bench [--only W1,W3] [--dtype float64|float32] [--reps N] [--print-graph]
// (--print-graph: the optimized graph of each function, and which rewrites fired)
#include <theano/theano.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "workload_inputs.h"
#include "workloads.h"

using namespace theano;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

bool checksum_ok(double got, double want, double rtol, DType dtype) {
  if (dtype == DType::Float32) rtol = std::max(rtol, 1e-4);
  // A checksum of 0 is rounding noise around zero (sum(b2) in W3): an absolute
  // bound at the dtype's scale.
  if (want == 0) return std::abs(got) < (dtype == DType::Float32 ? 1e-6 : 1e-12);
  return std::abs(got - want) <= rtol * std::abs(want);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> only;
  DType dtype = DType::Float64;
  int reps = 20;
  bool print_graph = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--only" && i + 1 < argc) only = split(argv[++i]);
    else if (a == "--dtype" && i + 1 < argc) dtype = std::strcmp(argv[++i], "float32") == 0 ? DType::Float32 : DType::Float64;
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--print-graph") print_graph = true;
    else {
      std::fprintf(stderr, "usage: %s [--only W1,W3] [--dtype float64|float32] [--reps N] [--print-graph]\n", argv[0]);
      return 2;
    }
  }
  int failures = 0;
  std::printf("%-5s %-24s %10s %11s %11s %11s  checksums\n", "", "size", "compile ms", "median ms", "min ms",
              "max ms");
  for (const std::string& id : bench::workload_ids()) {
    if (!only.empty() && std::find(only.begin(), only.end(), id) == only.end()) continue;
    bench::Workload w = bench::make_workload(id, dtype, /*with_args=*/true);
    const auto t0 = Clock::now();
    Function f = bench::compile_workload(w);
    const double compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (print_graph)
      std::printf("%s optimized graph:\n%s\nrewrites:\n%s\n", id.c_str(), debugprint(f).c_str(),
                  f.rewrite_stats().summary().c_str());
    const std::vector<double> sums = bench::checksums(w, f(w.args));
    std::string verdict;
    bool ok = sums.size() == w.expected.size();
    for (std::size_t k = 0; k < sums.size(); ++k) {
      const bool good = k < w.expected.size() && checksum_ok(sums[k], w.expected[k], w.checksum_rtol, dtype);
      ok = ok && good;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%.12g%s", k ? ", " : "", sums[k], good ? "" : " (MISMATCH)");
      verdict += buf;
    }
    if (!ok) ++failures;
    const int inner = id == "W6" ? 10000 : id == "W1s" ? 200 : 1;
    const bench::Timing t = bench::time_calls([&] { f(w.args); }, reps, inner);
    std::printf("%-5s %-24s %10.1f %11.4f %11.4f %11.4f  %s\n", id.c_str(), w.size.c_str(), compile_ms,
                t.median * 1e3, t.min * 1e3, t.max * 1e3, verdict.c_str());
    std::fflush(stdout);
  }
  if (failures) std::printf("\n%d workload(s) with a checksum mismatch\n", failures);
  return failures ? 1 : 0;
}
