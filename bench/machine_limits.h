/// \file
/// The machine's limits that `bench/run` holds the workloads against, measured
/// in the same run, and the description of the machine for its report.
///
/// - Memory bandwidth: a STREAM-style triad `a[i] = b[i] + s*c[i]` over
///   arrays much larger than the caches (3 x 10^7 doubles each by default),
///   one std::thread per CPU of the process's affinity mask (each pinned to
///   its CPU and first-touching its own slice), counted as STREAM counts it:
///   24 bytes per element (the write-allocate read of `a` is not counted).
///   The figure is the best of the repetitions, as STREAM reports; the median
///   is kept beside it.
/// - Matrix product: OpenBLAS called directly, `cblas_dgemm` (or
///   `cblas_sgemm`) on W7's 2000 x 2000 inputs, C = 0.5*A*B + 0.25*C in
///   place, with OpenBLAS's default thread count. Median, min and max per call
///   of repeated calls after 2 warm-ups. W7's rows are also timed against
///   this call made beside each of theirs (direct_gemm_call, bench/run's
///   measure_calls), so that a neighbour's load falls on both.
#pragma once

#include <theano/runtime/dtype.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace theano::bench {

/// The CPUs this process may run on (sched_getaffinity), at least one.
std::vector<int> affinity_cpus();

struct TriadResult {
  double best_gbs = 0;    ///< 24 bytes per element / fastest repetition
  double median_gbs = 0;  ///< 24 bytes per element / median repetition
  int threads = 0;
  std::int64_t n = 0;  ///< elements per array
  int reps = 0;
};

/// The all-core triad over three arrays of `n` doubles, `reps` timed
/// repetitions (after one untimed pass).
TriadResult triad_all_cores(std::int64_t n = 30'000'000, int reps = 10);

/// Device-to-device copy bandwidth of a GPU (the limit W1d is held against):
/// cuMemcpyDtoD (host memcpy on the emulated device) of `bytes` between two
/// buffers, synchronized after each copy; 2 * bytes moved per copy.
struct DeviceCopyResult {
  std::string device;
  double best_gbs = 0, median_gbs = 0;
  std::int64_t bytes = 0;
  int reps = 0;
};
DeviceCopyResult device_copy_bandwidth(const std::string& context, std::int64_t bytes, int reps);

struct GemmResult {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double gflops = 0;  ///< 2 * 2000^3 flops / median
  int threads = 0;    ///< openblas_get_num_threads() during the calls
};

/// cblas_dgemm (Float64) or cblas_sgemm (Float32) on 2000 x 2000 matrices
/// with W7's inputs (U(701), U(702), U(703)), alpha 0.5, beta 0.25.
GemmResult direct_gemm(DType dtype, int reps);

/// That direct call as a callable, owning its three matrices.
std::function<void()> direct_gemm_call(DType dtype);

/// W7 as a C programmer writes it with the same library: 0.25 * Z copied into
/// a matrix of its own (one part per CPU of the affinity mask, std::thread
/// for all but the first), then that gemm (alpha 0.5) into it with beta 1.
/// Owns A, B, Z and the result. A new matrix costs this much more than the
/// in-place direct call whatever computes it: bench/run times it beside W7 as
/// the row's floor (bench/README.md).
std::function<void()> hand_written_w7_call(DType dtype);

/// Facts about the machine and the software for the report.
struct MachineInfo {
  int cores = 0;             ///< CPUs in the affinity mask
  int hardware_threads = 0;  ///< theano's count of hardware threads
  std::string cpu;           ///< "model name" of /proc/cpuinfo
  std::string llvm_version;  ///< LLVM_VERSION_STRING the JIT was built against
  std::string jit_clang;     ///< the JIT's clang full version (run time)
  std::string host_compiler; ///< __VERSION__ of the compiler that built this program
  std::string openblas_config;
  std::string openblas_version;  ///< OPENBLAS_VERSION of the header, trimmed ("" when absent)
  std::string openblas_core;     ///< openblas_get_corename()
  int blas_threads = 0;          ///< openblas_get_num_threads() at start
  std::string boost_version;     ///< BOOST_LIB_VERSION, e.g. "1_74"
  std::string cuda_version;      ///< CUDA toolkit found at configure time ("" when none)
  std::string nvrtc_version;     ///< NVRTC's version ("" when unavailable)
  std::string threads_flag;      ///< THEANO_FLAGS threads as given ("" when unset)
  int loop_threads = 0;          ///< the loop threads generated code uses
};

MachineInfo machine_info();

}  // namespace theano::bench
