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
#include <theano/runtime/kernels/batched_dot_rules.h>
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
  TEST_CASE("the batch walk (batched_dot_rules.h): offsets, and whether it has one stride") {
    // Output batch (3, 2); an operand (3, 2) with byte strides (96, 48): item i at i * 48.
    const int64_t out[4] = {3, 2, 4, 4}, full[4] = {3, 2, 4, 4}, st[4] = {96, 48, 12, 3};
    int64_t stride = -1;
    CHECK(theano_batch_offset(4, out, full, st, 5) == 2 * 96 + 1 * 48);
    CHECK(theano_batch_uniform_stride(4, out, full, st, &stride) == 1);
    CHECK(stride == 48);
    // Broadcast along axis 1 (size 1): item i at (i / 2) * 96, no single stride.
    const int64_t bc[4] = {3, 1, 4, 4};
    CHECK(theano_batch_offset(4, out, bc, st, 5) == 2 * 96);
    CHECK(theano_batch_uniform_stride(4, out, bc, st, &stride) == 0);
    // Broadcast along every batch axis: stride 0; axis 0 of size 1 in the output is skipped.
    const int64_t one[4] = {1, 1, 4, 4}, out1[4] = {1, 2, 4, 4}, part[4] = {1, 2, 4, 4};
    CHECK(theano_batch_uniform_stride(4, out, one, st, &stride) == 1);
    CHECK(stride == 0);
    CHECK(theano_batch_uniform_stride(4, out1, part, st, &stride) == 1);
    CHECK(stride == 48);
    // A rule breach: batch sizes that do not broadcast, inner sizes, sizes past int64.
    const int64_t a[3] = {2, 3, 4}, b[3] = {3, 4, 5}, b2[3] = {2, 5, 5};
    int64_t o[3], nb = 0, bad = -1;
    CHECK(theano_batched_dot_rule(3, a, b, 0, 0, o, &nb, &bad) == THEANO_BDOT_BATCH);
    CHECK(bad == 0);
    CHECK(theano_batched_dot_rule(3, a, b2, 0, 0, o, &nb, &bad) == THEANO_BDOT_INNER);
    const int64_t h[3] = {int64_t{1} << 40, int64_t{1} << 20, 1}, g[3] = {int64_t{1} << 40, 1, int64_t{1} << 20};
    CHECK(theano_batched_dot_rule(3, h, g, 0, 0, o, &nb, &bad) == THEANO_BDOT_SIZE);
  }

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
