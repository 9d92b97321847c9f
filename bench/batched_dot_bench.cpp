// BatchedDot (issue 38, docs/einsum.md) against a loop of cblas_?gemm called
// directly in the same process on the same inputs: many small matrices
// (B=512, 32x32x32) and a few large ones (B=16, 256x256x256), float64 and
// float32. The compiled function (fast_run: the C++ lowering, one gemm per
// item) allocates its output on every call; the direct loop writes into one
// buffer. Median of N calls after 2 warm-ups; the ratio is BatchedDot / loop.
//
// Usage: theano_batched_dot_bench [--reps N]
#include <cblas.h>
#include <theano/tensor/batched_blas.h>
#include <theano/theano.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double median_ms(int reps, F&& f) {
  for (int i = 0; i < 2; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

NDArray filled(std::vector<int64_t> shape, DType dt, double seed) {
  NDArray a = NDArray::empty(shape);
  for (int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = std::sin(seed + 0.37 * static_cast<double>(i));
  return a.astype(dt);
}

template <class T>
void gemm_loop(int64_t nb, int m, int n, int k, const T* a, const T* b, T* c) {
  for (int64_t i = 0; i < nb; ++i) {
    if constexpr (std::is_same_v<T, double>)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a + i * m * k, k, b + i * k * n, n, 0.0,
                  c + i * m * n, n);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a + i * m * k, k, b + i * k * n, n, 0.0f,
                  c + i * m * n, n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--reps N]\n", argv[0]);
      return 2;
    }
  }
  std::printf("BatchedDot vs a loop of cblas_?gemm (OpenBLAS threads: %d), median of %d calls\n",
              openblas_get_num_threads(), reps);
  struct Case {
    int64_t b;
    int m, k, n;
  };
  int failures = 0;
  for (DType dt : {DType::Float64, DType::Float32})
    for (const Case c : {Case{512, 32, 32, 32}, Case{16, 256, 256, 256}}) {
      const NDArray A = filled({c.b, c.m, c.k}, dt, 0.1), B = filled({c.b, c.k, c.n}, dt, 0.7);
      const Var a = tensor::tensor(dt, {c.b, c.m, c.k}, "a"), b = tensor::tensor(dt, {c.b, c.k, c.n}, "b");
      Function f = function({a, b}, {batched_dot3(a, b)}, {.mode = "fast_run"});
      NDArray got;
      const double t_op = median_ms(reps, [&] { got = f({A, B})[0]; });
      NDArray C = NDArray::empty({c.b, c.m, c.n}, dt);
      const double t_loop = median_ms(reps, [&] {
        if (dt == DType::Float64)
          gemm_loop(c.b, c.m, c.n, c.k, A.data_as<double>(), B.data_as<double>(), C.data_as<double>());
        else
          gemm_loop(c.b, c.m, c.n, c.k, A.data_as<float>(), B.data_as<float>(), C.data_as<float>());
      });
      const NDArray g = got.astype(DType::Float64), w = C.astype(DType::Float64);
      double err = 0;
      for (int64_t i = 0; i < w.size(); ++i)
        err = std::max(err, std::abs(g.data_as<double>()[i] - w.data_as<double>()[i]));
      const bool ok = err <= (dt == DType::Float64 ? 1e-9 : 1e-3);
      failures += ok ? 0 : 1;
      std::printf("  B=%-4lld %3dx%3dx%3d %-7s BatchedDot %9.3f ms  cblas loop %9.3f ms  ratio %.2f  max|diff| %.1e %s\n",
                  static_cast<long long>(c.b), c.m, c.k, c.n, std::string(dtype_name(dt)).c_str(), t_op, t_loop,
                  t_op / t_loop, err, ok ? "ok" : "MISMATCH");
    }
  return failures == 0 ? 0 : 1;
}
