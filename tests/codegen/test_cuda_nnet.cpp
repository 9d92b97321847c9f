// The nnet ops on the GPU (issue 17): Softmax and LogSoftmax along any axis
// (thread and block lane kernels), their gradients (the closed forms build
// elementwise ops and reductions, which move too), and the categorical
// cross-entropy with its gradient, whose labels are checked on the device,
// through the host-emulated device against the CPU back end. Test names
// contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gradient.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/math.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <cmath>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;


TEST_SUITE("cuda nnet (emulated device)") {
  TEST_CASE("cuda emulated: softmax and log_softmax along every axis, short and long lanes, float32 and float64") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-12 : 1e-6;
      Var x = tensor3("x", dt);
      for (const std::vector<std::int64_t>& shape :
           std::vector<std::vector<std::int64_t>>{{3, 4, 10}, {2, 300, 5}, {2, 3, 700}}) {
        const NDArray a = random_array(shape, dt, 1);
        for (int axis : {0, 1, 2}) {
          CAPTURE(axis);
          // (Together, the optimizer would compute softmax as exp(log_softmax).)
          check_on_gpu({x}, {nnet::softmax(x, axis)}, {a}, {"Softmax"}, rtol);
          check_on_gpu({x}, {nnet::log_softmax(x, axis)}, {a}, {"LogSoftmax"}, rtol);
        }
      }
    }
  }

  TEST_CASE("cuda emulated: a softmax classifier's loss and gradient run on the GPU, as on the CPU") {
    Var x = matrix("x"), w = matrix("w"), y = vector("y", DType::Int64);
    Var p = nnet::softmax(dot(x, w));
    Var loss = mean(nnet::categorical_crossentropy(p, y));
    Var gw = grad(loss, w);
    const NDArray X = random_array({40, 20}, DType::Float64, 2), W = random_array({20, 10}, DType::Float64, 3);
    std::vector<std::int64_t> ys;
    for (int i = 0; i < 40; ++i) ys.push_back((i * 7) % 10);
    Function f = check_on_gpu({x, w, y}, {loss, gw, argmax(p, 1)}, {X, W, gpu_test::int64_vector(ys)}, {"Argmax"}, 1e-10);
    CAPTURE(debugprint(f));
    CHECK(gpu_test::count_ops(f, "Softmax") + gpu_test::count_ops(f, "CrossentropyCategorical1Hot") +
              gpu_test::count_ops(f, "CrossentropyCategorical1HotGrad") + gpu_test::count_ops(f, "Dot22") ==
          0);
    check_nvrtc(f);
  }

  TEST_CASE("cuda emulated: crossentropy with a label out of range is an IndexError naming the label") {
    Var c = matrix("c"), y = vector("y", DType::Int64);
    ConfigGuard guard(gpu_test::with_device(gpu_test::op_test_device()));
    Function f = function({In(c), In(y)}, {Out(nnet::crossentropy_categorical_1hot(c, y))}, {.mode = "fast_run"});
    CHECK(gpu_test::count_ops(f, "GpuCrossentropyCategorical1Hot") == 1);
    const NDArray C = random_array({4, 3}, DType::Float64, 4);
    CHECK_THROWS_WITH_AS(f({C, gpu_test::int64_vector({0, 2, 7, -1})}), doctest::Contains("label 7 of row 2 is out of range for 3 classes"), IndexError);
    CHECK_THROWS_WITH_AS(f({C, gpu_test::int64_vector({0, 2})}), doctest::Contains("coding_dist has shape (4, 3) but labels have shape (2,) (one label per row is expected)"), ShapeError);
  }
}
