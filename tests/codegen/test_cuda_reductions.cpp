// The reductions on the GPU (issue 17): CAReduce of every kind over every
// axis pattern (all, rows, columns, middle axes, keepdims), with a fused
// elementwise op, over strided and broadcast inputs, and Argmax / Argmin,
// through the host-emulated device: the generated lane kernels (thread,
// block and parts forms, gpu_reduction.cpp) run and agree with the CPU back
// end. Test names contain "cuda" so that `ctest -R cuda` selects them.
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gpu/context.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <limits>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda reductions (emulated device)") {
  TEST_CASE("cuda emulated: sum, prod, max, min, all, any over every axis pattern of a 3-d array") {
    Var x = tensor3("x");
    const NDArray a = random_array({5, 7, 33}, DType::Float64, 1);
    const std::vector<Axes> patterns = {Axes(), Axes(0), Axes(1), Axes(2), Axes({0, 1}), Axes({1, 2}),
                                        Axes({0, 2})};
    for (const Axes& ax : patterns) {
      CAPTURE(ax.is_all() ? std::string("all") : std::to_string(ax.axes->size()));
      check_on_gpu({x}, {sum(x, ax), max(x, ax), min(x, ax), prod(x * 0.5, ax)}, {a}, {"CAReduce"}, 1e-12);
      check_on_gpu({x}, {all_(x > -2.0, ax), any_(x > 2.9, ax)}, {a}, {"CAReduce"});
      check_on_gpu({x}, {sum(x, ax, /*keepdims=*/true)}, {a}, {"CAReduce"}, 1e-12);
    }
  }

  TEST_CASE("cuda emulated: long lanes split into parts, many short lanes one thread each, column sums") {
    Var m = matrix("m"), v = vector("v");
    // One lane of 100000 elements: 25 parts of 4000, combined in order.
    const NDArray big = random_array({100000}, DType::Float64, 2);
    check_on_gpu({v}, {sum(v), max(v), argmax(v)}, {big}, {"CAReduce", "Argmax"}, 1e-12);
    // 3000 columns of 4 rows: one thread a column; 4 columns of 3000 rows: blocks.
    check_on_gpu({m}, {sum(m, 0), sum(m, 1)}, {random_array({4, 3000}, DType::Float64, 3)}, {"CAReduce"}, 1e-12);
    check_on_gpu({m}, {sum(m, 0), sum(m, 1)}, {random_array({3000, 4}, DType::Float64, 4)}, {"CAReduce"}, 1e-12);
    check_on_gpu({m}, {sum(m, 0)}, {random_array({20, 2500}, DType::Float64, 5)}, {"CAReduce"}, 1e-12);
  }

  TEST_CASE("cuda emulated: float32 and integer reductions follow perform's accumulators") {
    Var f = matrix("f", DType::Float32), i = matrix("i", DType::Int32), u = matrix("u", DType::UInt8);
    check_on_gpu({f}, {sum(f, 1), max(f, 0), mean(f)}, {random_array({9, 300}, DType::Float32, 6)}, {"CAReduce"},
                 1e-6);
    // int32 sums accumulate in int64 and wrap like perform; uint8 products wrap.
    check_on_gpu({i, u}, {sum(i, 0), prod(i, 1), sum(u), prod(u, 0), max(u, 1)},
                 {random_array({6, 40}, DType::Int32, 7), random_array({6, 40}, DType::UInt8, 8)}, {"CAReduce"});
  }

  TEST_CASE("cuda emulated: a reduction with a fused elementwise op, of strided and broadcast inputs") {
    Var x = matrix("x"), y = matrix("y"), r = row("r");
    const NDArray a = random_array({17, 40}, DType::Float64, 9), b = random_array({17, 40}, DType::Float64, 10);
    Function f = check_on_gpu({x, y}, {sum(x * y, 1), sum(sqr(x - y)), max(exp(x) + y, 0)}, {a, b}, {"CAReduce"},
                              1e-12);
    check_nvrtc(f);
    // A transposed input (a GPU view with swapped strides) and a broadcast row.
    check_on_gpu({x, r}, {sum(x.T() * 2.0, 1), sum(x * r, 0)}, {a, random_array({1, 40}, DType::Float64, 11)},
                 {"CAReduce"}, 1e-12);
  }

  TEST_CASE("cuda emulated: NaN propagates through max and min, argmax lets the first NaN win, and ties keep the first") {
    Var m = matrix("m");
    NDArray a = random_array({4, 600}, DType::Float64, 12);
    double* p = a.data_as<double>();
    p[5] = std::nan("");
    p[300] = std::nan("");
    p[600 + 7] = 9.0;
    p[600 + 500] = 9.0;  // a tie: the first index wins
    p[1200 + 599] = std::numeric_limits<double>::infinity();
    Function f = check_on_gpu({m}, {max(m, 1), min(m, 1), argmax(m, 1), argmin(m, 1), argmax(m, 0), argmax(m)}, {a},
                              {"CAReduce", "Argmax", "Argmin"});
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: empty reductions give the identity, max of nothing is a ValueError naming the node") {
    Var m = matrix("m");
    const NDArray empty_rows = NDArray::empty({0, 5}, DType::Float64);
    check_on_gpu({m}, {sum(m, 0), prod(m, 0), sum(m, 1)}, {empty_rows}, {"CAReduce"});
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function f = function({In(m)}, {Out(max(m, 0))}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(f, "GpuCAReduce") == 1);
    CHECK_THROWS_WITH_AS(f({empty_rows}), doctest::Contains("zero-size array to reduction operation maximum"),
                         ValueError);
    Function g = function({In(m)}, {Out(argmax(m, 0))}, {.mode = "fast_run"});
    CHECK_THROWS_WITH_AS(g({empty_rows}), doctest::Contains("argmax of an empty sequence"), ValueError);
  }

  TEST_CASE("cuda emulated: the same inputs give the same bits on every call (a fixed association order)") {
    Var v = vector("v", DType::Float32);
    const NDArray a = random_array({200000}, DType::Float32, 13);
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function f = function({In(v)}, {Out(sum(v * 1.0001f))}, {.mode = "fast_run"});
    const float first = f({a})[0].to_host().data_as<float>()[0];
    for (int k = 0; k < 3; ++k) CHECK(f({a})[0].to_host().data_as<float>()[0] == first);
  }
}
