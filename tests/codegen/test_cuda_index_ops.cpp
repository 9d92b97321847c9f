// The GPU forms of index_ops.h: Nonzero (counts per tile, the total
// downloaded, coordinates written from each tile's offset, in C order),
// SearchSorted (one thread a value through the kernel text perform runs; the
// sorter's range checked on the device) and the
// general-indexing graphs (their gathers and scatters on the GPU), through
// the host-emulated device against the CPU back end; the CUDA unit compiles
// under NVRTC where it is present. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/compile/linker.h>
#include <theano/config.h>
#include <theano/tensor/index_ops.h>
#include <theano/tensor/type.h>
#include <theano/theano.hpp>

#include <vector>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda index_ops (emulated device)") {
  TEST_CASE("cuda emulated: searchsorted (sides, sorter) and a mixed advanced index against the CPU") {
    const Var a = fvector("a"), v = fmatrix("v"), s = lvector("s");
    const NDArray av = NDArray::from_list<float>({3, -1, 2, 2, 7, 0}, {6});
    const NDArray sorter = gpu_test::int64_vector({1, 5, 2, 3, 0, 4});
    const NDArray vv = random_array({3, 4}, DType::Float32, 5).astype(DType::Float64).astype(DType::Float32);
    Function gpu = check_on_gpu({a, v, s}, {searchsorted(a, v, "left", s), searchsorted(a, v, "right", s)},
                                {av, vv, sorter}, {"SearchSorted"}, 0);
    check_nvrtc(gpu);
    // A sorter entry out of range is perform's ValueError, found on the device.
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function f = function({a, v, s}, searchsorted(a, v, "left", s));
    const std::string msg = test::error_of([&] { f({av, vv, gpu_test::int64_vector({1, 5, 2, 9, 0, 4})}); });
    // perform's words (kernels/searchsorted.h): the position, the value and a's length.
    CHECK(msg.find("sorter[3] = 9 is out of range for a of length 6") != std::string::npos);
    CHECK(test::error_of([&] { f({av, vv, gpu_test::int64_vector({1, 5, 2, 3, 0})}); })
              .find("sorter has 5 entries, a has 6") != std::string::npos);
    CHECK_THROWS_AS(f({av, vv, gpu_test::int64_vector({1, 5, 2, 9, 0, 4})}), ValueError);
  }

  TEST_CASE("cuda emulated: nonzero over several tiles, argwhere, and a boolean mask against the CPU") {
    const Var x = ftensor3("x"), m = tensor::tensor(DType::Bool, {std::nullopt, std::nullopt}, "m");
    NDArray xv = random_array({3, 40, 50}, DType::Float32, 11);  // 6000 elements: three tiles
    for (std::int64_t e = 0; e < xv.size(); e += 3) xv.data_as<float>()[e] = 0;
    NDArray mv = NDArray::zeros({3, 40}, DType::Bool);
    for (std::int64_t e = 0; e < mv.size(); e += 7) mv.data_as<bool>()[e] = true;
    const Var strided = x[{all, slice(none, none, -1), slice(none, none, 2)}];
    Function gpu = check_on_gpu({x, m}, {stack(nonzero(strided)), argwhere(x), x[m] * 2.0f, flatnonzero(m)}, {xv, mv},
                                {"Nonzero"}, 0);
    check_nvrtc(gpu);
    // An all-false and an empty input.
    check_on_gpu({x, m}, {flatnonzero(x), flatnonzero(m)}, {NDArray::zeros({2, 3, 4}, DType::Float32),
                                                             NDArray::zeros({0, 5}, DType::Bool)},
                 {"Nonzero"}, 0);
  }

  TEST_CASE("cuda emulated: x[i, :, j] and its inc on the GPU against the CPU") {
    const Var x = ftensor3("x"), i = lvector("i"), j = lvector("j");
    const Var sub = x[{i, all, j}];
    Function gpu = check_on_gpu({x, i, j}, {sub, inc_subtensor(sub, 1.5f)},
                                {random_array({3, 4, 5}, DType::Float32, 9), gpu_test::int64_vector({2, 0, 2}),
                                 gpu_test::int64_vector({4, 1, 4})},
                                {"AdvancedSubtensor1", "AdvancedIncSubtensor1"}, 1e-6);
    check_nvrtc(gpu);
  }
}
