// bench/conv_backends.cpp's shared pieces: the shapes, timing, threads over the batch,
// the BLAS gemm overloads, the passes and the tensors of one shape.
#pragma once

#include <cblas.h>
#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace conv_bench {


using Clock = std::chrono::steady_clock;
using i64 = std::int64_t;

struct Shape {
  const char* name;
  i64 N, C, H, W, K, R, S, pad;
  i64 P() const { return H + 2 * pad - R + 1; }
  i64 Q() const { return W + 2 * pad - S + 1; }
  i64 crs() const { return C * R * S; }
  double flops() const { return 2.0 * N * K * C * R * S * P() * Q(); }  // per pass, zero padding counted
};

// ---------------------------------------------------------------- timing
struct Timing {
  double median_ms = 0, min_ms = 0;
  int runs = 0;
};

int g_min_runs = 20;
double g_min_seconds = 0.3;
bool g_interleave = false;

Timing time_it(const std::function<void()>& f) {
  f();  // warm-up: page faults, OpenBLAS buffers, oneDNN scratchpads
  std::vector<double> ms;
  const auto start = Clock::now();
  while (static_cast<int>(ms.size()) < g_min_runs ||
         (std::chrono::duration<double>(Clock::now() - start).count() < g_min_seconds && ms.size() < 200)) {
    const auto t0 = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), static_cast<int>(ms.size())};
}

// Our threads over the batch: f(thread, n0, n1). Threads are spawned per call
// (about 20 us each), as a conservative stand-in for a pool.
template <class F>
void over_batch(int threads, i64 N, F&& f) {
  if (threads == 1) return f(0, i64{0}, N);
  std::vector<std::thread> ts;
  for (int t = 1; t < threads; ++t) ts.emplace_back([&, t] { f(t, N * t / threads, N * (t + 1) / threads); });
  f(0, i64{0}, N / threads);
  for (auto& t : ts) t.join();
}

// ---------------------------------------------------------------- gemm
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, i64 m, i64 n, i64 k, const float* a, i64 lda, const float* b,
          i64 ldb, float beta, float* c, i64 ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), 1.0f, a, int(lda), b, int(ldb), beta, c, int(ldc));
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, i64 m, i64 n, i64 k, const double* a, i64 lda, const double* b,
          i64 ldb, double beta, double* c, i64 ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), 1.0, a, int(lda), b, int(ldb), beta, c, int(ldc));
}

// The valid output columns q of filter column s: input column q + s - pad in [0, W).
inline i64 q_lo(const Shape& z, i64 s) { return std::max<i64>(0, z.pad - s); }
inline i64 q_hi(const Shape& z, i64 s) { return std::min<i64>(z.Q(), z.W + z.pad - s); }


enum class Pass { Fwd, GradW, GradI };
const char* pass_name(Pass p) { return p == Pass::Fwd ? "fwd" : p == Pass::GradW ? "gradW" : "gradI"; }

// Tensors of one shape: x (N,C,H,W), w (K,C,R,S), y / dy (N,K,P,Q); outputs y, dw, dx.
template <class T>
struct Tensors {
  std::vector<T> x, w, dy, y, dw, dx;
};

}  // namespace conv_bench
