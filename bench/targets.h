/// \file
/// The speed targets that `bench/run` checks each workload against (the
/// benchmarks issue, on this machine), the peers' figures they derive from,
/// and a short note per target explaining a result (`why` in the report).
///
/// Targets are judged per row: a call target compares the call median, a
/// ratio target compares `ratio_to_limit` (W7: call median / direct OpenBLAS
/// gemm median of the same run). The absolute call targets were set for
/// float64 and apply to float64 rows only; W6 (call overhead, dtype
/// independent) and W7 (relative to the same run's gemm of that dtype) apply
/// to both dtypes; other float32 rows have no target. The compile targets
/// (cold W1, cold W3, warm per function) apply to both dtypes: compile time
/// does not depend on it.
///
/// A miss is reported, never a failure: only checksums and crashes make
/// `bench/run` exit non-zero.
#pragma once

#include <string_view>

namespace theano::bench::targets {

// ---- Peers measured side by side in the issue (float64, this machine).

/// W3 training step, numpy (the best peer), ms per call.
inline constexpr double kPeerW3NumpyMs = 15.4;
/// W3 must take at most this share of the best peer's time.
inline constexpr double kW3ShareOfBestPeer = 0.8;

// ---- Call targets.

enum class Kind {
  CallMs,        ///< call median <= limit (ms)
  RatioToLimit,  ///< ratio_to_limit <= limit
};

struct CallTarget {
  std::string_view workload;
  std::string_view dtype;  ///< "" = every dtype
  Kind kind;
  double limit;
};

inline constexpr CallTarget kCallTargets[] = {
    {"W1", "float64", Kind::CallMs, 15.0},
    {"W1s", "float64", Kind::CallMs, 0.003},  // 3 us
    {"W2", "float64", Kind::CallMs, 1.0},
    {"W3", "float64", Kind::CallMs, kW3ShareOfBestPeer * kPeerW3NumpyMs},  // 12.32 ms
    {"W4a", "float64", Kind::CallMs, 5.0},
    {"W4b", "float64", Kind::CallMs, 5.0},
    {"W4c", "float64", Kind::CallMs, 5.0},
    {"W5", "float64", Kind::CallMs, 1.2},
    {"W6", "", Kind::CallMs, 0.0006},   // 0.6 us, argument filtering included
    {"W6t", "", Kind::CallMs, 0.0003},  // 0.3 us with trust_input
    {"W7", "", Kind::RatioToLimit, 1.05},
    {"W7s", "", Kind::RatioToLimit, 1.05},
};

/// The target of (workload, dtype), or nullptr.
inline const CallTarget* call_target(std::string_view workload, std::string_view dtype) {
  for (const CallTarget& t : kCallTargets)
    if (t.workload == workload && (t.dtype.empty() || t.dtype == dtype)) return &t;
  return nullptr;
}

// ---- Compile targets (every dtype).

inline constexpr double kColdCompileW1Ms = 60.0;
inline constexpr double kColdCompileW3Ms = 500.0;
/// Warm compile (new process, populated compiledir), per function.
inline constexpr double kWarmCompileMs = 2.0;

/// The cold compile target of `workload` in ms, or 0 when it has none.
inline double cold_compile_target_ms(std::string_view workload) {
  return workload == "W1" ? kColdCompileW1Ms : workload == "W3" ? kColdCompileW3Ms : 0.0;
}

// ---- Why: a short explanation of a row's figures (what bounds it, why it
// misses), written by whoever works on that workload. An empty text is
// reported as null. dtype "" = every dtype.

struct Why {
  std::string_view workload;
  std::string_view dtype;
  std::string_view text;
};

inline constexpr Why kWhy[] = {
    {"W1", "float64", ""},
    {"W1s", "float64", ""},
    {"W2", "float64", ""},
    {"W3", "float64", ""},
    {"W4a", "float64", ""},
    {"W4b", "float64", ""},
    {"W4c", "float64", ""},
    {"W5", "float64", ""},
    {"W6", "", ""},
    {"W6t", "", ""},
    {"W7", "", ""},
    {"W7s", "", ""},
};

/// The compile targets' note (cold W1 / W3, warm), reported in `compile_targets`.
inline constexpr std::string_view kCompileWhy = "";

inline std::string_view why(std::string_view workload, std::string_view dtype) {
  for (const Why& w : kWhy)
    if (w.workload == workload && (w.dtype.empty() || w.dtype == dtype)) return w.text;
  return {};
}

}  // namespace theano::bench::targets
