// Lowering of SortOp and ArgSortOp (sort, argsort) through their kernel form:
// generated code against perform over ranks, every axis (negative and None),
// integer and float dtypes with ties, NaN and infinities, strided inputs
// (check_sets runs non-contiguous copies too) and 0-size inputs. Both run the
// kernels of runtime/kernels/sort.h, so they agree bit for bit.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/sort.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {
/// Small integers (many ties); for floats every fifth a NaN and every seventh an infinity.
NDArray tied(std::mt19937_64& rng, const std::vector<std::int64_t>& shape, DType dt) {
  NDArray a = random_array(rng, shape, DType::Float64, -4, 5);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    double& v = a.data_as<double>()[i];
    v = std::floor(v);
    if (is_float(dt) && i % 5 == 2) v = std::numeric_limits<double>::quiet_NaN();
    if (is_float(dt) && i % 7 == 4) v = (i % 2 ? 1 : -1) * std::numeric_limits<double>::infinity();
    if (dt == DType::UInt8) v = std::abs(v);
  }
  return a.astype(dt);
}
}  // namespace

TEST_SUITE("lower sort") {
  TEST_CASE("SortOp and ArgSortOp: every axis of ranks 1-3, integer and float dtypes, NaN, 0-size") {
    std::mt19937_64 rng(5);
    // Per rank, one function run on several shapes (0-size ones too).
    const std::vector<std::vector<std::vector<std::int64_t>>> shapes{
        {{9}, {1}}, {{4, 5}, {0, 3}}, {{3, 1, 33}, {2, 0, 2}}};
    for (const DType dt : {DType::Float64, DType::Float32, DType::Int64, DType::Int32, DType::Int8, DType::UInt8}) {
      CAPTURE(dtype_name(dt));
      for (std::size_t r = 0; r < shapes.size(); ++r) {
        const int nd = static_cast<int>(r) + 1;
        CAPTURE(nd);
        const Var x = tensor::tensor(dt, StaticShape(static_cast<std::size_t>(nd)), "x");
        std::vector<Var> outs;
        for (int axis = -nd; axis <= nd; ++axis) {  // axis == nd: None
          const std::optional<int> ax = axis == nd ? std::nullopt : std::optional<int>(axis);
          outs.push_back(sort(x, ax));
          outs.push_back(argsort(x, ax));
        }
        std::vector<std::vector<NDArray>> sets;
        for (const auto& shape : shapes[r]) sets.push_back({tied(rng, shape, dt)});
        // Equal values (NaN equal to NaN: array_equal, the bitwise check, says NaN != NaN).
        check_sets({x}, outs, sets, {.rtol = 1e-300});
      }
    }
  }

  TEST_CASE("SortOp: the unit calls the host's build of the shared kernels, not the perform fallback") {
    // host_kernels.h: the lines loop calls the kernel through the pointer read from ctx->kernels;
    // the unit compiles none of sort.h (about a third of W12's unit's Clang time).
    const Var x = matrix("x", DType::Float32);
    const std::string src =
        codegen::CLinker::generate_source(FunctionGraph({x}, {sort(x, 0), argsort(x, 1)}), {}, false);
    CHECK(src.find("ctx->kernels->sort_f32}") != std::string::npos);
    CHECK(src.find("ctx->kernels->argsort_f32}") != std::string::npos);
    CHECK(src.find("args->kernel(x0->data + xoff") != std::string::npos);
    CHECK(src.find("THEANO_SORT_KERNELS(") == std::string::npos);
    CHECK(src.find("theano_sort_f32(") == std::string::npos);
  }
}
