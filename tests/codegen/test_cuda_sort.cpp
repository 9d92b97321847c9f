// SortOp and ArgSortOp (sort, argsort) on the GPU: their kernel form's CUDA
// form, one thread a line running the kernels of runtime/kernels/sort.h (the
// text perform runs), through the host-emulated device, bit for bit against
// perform; the CUDA unit compiles under NVRTC where it is present. Test names
// contain "cuda".
#include <doctest/doctest.h>
#include <theano/compile/linker.h>
#include <theano/config.h>
#include <theano/tensor/sort.h>
#include <theano/tensor/type.h>

#include <optional>
#include <vector>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda sort (emulated device)") {
  TEST_CASE("cuda emulated: sort and argsort along every axis and None, float and integer, against perform") {
    for (const DType dt : {DType::Float64, DType::Float32, DType::Int64, DType::Int32}) {
      CAPTURE(dtype_name(dt));
      const Var x = tensor3("x", dt);
      for (const std::vector<std::int64_t>& shape :
           std::vector<std::vector<std::int64_t>>{{3, 4, 5}, {2, 70, 1}, {2, 0, 3}}) {
        CAPTURE(shape.size());
        const NDArray a = random_array(shape, dt, 3);
        for (int axis : {0, 1, 2, -1, 3}) {  // 3: None
          CAPTURE(axis);
          const std::optional<int> ax = axis == 3 ? std::nullopt : std::optional<int>(axis);
          const std::vector<Var> outs{sort(x, ax), argsort(x, ax)};
          Function gpu = check_on_gpu({x}, outs, {a}, {"SortOp", "ArgSortOp"}, 0);
          auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, outs);
          std::vector<NDArray> want(2);
          make_perform_linker()->make_thunk(fg)->run(std::vector<NDArray>{a}, want);
          const std::vector<NDArray> got = gpu({a});
          for (std::size_t k = 0; k < 2; ++k) CHECK(array_equal(got[k].to_host(), want[k]));
          if (axis == 1 && dt == DType::Float32 && shape[0] == 3) check_nvrtc(gpu);
        }
      }
    }
  }
}
