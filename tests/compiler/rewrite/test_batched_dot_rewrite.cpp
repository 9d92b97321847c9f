// local_batched_dot_to_dot22 (compiler/src/rewrite/batched_dot.cpp): a
// BatchedDot whose b is one matrix (matmul(batch, matrix), an einsum
// contraction over a batch of static size 1) becomes one reshaped Dot22; the
// graph before and after as text, the values against the unoptimized graph;
// a BatchedDot with a real batch in b is left alone.
#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/einsum.h"
#include "theano/tensor/linalg.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

std::string optimized_text(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
  return debugprint(fg);
}

NDArray values(std::vector<std::int64_t> shape, double offset) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = offset + 0.25 * static_cast<double>(i % 7);
  return a;
}

void check_values(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args) {
  const auto want = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, {.mode = "unoptimized"})(args);
  const auto got = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, {.mode = "fast_run"})(args);
  for (std::size_t i = 0; i < got.size(); ++i) {
    REQUIRE(got[i].shape() == want[i].shape());
    for (std::int64_t k = 0; k < got[i].size(); ++k)
      CHECK(got[i].data_as<double>()[k] == doctest::Approx(want[i].data_as<double>()[k]).epsilon(1e-12));
  }
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_batched_dot_to_dot22: matmul of a batch and a matrix, before and after") {
    const Var a = T::tensor(DType::Float64, {5, 3, 4}, "a"), m = T::tensor(DType::Float64, {4, 2}, "m");
    const Var o = T::linalg::matmul(a, m);
    CHECK(debugprint(o) ==
          "BatchedDot [id A] ''\n"
          " |a [id B]\n"
          " |DimShuffle{x,0,1} [id C] ''\n"
          "   |m [id D]\n");
    CHECK(optimized_text({a, m}, {o}) ==
          "Reshape{3} [id A] ''   2\n"
          " |Dot22 [id B] ''   1\n"
          " | |Reshape{2} [id C] ''   0\n"
          " | | |a [id D]\n"
          " | | |TensorConstant{[15  4]} [id E]\n"
          " | |m [id F]\n"
          " |TensorConstant{[5 3 2]} [id G]\n");
    check_values({a, m}, {o}, {values({5, 3, 4}, 0.5), values({4, 2}, -0.3)});
  }

  TEST_CASE("local_batched_dot_to_dot22: unknown sizes and a static batch of 1 in both operands") {
    const Var a = T::tensor(DType::Float64, {T::Dim(), T::Dim(), T::Dim(), T::Dim()}, "a");
    const Var b = T::tensor(DType::Float64, {T::Dim(1), T::Dim(1), T::Dim(), T::Dim()}, "b");
    const Var o = T::batched_dot3(a, b);
    CHECK(optimized_text({a, b}, {o}) ==
          "Reshape{4} [id A] ''   12\n"
          " |Dot22 [id B] ''   9\n"
          " | |Reshape{2} [id C] ''   7\n"
          " | | |a [id D]\n"
          " | | |MakeVector{dtype='int64'} [id E] ''   6\n"
          " | |   |Elemwise{mul,no_inplace} [id F] ''   4\n"
          " | |   | |Elemwise{mul,no_inplace} [id G] ''   2\n"
          " | |   | | |Shape_i{0} [id H] ''   0\n"
          " | |   | | | |a [id D]\n"
          " | |   | | |Shape_i{1} [id I] ''   1\n"
          " | |   | |   |a [id D]\n"
          " | |   | |Shape_i{2} [id J] ''   3\n"
          " | |   |   |a [id D]\n"
          " | |   |Shape_i{3} [id K] ''   5\n"
          " | |     |a [id D]\n"
          " | |DimShuffle{2,3} [id L] ''   8\n"
          " |   |b [id M]\n"
          " |MakeVector{dtype='int64'} [id N] ''   11\n"
          "   |Shape_i{0} [id H] ''   0\n"
          "   |Shape_i{1} [id I] ''   1\n"
          "   |Shape_i{2} [id J] ''   3\n"
          "   |Shape_i{3} [id O] ''   10\n"
          "     |b [id M]\n");
    check_values({a, b}, {o}, {values({2, 3, 4, 5}, 0.1), values({1, 1, 5, 2}, 0.2)});
    // k == 0: zeros, as BatchedDot gives (a reshape with -1 could not infer the rows).
    check_values({a, b}, {o}, {NDArray::empty({2, 3, 4, 0}), NDArray::empty({1, 1, 0, 2})});
    const Var x = T::tensor(DType::Float64, {1, 3, 4}, "x"), y = T::tensor(DType::Float64, {1, 4, 2}, "y");
    const Var e = T::einsum("bij,bjk->bik", {x, y});
    CHECK(optimized_text({x, y}, {e}) ==
          "Reshape{3} [id A] ''   3\n"
          " |Dot22 [id B] ''   2\n"
          " | |Reshape{2} [id C] ''   0\n"
          " | | |x [id D]\n"
          " | | |TensorConstant{[3 4]} [id E]\n"
          " | |DimShuffle{1,2} [id F] ''   1\n"
          " |   |y [id G]\n"
          " |TensorConstant{[1 3 2]} [id H]\n");
    check_values({x, y}, {e}, {values({1, 3, 4}, 0.3), values({1, 4, 2}, -0.1)});
    // Left alone: b has a batch.
    const Var c = T::tensor(DType::Float64, {T::Dim(), T::Dim(), T::Dim()}, "c");
    const Var d = T::tensor(DType::Float64, {T::Dim(), T::Dim(), T::Dim()}, "d");
    CHECK(optimized_text({c, d}, {T::batched_dot3(c, d)}) ==
          "BatchedDot [id A] ''   0\n"
          " |c [id B]\n"
          " |d [id C]\n");
  }
}
