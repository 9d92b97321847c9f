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
      // Every axis and None in one function, compiled once per dtype.
      std::vector<Var> outs;
      for (int axis : {0, 1, 2, -1, 3}) {  // 3: None
        const std::optional<int> ax = axis == 3 ? std::nullopt : std::optional<int>(axis);
        outs.push_back(sort(x, ax));
        outs.push_back(argsort(x, ax));
      }
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, outs);
      const std::unique_ptr<Thunk> perform = make_perform_linker()->make_thunk(fg);
      Function gpu = check_on_gpu({x}, outs, {random_array({3, 4, 5}, dt, 3)}, {"SortOp", "ArgSortOp"}, 0);
      if (dt == DType::Float32) check_nvrtc(gpu);
      // The last shape has a 0-size axis.
      for (const std::vector<std::int64_t>& shape :
           std::vector<std::vector<std::int64_t>>{{3, 4, 5}, {2, 70, 1}, {2, 0, 3}}) {
        CAPTURE(shape[1]);
        const NDArray a = random_array(shape, dt, 3);
        std::vector<NDArray> want(outs.size());
        perform->run(std::vector<NDArray>{a}, want);
        const std::vector<NDArray> got = gpu({a});
        for (std::size_t k = 0; k < outs.size(); ++k) {
          CAPTURE(k);
          CHECK(array_equal(got[k].to_host(), want[k]));  // bit for bit: the same kernels
        }
      }
    }
  }
}
