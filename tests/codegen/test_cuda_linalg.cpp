// The GPU forms of the LAPACK-backed ops (issue 37; emit/lower/gpu_linalg.cpp):
// cholesky, solve_triangular, cho_solve, solve (gen, sym, pos), inv, det,
// slogdet, lu_factor, eigh and CholeskyGrad on the host-emulated device, where the CPU form's
// LAPACK routines stand in for cuSOLVER / cuBLAS behind ctx->gpu_lapack, so the
// GPU lowering's own code (column-major gathers of strided and broadcast batch
// entries, the status array, the stores, det's diagonal reduction, the
// zero-diagonal check) runs as it would on a GPU. Each against the CPU
// function, float64 and float32, batched, 0-size; the errors are the CPU form's
// words (the host reruns the CPU kernel to word them) naming the GPU node; the
// CUDA unit compiles with NVRTC; cuSOLVER's entry points resolve where the
// toolkit is installed; the real-GPU case skips without a GPU. Test names
// contain "cuda".
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gradient.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "../../codegen/src/run/cuda/cublas.h"
#include "../../codegen/src/run/cuda/cusolver.h"
#include "../compiler/tensor/linalg_test_util.h"
#include "gpu_test_util.h"
#include "linalg_gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
namespace LA = theano::tensor::linalg;

namespace {

using gpu_test::error_of;

Var any(DType dt, int nd, const std::string& name) { return gpu_test::any_la(dt, nd, name); }

double rtol_of(DType dt) { return dt == DType::Float64 ? 1e-10 : 1e-4; }

/// `outs` over `ins` fail on `args` with an E on the CPU and on the emulated
/// GPU, both containing `words` (the CPU kernel's), the GPU's naming the node
/// of GPU op `gpu_op`.
template <class E>
void check_same_error(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args,
                      const std::string& gpu_op, const std::string& words) {
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  Function cpu = function(in, out, {.mode = "fast_run"});
  const std::string want = error_of<E>(cpu, args);
  CAPTURE(want);
  CHECK(want.find(words) != std::string::npos);
  ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
  Function gpu = function(in, out, {.mode = "fast_run"});
  CHECK(gpu_test::count_ops(gpu, gpu_op) >= 1);
  const std::string got = error_of<E>(gpu, args);
  CAPTURE(got);
  CHECK(got.find(words) != std::string::npos);
  CHECK(got.find(gpu_op) != std::string::npos);
}

}  // namespace

TEST_SUITE("cuda linalg (emulated device)") {
  TEST_CASE(
      "cuda emulated: cholesky, solve_triangular, cho_solve and solve agree with the CPU, batched and broadcast") {
    std::mt19937_64 rng(37);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = rtol_of(dt);
      const Var a = any(dt, 3, "a"), b = any(dt, 2, "b"), v = any(dt, 1, "v");
      const NDArray A = latest::spd(rng, {3, 5, 5}).astype(dt), B = latest::uniform(rng, {5, 2}).astype(dt);
      const NDArray V = latest::uniform(rng, {5}).astype(dt);
      // cholesky, solve_triangular and cho_solve in one function (each compile costs about a second).
      check_on_gpu({a, b, v},
                   {LA::cholesky(a), LA::cholesky(a, false), LA::solve_triangular(a, b, true),
                    LA::solve_triangular(a, v, false, 1, true), LA::cho_solve({LA::cholesky(a), true}, b)},
                   {A, B, V}, {"Cholesky", "SolveTriangular", "CholeskySolve"}, rtol);
      check_on_gpu(
          {a, b, v},
          {LA::solve(a, b), LA::solve(a, v, "sym", true), LA::solve(a, b, "sym", false), LA::solve(a, b, "pos")},
          {A, B, V}, {"Solve"}, rtol);
      // A strided (transposed) matrix: the gather reads it by its strides.
      check_on_gpu({a, b}, {LA::solve(LA::matrix_transpose(a), b)}, {A, B}, {"Solve"}, rtol);
    }
  }

  TEST_CASE("cuda emulated: inv, det, slogdet, lu_factor and eigh agree with the CPU, batched, singular, 0-size") {
    std::mt19937_64 rng(38);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = rtol_of(dt);
      const Var a = any(dt, 3, "a");
      const NDArray G = latest::general(rng, {4, 6, 6}).astype(dt), S = latest::spd(rng, {2, 6, 6}).astype(dt);
      // A singular matrix: det 0, sign 0, log|det| -inf, lu_factor complete; no error.
      const NDArray sing = NDArray::from_list<double>({1, 2, 3, 2, 4, 6, 1, 0, 1}, {1, 3, 3}).astype(dt);
      // 0-size: empty matrices (det 1, slogdet (1, 0)) and an empty batch.
      const NDArray E0 = NDArray::zeros({2, 0, 0}).astype(dt), E1 = NDArray::zeros({0, 3, 3}).astype(dt);
      // One function per group, each run on several inputs. det apart from slogdet and lu_factor: with either
      // in the same function the linalg rewrites compute det from it (docs/linalg.md, "Rewrites"), and no Det
      // node is left; slogdet apart from lu_factor for the same reason.
      const auto [sign, logabs] = LA::slogdet(a);
      const auto [lu, piv] = LA::lu_factor(a);
      const auto [w, vecs] = LA::eigh(a);
      const std::vector<std::pair<std::vector<Var>, std::vector<std::string>>> groups = {
          {{LA::det(a)}, {"Det"}},
          {{sign, logabs}, {"SLogDet"}},
          {{lu, piv}, {"LUFactor"}},
          {{LA::inv(a), w, vecs, LA::eigvalsh(a), LA::eigh(a, "U").second, LA::cholesky(a)},
           {"MatrixInverse", "Eigh", "Cholesky"}}};
      for (const auto& [outs, moved] : groups) {
        CAPTURE(moved[0]);
        auto [cpu, gpu] = gpu_test::cpu_and_gpu({a}, outs);
        gpu_test::check_moved(gpu, moved);
        const bool spd_only = moved[0] == "MatrixInverse";  // cholesky's group: symmetric positive definite
        for (const NDArray& x : spd_only ? std::vector<NDArray>{S, E0, E1} : std::vector<NDArray>{G, sing, E0, E1}) {
          CAPTURE(x.shape()[0]);
          if (!spd_only || !gpu_test::on_real_gpu()) {
            gpu_test::check_agree(cpu, gpu, {x}, rtol);
            continue;
          }
          // On a real GPU eigh's vectors (outputs 2 and 4) are cuSOLVER's: LAPACK's up to each column's sign.
          const auto vectors = [](std::size_t k) { return k == 2 || k == 4; };
          const std::vector<NDArray> got = gpu_test::check_agree(cpu, gpu, {x}, rtol, std::not_fn(vectors));
          const std::vector<NDArray> want = cpu({x});
          for (std::size_t k : {2, 4}) {
            CAPTURE(k);
            gpu_test::check_agree_up_to_column_signs(want[k].astype(DType::Float64), got[k], rtol);
          }
        }
      }
    }
  }

  TEST_CASE(
      "cuda emulated: CholeskyGrad (trmm, two trsm) agrees with the CPU: lower, upper, batched, strided, 0-size") {
    std::mt19937_64 rng(40);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-10 : 1e-3;
      const Var l = any(dt, 3, "l"), g = any(dt, 2, "g"), t = any(dt, 3, "t");
      const auto grad_of = [](bool lower, const Var& f, const Var& b) {
        return OpPtr(new LA::CholeskyGrad(lower))->apply1({f, b});
      };
      // Lower and upper; a gradient broadcast over the batch, and one read transposed (strided).
      const std::vector<Var> outs = {grad_of(true, l, g), grad_of(false, l, g),
                                     grad_of(true, l, LA::matrix_transpose(t))};
      auto [cpu, gpu] = gpu_test::cpu_and_gpu({l, g, t}, outs);
      CHECK(gpu_test::count_ops(gpu, "CholeskyGrad") == 0);
      CHECK(gpu_test::count_ops(gpu, "GpuCholeskyGrad") == 3);
      // Factors with garbage in the triangle the op does not read.
      const NDArray L = latest::general(rng, {3, 5, 5}, 6.0).astype(dt), G = latest::uniform(rng, {5, 5}).astype(dt);
      const NDArray Gb = latest::uniform(rng, {3, 5, 5}).astype(dt);
      // A zero on the factor's diagonal: no error (as on the CPU), the same infinities and NaNs.
      NDArray Z = L.copy();
      Z.index(0, 1).index(0, 2).index(0, 2).fill(0.0);
      const auto zeros = [&](std::vector<std::int64_t> shape) { return NDArray::zeros(std::move(shape)).astype(dt); };
      // 0-size: empty matrices, an empty batch.
      struct Args {
        std::vector<NDArray> in;
        bool zero_pivot;
      };
      for (const Args& args : {Args{{L, G, Gb}, false},
                               Args{{Z, G, Gb}, true},
                               Args{{zeros({2, 0, 0}), zeros({0, 0}), zeros({2, 0, 0})}, false},
                               Args{{zeros({0, 4, 4}), zeros({4, 4}), zeros({0, 4, 4})}, false}}) {
        CAPTURE(args.in[0].shape()[1]);
        CAPTURE(args.zero_pivot);
        // LAPACK's very infinities and NaNs on the emulated device; a real GPU's cuBLAS may swap one for the other.
        if (args.zero_pivot && gpu_test::on_real_gpu())
          gpu_test::check_agree_nonfinite_alike(cpu, gpu, args.in, rtol);
        else
          gpu_test::check_agree(cpu, gpu, args.in, rtol);
      }
    }
  }

  TEST_CASE("cuda emulated: cholesky's gradient runs on the device: GpuCholesky and GpuCholeskyGrad, no host linalg") {
    std::mt19937_64 rng(41);
    const Var a = any(DType::Float64, 2, "a"), w = any(DType::Float64, 2, "w");
    const Var L = LA::cholesky(a);
    const Var cost = sum(L * w) + sum(log(sqr(L) + 1.0));
    Function f = check_on_gpu({a, w}, {cost, grad(cost, a)}, {latest::spd(rng, {6, 6}), latest::uniform(rng, {6, 6})},
                              {"Cholesky", "CholeskyGrad"}, 1e-10);
    std::string host;  // the nodes left on the host, transfers aside
    for (const Apply* node : f.fgraph().toposort()) {
      const std::string type(node->op()->type_name());
      if (type.rfind("Gpu", 0) != 0 && type != "HostFromGpu") host += type + " ";
    }
    CHECK_MESSAGE(host.empty(), host);
  }

  TEST_CASE("cuda emulated: failures are the CPU form's errors, worded by its kernel, naming the GPU node") {
    const Var a = any(DType::Float64, 2, "a"), b = any(DType::Float64, 2, "b"), t = any(DType::Float64, 3, "t");
    const NDArray bad = NDArray::from_list<double>({1, 2, 0, 2, 1, 0, 0, 0, 1}, {3, 3});
    check_same_error<ValueError>({a}, {LA::cholesky(a)}, {bad}, "GpuCholesky",
                                 "the matrix (input 0) is not positive definite: leading minor 2 is not positive");
    NDArray both = NDArray::zeros({2, 3, 3});
    both.index(0, 0).assign(NDArray::from_vector(latest::identity(3), {3, 3}));
    both.index(0, 1).assign(bad);
    check_same_error<ValueError>({t}, {LA::cholesky(t)}, {both}, "GpuCholesky",
                                 "leading minor 2 is not positive (batch entry 1)");
    check_same_error<ValueError>({a, b}, {LA::solve(a, b, "pos")}, {bad, NDArray::ones({3, 1})}, "GpuSolve",
                                 "is not positive definite (assume_a=\"pos\"): leading minor 2");
    const NDArray sing = NDArray::from_list<double>({1, 2, 2, 4}, {2, 2});
    check_same_error<ValueError>({a}, {LA::inv(a)}, {sing}, "GpuMatrixInverse",
                                 "the matrix (input 0) is singular: U[1] of its LU factorization is exactly zero");
    check_same_error<ValueError>({a, b}, {LA::solve(a, b)}, {sing, NDArray::ones({2, 1})}, "GpuSolve",
                                 "is singular: U[1]");
    check_same_error<ValueError>({a, b}, {LA::solve_triangular(a, b, true)},
                                 {NDArray::from_list<double>({1, 0, 1, 0}, {2, 2}), NDArray::ones({2, 1})},
                                 "GpuSolveTriangular", "the matrix (input 0) is singular: diagonal element 1 is zero");
    NDArray nan = NDArray::from_vector(latest::identity(3), {3, 3});
    nan.index(0, 2).index(0, 0).fill(std::numeric_limits<double>::quiet_NaN());
    check_same_error<ValueError>({a}, {LA::eigvalsh(a)}, {nan}, "GpuEigh",
                                 "contains a NaN or an infinity, at row 2, column 0");
    check_same_error<ValueError>({a, b}, {LA::solve(a, b)}, {NDArray::from_vector(latest::identity(3), {3, 3}), nan},
                                 "GpuSolve", "the right-hand side (input 1) contains a NaN or an infinity, at row 2");
    check_same_error<ShapeError>({a}, {LA::det(a)}, {NDArray::zeros({2, 3})}, "GpuDet", "must be a square matrix");
    check_same_error<ShapeError>({a, b}, {LA::solve(a, b)},
                                 {NDArray::from_vector(latest::identity(3), {3, 3}), NDArray::ones({2, 1})}, "GpuSolve",
                                 "has 2 rows but the matrix (input 0) has 3");
  }

  TEST_CASE("cuda emulated: cholesky(on_error=\"nan\") fills the failed batch entries with NaNs on the device") {
    const Var t = any(DType::Float64, 3, "t");
    NDArray both = NDArray::zeros({3, 3, 3});
    both.index(0, 0).assign(NDArray::from_vector(latest::identity(3), {3, 3}));
    both.index(0, 1).assign(NDArray::from_list<double>({1, 2, 0, 2, 1, 0, 0, 0, 1}, {3, 3}));
    both.index(0, 2).assign(NDArray::from_vector(latest::identity(3), {3, 3}));
    both.index(0, 2).index(0, 1).index(0, 1).fill(std::numeric_limits<double>::infinity());
    Function f = check_on_gpu({t}, {LA::cholesky(t, true, "nan")}, {both}, {"Cholesky"});
    const NDArray got = f({both})[0].to_host();
    CHECK(got.data_as<double>()[0] == 1.0);
    CHECK(std::isnan(got.data_as<double>()[9]));
    CHECK(std::isnan(got.data_as<double>()[18]));
  }

  TEST_CASE("cuda emulated: the unit's kernels compile with NVRTC and call kernels/linalg_gpu.h") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = any(dt, 3, "a"), b = any(dt, 2, "b");
      ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
      Function f = function(
          {In(a), In(b)},
          {Out(LA::cholesky(a, true, "nan")), Out(LA::solve_triangular(a, b, true)), Out(LA::cho_solve({a, true}, b)),
           Out(LA::solve(a, b, "sym")), Out(LA::inv(a)), Out(LA::slogdet(a).second), Out(LA::lu_factor(a).first),
           Out(LA::eigh(a).second), Out(OpPtr(new LA::CholeskyGrad(true))->apply1({a, b}))},
          {.mode = "fast_run"});
      const std::string source = codegen::CLinker::generate_cuda_source(f.fgraph());
      CHECK(source.find("theano_la_gpu_gather_") != std::string::npos);
      CHECK(source.find("theano_la_gpu_lu_det_") != std::string::npos);
      CHECK(source.find("theano_la_gpu_chol_grad_out_") != std::string::npos);
      check_nvrtc(f);
    }
  }

  TEST_CASE("cuda: cuSOLVER and cuBLAS load by dlopen with every entry point the GPU forms call, where installed") {
    void* lib = ::dlopen("libcusolver.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = ::dlopen("libcusolver.so", RTLD_NOW | RTLD_LOCAL);
    const std::string why = codegen::cuda::Cusolver::unavailable_reason();
    if (!lib) {
      MESSAGE("cuSOLVER is not installed here: " << why);
      CHECK(why.find("cuSOLVER") != std::string::npos);
      return;
    }
    ::dlclose(lib);
    CHECK_MESSAGE(why.empty(), why);                   // every cusolverDn[SD]{potrf,...,gesvd}(_bufferSize) resolved
    CHECK_NOTHROW(codegen::cuda::Cublas::instance());  // with cublas[SD]{gemm,trsm,trmm}_v2
  }
}

TEST_SUITE("cuda on a real GPU") {
  TEST_CASE("cuda gpu: the linear algebra ops on cuda0 agree with the CPU (skipped without a usable GPU)") {
    if (gpu_test::no_usable_gpu()) return;
    std::mt19937_64 rng(39);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-8 : 2e-3;
      const Var a = any(dt, 3, "a"), b = any(dt, 2, "b");
      const NDArray A = latest::spd(rng, {3, 33, 33}).astype(dt), B = latest::uniform(rng, {33, 4}).astype(dt);
      const NDArray G = latest::general(rng, {3, 33, 33}).astype(dt);
      check_on_gpu({a}, {LA::cholesky(a)}, {A}, {"Cholesky"}, rtol, "cuda");
      check_on_gpu({a, b}, {LA::solve_triangular(a, b, true), LA::cho_solve({a, true}, b), LA::solve(a, b, "pos")},
                   {A, B}, {}, rtol, "cuda");
      check_on_gpu({a, b}, {LA::solve(a, b), LA::inv(a), LA::det(a), LA::slogdet(a).second}, {G, B}, {}, rtol, "cuda");
      check_on_gpu({a}, {LA::eigvalsh(a)}, {A}, {"Eigh"}, rtol, "cuda");
      check_on_gpu({a}, {LA::svdvals(a)}, {G}, {"SVD"}, rtol, "cuda");
      // pinv is unique; R is, up to the signs of its rows (cuSOLVER's and LAPACK's reflectors may differ).
      check_on_gpu({a}, {LA::pinv(a), abs(LA::qr(a, "r")[0])}, {G}, {"MatrixPinv", "QR"}, rtol, "cuda");
      if (dt == DType::Float64)  // float32: the factor's conditioning, not the GPU, sets the error
        check_on_gpu({a, b}, {OpPtr(new LA::CholeskyGrad(true))->apply1({LA::cholesky(a), b})}, {A, G.index(0, 0)},
                     {"CholeskyGrad"}, rtol, "cuda");
      const NDArray bad = NDArray::from_list<double>({1, 2, 2, 1}, {1, 2, 2}).astype(dt);
      ConfigGuard guard(gpu_test::with_device("cuda"));
      Function f = function({In(a)}, {Out(LA::cholesky(a))}, {.mode = "fast_run"});
      CHECK_THROWS_WITH_AS(f({bad}), doctest::Contains("is not positive definite"), ValueError);
    }
  }
}
