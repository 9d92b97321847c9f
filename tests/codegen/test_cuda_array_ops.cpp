// The array utilities (theano/tensor/array_ops.h) on the GPU: being
// compositions, they run as the GPU forms of the ops they are made of (Join,
// SortOp, ArgTopKOp, AdvancedSubtensor1, ...). One function of pad, roll,
// topk, quantile and take_along_axis through the host-emulated device against
// the CPU back end; its CUDA unit compiles under NVRTC where it is present.
// Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/compile/linker.h>
#include <theano/config.h>
#include <theano/tensor/array_ops.h>
#include <theano/tensor/type.h>

#include <vector>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda array_ops (emulated device)") {
  // float32 only: the GPU forms are those of the ops inside, tested per dtype
  // in their own files; one function keeps this case within a few seconds.
  TEST_CASE("cuda emulated: pad, roll, topk, quantile, take_along_axis against the CPU") {
    const Var x = ftensor3("x");
    const Var k = lscalar("k");
    const Var idx = ltensor3("idx");
    const std::vector<Var> outs{pad(x, {{1, 2}, {0, 0}, {2, 1}}, "reflect"),
                                roll(x, k, 1),
                                topk(x, 2),
                                argtopk(x, -3, 1),
                                quantile(x, 0.3, 2),
                                take_along_axis(x, idx, 2)};
    NDArray i = NDArray::empty({3, 4, 2}, DType::Int64);
    for (std::int64_t e = 0; e < i.size(); ++e) i.data_as<std::int64_t>()[e] = (e * 7) % 10 - 5;
    Function gpu = check_on_gpu({x, k, idx}, outs, {random_array({3, 4, 5}, DType::Float32, 7), test::i64(-3), i},
                                {"Join", "SortOp", "ArgTopKOp", "AdvancedSubtensor1"}, 1e-6);
    check_nvrtc(gpu);
  }
}
