// The structural matrix ops (theano/tensor/linalg_structure.h) in generated
// code: after fast_run's specialize stage no ExtractDiag, AllocDiag, Tril or
// Triu node is left, every node of the graph forms has a C++ lowering (the
// perform fallback off), and the results equal the ops' perform bit for bit
// (values only move), on contiguous, strided and 0-size inputs; then on the
// host-emulated GPU against the CPU back end.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/rewrite/optdb.h>
#include <theano/tensor/linalg_structure.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;
namespace LA = theano::tensor::linalg;

namespace {

bool structural(const Apply* node) {
  const std::string_view t = node->op()->type_name();
  return t == "ExtractDiag" || t == "AllocDiag" || t == "Tril" || t == "Triu";
}

/// `outs` optimized by fast_run have no structural node left and lower without the perform fallback; the lowered
/// graph computes what the ops' perform does on each value set and on strided copies.
void check_expanded_lowering(const std::vector<Var>& ins, const std::vector<Var>& outs,
                             const std::vector<std::vector<NDArray>>& sets) {
  auto reference = std::make_shared<FunctionGraph>(ins, outs);
  auto optimized = std::make_shared<FunctionGraph>(ins, outs);
  rewrite::optimize(*optimized, rewrite::mode_query("fast_run"));
  for (const Apply* node : optimized->apply_nodes()) {
    CAPTURE(node->op()->name());
    CHECK_FALSE(structural(node));
  }
  auto cpp = lowered_thunk(optimized);
  auto perform = make_perform_linker()->make_thunk(reference);
  for (const std::vector<NDArray>& values : sets) {
    std::vector<NDArray> strided;
    for (const NDArray& v : values) strided.push_back(strided_copy(v));
    for (const std::vector<NDArray>* in : std::vector<const std::vector<NDArray>*>{&values, &strided}) {
      std::vector<NDArray> want(outs.size()), got(outs.size());
      perform->run(*in, want);
      cpp->run(*in, got);
      for (std::size_t o = 0; o < outs.size(); ++o) {
        CAPTURE(o);
        INFO("want " << want[o] << "\ngot  " << got[o]);
        CHECK(got[o].dtype() == want[o].dtype());
        REQUIRE(got[o].shape() == want[o].shape());
        CHECK(array_equal(got[o].copy(), want[o].copy()));
      }
    }
  }
}

}  // namespace

TEST_CASE("lowered diagonal, alloc_diag, trace, tril and triu equal perform") {
  for (const DType dt : {DType::Float64, DType::Float32, DType::Int32}) {
    CAPTURE(dtype_name(dt));
    const Var x = tensor3("x", dt);
    const Var v = matrix("v", dt);
    std::mt19937_64 rng(7);
    const std::vector<Var> outs{LA::diagonal(x),         LA::diagonal(x, 2, 2, 0), LA::diagonal(x, -1, -1, -2),
                                LA::alloc_diag(v, 1),    LA::alloc_diag(v, -2, -1, 0), LA::trace(x, 0, 1, 2),
                                LA::tril(x, 1),          LA::triu(x, -1),          LA::diag(subtensor(LA::diagonal(x, 0, 1, 2), {Index(0)}))};
    check_expanded_lowering({x, v}, outs,
                            {{random_array(rng, {3, 4, 5}, dt, -9, 9), random_array(rng, {2, 3}, dt, -9, 9)},
                             {random_array(rng, {2, 1, 3}, dt, -9, 9), random_array(rng, {1, 1}, dt, -9, 9)},
                             {random_array(rng, {1, 0, 3}, dt, -9, 9), random_array(rng, {2, 0}, dt, -9, 9)}});
  }
}

TEST_CASE("cuda emulated: diagonal, alloc_diag, trace, tril and triu against the CPU back end") {
  const Var x = tensor3("x", DType::Float32);
  const Var v = matrix("v", DType::Float32);
  const std::vector<Var> outs{LA::diagonal(x, 1, 2, 0) * 2.0f, LA::alloc_diag(v, -1, 0, 2) + 1.0f,
                              LA::trace(x), LA::tril(x, 1) * x, LA::triu(x, -1) * x};
  for (const std::vector<std::int64_t>& shape : std::vector<std::vector<std::int64_t>>{{3, 4, 5}, {2, 0, 3}}) {
    CAPTURE(shape);
    gpu_test::check_on_gpu({x, v}, outs,
                           {gpu_test::random_array(shape, DType::Float32, 1),
                            gpu_test::random_array({shape[0], 3}, DType::Float32, 2)},
                           {"Reshape", "Subtensor", "IncSubtensor", "ARange"}, 1e-6);
  }
}

TEST_CASE("lowered kron, block_diag, matrix_power and norm equal perform") {
  for (const DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    const Var a = matrix("a", dt), b = tensor3("b", dt);
    std::mt19937_64 rng(11);
    const std::vector<Var> outs{LA::kron(a, b),          LA::block_diag({a, a * 2.0}), LA::matrix_power(a, 5),
                                LA::matrix_power(b, 2),  LA::norm(b, 1, {2, 1}),       LA::norm(a, -1.5, {0}),
                                LA::norm(b)};
    // Within rounding: the products may sum in another order in BLAS than in perform's.
    for (const auto& shapes : std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>{
             {{3, 3}, {2, 3, 3}}, {{1, 1}, {1, 2, 2}}}) {
      const std::vector<NDArray> vals{random_array(rng, shapes.first, dt, -1, 1),
                                      random_array(rng, shapes.second, dt, -1, 1)};
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a, b}, outs);
      rewrite::optimize(*fg, rewrite::mode_query("fast_run"));
      auto cpp = lowered_thunk(fg);
      compare_thunks(std::make_shared<FunctionGraph>(std::vector<Var>{a, b}, outs), *cpp, vals,
                     dt == DType::Float32 ? 1e-4 : 1e-10);
    }
  }
}

TEST_CASE("cuda emulated: kron, block_diag, matrix_power and norm against the CPU back end") {
  const Var a = matrix("a", DType::Float32), b = tensor3("b", DType::Float32);
  const std::vector<Var> outs{LA::kron(a, b), LA::block_diag({a, a * 2.0f}), LA::matrix_power(b, 3),
                              LA::norm(b, 1, {2, 1}), LA::norm(a, 3, {0})};
  Function gpu = gpu_test::check_on_gpu({a, b}, outs,
                                        {gpu_test::random_array({3, 3}, DType::Float32, 3),
                                         gpu_test::random_array({2, 3, 3}, DType::Float32, 4)},
                                        {"Reshape", "IncSubtensor"}, 1e-5);
}
