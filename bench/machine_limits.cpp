// The machine's limits for bench/run (see machine_limits.h): an all-core
// STREAM triad, OpenBLAS gemm called directly, and the machine's description.
#include "machine_limits.h"

#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/config_flags.h>
#include <theano/runtime/device.h>
#include <theano/runtime/thread_pool.h>

#include <boost/version.hpp>
#include <cblas.h>
#include <llvm/Config/llvm-config.h>
#include <pthread.h>
#include <sched.h>

#include <functional>
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>

#include "workload_inputs.h"

namespace theano::bench {

using Clock = std::chrono::steady_clock;

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  if (cpus.empty()) cpus.push_back(-1);  // unknown: one unpinned thread
  return cpus;
}

namespace {

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<double[], FreeDeleter>;

/// `n` doubles, 64-byte aligned, not initialized (each thread first-touches
/// its own slice, so its pages sit on its memory node).
Buffer allocate(std::int64_t n) {
  const std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(double) + 63) / 64 * 64;
  return Buffer(static_cast<double*>(std::aligned_alloc(64, bytes)));
}

void pin_to(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort
}

// Not inlined into the thread body, so the loop is compiled as plain STREAM
// code (the host compiler's vectorization, ordinary stores).
[[gnu::noinline]] void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c,
                                    double s, std::int64_t lo, std::int64_t hi) {
  for (std::int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

}  // namespace

TriadResult triad_all_cores(std::int64_t n, int reps) {
  const std::vector<int> cpus = affinity_cpus();
  const int T = static_cast<int>(cpus.size());
  reps = std::max(1, reps);
  Buffer a = allocate(n), b = allocate(n), c = allocate(n);
  double* pa = a.get();
  double* pb = b.get();
  double* pc = c.get();
  // Slice t of [0, n): boundaries on 64-byte lines.
  auto bound = [&](int t) { return t == T ? n : (n * t / T) / 8 * 8; };
  // Phases: init (1), untimed pass (1), then reps x (start, end).
  std::barrier sync(T + 1);
  std::vector<std::thread> workers;
  for (int t = 0; t < T; ++t)
    workers.emplace_back([&, t] {
      pin_to(cpus[static_cast<std::size_t>(t)]);
      const std::int64_t lo = bound(t), hi = bound(t + 1);
      for (std::int64_t i = lo; i < hi; ++i) {
        pa[i] = 0.0;
        pb[i] = 1.0;
        pc[i] = 2.0;
      }
      sync.arrive_and_wait();  // initialized
      triad_kernel(pa, pb, pc, 3.0, lo, hi);
      sync.arrive_and_wait();  // untimed pass done
      for (int r = 0; r < reps; ++r) {
        sync.arrive_and_wait();  // start
        triad_kernel(pa, pb, pc, 3.0, lo, hi);
        sync.arrive_and_wait();  // end
      }
    });
  sync.arrive_and_wait();
  sync.arrive_and_wait();
  std::vector<double> seconds;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    sync.arrive_and_wait();
    sync.arrive_and_wait();
    seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  for (auto& w : workers) w.join();
  volatile double sink = pa[n / 2];  // 1 + 3*2
  (void)sink;
  std::sort(seconds.begin(), seconds.end());
  const double bytes = 24.0 * static_cast<double>(n);
  TriadResult r;
  r.best_gbs = bytes / seconds.front() / 1e9;
  r.median_gbs = bytes / seconds[seconds.size() / 2] / 1e9;
  r.threads = T;
  r.n = n;
  r.reps = reps;
  return r;
}

namespace {

// W7's A, B and Z (docs/workloads.md), owned by the callables below.
std::shared_ptr<std::vector<NDArray>> w7_matrices(DType dtype) {
  constexpr int N = 2000;
  auto m = std::make_shared<std::vector<NDArray>>();
  for (std::uint64_t seed : {701, 702, 703}) m->push_back(uniform(seed, -1, 1, {N, N}, dtype));
  return m;
}

template <typename T>
void scaled_copy(const T* z, T* o, std::int64_t n, T s, int parts) {
  auto part = [=](int k) {
    const std::int64_t b = n * k / parts, e = n * (k + 1) / parts;
    for (std::int64_t i = b; i < e; ++i) o[i] = s * z[i];
  };
  std::vector<std::thread> others;
  for (int k = 1; k < parts; ++k) others.emplace_back(part, k);
  part(0);
  for (std::thread& t : others) t.join();
}

}  // namespace

std::function<void()> direct_gemm_call(DType dtype) {
  constexpr int N = 2000;
  auto m = w7_matrices(dtype);
  if (dtype == DType::Float32)
    return [m] {
      std::vector<NDArray>& x = *m;
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 0.5f, x[0].data_as<float>(), N,
                  x[1].data_as<float>(), N, 0.25f, x[2].data_as<float>(), N);
    };
  return [m] {
    std::vector<NDArray>& x = *m;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 0.5, x[0].data_as<double>(), N,
                x[1].data_as<double>(), N, 0.25, x[2].data_as<double>(), N);
  };
}

std::function<void()> hand_written_w7_call(DType dtype) {
  constexpr int N = 2000;
  auto m = w7_matrices(dtype);
  m->push_back(NDArray::zeros({N, N}, dtype));
  const int parts = static_cast<int>(affinity_cpus().size());
  if (dtype == DType::Float32)
    return [m, parts] {
      std::vector<NDArray>& x = *m;
      scaled_copy(x[2].data_as<float>(), x[3].data_as<float>(), std::int64_t{N} * N, 0.25f, parts);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 0.5f, x[0].data_as<float>(), N,
                  x[1].data_as<float>(), N, 1.0f, x[3].data_as<float>(), N);
    };
  return [m, parts] {
    std::vector<NDArray>& x = *m;
    scaled_copy(x[2].data_as<double>(), x[3].data_as<double>(), std::int64_t{N} * N, 0.25, parts);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 0.5, x[0].data_as<double>(), N,
                x[1].data_as<double>(), N, 1.0, x[3].data_as<double>(), N);
  };
}

GemmResult direct_gemm(DType dtype, int reps) {
  constexpr int N = 2000;
  const std::function<void()> call = direct_gemm_call(dtype);
  const Timing t = time_calls(call, std::max(1, reps));
  GemmResult r;
  r.median_ms = t.median * 1e3;
  r.min_ms = t.min * 1e3;
  r.max_ms = t.max * 1e3;
  r.gflops = 2.0 * N * N * static_cast<double>(N) / t.median / 1e9;
  r.threads = openblas_get_num_threads();
  return r;
}

namespace {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\n") - first + 1);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return trim(line.substr(colon + 1));
    }
  return {};
}

}  // namespace

MachineInfo machine_info() {
  MachineInfo m;
  m.cores = static_cast<int>(affinity_cpus().size());
  m.hardware_threads = hardware_threads();
  m.cpu = cpu_model();
  m.llvm_version = LLVM_VERSION_STRING;
  try {
    m.jit_clang = codegen::clang_version();
  } catch (const std::exception&) {
  }
#ifdef __VERSION__
#ifdef __clang__
  m.host_compiler = std::string("clang ") + __VERSION__;
#elif defined(__GNUC__)
  m.host_compiler = std::string("g++ ") + __VERSION__;
#else
  m.host_compiler = __VERSION__;
#endif
#endif
  if (const char* cfg = openblas_get_config()) m.openblas_config = trim(cfg);
#ifdef OPENBLAS_VERSION
  m.openblas_version = trim(OPENBLAS_VERSION);  // " OpenBLAS 0.3.21 "
  if (m.openblas_version.rfind("OpenBLAS ", 0) == 0) m.openblas_version = trim(m.openblas_version.substr(9));
#endif
  if (const char* core = openblas_get_corename()) m.openblas_core = core;
  m.blas_threads = openblas_get_num_threads();
  m.boost_version = BOOST_LIB_VERSION;
#ifdef THEANO_BENCH_CUDA_VERSION
  m.cuda_version = THEANO_BENCH_CUDA_VERSION;
#endif
  try {
    m.nvrtc_version = codegen::nvrtc_version();
  } catch (const std::exception&) {
  }
  m.threads_flag = flag_value("threads").value_or("");
  const long long flag = flag_int("threads").value_or(0);
  m.loop_threads = flag > 0 ? static_cast<int>(flag) : hardware_threads();
  return m;
}

DeviceCopyResult device_copy_bandwidth(const std::string& context, std::int64_t bytes, int reps) {
  Device dev;
  THEANO_USER_CHECK(Device::parse(context, &dev), ValueError) << "not a device: " << context;
  DeviceMemory& m = device_memory(dev);
  const std::shared_ptr<void> a = m.allocate(static_cast<std::size_t>(bytes));
  const std::shared_ptr<void> b = m.allocate(static_cast<std::size_t>(bytes));
  std::vector<double> s;
  for (int r = 0; r <= reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    m.copy_on_device(b.get(), a.get(), static_cast<std::size_t>(bytes));
    m.synchronize();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) s.push_back(dt);  // the first copy is a warm-up
  }
  std::sort(s.begin(), s.end());
  DeviceCopyResult res;
  res.device = context;
  res.bytes = bytes;
  res.reps = reps;
  res.best_gbs = 2.0 * static_cast<double>(bytes) / s.front() / 1e9;
  res.median_gbs = 2.0 * static_cast<double>(bytes) / s[s.size() / 2] / 1e9;
  return res;
}

}  // namespace theano::bench
