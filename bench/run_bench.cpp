// theano_bench, run by bench/run: the anchor workloads W1..W13 of
// docs/workloads.md, each checked against its listed checksums and
// measured against the machine's limits and its target, in one run:
//
//  1. the machine's bandwidth: an all-core STREAM triad (machine_limits.h);
//  2. compile time per workload in fresh processes (compile_child.h), after
//     one untimed process that reads the compiler's libraries from disk: cold
//     = median of 3 processes, each on an empty compiledir; warm = median of 5
//     new processes on a compiledir a cold one populated;
//  3. OpenBLAS gemm called directly (dgemm; sgemm when float32 runs);
//  4. per workload in this process: compile (a hit in the compiledir of step
//     2), one call from the initial state whose checksums are compared with
//     docs/workloads.md, then steady-state calls (median, min and max of >= 20
//     samples after 2 warm-up calls; W1s in samples of 2000 calls, W6 and W6t
//     in 7 loops of 10^5 calls); W8 and W8g also as a second function
//     compiled with THEANO_FLAGS threads=1 (the single-thread figure);
//  5. the table on stdout and, with --json, the same figures as JSON
//     (report.h). Progress goes to stderr.
//
// The steps are in this order so that nothing runs beside the compile
// children (the parent has not started OpenBLAS's or theano's threads yet,
// and the triad's threads have exited).
//
// Exit status: 0, or 1 when a checksum does not match, a workload fails, or
// a compile measurement fails; 2 on a usage error. Missed targets are
// reported, never an error.
#include <theano/codegen/c_linker.h>
#include <theano/gpu/context.h>
#include <theano/extending.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compile_child.h"
#include "machine_limits.h"
#include "report.h"
#include "workload_inputs.h"
#include "workloads.h"

using namespace theano;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* const kUsage =
    "usage: %s [--only W1,W6] [--dtype float64|float32|all] [--json FILE] [--quick]\n"
    "          [--reps N] [--cold-runs N] [--warm-runs N] [--skip-compile] [--print-graph]\n"
    "          [--device cpu|cuda|cuda<N>|auto|emulated]\n"
    "  --only       workloads to run: W1 W1s W2 W3 W4a W4b W4c W5 W6 W6t W7 W7s W8 W8g W9 W10 W11 W12 W13; a name also\n"
    "               selects its variants (W1: W1, W1s; W4: W4a-c; W6: W6, W6t; W7: W7, W7s; W8: W8, W8g).\n"
    "               W8 and W8g are also timed compiled with THEANO_FLAGS threads=1 (a 'threads=1' line)\n"
    "  --dtype      float64 (default), float32, or all (both)\n"
    "  --json FILE  also write the figures as JSON\n"
    "  --quick      10 samples per workload, 1 cold and 3 warm processes, 5 triad repetitions\n"
    "  --reps N     samples per workload (default 20; W6 always 7 loops of 10^5 calls); the direct gemm: at most 20\n"
    "  --cold-runs N  cold compile processes per workload, each on an empty compiledir (default 3)\n"
    "  --warm-runs N  warm compile processes per workload (default 5)\n"
    "  --skip-compile  no compile measurement (no child processes)\n"
    "  --print-graph   print each optimized graph and the rewrites that fired\n"
    "  --device D   THEANO_FLAGS device for every compile (the compile processes too): the\n"
    "               workloads run on that GPU with the same checksums (inputs are host arrays,\n"
    "               so call times include the transfers); default: THEANO_FLAGS' device, or cpu\n";

struct Options {
  std::vector<std::string> ids;
  std::vector<std::string> dtypes{"float64"};
  std::string json;
  std::string device;  ///< --device: appended to THEANO_FLAGS
  bool quick = false, skip_compile = false, print_graph = false;
  int reps = 0, cold_runs = 0, warm_runs = 0;  // 0: default for the mode
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> r;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) r.push_back(item);
  return r;
}

/// The workload ids `name` selects: itself, and the ids that extend it by
/// letters (W1 -> W1, W1s; W4 -> W4a, W4b, W4c). Empty when none.
std::vector<std::string> select(const std::string& name) {
  std::vector<std::string> r;
  for (const std::string& id : bench::workload_ids())
    if (id == name || (id.rfind(name, 0) == 0 && std::isalpha(static_cast<unsigned char>(id[name.size()]))))
      r.push_back(id);
  return r;
}

bool parse(int argc, char** argv, Options& o) {
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--only" && has_value) {
      for (const auto& n : split(argv[++i])) names.push_back(n);
    } else if (a == "--dtype" && has_value) {
      const std::string v = argv[++i];
      if (v == "all") o.dtypes = {"float64", "float32"};
      else if (v == "float64" || v == "float32") o.dtypes = {v};
      else return false;
    } else if (a == "--json" && has_value) {
      o.json = argv[++i];
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--reps" && has_value) {
      o.reps = std::atoi(argv[++i]);
      if (o.reps < 1) return false;
    } else if (a == "--cold-runs" && has_value) {
      o.cold_runs = std::atoi(argv[++i]);
      if (o.cold_runs < 1) return false;
    } else if (a == "--warm-runs" && has_value) {
      o.warm_runs = std::atoi(argv[++i]);
      if (o.warm_runs < 1) return false;
    } else if (a == "--skip-compile") {
      o.skip_compile = true;
    } else if (a == "--print-graph") {
      o.print_graph = true;
    } else if (a == "--device" && has_value) {
      o.device = argv[++i];
    } else {
      return false;
    }
  }
  if (o.reps == 0) o.reps = o.quick ? 10 : 20;
  if (o.cold_runs == 0) o.cold_runs = o.quick ? 1 : 3;
  // Warm starts: a median of three even with --quick. One process (about
  // 0.1 s) decided rows on a shared machine: W10's warm start read 1.0-1.3 ms
  // in processes seconds apart.
  if (o.warm_runs == 0) o.warm_runs = o.quick ? 3 : 5;
  for (const std::string& id : bench::workload_ids()) {
    bool wanted = names.empty();
    for (const auto& n : names)
      for (const auto& s : select(n)) wanted = wanted || s == id;
    if (wanted) o.ids.push_back(id);
  }
  for (const auto& n : names)
    if (select(n).empty()) {
      std::fprintf(stderr, "unknown workload '%s'\n", n.c_str());
      return false;
    }
  return true;
}

DType dtype_of(const std::string& d) { return d == "float32" ? DType::Float32 : DType::Float64; }

bool checksum_ok(double got, double want, double rtol, DType dtype) {
  if (dtype == DType::Float32) rtol = std::max(rtol, 1e-4);
  // A checksum of 0 is rounding noise around zero (sum(b2) in W3): an absolute
  // bound at the dtype's scale.
  if (want == 0) return std::abs(got) < (dtype == DType::Float32 ? 1e-6 : 1e-12);
  return std::abs(got - want) <= rtol * std::abs(want);
}

/// Bytes a workload must move per call (inputs read + outputs written), for
/// the rows held against the triad; 0 for the others.
double bytes_per_call(const std::string& id, DType dtype) {
  const double e = static_cast<double>(dtype_size(dtype));
  if (id == "W1" || id == "W1d") return 4.0 * 1e7 * e;  // x, y, z read, out written
  if (id == "W4a" || id == "W4b" || id == "W4c") return 4000.0 * 4000.0 * e;
  if (id == "W5") return 4.0 * 1e6 * e;  // x, y read, two outputs written
  // W8: S (10^6 values, 10^6 int64 indices, 10^5 + 1 int64 indptr) read, a
  // row of D (64 values) read per stored value, out (10^5 x 64) written.
  // W8g: S D, then S^T times it: twice as many bytes.
  const double w8 = 1e6 * e + 1e6 * 8 + (1e5 + 1) * 8 + 1e6 * 64 * e + 1e5 * 64 * e;
  if (id == "W8") return w8;
  if (id == "W8g") return 2 * w8;
  return 0;
}

/// The compiledir of a row's compile measurement.
fs::path row_dir(const fs::path& root, const bench::Row& r) { return root / (r.dtype + "-" + r.workload); }

/// Median, min and max of `v` (not empty).
struct Spread {
  double median, min, max;
};
Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

/// Whether the `kind` compile process succeeded with cache outcome `want`;
/// else records why in r.compile_error ("a cold compile did not <what> ...").
bool expect_cache(bench::Row& r, const bench::CompileSample& s, const char* kind, const char* want, const char* what) {
  if (s.ok && s.cache == want) return true;
  r.compile_error = !s.ok ? std::string("a ") + kind + " compile process failed"
                          : std::string("a ") + kind + " compile did not " + what + " (cache " + s.cache + ")";
  return false;
}

void measure_compile(bench::Row& r, const fs::path& root, int cold_runs, int warm_runs) {
  // Cold: each process on its own empty compiledir; the warm processes use
  // the first one's.
  const fs::path cd = row_dir(root, r) / "compiledir";
  std::vector<double> cold, clang;
  for (int i = 0; i < cold_runs; ++i) {
    const fs::path dir = i == 0 ? cd : row_dir(root, r) / ("cold" + std::to_string(i)) / "compiledir";
    fs::create_directories(dir.parent_path());
    const bench::CompileSample s = bench::run_compile_child(dir, r.workload, r.dtype, /*next=*/false);
    if (!expect_cache(r, s, "cold", "miss", "miss the empty compiledir")) return;
    cold.push_back(s.total_ms);
    clang.push_back(s.clang_ms);
    if (i > 0) {
      std::error_code ec;
      fs::remove_all(dir.parent_path(), ec);
    }
  }
  std::vector<double> warm;
  for (int i = 0; i < warm_runs; ++i) {
    const bench::CompileSample s = bench::run_compile_child(cd, r.workload, r.dtype, /*next=*/false);
    if (!expect_cache(r, s, "warm", "hit", "hit the populated compiledir")) return;
    warm.push_back(s.total_ms);
  }
  const Spread c = spread(cold), w = spread(warm);
  r.compile_cold_ms = c.median;
  r.compile_cold_min_ms = c.min;
  r.compile_cold_max_ms = c.max;
  r.compile_cold_clang_ms = spread(clang).median;
  r.compile_cold_runs = cold_runs;
  r.compile_warm_ms = w.median;
  r.compile_warm_min_ms = w.min;
  r.compile_warm_max_ms = w.max;
  r.compile_warm_runs = warm_runs;
}

void measure_calls(bench::Row& r, const fs::path& compiledir, const Options& o) {
  const DType dtype = dtype_of(r.dtype);
  bench::Workload w = bench::make_workload(r.workload, dtype, /*with_args=*/true);
  Function f;
  {
    // Compile in the row's warm compiledir when there is one (a cache hit,
    // and the user's compiledir is left alone).
    Config cfg = config();
    if (!compiledir.empty()) cfg.flags["compiledir"] = compiledir.string();
    ConfigGuard guard(cfg);
    f = bench::compile_workload(w);
  }
  // Under THEANO_FLAGS tiered_compile a miss runs -O0 code until the
  // optimized code takes over: the calls are timed on the optimized code.
  codegen::wait_for_optimized_code();
  if (o.print_graph)
    std::printf("%s %s optimized graph:\n%s\nrewrites:\n%s\n", r.workload.c_str(), r.dtype.c_str(),
                debugprint(f).c_str(), f.rewrite_stats().summary().c_str());
  r.checksum = bench::checksums(w, f(w.args));
  r.expected = w.expected;
  r.checksum_ok = r.checksum.size() == w.expected.size();
  for (std::size_t k = 0; k < r.checksum.size() && k < w.expected.size(); ++k)
    r.checksum_ok = r.checksum_ok && checksum_ok(r.checksum[k], w.expected[k], w.checksum_rtol, dtype);

  const bool w6 = r.workload == "W6" || r.workload == "W6t";
  r.calls_per_sample = w6 ? 100'000 : r.workload == "W1s" ? 2000 : 1;
  r.samples = w6 ? 7 : o.reps;
  const int warmup = w6 ? 1000 : 2;
  const std::vector<NDArray>& args = w.args;
  // On a GPU, each call waits for its kernels (launches are asynchronous;
  // a call whose outputs come back to the host waits anyway).
  DeviceMemory* gpu = nullptr;
  if (const std::optional<std::string> ctx = gpu::selected_context()) {
    Device dev;
    if (Device::parse(*ctx, &dev)) gpu = opened_device_memory(dev);
  }
  const std::function<void()> call = [&] {
    f(args);
    if (gpu) gpu->synchronize();
  };
  bench::Timing t;
  if ((r.workload == "W7" || r.workload == "W7s") && !gpu) {
    // Held against the direct gemm (W7 also against the hand-written copy +
    // gemm, its floor, machine_limits.h): each sample times one of each, side
    // by side, so that a neighbour's load falls on all of them.
    std::vector<std::function<void()>> others = {bench::direct_gemm_call(dtype)};
    if (r.workload == "W7") others.push_back(bench::hand_written_w7_call(dtype));
    const bench::BesideTiming p = bench::time_beside(call, others, r.samples, warmup);
    t = p.a;
    r.paired_gemm_median_ms = p.others[0].median * 1e3;
    r.paired_gemm_min_ms = p.others[0].min * 1e3;
    r.paired_ratio = p.ratios[0];
    if (others.size() > 1) {
      r.paired_floor_median_ms = p.others[1].median * 1e3;
      r.paired_floor_min_ms = p.others[1].min * 1e3;
      r.paired_floor_ratio = p.ratios[1];
    }
  } else {
    t = bench::time_calls(call, r.samples, r.calls_per_sample, warmup);
  }
  r.call_median_ms = t.median * 1e3;
  r.call_min_ms = t.min * 1e3;
  r.call_max_ms = t.max * 1e3;
  r.bytes_per_call = bytes_per_call(r.workload, dtype);
  r.timed = true;
  // THEANO_FLAGS profile=True: where the calls' time went, node by node
  // (profiling times every node, so the medians above include its cost).
  if (const ProfileStats p = f.profile(); p.enabled)
    std::printf("%s %s profile:\n%s\n", r.workload.c_str(), r.dtype.c_str(), p.summary().c_str());

  if (w.one_thread_figure) {
    // The single-thread figure: the same graph compiled with THEANO_FLAGS
    // threads=1 (the loop threads are fixed when a function is compiled).
    // An explicit threads flag also caps BLAS's threads for the whole
    // process: restored after the compile, so later rows keep theirs.
    const int blas = tensor::blas_threads();
    Function f1;
    {
      Config cfg = config();
      if (!compiledir.empty()) cfg.flags["compiledir"] = compiledir.string();
      cfg.flags["threads"] = "1";
      ConfigGuard guard(cfg);
      f1 = bench::compile_workload(w);
    }
    tensor::set_blas_threads(blas);
    codegen::wait_for_optimized_code();
    r.checksum_1t = bench::checksums(w, f1(args));
    bool ok = r.checksum_1t.size() == w.expected.size();
    for (std::size_t k = 0; k < r.checksum_1t.size() && k < w.expected.size(); ++k)
      ok = ok && checksum_ok(r.checksum_1t[k], w.expected[k], w.checksum_rtol, dtype);
    r.checksum_1t_ok = ok;
    r.checksum_ok = r.checksum_ok && ok;
    const bench::Timing t1 = bench::time_calls([&] { f1(args); }, r.samples, r.calls_per_sample, warmup);
    r.call_1t_median_ms = t1.median * 1e3;
    r.call_1t_min_ms = t1.min * 1e3;
    r.call_1t_max_ms = t1.max * 1e3;
  }
}

std::string command_line(int argc, char** argv) {
  std::string s = "bench/run";
  for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
  return s;
}

/// CPU time of this process (all its threads, not its children).
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct TempDir {
  fs::path path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (const auto rc = bench::run_compile_child_if_asked(argc, argv)) return *rc;
  Options o;
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf(kUsage, "bench/run");
    return 0;
  }
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, kUsage, "bench/run");
    return 2;
  }
  if (!o.device.empty()) {
    // Before the first config() read; the compile processes inherit it.
    const char* user = std::getenv("THEANO_FLAGS");
    const std::string flags = (user && *user ? std::string(user) + "," : std::string()) + "device=" + o.device;
    ::setenv("THEANO_FLAGS", flags.c_str(), 1);
  }
  std::string device = "cpu";
  try {
    if (const std::optional<std::string> ctx = gpu::selected_context()) device = *ctx;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench/run: %s\n", e.what());
    return 2;
  }
  const auto start = Clock::now();
  // Before anything starts threads or sets OpenBLAS's thread count.
  const bench::MachineInfo machine = bench::machine_info();
  TempDir root{fs::temp_directory_path() / ("theano-bench-run-" + std::to_string(::getpid()))};
  fs::create_directories(root.path);

  std::vector<bench::Row> rows;
  for (const auto& d : o.dtypes)
    for (const auto& id : o.ids) {
      // On a GPU, W1 is also measured with its arrays on the device (W1d).
      std::vector<std::string> ids{id};
      if (id == "W1" && device != "cpu") ids.push_back("W1d");
      for (const std::string& wid : ids) {
        bench::Row r;
        r.workload = wid;
        r.dtype = d;
        r.size = bench::make_workload(wid, dtype_of(d), /*with_args=*/false).size;
        rows.push_back(r);
      }
    }

  bench::Limits limits;
  std::fprintf(stderr, "[bench] STREAM triad on %zu threads ...\n", bench::affinity_cpus().size());
  limits.triad = o.quick ? bench::triad_all_cores(30'000'000, 5) : bench::triad_all_cores(30'000'000, 10);
  std::fprintf(stderr, "[bench]   %.2f GB/s (best), %.2f GB/s (median)\n", limits.triad.best_gbs,
               limits.triad.median_gbs);

  if (!o.skip_compile) {
    // One untimed cold compile first: the first process to compile reads
    // libLLVM and libclang-cpp (200 MB) from disk when the page cache lost
    // them (a VM that drops its cache read 4.2 s for W1's cold compile,
    // 49 ms for the next row). The peers' cold figures exclude their imports.
    if (!rows.empty()) {
      std::fprintf(stderr, "[bench] one untimed compile process (the compiler's libraries into the page cache) ...\n");
      const fs::path prime = root.path / "prime" / "compiledir";
      fs::create_directories(prime.parent_path());
      (void)bench::run_compile_child(prime, rows[0].workload, rows[0].dtype, /*next=*/false);
      std::error_code ec;
      fs::remove_all(prime.parent_path(), ec);
    }
    const double cpu0 = process_cpu_seconds();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      bench::Row& r = rows[i];
      std::fprintf(stderr, "[bench] compile %2zu/%zu %-4s %s ...", i + 1, rows.size(), r.workload.c_str(),
                   r.dtype.c_str());
      std::fflush(stderr);
      measure_compile(r, root.path, o.cold_runs, o.warm_runs);
      if (r.compile_error.empty())
        std::fprintf(stderr, " cold %.1f ms, warm %.2f ms\n", *r.compile_cold_ms, *r.compile_warm_ms);
      else
        std::fprintf(stderr, " FAILED: %s\n", r.compile_error.c_str());
    }
    // The children are timed alone only if this process stayed idle.
    std::fprintf(stderr, "[bench]   this process used %.0f ms of CPU meanwhile\n",
                 1e3 * (process_cpu_seconds() - cpu0));
  }

  if (device != "cpu") {
    std::fprintf(stderr, "[bench] device copy bandwidth on %s ...\n", device.c_str());
    limits.device_copy = bench::device_copy_bandwidth(device, 256 << 20, o.quick ? 3 : 10);
    std::fprintf(stderr, "[bench]   %.2f GB/s (best)\n", limits.device_copy->best_gbs);
  }
  const bool f64 = std::find(o.dtypes.begin(), o.dtypes.end(), "float64") != o.dtypes.end();
  const bool f32 = std::find(o.dtypes.begin(), o.dtypes.end(), "float32") != o.dtypes.end();
  // At most 20 calls of about 0.1 s: --reps 6000 (a long profile of a small row) must not mean 10 minutes of dgemm.
  const int gemm_reps = std::min(o.reps, 20);
  if (f64) {
    std::fprintf(stderr, "[bench] cblas_dgemm 2000x2000 ...\n");
    limits.dgemm = bench::direct_gemm(DType::Float64, gemm_reps);
  }
  if (f32) {
    std::fprintf(stderr, "[bench] cblas_sgemm 2000x2000 ...\n");
    limits.sgemm = bench::direct_gemm(DType::Float32, gemm_reps);
  }

  for (std::size_t i = 0; i < rows.size(); ++i) {
    bench::Row& r = rows[i];
    std::fprintf(stderr, "[bench] calls %2zu/%zu %-4s %s ...", i + 1, rows.size(), r.workload.c_str(), r.dtype.c_str());
    std::fflush(stderr);
    try {
      const fs::path cd = r.compile_cold_ms ? row_dir(root.path, r) / "compiledir" : fs::path();
      measure_calls(r, cd, o);
      std::fprintf(stderr, " median %s, checksum %s\n", bench::format_time_ms(r.call_median_ms).c_str(),
                   r.checksum_ok ? "ok" : "MISMATCH");
    } catch (const std::exception& e) {
      r.error = e.what();
      std::fprintf(stderr, " FAILED: %s\n", e.what());
    }
  }

  bench::RunInfo run;
  run.dtypes = o.dtypes;
  run.quick = o.quick;
  run.compile_measured = !o.skip_compile;
  run.reps = o.reps;
  run.cold_runs = o.cold_runs;
  run.warm_runs = o.warm_runs;
  run.command = command_line(argc, argv);
  run.device = device;
  for (bench::Row& r : rows) bench::evaluate(r, limits);
  run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();

  bench::print_table(stdout, machine, limits, rows, run);
  bool failed = false;
  for (const bench::Row& r : rows) failed = failed || r.failed();
  if (!o.json.empty()) {
    std::ofstream out(o.json);
    out << bench::report_json(machine, limits, rows, run).dump();
    out.close();
    if (!out) {
      std::fprintf(stderr, "could not write %s\n", o.json.c_str());
      return 1;
    }
    std::printf("JSON written to %s\n", o.json.c_str());
  }
  return failed ? 1 : 0;
}
