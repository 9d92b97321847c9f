// The GPU forms of qr, svd / svdvals and pinv (issue 37; emit/lower/gpu_linalg.cpp:
// cuSOLVER's geqrf + orgqr and gesvd, which needs m >= n, so a wide matrix is
// factored transposed) on the host-emulated device, where the CPU form's
// LAPACK routines (geqrf, orgqr, gesdd) stand in behind ctx->gpu_lapack. qr,
// and svd of a tall or square matrix, equal the CPU's; a wide matrix's
// singular values and pinv equal the CPU's and its U, Vt are checked as an SVD
// (orthonormal, U S Vt = A: their signs and a full SVD's completion are the
// factorization's own). Batched, float64 and float32, 0-size, the CPU's error
// for a NaN, and the NVRTC compile of the units. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "../compiler/tensor/linalg_test_util.h"
#include "gpu_test_util.h"
#include "linalg_gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
namespace LA = theano::tensor::linalg;

namespace {

Var any(DType dt, int nd, const std::string& name) { return gpu_test::any_la(dt, nd, name); }

/// Entry b of a batch of row-major r x c matrices, as doubles.
double at(const NDArray& x, std::int64_t b, std::int64_t i, std::int64_t j) {
  const std::int64_t r = x.shape()[1], c = x.shape()[2];
  return x.data_as<double>()[(b * r + i) * c + j];
}

/// u (batch x m x p), s (batch x k), vt (batch x q x n) is an SVD of a (batch x m x n): the columns of u and
/// the rows of vt orthonormal, u[:, :k] diag(s) vt[:k] = a, within `tol` of a's scale.
void check_svd(const NDArray& a, const NDArray& u, const NDArray& s, const NDArray& vt, double tol) {
  const std::int64_t nb = a.shape()[0], m = a.shape()[1], n = a.shape()[2], k = s.shape()[1];
  const std::int64_t p = u.shape()[2], q = vt.shape()[1];
  for (std::int64_t b = 0; b < nb; ++b) {
    CAPTURE(b);
    double worst = 0;
    for (std::int64_t i = 0; i < p; ++i)
      for (std::int64_t j = 0; j < p; ++j) {
        double d = 0;
        for (std::int64_t t = 0; t < m; ++t) d += at(u, b, t, i) * at(u, b, t, j);
        worst = std::max(worst, std::fabs(d - (i == j)));
      }
    for (std::int64_t i = 0; i < q; ++i)
      for (std::int64_t j = 0; j < q; ++j) {
        double d = 0;
        for (std::int64_t t = 0; t < n; ++t) d += at(vt, b, i, t) * at(vt, b, j, t);
        worst = std::max(worst, std::fabs(d - (i == j)));
      }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double d = 0;
        for (std::int64_t t = 0; t < k; ++t) d += at(u, b, i, t) * s.data_as<double>()[b * k + t] * at(vt, b, t, j);
        worst = std::max(worst, std::fabs(d - at(a, b, i, j)));
      }
    CHECK(worst < tol);
  }
}

}  // namespace

TEST_SUITE("cuda linalg (emulated device)") {
  TEST_CASE("cuda emulated: qr in its three modes agrees with the CPU: tall, wide, batched, 0-size") {
    std::mt19937_64 rng(42);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-10 : 1e-4;
      const Var a = any(dt, 3, "a");
      const std::vector<Var> reduced = LA::qr(a), complete = LA::qr(a, "complete");
      const std::vector<Var> outs = {reduced[0], reduced[1], complete[0], complete[1], LA::qr(a, "r")[0]};
      auto [cpu, gpu] = gpu_test::cpu_and_gpu({a}, outs);
      CHECK(gpu_test::count_ops(gpu, "QR") == 0);
      CHECK(gpu_test::count_ops(gpu, "GpuQR") >= 2);
      for (const std::vector<std::int64_t>& shape :
           {std::vector<std::int64_t>{2, 5, 3}, {2, 3, 5}, {1, 4, 4}, {2, 0, 3}, {2, 3, 0}, {0, 3, 3}}) {
        CAPTURE(shape[1]);
        CAPTURE(shape[2]);
        gpu_test::check_agree(cpu, gpu, {latest::uniform(rng, shape).astype(dt)}, rtol);
      }
    }
  }

  TEST_CASE(
      "cuda emulated: svd, svdvals and pinv: tall as the CPU, wide (factored transposed) an SVD, batched, 0-size") {
    std::mt19937_64 rng(43);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-10 : 1e-4, tol = dt == DType::Float64 ? 1e-12 : 1e-5;
      const Var a = any(dt, 3, "a");
      const std::vector<Var> thin = LA::svd(a, false), full = LA::svd(a, true);
      const std::vector<Var> outs = {thin[0], thin[1], thin[2], full[0], full[1], full[2], LA::svdvals(a), LA::pinv(a)};
      auto [cpu, gpu] = gpu_test::cpu_and_gpu({a}, outs);
      CHECK(gpu_test::count_ops(gpu, "SVD") == 0);
      CHECK(gpu_test::count_ops(gpu, "GpuSVD") >= 2);
      CHECK(gpu_test::count_ops(gpu, "MatrixPinv") == 0);
      CHECK(gpu_test::count_ops(gpu, "GpuMatrixPinv") == 1);
      for (const std::vector<std::int64_t>& shape :
           {std::vector<std::int64_t>{2, 5, 3}, {3, 3, 3}, {2, 3, 5}, {2, 0, 3}, {2, 3, 0}, {0, 2, 2}, {1, 4, 3}}) {
        CAPTURE(shape[1]);
        CAPTURE(shape[2]);
        NDArray A = latest::uniform(rng, shape).astype(dt);
        if (shape[0] == 1)  // rank-deficient (a repeated column): pinv's cut drops the zero singular value
          A.index(2, 2).assign(A.index(2, 0).copy());
        // The singular values and pinv always; U and Vt where the same routine factors the same matrix: LAPACK's
        // gesdd on the emulated device, not a real GPU's gesvd (U S Vt = A is checked below either way). There a
        // rank-deficient matrix's rounding-level singular value may fall on either side of pinv's cut
        // (docs/linalg.md, "Limits").
        const bool wide = shape[1] < shape[2], real_gpu = gpu_test::on_real_gpu();
        const bool same_routine = !wide && !real_gpu, rank_deficient = shape[0] == 1;
        const std::vector<NDArray> got = gpu_test::check_agree(cpu, gpu, {A}, rtol, [&](std::size_t k) {
          return same_routine || k == 1 || k == 4 || k == 6 || (k == 7 && !(real_gpu && rank_deficient));
        });
        const NDArray A64 = A.astype(DType::Float64).copy();
        check_svd(A64, got[0], got[1], got[2], tol * 10);
        check_svd(A64, got[3], got[4], got[5], tol * 10);
      }
    }
  }

  TEST_CASE(
      "cuda emulated: qr, svd and pinv of a NaN fail with the CPU words naming the GPU node, NVRTC compiles them") {
    const Var a = any(DType::Float64, 2, "a");
    std::mt19937_64 rng(44);
    NDArray tall = latest::uniform(rng, {3, 2});
    tall.index(0, 2).index(0, 0).fill(std::numeric_limits<double>::quiet_NaN());
    const NDArray wide = tall.transpose({1, 0}).copy();  // factored transposed on the GPU: the CPU's position still
    const std::string at_tall = "contains a NaN or an infinity, at row 2, column 0",
                      at_wide = "contains a NaN or an infinity, at row 0, column 2";
    struct Case {
      Var out;
      std::string op;
      NDArray arg;
      std::string words;
    };
    for (const Case& k :
         {Case{LA::qr(a)[1], "GpuQR", tall, at_tall}, Case{LA::svd(a, false)[0], "GpuSVD", wide, at_wide},
          Case{LA::pinv(a), "GpuMatrixPinv", wide, at_wide}}) {
      CAPTURE(k.op);
      Function cpu = function({In(a)}, {Out(k.out)}, {.mode = "fast_run"});
      CHECK_THROWS_WITH_AS(cpu({k.arg}), doctest::Contains(k.words.c_str()), ValueError);
      ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
      Function gpu = function({In(a)}, {Out(k.out)}, {.mode = "fast_run"});
      try {
        gpu({k.arg});
        CHECK_MESSAGE(false, "no error");
      } catch (const ValueError& e) {
        const std::string got = e.what();
        CAPTURE(got);
        CHECK(got.find(k.words) != std::string::npos);
        CHECK(got.find(k.op) != std::string::npos);
      }
      gpu_test::check_nvrtc(gpu);
    }
  }
}
