// ARange and Eye on the GPU (issue 17): made from host scalars by a kernel
// when their values feed GPU work, with perform's values (integer ranges,
// float ranges built from their first two elements, integer dtypes from real
// bounds; the identity with a diagonal offset), through the host-emulated
// device against the CPU back end. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/math.h>
#include <theano/tensor/type.h>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda arange and eye (emulated device)") {
  TEST_CASE("cuda emulated: arange of integer and real bounds, several output dtypes, feeding GPU work") {
    Var n = scalar("n", DType::Int64), lo = scalar("lo"), st = scalar("st");
    Var x = vector("x"), f = vector("f", DType::Float32);
    const NDArray X = random_array({37}, DType::Float64, 1), F = random_array({37}, DType::Float32, 2);
    // int64 range: 0 .. n-1.
    check_on_gpu({n, x}, {cast(arange(n), DType::Float64) * x}, {NDArray::scalar<std::int64_t>(37), X}, {"ARange"});
    // float64 and float32 ranges from real bounds: first + i * (second - first).
    Function g = check_on_gpu({lo, st, x}, {arange(lo, lo + 37.0 * st, st) * x},
                              {NDArray::scalar(-1.3), NDArray::scalar(0.1), X}, {"ARange"});
    check_nvrtc(g);
    check_on_gpu({lo, st, f}, {arange(lo, lo + 37.0 * st, st, DType::Float32) * f},
                 {NDArray::scalar(0.7), NDArray::scalar(0.01), F}, {"ARange"}, 1e-6);
    // An integer dtype from real bounds.
    check_on_gpu({lo, st, x}, {cast(arange(lo, lo + 37.0 * st, st, DType::Int32), DType::Float64) + x},
                 {NDArray::scalar(-5.5), NDArray::scalar(2.25), X}, {"ARange"});
  }

  TEST_CASE("cuda emulated: eye with a diagonal offset, feeding GPU work") {
    Var n = scalar("n", DType::Int64), m = scalar("m", DType::Int64), k = scalar("k", DType::Int64);
    Var a = matrix("a");
    for (std::int64_t off : {0, 2, -3, 9}) {
      CAPTURE(off);
      Function f = check_on_gpu({n, m, k, a}, {eye(n, m, k) * a},
                                {NDArray::scalar<std::int64_t>(5), NDArray::scalar<std::int64_t>(7),
                                 NDArray::scalar<std::int64_t>(off), random_array({5, 7}, DType::Float64, 3)},
                                {"Eye"});
      if (off == 2) check_nvrtc(f);
    }
  }
}
