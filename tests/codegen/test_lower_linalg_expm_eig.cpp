// The C++ lowering of Expm (emit/lower/linalg.cpp; its kernel
// kernels/linalg_expm.h embedded in the unit): generated code against
// perform, float64 and float32, batched, strided (check_sets), 0-size, and
// the errors from generated code; Eig (no lowering: complex outputs) through
// the perform fallback of a compiled function.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/errors.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/linalg_eig.h>
#include <theano/tensor/linalg_expm.h>
#include <theano/tensor/type.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../compiler/tensor/linalg_test_util.h"
#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;
namespace LA = theano::tensor::linalg;

TEST_SUITE("lower linalg") {
  TEST_CASE("expm and eig / eigvals: generated code equals perform, batched, float64 and float32, 0-size") {
    std::mt19937_64 rng(41);
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = any_tensor(dt, 3, "a");
      std::vector<std::vector<NDArray>> sets;
      for (auto [batch, n] : std::vector<std::array<std::int64_t, 2>>{{3, 4}, {1, 1}, {2, 0}, {0, 3}}) {
        NDArray A = latest::uniform(rng, {batch, n, n});
        for (std::int64_t i = 0; i < A.size(); ++i) A.data_as<double>()[i] *= 3.0;  // some entries need scaling
        sets.push_back({A.astype(dt)});
      }
      check_sets({a}, {LA::expm(a)}, sets);
      // eig has no C++ lowering (complex outputs; its no_cpp reason): a compiled function runs its
      // perform beside the generated expm, the same values as the perform linker.
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a},
                                                std::vector<Var>{LA::eig(a).first, LA::eig(a).second, LA::expm(a)});
      CHECK_THROWS_AS(lowered_thunk(fg), codegen::LoweringError);
      auto mixed = codegen::CLinker(quick_options()).make_thunk(fg);
      for (const auto& set : sets) compare_thunks(fg, *mixed, set);
    }
  }

  TEST_CASE("expm and eig errors from generated code: non-square, NaN") {
    const Var a = any_tensor(DType::Float64, 2, "a");
    NDArray bad = NDArray::zeros({2, 2}, DType::Float64);
    bad.data_as<double>()[1] = NAN;
    check_error<ValueError>({a}, {LA::expm(a)}, {bad}, "Expm", "contains a NaN or an infinity");
    check_error<ShapeError>({a}, {LA::expm(a)}, {NDArray::zeros({2, 3}, DType::Float64)}, "Expm", "square");
  }
}
