// The GPU form of expm (issue 37; emit/lower/gpu_expm.cpp) on the
// host-emulated device, where OpenBLAS and the CPU form's LAPACK routines
// stand in for cuBLAS / cuSOLVER behind ctx->gpu_gemm and ctx->gpu_lapack, so
// the lowering's own code (the gather, the norm read back, the degree chosen
// on the host, the polynomial kernels, the squarings, the store) runs as on a
// GPU. Against the CPU function and against a Taylor-series reference computed
// here in long double (independent of the Padé code both forms share): every
// degree, scaling (s > 0), batched, strided, float64 and float32, 0 x 0 and
// 1 x 1; the errors are the CPU's words naming GpuExpm; the unit compiles
// with NVRTC; the real-GPU case skips without a GPU. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/runtime/kernels/linalg_expm_rules.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/linalg_expm.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../compiler/tensor/linalg_test_util.h"
#include "gpu_test_util.h"
#include "linalg_gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
namespace LA = theano::tensor::linalg;

namespace {

using gpu_test::error_of;

Var any(DType dt, int nd, const std::string& name) { return gpu_test::any_la(dt, nd, name); }

/// The 1-norm (largest absolute column sum) of the row-major n x n matrix at a.
double norm1(const double* a, std::int64_t n) {
  double best = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += std::fabs(a[i * n + j]);
    best = std::max(best, s);
  }
  return best;
}

/// `b` uniform n x n matrices, each scaled to 1-norm `norm`.
NDArray with_norm(std::mt19937_64& rng, std::int64_t b, std::int64_t n, double norm) {
  NDArray x = latest::uniform(rng, {b, n, n});
  double* p = x.data_as<double>();
  for (std::int64_t k = 0; k < b; ++k) {
    const double f = norm / norm1(p + k * n * n, n);
    for (std::int64_t e = 0; e < n * n; ++e) p[k * n * n + e] *= f;
  }
  return x;
}

/// exp of the row-major n x n matrix at a, by its Taylor series in long double: A / 2^k with norm <= 1/2, 40
/// terms, squared k times (no Padé approximant, no LAPACK).
std::vector<long double> taylor_expm(const double* a, std::int64_t n) {
  using V = std::vector<long double>;
  const auto mul = [n](const V& x, const V& y) {
    V z(static_cast<std::size_t>(n * n), 0.0L);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t k = 0; k < n; ++k)
        for (std::int64_t j = 0; j < n; ++j)
          z[static_cast<std::size_t>(i * n + j)] +=
              x[static_cast<std::size_t>(i * n + k)] * y[static_cast<std::size_t>(k * n + j)];
    return z;
  };
  int k = 0;
  while (std::ldexp(norm1(a, n), -k) > 0.5) ++k;
  V x(static_cast<std::size_t>(n * n)), term(static_cast<std::size_t>(n * n), 0.0L), sum;
  for (std::int64_t e = 0; e < n * n; ++e) x[static_cast<std::size_t>(e)] = std::ldexp((long double)a[e], -k);
  for (std::int64_t i = 0; i < n; ++i) term[static_cast<std::size_t>(i * n + i)] = 1.0L;
  sum = term;
  for (int t = 1; t <= 40; ++t) {
    term = mul(term, x);
    for (long double& v : term) v /= t;
    for (std::size_t e = 0; e < sum.size(); ++e) sum[e] += term[e];
  }
  for (int s = 0; s < k; ++s) sum = mul(sum, sum);
  return sum;
}

}  // namespace

TEST_SUITE("cuda expm (emulated device)") {
  TEST_CASE("cuda emulated: expm agrees with the CPU and a Taylor reference at every degree, s > 0, batched") {
    std::mt19937_64 rng(43);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const bool f64 = dt == DType::Float64;
      const Var a = any(dt, 3, "a");
      // The matrix and its transpose (a strided gather) in one function.
      auto [cpu, gpu] = gpu_test::cpu_and_gpu({a}, {LA::expm(a), LA::expm(LA::matrix_transpose(a))});
      gpu_test::check_moved(gpu, {"Expm"});
      CHECK(gpu_test::count_ops(gpu, "GpuExpm") == 2);
      // 1-norms for m = 3, 5, 7, 9, 13 (s = 0) and 13 with s = 4, 6: the rule the GPU's host calls picks them.
      const std::vector<std::pair<double, int>> cases = {{0.01, 3}, {0.2, 5}, {0.8, 7},   {1.8, 9},
                                                         {4.5, 13}, {70, 13}, {300, 13}};
      for (const auto& [norm, m] : cases) {
        CAPTURE(norm);
        if (!f64 && norm > 100) continue;  // exp overflows float32
        int s = -1;
        double scale = 0;
        CHECK(theano_la_expm_degree(norm * (1 - 1e-6), &s, &scale) == m);
        CHECK((s > 0) == (norm > 10));
        const std::int64_t n = 5;
        const NDArray X = with_norm(rng, 3, n, norm);
        const NDArray Xd = X.astype(dt).astype(DType::Float64).copy();  // what the float32 function reads
        // Both forms compute in double from the same rules: they agree to the last bits of the products' order.
        const std::vector<NDArray> got = gpu_test::check_agree(cpu, gpu, {X.astype(dt)}, f64 ? 1e-12 : 1e-6);
        for (std::int64_t b = 0; b < 3; ++b) {
          CAPTURE(b);
          const std::vector<long double> want = taylor_expm(Xd.data_as<double>() + b * n * n, n);
          long double big = 0, err = 0, errt = 0;
          for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              const long double w = want[static_cast<std::size_t>(i * n + j)];
              big = std::max(big, std::fabs(w));
              err = std::max(err, std::fabs(got[0].data_as<double>()[b * n * n + i * n + j] - w));
              errt = std::max(errt, std::fabs(got[1].data_as<double>()[b * n * n + j * n + i] - w));
            }
          // Relative to the largest entry; squarings amplify rounding (300: s = 6).
          const double tol = (f64 ? 1e-13 : 1e-6) * (norm > 10 ? 100 * norm : 10);
          CHECK(static_cast<double>(err / big) < tol);
          CHECK(static_cast<double>(errt / big) < tol);
        }
      }
      // 1 x 1 (exp of the scalar), 0 x 0 and an empty batch.
      const NDArray one = NDArray::from_list<double>({-2.0, 0.5, 30.0}, {3, 1, 1}).astype(dt);
      const std::vector<NDArray> g1 = gpu_test::check_agree(cpu, gpu, {one}, f64 ? 1e-13 : 1e-6);
      for (int k = 0; k < 3; ++k) {
        const double x = one.astype(DType::Float64).data_as<double>()[k];
        CHECK(std::fabs(g1[0].data_as<double>()[k] - std::exp(x)) <= (f64 ? 1e-13 : 1e-6) * std::exp(x));
      }
      CHECK(gpu({NDArray::zeros({2, 0, 0}).astype(dt)})[0].shape() == std::vector<std::int64_t>{2, 0, 0});
      CHECK(gpu({NDArray::zeros({0, 4, 4}).astype(dt)})[0].shape() == std::vector<std::int64_t>{0, 4, 4});
      if (f64) {  // a 1-norm past the double range: the capped scaling, the CPU's non-finite results, no error
        gpu_test::check_agree(cpu, gpu, {NDArray::full({1, 2, 2}, 1e308)}, 1e-12);
        const std::vector<NDArray> big = gpu_test::check_agree(cpu, gpu, {NDArray::full({1, 1, 1}, 1e300)}, 1e-12);
        CHECK(std::isinf(big[0].data_as<double>()[0]));
      }
    }
  }

  TEST_CASE("cuda emulated: expm's errors are the CPU form's words, naming GpuExpm") {
    const Var a = any(DType::Float64, 3, "a");
    auto [cpu, gpu] = gpu_test::cpu_and_gpu({a}, {LA::expm(a)});
    NDArray nan = NDArray::zeros({3, 3, 3});
    nan.data_as<double>()[9 + 3 * 2 + 1] = std::numeric_limits<double>::quiet_NaN();  // entry 1, row 2, column 1
    NDArray inf = NDArray::zeros({2, 2, 2});
    inf.data_as<double>()[0] = -std::numeric_limits<double>::infinity();
    const std::vector<std::pair<NDArray, std::string>> bad = {
        {nan, "the matrix (input 0) contains a NaN or an infinity, at row 2, column 1 (batch entry 1)"},
        {inf, "the matrix (input 0) contains a NaN or an infinity, at row 0, column 0"}};
    for (const auto& [x, words] : bad) {
      CAPTURE(words);
      const std::string want = error_of<ValueError>(cpu, {x}), got = error_of<ValueError>(gpu, {x});
      CAPTURE(want);
      CAPTURE(got);
      CHECK(want.find(words) != std::string::npos);
      CHECK(got.find(words) != std::string::npos);
      CHECK(got.find("GpuExpm") != std::string::npos);
    }
    const std::string got = error_of<ShapeError>(gpu, {NDArray::zeros({2, 2, 3})});
    CAPTURE(got);
    CHECK(got.find("input 0 must be a square matrix") != std::string::npos);
    CHECK(got.find("GpuExpm") != std::string::npos);
  }

  TEST_CASE("cuda emulated: expm's unit compiles with NVRTC and calls kernels/linalg_expm_rules.h") {
    const Var a = any(DType::Float64, 2, "a"), f = any(DType::Float32, 3, "f");
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function fn = function({In(a), In(f)}, {Out(LA::expm(a)), Out(LA::expm(f))}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(fn, "GpuExpm") == 2);
    const std::string source = codegen::CLinker::generate_cuda_source(fn.fgraph());
    CHECK(source.find("theano_la_expm_poly_at(") != std::string::npos);
    CHECK(source.find("theano_la_expm_colsum(") != std::string::npos);
    gpu_test::check_nvrtc(fn);
  }
}

TEST_SUITE("cuda on a real GPU") {
  TEST_CASE("cuda gpu: expm on cuda0 agrees with the CPU at every degree (skipped without a usable GPU)") {
    if (gpu_test::no_usable_gpu()) return;
    std::mt19937_64 rng(44);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = any(dt, 3, "a");
      for (double norm : {0.01, 0.2, 0.8, 1.8, 4.5, 12.0}) {
        CAPTURE(norm);
        gpu_test::check_on_gpu({a}, {LA::expm(a)}, {with_norm(rng, 3, 33, norm).astype(dt)}, {"Expm"},
                               dt == DType::Float64 ? 1e-9 : 1e-5, "cuda");
      }
    }
  }
}
