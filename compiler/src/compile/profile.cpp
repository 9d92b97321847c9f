// ProfileStats::summary: the printed profile of one Function.
#include "theano/compile/profile.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace theano {
namespace {
std::string fixed(double v, int prec = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}
std::atomic<std::string (*)()> cache_reporter{nullptr};
}  // namespace

void set_compile_cache_reporter(std::string (*reporter)()) { cache_reporter.store(reporter); }

std::string ProfileStats::summary() const {
  std::ostringstream os;
  os << "Function profiling\n==================\n";
  os << "  Message: " << (name.empty() ? std::string("<unnamed function>") : name) << "\n";
  os << "  Mode: " << mode << ", linker: " << linker << "\n";
  const double compile_total = rewrite_ms + build.codegen_ms + build.compile_ms + build.load_ms;
  os << "  Compile time: " << fixed(compile_total) << " ms (rewrite " << fixed(rewrite_ms) << " ms, codegen "
     << fixed(build.codegen_ms) << " ms, clang " << fixed(build.compile_ms) << " ms, load " << fixed(build.load_ms)
     << " ms)\n";
  if (build.source_bytes) os << "  Generated source: " << build.source_bytes << " bytes\n";
  if (!build.cache.empty())
    os << "  Compile cache: " << build.cache << (build.cache_key.empty() ? "" : " (key " + build.cache_key + ")")
       << ", " << fixed(build.cache_ms) << " ms in the cache\n";
  if (auto* report = cache_reporter.load()) {
    const std::string line = report();
    if (!line.empty()) os << "  Compile cache, this process: " << line << "\n";
  }
  if (!build.gpu.empty()) os << "  GPU code: " << build.gpu << "\n";
  if (!build.source_path.empty()) os << "  Source kept at: " << build.source_path << "\n";
  if (!enabled) {
    os << "  (calls not timed: profiling is off; set FunctionOptions::profile or THEANO_FLAGS profile=True)\n";
    return os.str();
  }
  os << "  Calls: " << calls << ", time in calls: " << fixed(call_seconds, 6) << " s";
  if (calls) os << " (" << fixed(call_seconds / static_cast<double>(calls) * 1e6) << " us per call)";
  os << "\n";
  if (build.nodes.empty()) {
    os << "  (no per-node times: link with linker=opwise to time each node)\n";
    return os.str();
  }
  const double total = std::accumulate(build.nodes.begin(), build.nodes.end(), 0.0,
                                       [](double s, const ThunkStats::Node& n) { return s + n.seconds; });
  std::vector<const ThunkStats::Node*> sorted;
  for (const auto& n : build.nodes) sorted.push_back(&n);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->seconds > b->seconds; });
  os << "\n  Apply nodes, by time (" << fixed(total, 6) << " s in nodes):\n";
  os << "  <% time> <sum %> <time s> <per call us> <calls> <node>\n";
  double cumulative = 0;
  for (const auto* n : sorted) {
    const double pct = total > 0 ? 100.0 * n->seconds / total : 0;
    cumulative += pct;
    char line[160];
    std::snprintf(line, sizeof line, "  %6.1f%%  %6.1f%%  %9.6f  %10.3f  %7llu  ", pct, cumulative, n->seconds,
                  n->calls ? n->seconds / static_cast<double>(n->calls) * 1e6 : 0.0,
                  static_cast<unsigned long long>(n->calls));
    os << line << n->name << "\n";
  }
  return os.str();
}

}  // namespace theano
