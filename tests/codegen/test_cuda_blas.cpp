// The BLAS ops on the GPU (issue 17): Dot of vectors and matrices, Dot22,
// Gemm, Gemv and Ger through ctx->gpu_gemm, float32 and float64, through the
// host-emulated device, where the gemm is OpenBLAS's (cuBLAS on a GPU):
// shapes, transposed and strided operands (gathered by a copy kernel when
// BLAS cannot read them), alpha == 0 and empty inner dimensions (a scale
// kernel), against the CPU back end. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gpu/context.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/math.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <limits>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda blas (emulated device)") {
  TEST_CASE("cuda emulated: dot of every vector and matrix combination, float64 and float32") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-12 : 1e-5;
      Var a = matrix("a", dt), b = matrix("b", dt), u = vector("u", dt), v = vector("v", dt);
      const NDArray A = random_array({7, 33}, dt, 1), B = random_array({33, 5}, dt, 2);
      const NDArray U = random_array({33}, dt, 3), V = random_array({7}, dt, 4);
      check_on_gpu({a, b}, {dot(a, b)}, {A, B}, {"Dot22"}, rtol);
      check_on_gpu({a, u}, {dot(a, u)}, {A, U}, {}, rtol);
      check_on_gpu({v, a}, {dot(v, a)}, {V, A}, {}, rtol);
      Function f = check_on_gpu({u, v}, {dot(u, u), dot(v, v)}, {U, V}, {}, rtol);
      CHECK(gpu_test::count_ops(f, "Dot") == 0);
    }
  }

  TEST_CASE("cuda emulated: transposed, strided and broadcast operands, one kernel gathers what BLAS cannot read") {
    Var a = matrix("a"), b = matrix("b"), u = vector("u");
    const NDArray A = random_array({9, 12}, DType::Float64, 5), B = random_array({12, 9}, DType::Float64, 6);
    const NDArray U = random_array({24}, DType::Float64, 7);
    // a.T and b.T are read in place (transpose flags); a[:, ::2] and u[::2] by their strides;
    // a[::-1] (a negative stride) is gathered first.
    Function f = check_on_gpu({a, b, u}, {dot(a.T(), b.T()), dot(a[{all, slice(0, 12, 2)}], u[slice(0, 12, 2)]),
                                          dot(a[slice({}, {}, -1)], b)},
                              {A, B, U}, {}, 1e-12);
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: gemm, gemv and ger, with alpha == 0, beta == 0 and an empty inner dimension") {
    Var z = matrix("z"), x = matrix("x"), y = matrix("y"), w = vector("w"), s = vector("s");
    Var al = scalar("al"), be = scalar("be");
    const NDArray Z = random_array({6, 4}, DType::Float64, 8), X = random_array({6, 5}, DType::Float64, 9);
    const NDArray Y = random_array({5, 4}, DType::Float64, 10), W = random_array({6}, DType::Float64, 11);
    const NDArray S = random_array({5}, DType::Float64, 12);
    auto num = [](double v) { return NDArray::scalar(v); };
    for (double alpha : {0.5, 0.0})
      for (double beta : {1.5, 0.0}) {
        CAPTURE(alpha);
        CAPTURE(beta);
        check_on_gpu({z, al, x, y, be}, {gemm(z, al, x, y, be)}, {Z, num(alpha), X, Y, num(beta)}, {"Gemm"}, 1e-12);
        check_on_gpu({w, al, x, s, be}, {gemv(w, al, x, s, be)}, {W, num(alpha), X, S, num(beta)}, {"Gemv"}, 1e-12);
        check_on_gpu({x, al, w, s}, {ger(x, al, w, s)}, {X, num(alpha), W, S}, {"Ger"}, 1e-12);
      }
    // An empty inner dimension: dot of (6, 0) and (0, 4) is zeros.
    check_on_gpu({x, y}, {dot(x, y)}, {NDArray::empty({6, 0}, DType::Float64), NDArray::empty({0, 4}, DType::Float64)},
                 {"Dot22"});
  }

  TEST_CASE("cuda emulated: misaligned shapes are a ShapeError naming the node") {
    Var a = matrix("a"), b = matrix("b");
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function f = function({In(a), In(b)}, {Out(dot(a, b))}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(f, "GpuDot22") == 1);
    CHECK_THROWS_WITH_AS(
        f({random_array({3, 4}, DType::Float64, 1), random_array({5, 2}, DType::Float64, 2)}),
        doctest::Contains("shapes are not aligned"), ShapeError);
  }
}
