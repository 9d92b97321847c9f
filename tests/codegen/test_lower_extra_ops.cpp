// Lowering of CumOp (cumsum, cumprod): generated code against perform over
// ranks, every axis (negative and None), integer and float dtypes, strided
// inputs (check_sets runs non-contiguous copies too) and 0-size inputs. Both
// run the kernels of runtime/kernels/cumulative.h, so they agree bit for bit.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/extra_ops.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_SUITE("lower extra_ops") {
  TEST_CASE("CumOp: cumsum and cumprod over every axis of ranks 1-3, integer and float dtypes, 0-size") {
    std::mt19937_64 rng(7);
    const std::vector<std::vector<std::int64_t>> shapes{{9}, {4, 5}, {3, 1, 6}, {0, 3}, {2, 0, 2}};
    for (const DType dt : {DType::Float64, DType::Float32, DType::Int64, DType::Int32, DType::Int8, DType::UInt8}) {
      CAPTURE(dtype_name(dt));
      for (const auto& shape : shapes) {
        const int nd = static_cast<int>(shape.size());
        CAPTURE(nd);
        const Var x = tensor::tensor(dt, StaticShape(shape.size()), "x");
        std::vector<Var> outs;
        for (int axis = -nd; axis <= nd; ++axis) {  // axis == nd: None
          const std::optional<int> ax = axis == nd ? std::nullopt : std::optional<int>(axis);
          outs.push_back(cumsum(x, ax));
          outs.push_back(cumprod(x, ax));
        }
        const double lo = is_float(dt) ? -1.5 : (dt == DType::UInt8 ? 0 : -4), hi = is_float(dt) ? 1.5 : 5;
        check_sets({x}, outs, {{random_array(rng, shape, dt, lo, hi)}}, {.bitwise = true});
      }
    }
  }

  TEST_CASE("CumOp: the generated unit embeds the shared kernels, not the perform fallback") {
    const Var x = matrix("x", DType::Float32);
    const std::string src = codegen::CLinker::generate_source(FunctionGraph({x}, {cumprod(x, 0)}), {}, false);
    CHECK(src.find("theano_cumprod_f32(x0->data") != std::string::npos);
    CHECK(src.find("THEANO_CUMULATIVE(double, double, f64)") != std::string::npos);  // the kernels, embedded
  }
}
