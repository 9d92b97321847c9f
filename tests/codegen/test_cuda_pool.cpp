// The pooling ops on the GPU: their CUDA form, one thread an element running
// the functions of runtime/kernels/pool.h (the text perform runs), through the
// host-emulated device against the CPU back end: pool_2d / pool_3d in every
// mode with their gradients and the max's gradgrad, float32 and float64,
// leading axes, strides and pads; the CUDA unit compiles under NVRTC where it
// is present. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/compile/linker.h>
#include <theano/config.h>
#include <theano/gradient.h>
#include <theano/tensor/math.h>
#include <theano/tensor/pool.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <vector>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;
using signal::PoolMode;

TEST_SUITE("cuda pool (emulated device)") {
  TEST_CASE("cuda emulated: pool_2d and pool_3d, every mode, their gradients and gradgrad, against the CPU") {
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float32 ? 1e-5 : 1e-12;
      const Var x = tensor4("x", dt), v = tensor4("v", dt);
      std::vector<Var> outs;
      for (const PoolMode m : {PoolMode::Max, PoolMode::Sum, PoolMode::AverageIncPad, PoolMode::AverageExcPad}) {
        const Var y2 = signal::pool_2d(x, {3, 2}, {.ignore_border = true, .stride = {2, 1}, .pad = {1, 0}, .mode = m});
        const Var y2b = signal::pool_2d(x, {2, 3}, {.mode = m});  // partial windows
        const Var y3 = signal::pool_3d(x, {2, 2, 2}, {.ignore_border = true, .stride = {1, 2, 1}, .mode = m});
        for (const Var& y : {y2, y2b, y3}) {
          outs.push_back(y);
          outs.push_back(grad(sum(mul(y, y)), x));  // MaxPoolGrad / AveragePoolGrad
        }
        if (m == PoolMode::Max) outs.push_back(Rop(y2, x, v));  // DownsampleFactorMaxGradGrad
      }
      std::vector<std::string> gone{"Pool", "MaxPoolGrad", "AveragePoolGrad", "DownsampleFactorMaxGradGrad"};
      Function gpu = check_on_gpu({x, v}, outs, {random_array({2, 3, 7, 6}, dt, 3), random_array({2, 3, 7, 6}, dt, 4)},
                                  gone, rtol);
      if (dt == DType::Float32) check_nvrtc(gpu);
      // Other shapes through the same function, a 0-size one too.
      const std::vector<std::vector<std::int64_t>> shapes{{1, 2, 5, 9}, {2, 0, 4, 4}};
      for (const auto& shape : shapes) {
        CAPTURE(shape_to_string(shape));
        std::vector<In> in{x, v};
        std::vector<Out> out(outs.begin(), outs.end());
        const std::vector<NDArray> args{random_array(shape, dt, 5), random_array(shape, dt, 6)};
        const std::vector<NDArray> want = function(in, out, {.mode = "fast_run"})(args);
        const std::vector<NDArray> got = gpu(args);
        for (std::size_t k = 0; k < outs.size(); ++k) {
          CAPTURE(k);
          CHECK(allclose(got[k].to_host(), want[k], rtol, rtol));
        }
      }
    }
  }
}
