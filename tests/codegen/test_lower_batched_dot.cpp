// BatchedDot's C++ lowering (codegen/src/emit/lower/blas.cpp) against its
// perform: float64 and float32, contiguous and strided operands (BLAS in place
// with transpose flags, or the plain loops for what BLAS cannot read),
// broadcast batch dims, empty batches and inner dimensions, the shape errors
// with perform's messages; einsum and matmul graphs compiled whole
// (unoptimized: an einsum with a diagonal is left out, ExtractDiag being
// expanded only at specialize).
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/batched_blas.h>
#include <theano/tensor/einsum.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <random>

#include "codegen/lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_SUITE("lower batched_dot") {
  TEST_CASE("BatchedDot: generated code matches perform (dtypes, layouts, broadcast, empty)") {
    std::mt19937_64 rng(38);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = any_tensor(dt, 3, "a"), b = any_tensor(dt, 3, "b");
      // Plain, a transposed operand (BLAS's flag), a reversed one (the loops).
      const Var o1 = batched_dot3(a, b);
      const Var o2 = batched_dot3(dimshuffle(b, {0, 2, 1}), dimshuffle(a, {0, 2, 1}));
      const Var o3 = batched_dot3(a[{all, all, slice({}, {}, -1)}], b[{all, slice({}, {}, -1), all}]);
      check_sets({a, b}, {o1, o2, o3},
                 {{random_array(rng, {4, 3, 5}, dt, -1, 1), random_array(rng, {4, 5, 3}, dt, -1, 1)},
                  {random_array(rng, {0, 3, 5}, dt, -1, 1), random_array(rng, {0, 5, 3}, dt, -1, 1)},
                  {random_array(rng, {2, 3, 0}, dt, -1, 1), random_array(rng, {2, 0, 3}, dt, -1, 1)}});
      // Broadcast batch dims (static size 1) in both operands.
      const Var c = tensor::tensor(dt, {Dim(), Dim(1), Dim(), Dim()}, "c");
      const Var d = tensor::tensor(dt, {Dim(1), Dim(), Dim(), Dim()}, "d");
      check_lowering({c, d}, {batched_dot3(c, d)},
                     {random_array(rng, {3, 1, 2, 4}, dt, -1, 1), random_array(rng, {1, 2, 4, 5}, dt, -1, 1)});
    }
  }

  TEST_CASE("BatchedDot: generated code raises perform's shape errors") {
    const Var a = any_tensor(DType::Float64, 3, "a"), b = any_tensor(DType::Float64, 3, "b");
    const Var o = batched_dot3(a, b);
    check_error<ShapeError>({a, b}, {o}, {NDArray::zeros({2, 3, 4}), NDArray::zeros({3, 4, 5})}, "BatchedDot",
                            "batch dimensions do not broadcast: axis 0 of a has size 2 but b has size 3");
    check_error<ShapeError>({a, b}, {o}, {NDArray::zeros({2, 3, 4}), NDArray::zeros({2, 5, 5})}, "BatchedDot",
                            "a has k = 4 along its last axis but b has 5 along its second-to-last");
    check_error<ShapeError>({a, b}, {o}, {NDArray::zeros({1, 3, 4}), NDArray::zeros({2, 4, 5})}, "BatchedDot",
                            "broadcasts only where its type says size 1");
  }

  TEST_CASE("einsum and matmul graphs: every node lowered, values as perform") {
    std::mt19937_64 rng(39);
    const Var x = any_tensor(DType::Float64, 4, "x"), y = any_tensor(DType::Float64, 4, "y");
    const Var m = any_tensor(DType::Float64, 2, "m");
    check_lowering({x, y, m},
                   {einsum("bhqd,bhkd->bhqk", {x, y}), einsum("...ij,jk", {x, m}), linalg::matmul(x, m),
                    linalg::matmul(y, x)},
                   {random_array(rng, {2, 3, 4, 4}, DType::Float64, -1, 1),
                    random_array(rng, {2, 3, 5, 4}, DType::Float64, -1, 1),
                    random_array(rng, {4, 3}, DType::Float64, -1, 1)});
  }
}
