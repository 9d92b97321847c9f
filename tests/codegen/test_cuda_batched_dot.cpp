// BatchedDot on the GPU (codegen/src/emit/lower/gpu_blas.cpp: one
// ctx->gpu_gemm per batch item) through the host-emulated device, where the
// gemm is OpenBLAS's (cuBLAS on a GPU), against the CPU back end: float64 and
// float32, transposed operands (read in place), reversed ones (gathered by a
// copy kernel first), broadcast batch dims, an empty inner dimension (the
// scale kernel); matmul and einsum reach it. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/gpu/context.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/batched_blas.h>
#include <theano/tensor/einsum.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;

TEST_SUITE("cuda batched_dot (emulated device)") {
  TEST_CASE("cuda emulated: BatchedDot float64 and float32, transposed, reversed and broadcast operands") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double rtol = dt == DType::Float64 ? 1e-12 : 1e-5;
      const Var a = tensor::tensor(dt, {Dim(), Dim(), Dim()}, "a"), b = tensor::tensor(dt, {Dim(), Dim(), Dim()}, "b");
      const NDArray A = random_array({5, 3, 7}, dt, 1), B = random_array({5, 7, 4}, dt, 2);
      Function f = check_on_gpu({a, b},
                                {batched_dot3(a, b), batched_dot3(dimshuffle(b, {0, 2, 1}), dimshuffle(a, {0, 2, 1})),
                                 batched_dot3(a[{all, all, slice({}, {}, -1)}], b[{all, slice({}, {}, -1), all}])},
                                {A, B}, {"BatchedDot"}, rtol);
      if (dt == DType::Float64) check_nvrtc(f);
      const Var c = tensor::tensor(dt, {Dim(), Dim(1), Dim(), Dim()}, "c");
      const Var d = tensor::tensor(dt, {Dim(1), Dim(), Dim(), Dim()}, "d");
      check_on_gpu({c, d}, {batched_dot3(c, d)}, {random_array({3, 1, 2, 4}, dt, 3), random_array({1, 2, 4, 5}, dt, 4)},
                   {"BatchedDot"}, rtol);
    }
  }

  TEST_CASE("cuda emulated: BatchedDot with an empty inner dimension and batch, einsum on the GPU") {
    const Var a = tensor::tensor(DType::Float64, {Dim(), Dim(), Dim()}, "a");
    const Var b = tensor::tensor(DType::Float64, {Dim(), Dim(), Dim()}, "b");
    check_on_gpu({a, b}, {batched_dot3(a, b)},
                 {NDArray::zeros({2, 3, 0}, DType::Float64), NDArray::zeros({2, 0, 4}, DType::Float64)}, {"BatchedDot"});
    check_on_gpu({a, b}, {batched_dot3(a, b)},
                 {NDArray::zeros({0, 3, 2}, DType::Float64), NDArray::zeros({0, 2, 4}, DType::Float64)}, {"BatchedDot"});
    check_on_gpu({a, b}, {einsum("bij,bkj->bik", {a, b})},
                 {random_array({4, 3, 5}, DType::Float64, 5), random_array({4, 2, 5}, DType::Float64, 6)}, {"BatchedDot"});
  }
}
