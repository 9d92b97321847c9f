// The indexing ops and Join / Split on the GPU (issue 17): IncSubtensor
// (set / inc through a basic index, a broadcast value, symbolic bounds),
// AdvancedSubtensor1 (a gather with negative and repeated indices) and
// AdvancedIncSubtensor1 (increments accumulating over repeated indices,
// set keeping the last write), their gradients, and Join / Split, through
// the host-emulated device against the CPU back end; bad indices are the
// CPU's IndexError. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gradient.h>
#include <theano/tensor/join.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;


TEST_SUITE("cuda subtensor (emulated device)") {
  TEST_CASE("cuda emulated: set_subtensor and inc_subtensor through slices, integers and symbolic bounds") {
    Var x = matrix("x"), y = matrix("y"), r = row("r"), s = scalar("s", DType::Int64);
    const NDArray X = random_array({7, 9}, DType::Float64, 1);
    check_on_gpu({x, y}, {set_subtensor(x[{slice(1, 5), slice(0, 9, 2)}], y)},
                 {X, random_array({4, 5}, DType::Float64, 2)}, {"IncSubtensor"});
    check_on_gpu({x, r}, {inc_subtensor(x[{slice(1, 5)}], r * 2.0)}, {X, random_array({1, 9}, DType::Float64, 3)},
                 {"IncSubtensor"});
    Var v = vector("v");
    Function f = check_on_gpu({x, v, s}, {inc_subtensor(x[{s, slice({}, {}, -1)}], v)},
                              {X, random_array({9}, DType::Float64, 4), NDArray::scalar<std::int64_t>(-2)},
                              {"IncSubtensor"});
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: advanced_subtensor1 gathers rows, negative and repeated indices, every row rank") {
    Var m = matrix("m"), t = tensor3("t"), v = vector("v", DType::Int32), i = vector("i", DType::Int64);
    const NDArray idx = gpu_test::int64_vector({0, -1, 3, 3, 2});
    check_on_gpu({m, i}, {advanced_subtensor1(m, i)}, {random_array({4, 6}, DType::Float64, 5), idx},
                 {"AdvancedSubtensor1"});
    check_on_gpu({t, i}, {advanced_subtensor1(t.dimshuffle({1, 0, 2}), i)},
                 {random_array({3, 4, 5}, DType::Float64, 6), idx}, {"AdvancedSubtensor1"});
    Function f = check_on_gpu({v, i}, {advanced_subtensor1(v, i)}, {random_array({4}, DType::Int32, 7), idx},
                              {"AdvancedSubtensor1"});
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: the gradient of a gather accumulates over repeated rows (atomic adds)") {
    Var w = matrix("w"), i = vector("i", DType::Int64), wf = matrix("wf", DType::Float32);
    const NDArray idx = gpu_test::int64_vector({1, 1, 0, 3, 1, -1});
    Var cost = sum(sqr(advanced_subtensor1(w, i)) * 0.5);
    Function f = check_on_gpu({w, i}, {grad(cost, w)}, {random_array({5, 3}, DType::Float64, 8), idx},
                              {"AdvancedIncSubtensor1"}, 1e-12);
    check_nvrtc(f);
    Var costf = sum(advanced_subtensor1(wf, i) * 3.0f);
    check_on_gpu({wf, i}, {grad(costf, wf)}, {random_array({5, 3}, DType::Float32, 9), idx},
                 {"AdvancedIncSubtensor1"}, 1e-6);
  }

  TEST_CASE("cuda emulated: an embedding lookup by an integer matrix and its scatter-add gradient (W13's shape)") {
    Var e = matrix("e"), idx = matrix("idx", DType::Int64);
    NDArray iv = NDArray::empty({3, 4}, DType::Int64);
    const std::int64_t rows[] = {0, 5, 5, -1, 2, 2, 2, 7, 1, 0, 3, 5};
    for (int k = 0; k < 12; ++k) iv.data_as<std::int64_t>()[k] = rows[k];
    Var cost = sum(sqr(tanh(e[idx])) * 0.5);
    Function f = check_on_gpu({e, idx}, {e[idx], cost, grad(cost, e)}, {random_array({8, 5}, DType::Float64, 12), iv},
                              {"AdvancedSubtensor1", "AdvancedIncSubtensor1"}, 1e-12);
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: advanced set keeps the last write of a repeated row, integer increments wrap") {
    Var x = matrix("x"), y = matrix("y"), i = vector("i", DType::Int64);
    Var k = matrix("k", DType::Int32), ky = matrix("ky", DType::Int32);
    const NDArray idx = gpu_test::int64_vector({2, 0, 2, 2});
    Function f = check_on_gpu({x, y, i}, {set_subtensor(advanced_subtensor1(x, i), y)},
                              {random_array({3, 4}, DType::Float64, 10), random_array({4, 4}, DType::Float64, 11), idx},
                              {"AdvancedIncSubtensor1"});
    check_nvrtc(f);
    check_on_gpu({k, ky, i}, {inc_subtensor(advanced_subtensor1(k, i), ky)},
                 {random_array({3, 4}, DType::Int32, 12), random_array({4, 4}, DType::Int32, 13), idx},
                 {"AdvancedIncSubtensor1"});
  }

  TEST_CASE("cuda emulated: an index out of range is the CPU's IndexError naming the index") {
    Var m = matrix("m"), y = matrix("y"), i = vector("i", DType::Int64);
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function g = function({In(m), In(i)}, {Out(advanced_subtensor1(m, i))}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(g, "GpuAdvancedSubtensor1") == 1);
    const NDArray M = random_array({4, 3}, DType::Float64, 14);
    CHECK_THROWS_WITH_AS(g({M, gpu_test::int64_vector({0, 9, -7})}), doctest::Contains("index 9 is out of bounds for axis 0"),
                         IndexError);
    Function s = function({In(m), In(y), In(i)}, {Out(inc_subtensor(advanced_subtensor1(m, i), y))},
                          {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(s, "GpuAdvancedIncSubtensor1") == 1);
    CHECK_THROWS_WITH_AS(s({M, random_array({2, 3}, DType::Float64, 15), gpu_test::int64_vector({1, -5})}),
                         doctest::Contains("index -5 is out of bounds for axis 0"), IndexError);
    // Rows of no elements: the indices are still checked, as on the CPU.
    const NDArray empty_rows = NDArray::empty({4, 0}, DType::Float64);
    CHECK_THROWS_WITH_AS(g({empty_rows, gpu_test::int64_vector({0, 4})}),
                         doctest::Contains("index 4 is out of bounds for axis 0"), IndexError);
    CHECK(g({empty_rows, gpu_test::int64_vector({0, -4})})[0].shape() == std::vector<std::int64_t>{2, 0});
    CHECK_THROWS_WITH_AS(s({empty_rows, NDArray::empty({2, 0}, DType::Float64), gpu_test::int64_vector({1, 7})}),
                         doctest::Contains("index 7 is out of bounds for axis 0"), IndexError);
  }

  TEST_CASE("cuda emulated: join along each axis and split into views") {
    Var a = matrix("a"), b = matrix("b"), c = matrix("c");
    check_on_gpu({a, b, c}, {join(0, {a, b, c}) * 2.0},
                 {random_array({2, 3}, DType::Float64, 16), random_array({4, 3}, DType::Float64, 17),
                  random_array({1, 3}, DType::Float64, 18)},
                 {"Join"});
    Function f = check_on_gpu({a, b}, {join(1, {a.T(), b}) + 1.0},
                              {random_array({5, 2}, DType::Float64, 19), random_array({2, 7}, DType::Float64, 20)},
                              {"Join"});
    check_nvrtc(f);
    // Split's outputs are views of the GPU array its exp wrote.
    Var sizes = vector("sizes", DType::Int64);
    const std::vector<Var> parts = split(exp(a), sizes, 3, 0);
    check_on_gpu({a, sizes}, {parts[0] * 2.0, parts[1] + 1.0, parts[2]},
                 {random_array({6, 3}, DType::Float64, 21), gpu_test::int64_vector({1, 0, 5})}, {"Split"});
  }
}
