// Lowering of the pooling ops (Pool, MaxPoolGrad, AveragePoolGrad,
// DownsampleFactorMaxGradGrad; pool_2d, pool_3d): generated code, with the
// perform fallback off, against perform over every mode, ignore_border both
// ways, strides, pads, 2-d and 3-d pools with 0 to 2 leading axes, float and
// integer dtypes with ties, strided inputs (check_sets runs non-contiguous
// copies too) and 0-size inputs; the gradient inputs' shape check raises
// perform's error. Both run the kernels of runtime/kernels/pool.h.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/pool.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;
using signal::PoolMode;
using signal::PoolParams;

namespace {

/// Small integers (many ties in the max windows).
NDArray tied(std::mt19937_64& rng, const std::vector<std::int64_t>& shape, DType dt) {
  NDArray a = random_array(rng, shape, DType::Float64, -4, 5);
  for (std::int64_t i = 0; i < a.size(); ++i) {
    double& v = a.data_as<double>()[i];
    v = std::floor(v);
    if (dt == DType::UInt8) v = std::abs(v);
  }
  return a.astype(dt);
}

struct Case {
  std::vector<std::int64_t> shape;
  PoolParams p;
};

std::vector<Case> cases(PoolMode m) {
  std::vector<Case> cs;
  for (const bool ib : {false, true}) {
    cs.push_back({{2, 5, 7}, {2, {2, 2}, {2, 2}, {0, 0}, ib, m}});
    cs.push_back({{2, 3, 6, 5}, {2, {3, 2}, {1, 3}, {0, 0}, ib, m}});
    cs.push_back({{5, 6}, {2, {4, 4}, {2, 1}, {0, 0}, ib, m}});
    cs.push_back({{2, 4, 5, 3}, {3, {2, 3, 2}, {2, 1, 1}, {0, 0, 0}, ib, m}});
  }
  cs.push_back({{2, 5, 7}, {2, {3, 3}, {2, 2}, {1, 2}, true, m}});
  cs.push_back({{3, 4, 5, 3}, {3, {2, 2, 3}, {1, 2, 1}, {1, 0, 2}, true, m}});
  return cs;
}

/// The pooled shape, by perform (the reference the test compares with anyway).
std::vector<std::int64_t> pooled(const Var& y, const Var& x, const NDArray& a) {
  return y.eval({{x, a}}).shape();
}

/// Every case of mode `m`, float and integer dtypes: generated code against perform.
void check_mode(PoolMode m) {
  std::mt19937_64 rng(7);
  for (const Case& c : cases(m)) {
    CAPTURE(signal::pool_mode_name(m));
    CAPTURE(shape_to_string(c.shape));
    CAPTURE(shape_to_string(c.p.ws));
    CAPTURE(shape_to_string(c.p.stride));
    CAPTURE(shape_to_string(c.p.pad));
    CAPTURE(c.p.ignore_border);
    for (const DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::UInt8}) {
      CAPTURE(dtype_name(dt));
      const int r = static_cast<int>(c.shape.size());
      const Var x = any_tensor(dt, r, "x"), gz = any_tensor(dt, r, "gz"), ggx = any_tensor(dt, r, "ggx");
      const Var y = OpPtr(new signal::Pool(c.p))->apply1({x});
      std::vector<Var> outs{y};
      std::vector<Var> ins{x, gz, ggx};
      if (m == PoolMode::Max) {
        const Var g = OpPtr(new signal::MaxPoolGrad(c.p))->apply1({x, y, gz});
        outs.push_back(g);
        outs.push_back(OpPtr(new signal::DownsampleFactorMaxGradGrad(c.p))->apply1({x, y, ggx}));
      } else {
        outs.push_back(OpPtr(new signal::AveragePoolGrad(c.p))->apply1({x, gz}));
      }
      const NDArray a = tied(rng, c.shape, dt);
      const auto zs = pooled(y, x, a);
      std::vector<std::vector<NDArray>> sets{{a, tied(rng, zs, dt), tied(rng, c.shape, dt)}};
      // A 0-size leading axis.
      std::vector<std::int64_t> empty = c.shape;
      empty[0] = 0;
      std::vector<std::int64_t> ez = zs;
      ez[0] = 0;
      sets.push_back({NDArray::zeros(empty, dt), NDArray::zeros(ez, dt), NDArray::zeros(empty, dt)});
      check_sets(ins, outs, sets, Agreement{.rtol = dt == DType::Float32 ? 1e-6 : 1e-12});
    }
  }
}

}  // namespace

// One test case a mode, so that CTest runs them side by side.
TEST_SUITE("lower pool") {
  TEST_CASE("Pool max and its gradients: generated code matches perform over borders, strides, pads, ranks, dtypes") {
    check_mode(PoolMode::Max);
  }
  TEST_CASE("Pool sum and its gradient: generated code matches perform over borders, strides, pads, ranks, dtypes") {
    check_mode(PoolMode::Sum);
  }
  TEST_CASE("Pool average_inc_pad and its gradient: generated code matches perform") {
    check_mode(PoolMode::AverageIncPad);
  }
  TEST_CASE("Pool average_exc_pad and its gradient: generated code matches perform") {
    check_mode(PoolMode::AverageExcPad);
  }

  TEST_CASE("pool kernels: a unit instantiates only the element types its nodes use") {
    // pool.h under THEANO_POOL_ON_DEMAND: a float64 and an int32 pool in one
    // function instantiate those two types, in either order, and no other.
    const PoolParams p{2, {2, 2}, {2, 2}, {0, 0}, true, PoolMode::Max};
    const Var x = any_tensor(DType::Float64, 3, "x"), k = any_tensor(DType::Int32, 3, "k");
    const Var gz = any_tensor(DType::Float64, 3, "gz");
    const Var y = OpPtr(new signal::Pool(p))->apply1({x}), yk = OpPtr(new signal::Pool(p))->apply1({k});
    const Var g = OpPtr(new signal::MaxPoolGrad(p))->apply1({x, y, gz});
    const FunctionGraph fg({x, k, gz}, {y, yk, g});
    const std::string src = codegen::CLinker::generate_source(fg);
    CHECK(src.find("#define THEANO_POOL_ON_DEMAND") < src.find("#ifndef THEANO_RUNTIME_KERNELS_POOL_H"));
    // Each type's instantiation is its own support block after pool.h's text.
    const std::size_t text = src.find("#endif /* THEANO_RUNTIME_KERNELS_POOL_H */");
    REQUIRE(text != std::string::npos);
    const std::string after = src.substr(text);
    CHECK(after.find("THEANO_POOL_INSTANCE(f64)") != std::string::npos);
    CHECK(after.find("THEANO_POOL_INSTANCE(i32)") != std::string::npos);
    for (const std::string other : {"f32", "u8", "i64", "i8"}) {
      CAPTURE(other);
      CHECK(after.find("THEANO_POOL_INSTANCE(" + other + ")") == std::string::npos);
    }
    std::mt19937_64 rng(3);
    check_sets({x, k, gz}, {y, yk, g},
               {{tied(rng, {2, 4, 6}, DType::Float64), tied(rng, {3, 5, 4}, DType::Int32),
                 tied(rng, {2, 2, 3}, DType::Float64)}},
               Agreement{.rtol = 1e-12});
  }

  TEST_CASE("max-pool gradients: windows that tile the input take the row form, the others the scatter") {
    const Var x = any_tensor(DType::Float32, 4, "x"), gz = any_tensor(DType::Float32, 4, "gz");
    for (const bool tiles : {true, false}) {
      CAPTURE(tiles);
      // 2x2 windows with stride 2 (LeNet's) tile the input; stride 1 overlaps.
      const PoolParams p{2, {2, 2}, tiles ? std::vector<std::int64_t>{2, 2} : std::vector<std::int64_t>{1, 1}, {0, 0},
                         true, PoolMode::Max};
      const Var y = OpPtr(new signal::Pool(p))->apply1({x});
      const Var g = OpPtr(new signal::MaxPoolGrad(p))->apply1({x, y, gz});
      const std::string src = codegen::CLinker::generate_source(FunctionGraph({x, gz}, {g}));
      CHECK((src.find("theano_pool_max_grad_tiled_f32(b0") != std::string::npos) == tiles);
      CHECK((src.find("theano_pool_max_grad_add_f32(b0") != std::string::npos) == !tiles);
      std::mt19937_64 rng(7);
      const NDArray xv = tied(rng, {3, 2, 7, 9}, DType::Float32);
      const std::vector<std::int64_t> pooled = tiles ? std::vector<std::int64_t>{3, 2, 3, 4}
                                                     : std::vector<std::int64_t>{3, 2, 6, 8};
      check_sets({x, gz}, {g}, {{xv, tied(rng, pooled, DType::Float32)}}, Agreement{.rtol = 1e-6});
    }
  }

  TEST_CASE("pool gradients: a gradient input of the wrong shape fails as perform does") {
    const PoolParams p{2, {2, 2}, {2, 2}, {0, 0}, true, PoolMode::Max};
    const Var x = any_tensor(DType::Float64, 3, "x"), z = any_tensor(DType::Float64, 3, "z"),
              gz = any_tensor(DType::Float64, 3, "gz");
    const Var g = OpPtr(new signal::MaxPoolGrad(p))->apply1({x, z, gz});
    check_error<ShapeError>({x, z, gz}, {g},
                            {NDArray::zeros({2, 4, 5}), NDArray::zeros({2, 2, 2}), NDArray::zeros({2, 3, 2})},
                            "MaxPoolGrad", "gz: a gradient input does not have the pooled shape of x, at axis 1");
    const Var a = OpPtr(new signal::AveragePoolGrad(PoolParams{2, {2, 2}, {2, 2}, {0, 0}, false, PoolMode::Sum}))
                      ->apply1({x, gz});
    check_error<ShapeError>({x, gz}, {a}, {NDArray::zeros({2, 5, 5}), NDArray::zeros({1, 3, 3})}, "AveragePoolGrad",
                            "at axis 0");
    const Var gg = OpPtr(new signal::DownsampleFactorMaxGradGrad(p))->apply1({x, z, gz});
    check_error<ShapeError>({x, z, gz}, {gg},
                            {NDArray::zeros({2, 4, 5}), NDArray::zeros({2, 2, 2}), NDArray::zeros({2, 4, 4})},
                            "DownsampleFactorMaxGradGrad", "ggx");
  }
}
