/// \file
/// The figures of one `bench/run` (theano_bench) run and how they are judged
/// and written: each result row against its target (targets.h) and the
/// machine's limits (machine_limits.h), as a table on stdout and as JSON.
///
/// ratio_to_limit: for W1, W4a-c, W5, W8 and W8g, achieved GB/s (bytes the workload
/// must move per call / call median) over the triad's GB/s (higher is
/// better, 1.0 = at the triad); for W7 and W7s, the median over samples of
/// call / the direct gemm of the same dtype timed beside it (lower is better,
/// 1.0 = equal; Row::paired_ratio), else, when that was not measured, call
/// median over the limits' gemm median; otherwise null.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "json.h"
#include "machine_limits.h"

namespace theano::bench {

/// One workload in one dtype.
struct Row {
  std::string workload;  ///< "W1", "W1s", ..., "W6t", "W7s", "W8", "W8g"
  std::string dtype;     ///< "float64" / "float32"
  std::string size;

  // Compile time, in fresh processes (unset when not measured).
  /// Median, min and max over the processes; clang: the median of its share.
  std::optional<double> compile_cold_ms, compile_cold_min_ms, compile_cold_max_ms, compile_cold_clang_ms;
  std::optional<double> compile_warm_ms, compile_warm_min_ms, compile_warm_max_ms;
  int compile_cold_runs = 0, compile_warm_runs = 0;
  std::string compile_error;  ///< a child failed, or the cache did not miss / hit as it should

  // Steady-state calls, in this process.
  bool timed = false;
  double call_median_ms = 0, call_min_ms = 0, call_max_ms = 0;
  int samples = 0;           ///< timed samples (the median is over these)
  int calls_per_sample = 1;  ///< calls per sample (W1s: 2000, W6: 10^5); times are per call
  std::vector<double> checksum, expected;
  bool checksum_ok = false;
  double bytes_per_call = 0;  ///< bytes the workload moves per call (bandwidth rows), else 0
  /// The same calls of a second function compiled with THEANO_FLAGS threads=1
  /// (W8, W8g: Workload::one_thread_figure); unset for the other rows. Not
  /// judged against a target.
  std::optional<double> call_1t_median_ms, call_1t_min_ms, call_1t_max_ms;
  std::vector<double> checksum_1t;  ///< that function's checksums (checksum_ok covers both)
  bool checksum_1t_ok = false;
  std::string error;          ///< compiling or calling failed in this process
  /// W7, W7s: the direct gemm (machine_limits.h) timed beside each sample,
  /// its median and the median of the samples' call / gemm ratios (the row's
  /// ratio_to_limit); unset for the other rows.
  std::optional<double> paired_gemm_median_ms, paired_gemm_min_ms, paired_ratio;
  /// W7: the hand-written copy and gemm (machine_limits.h, the floor for a
  /// new matrix) timed beside each sample the same way, its median and min,
  /// and the median of call / it. Not judged: it says how much of the row's
  /// ratio any program making a new matrix pays.
  std::optional<double> paired_floor_median_ms, paired_floor_min_ms, paired_floor_ratio;

  // Judged by evaluate().
  std::optional<double> ratio_to_limit, achieved_gbs;
  std::string limit;  ///< "triad", "dgemm", "sgemm" or ""
  std::string target;
  std::optional<bool> target_met;
  std::string miss, miss_short;
  std::string why;
  std::optional<bool> compile_cold_ok, compile_warm_ok;

  bool failed() const { return !error.empty() || !compile_error.empty() || (timed && !checksum_ok); }
};

/// The machine's limits measured in the run.
struct Limits {
  TriadResult triad;
  std::optional<DeviceCopyResult> device_copy;  ///< with --device (W1d's limit)
  std::optional<GemmResult> dgemm, sgemm;
};

/// How the run was made.
struct RunInfo {
  std::vector<std::string> dtypes;
  bool quick = false;
  bool compile_measured = true;
  int reps = 0;       ///< samples per workload (W6: 7 loops)
  int cold_runs = 0;  ///< cold processes per workload
  int warm_runs = 0;  ///< warm processes per workload
  double wall_s = 0;
  std::string command;  ///< the command line
  std::string device = "cpu";  ///< the GPU context the workloads compiled for, or "cpu"
};

/// Fills a row's ratio, target, target_met, miss, why and compile checks.
void evaluate(Row& row, const Limits& limits);

/// "16.102 ms", "2.410 us", "463.0 ns".
std::string format_time_ms(double ms);

/// The report as a table (stdout).
void print_table(std::FILE* out, const MachineInfo& machine, const Limits& limits, const std::vector<Row>& rows,
                 const RunInfo& run);

/// The report as JSON: {run, machine, compile_targets, results}.
Json report_json(const MachineInfo& machine, const Limits& limits, const std::vector<Row>& rows, const RunInfo& run);

}  // namespace theano::bench
