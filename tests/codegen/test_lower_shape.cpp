// Lowerings of the shape and creation ops (codegen/src/emit/lower/shape.cpp): Shape,
// Shape_i, MakeVector, SpecifyShape, Reshape, Alloc, ARange, Eye, Assert and the
// gradient stoppers, each against its perform (PerformLinker) on contiguous and
// strided inputs, with the error cases raising perform's error kind.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gradient.h>
#include <theano/runtime/error.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/join.h>
#include <theano/tensor/math.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

/// A 0-d value of `dt`.
NDArray sc(double v, DType dt = DType::Int64) { return NDArray::full({}, v, dt); }

/// The cpp output of a one-output graph on `values`.
NDArray run1(const Thunk& t, const std::vector<NDArray>& values) {
  std::vector<NDArray> out(1);
  t.run(values, out);
  return out[0];
}

const DType kDtypes[] = {DType::Float64, DType::Float32, DType::Int32};

}  // namespace

TEST_SUITE("lower shape") {
  TEST_CASE("Shape and Shape_i of 0-d to 3-d tensors, empty dimensions included") {
    std::mt19937_64 rng(1);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var s0 = any_tensor(dt, 0, "s0"), v = any_tensor(dt, 1, "v"), m = any_tensor(dt, 2, "m"),
          t3 = any_tensor(dt, 3, "t3");
      std::vector<Var> outs{shape(s0), shape(v), shape(m), shape(t3)};
      for (int i = 0; i < 1; ++i) outs.push_back(OpPtr(new Shape_i(i))->apply1({v}));
      for (int i = 0; i < 2; ++i) outs.push_back(OpPtr(new Shape_i(i))->apply1({m}));
      for (int i = 0; i < 3; ++i) outs.push_back(OpPtr(new Shape_i(i))->apply1({t3}));
      for (auto sh : std::vector<std::vector<std::int64_t>>{{2, 3, 4}, {0, 5, 1}, {1, 1, 1}, {3, 0, 0}}) {
        CAPTURE(sh[0]);
        check_lowering({s0, v, m, t3}, outs,
                       {test::random_array(rng, {}, dt, -5, 5), test::random_array(rng, {sh[1]}, dt, -5, 5),
                        test::random_array(rng, {sh[0], sh[2]}, dt, -5, 5), test::random_array(rng, sh, dt, -5, 5)});
      }
    }
  }

  TEST_CASE("MakeVector of scalars of several dtypes, and of none") {
    std::mt19937_64 rng(2);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Int64, DType::Bool}) {
      CAPTURE(dtype_name(dt));
      Var a = any_tensor(dt, 0, "a"), b = any_tensor(dt, 0, "b"), c = any_tensor(dt, 0, "c");
      std::vector<Var> outs{make_vector({a, b, c}, dt), make_vector({a}, dt), make_vector({c, c, a, b}, dt)};
      check_lowering({a, b, c}, outs,
                     {test::random_array(rng, {}, dt, -9, 9), test::random_array(rng, {}, dt, -9, 9),
                      test::random_array(rng, {}, dt, -9, 9)});
    }
    // Mixed inputs: int8 and int32 into int64, a float32 into float64, constants.
    Var i8 = any_tensor(DType::Int8, 0, "i8"), i32 = any_tensor(DType::Int32, 0, "i32"),
        f32 = any_tensor(DType::Float32, 0, "f32");
    Var mixed_int = make_vector({i8, i32, constant(sc(7, DType::Int16))}, DType::Int64);
    Var mixed_float = make_vector({f32, i8, constant(sc(2.5))}, DType::Float64);
    Var none = make_vector({});
    check_lowering({i8, i32, f32}, {mixed_int, mixed_float, none},
                   {sc(-3, DType::Int8), sc(123456, DType::Int32), sc(0.25, DType::Float32)});
  }

  TEST_CASE("SpecifyShape: fixed, symbolic and unspecified sizes, a view, mismatches are ShapeErrors") {
    std::mt19937_64 rng(3);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 3, "x");
      Var n = any_tensor(DType::Int64, 0, "n");
      Var k = any_tensor(DType::Int32, 0, "k");
      Var fixed = specify_shape(x, StaticShape{2, std::nullopt, 4});
      Var sym = specify_shape(x, std::vector<Var>{n, Var(), k});
      Var y0 = any_tensor(dt, 0, "y0");
      Var scalar_spec = specify_shape(y0, StaticShape{});
      const std::vector<Var> ins{x, n, k, y0};
      check_lowering(ins, {fixed * 2, sym, scalar_spec},
                     {test::random_array(rng, {2, 3, 4}, dt, -5, 5), sc(2), sc(4, DType::Int32),
                      test::random_array(rng, {}, dt, -5, 5)});
      check_lowering(ins, {fixed, sym},
                     {test::random_array(rng, {2, 0, 4}, dt, -5, 5), sc(2), sc(4, DType::Int32), sc(1, dt)});
      // The output is the input itself (view_map).
      auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{sym});
      auto cpp = lowered_thunk(fg);
      const NDArray xv = test::random_array(rng, {2, 3, 4}, dt, -5, 5);
      CHECK(run1(*cpp, {xv, sc(2), sc(4, DType::Int32), sc(1, dt)}).shares_buffer(xv));
      // Mismatches.
      check_error<ShapeError>(fg, *cpp, {xv, sc(3), sc(4, DType::Int32), sc(1, dt)}, "SpecifyShape");
      check_error<ShapeError>(fg, *cpp, {xv, sc(2), sc(5, DType::Int32), sc(1, dt)}, "SpecifyShape");
      auto fg2 = std::make_shared<FunctionGraph>(ins, std::vector<Var>{fixed});
      auto cpp2 = lowered_thunk(fg2);
      check_error<ShapeError>(fg2, *cpp2, {test::random_array(rng, {2, 3, 5}, dt, -5, 5), sc(2), sc(4, DType::Int32), sc(1, dt)},
                              "SpecifyShape");
      check_error<ShapeError>(fg2, *cpp2, {test::random_array(rng, {3, 3, 4}, dt, -5, 5), sc(2), sc(4, DType::Int32), sc(1, dt)},
                              "SpecifyShape");
    }
  }

  TEST_CASE("Reshape with constant shapes: -1, unit dimensions, 0-d, empty arrays") {
    std::mt19937_64 rng(4);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 3, "x");
      std::vector<Var> outs{reshape(x, {6, 4}),        reshape(x, {-1}),         reshape(x, {4, -1, 3}),
                            reshape(x, {2, 1, 12, 1}), reshape(x, {1, 24}),      reshape(x, {3, 2, 2, 2}),
                            reshape(x, {24, 1}),       reshape(x, {-1, 2, 3}), flatten(x, 2)};
      check_lowering({x}, outs, {test::random_array(rng, {2, 3, 4}, dt, -5, 5)});
      // Empty arrays.
      check_lowering({x}, {reshape(x, {0, 5}), reshape(x, {5, -1, 3}), reshape(x, {0}), flatten(x, 2)},
                     {test::random_array(rng, {5, 0, 3}, dt, -5, 5)});
      // Into and out of 0-d.
      Var s = any_tensor(dt, 0, "s");
      check_lowering({x, s}, {reshape(x, std::vector<std::int64_t>{}), reshape(s, {1, 1}), reshape(s, {-1})},
                     {test::random_array(rng, {1, 1, 1}, dt, -5, 5), test::random_array(rng, {}, dt, -5, 5)});
    }
  }

  TEST_CASE("Reshape with a run-time shape vector (int64 and int32, strided) and its errors") {
    std::mt19937_64 rng(5);
    for (DType dt : kDtypes) {
      for (DType st : {DType::Int64, DType::Int32, DType::UInt8}) {
        CAPTURE(dtype_name(dt));
        CAPTURE(dtype_name(st));
        Var x = any_tensor(dt, 2, "x");
        Var shp = any_tensor(st, 1, "shp");
        Var r = reshape(x, shp, 3);
        const NDArray xv = test::random_array(rng, {4, 6}, dt, -5, 5);
        check_lowering({x, shp}, {r}, {xv, ivec({2, 3, 4}, st)});
        check_lowering({x, shp}, {r}, {xv, ivec({1, 24, 1}, st)});
      }
    }
    Var x = any_tensor(DType::Float64, 2, "x");
    Var shp = any_tensor(DType::Int64, 1, "shp");
    Var r = reshape(x, shp, 3);
    const NDArray xv = test::random_array(rng, {4, 6}, DType::Float64, -5, 5);
    check_lowering({x, shp}, {r}, {xv, ivec({2, -1, 4})});
    check_lowering({x, shp}, {r}, {xv, ivec({-1, 1, 1})});
    check_lowering({x, shp}, {r}, {NDArray::zeros({0, 6}), ivec({3, 0, 7})});
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, shp}, std::vector<Var>{r});
    auto cpp = lowered_thunk(fg);
    check_error<ShapeError>(fg, *cpp, {xv, ivec({2, 3, 5})}, "Reshape{3}");
    check_error<ShapeError>(fg, *cpp, {xv, ivec({5, -1, 1})}, "Reshape{3}");
    check_error<ShapeError>(fg, *cpp, {NDArray::zeros({0, 6}), ivec({0, -1, 1})}, "Reshape{3}");
    check_error<ValueError>(fg, *cpp, {xv, ivec({-1, -1, 24})}, "Reshape{3}");
    check_error<ValueError>(fg, *cpp, {xv, ivec({2, -2, -12})}, "Reshape{3}");
    check_error<ValueError>(fg, *cpp, {xv, ivec({24, 1})}, "Reshape{3}");
    check_error<ValueError>(fg, *cpp, {xv, ivec({1, 1, 2, 12})}, "Reshape{3}");
  }

  TEST_CASE("Reshape's copy runs the host's same-type copy for every element size, bit for bit") {
    // strided_copy.h: one host instantiation per element size (1, 2, 4, 8
    // bytes here) copies the bits of every dtype of that size; a unit
    // embeds the converting templates only for a conversion (a Join of mixed
    // dtypes, test_lower_join.cpp).
    std::mt19937_64 rng(9);
    for (DType dt : {DType::Bool, DType::UInt8, DType::Int16, DType::Float32, DType::Int32, DType::Float64,
                     DType::Int64}) {
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 3, "x");
      std::vector<Var> outs{reshape(x, {6, 4}), reshape(x, {-1}), flatten(x, 2)};
      const NDArray v = test::random_array(rng, {2, 3, 4}, dt, -50, 50);
      check_lowering({x}, outs, {v.transpose()});                // a copy of a transposed array
      check_lowering({x}, outs, {v.slice(2, 3, std::nullopt, -1)});  // negative strides
      const std::string src = codegen::CLinker::generate_source(FunctionGraph({x}, outs), {}, false);
      CHECK(src.find("ctx->kernels->copy_strided(") != std::string::npos);
      CHECK(src.find("theano_convert_copy") == std::string::npos);
    }
    Var a = any_tensor(DType::Int8, 2, "a"), b = any_tensor(DType::Float32, 2, "b");
    const std::string mixed = codegen::CLinker::generate_source(FunctionGraph({a, b}, {join(0, {a, b})}), {}, false);
    CHECK(mixed.find("theano_convert_copy<float, int8_t>(") != std::string::npos);
  }

  TEST_CASE("Reshape is a view exactly when perform's is (numpy's no-copy rule)") {
    std::mt19937_64 rng(6);
    Var x = any_tensor(DType::Float64, 2, "x");
    Var shp = any_tensor(DType::Int64, 1, "shp");
    Var r = reshape(x, shp, 3);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, shp}, std::vector<Var>{r});
    auto cpp = lowered_thunk(fg);
    auto ref = make_perform_linker()->make_thunk(fg);
    const NDArray base = test::random_array(rng, {6, 8}, DType::Float64, -5, 5);
    struct Case {
      NDArray x;
      std::vector<std::int64_t> shape;
    };
    const std::vector<Case> cases{
        {base, {2, 3, 8}},                          // contiguous: a view
        {base.transpose(), {8, 3, 2}},              // Fortran order, split of the last axis: a view
        {base.transpose(), {2, 4, 6}},              // needs a copy
        {base.slice(1, 0, 8, 2), {6, 2, 2}},        // strided last axis split: a view
        {base.slice(1, 0, 8, 2), {3, 2, 4}},        // merging strided rows: a copy
        {base.slice(1, 7, std::nullopt, -1), {6, 2, 4}},  // negative strides, split: a view
        {base.slice(0, 0, 1), {1, 8, 1}},           // unit dimensions only
        {test::strided_copy(base), {6, 1, 8}},      // inserting a unit dimension into a strided array
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      CAPTURE(c);
      const std::vector<NDArray> in{cases[c].x, ivec(cases[c].shape)};
      std::vector<NDArray> want(1), got(1);
      ref->run(in, want);
      cpp->run(in, got);
      REQUIRE(got[0].shape() == want[0].shape());
      CHECK(array_equal(got[0], want[0]));
      CHECK(got[0].shares_buffer(cases[c].x) == want[0].shares_buffer(cases[c].x));
    }
  }

  TEST_CASE("Alloc: scalar fill, vectors and rows broadcast, symbolic sizes of several int dtypes, errors") {
    std::mt19937_64 rng(7);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var s = any_tensor(dt, 0, "s");
      Var v = any_tensor(dt, 1, "v");
      Var rw = tensor::tensor(dt, {1, std::nullopt}, "rw");
      Var m = any_tensor(dt, 2, "m");
      Var n = any_tensor(DType::Int64, 0, "n");
      Var k = any_tensor(DType::Int32, 0, "k");
      Var b = any_tensor(DType::UInt8, 0, "b");
      const std::vector<Var> ins{s, v, rw, m, n, k, b};
      using TL = std::vector<TensorLike>;
      std::vector<Var> outs{alloc(s, TL{n, k}),     alloc(s, TL{}),          alloc(s, TL{b}),
                            alloc(v, TL{n, k}),     alloc(rw, TL{n, k}),     alloc(rw, TL{b, n, k}),
                            alloc(m, TL{n, k}),     alloc(s, TL{3, n, 2}),   alloc(v, TL{2, 1, k}),
                            zeros(TL{n, k}, dt),    ones(TL{k}, dt)};
      for (auto nk : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 4}, {0, 4}, {3, 0}, {1, 1}, {5, 17}}) {
        CAPTURE(nk.first);
        CAPTURE(nk.second);
        check_lowering(ins, outs,
                       {test::random_array(rng, {}, dt, -5, 5), test::random_array(rng, {nk.second}, dt, -5, 5),
                        test::random_array(rng, {1, nk.second}, dt, -5, 5),
                        test::random_array(rng, {nk.first, nk.second}, dt, -5, 5), sc(static_cast<double>(nk.first)),
                        sc(static_cast<double>(nk.second), DType::Int32), sc(2, DType::UInt8)});
      }
      // A declared-broadcastable dimension may also have the full size.
      Var out = alloc(rw, std::vector<TensorLike>{n, k});
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{rw, n, k}, std::vector<Var>{out});
      auto cpp = lowered_thunk(fg);
      // Errors: negative sizes (ValueError), a value that does not broadcast (ShapeError).
      check_error<ValueError>(fg, *cpp, {test::random_array(rng, {1, 4}, dt, -5, 5), sc(-1), sc(4, DType::Int32)},
                              "Alloc");
      check_error<ShapeError>(fg, *cpp, {test::random_array(rng, {1, 4}, dt, -5, 5), sc(2), sc(5, DType::Int32)},
                              "Alloc");
      auto fg2 = std::make_shared<FunctionGraph>(std::vector<Var>{m, n, k}, std::vector<Var>{alloc(m, std::vector<TensorLike>{n, k})});
      auto cpp2 = lowered_thunk(fg2);
      check_error<ShapeError>(fg2, *cpp2, {test::random_array(rng, {1, 4}, dt, -5, 5), sc(3), sc(4, DType::Int32)},
                              "Alloc");
      check_error<ShapeError>(fg2, *cpp2, {test::random_array(rng, {3, 4}, dt, -5, 5), sc(3), sc(2, DType::Int32)},
                              "Alloc");
      check_error<ValueError>(fg2, *cpp2, {test::random_array(rng, {3, 4}, dt, -5, 5), sc(3), sc(-4, DType::Int32)},
                              "Alloc");
    }
  }

  TEST_CASE("ARange: integer and float ranges, several output dtypes, empty ranges, errors") {
    struct In {
      DType dt;
      double v;
    };
    struct Case {
      In start, stop, step;
    };
    const DType i64 = DType::Int64, i32 = DType::Int32, f64 = DType::Float64, f32 = DType::Float32;
    const std::vector<Case> cases{
        {{i64, 0}, {i64, 10}, {i64, 1}},      {{i64, 3}, {i64, 10}, {i64, 3}},    {{i64, 10}, {i64, -7}, {i64, -3}},
        {{i64, 5}, {i64, 5}, {i64, 1}},       {{i64, 5}, {i64, 0}, {i64, 2}},     {{i32, -4}, {i32, 9}, {i32, 4}},
        {{f64, 0.5}, {f64, 4.1}, {f64, 0.3}}, {{f64, 2}, {f64, -1}, {f64, -0.25}}, {{f64, 0}, {f64, 0}, {f64, 1}},
        {{f32, 0.1f}, {f32, 1.7f}, {f32, 0.2f}}, {{i64, 1}, {f64, 7.5}, {i64, 2}}, {{f64, -3.5}, {i64, 4}, {i64, 1}},
        {{i64, 0}, {i64, 1}, {i64, 5}},       {{f64, 0.1}, {f64, 0.2}, {f64, 1}},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      CAPTURE(c);
      const Case& k = cases[c];
      Var a = any_tensor(k.start.dt, 0, "a"), b = any_tensor(k.stop.dt, 0, "b"), s = any_tensor(k.step.dt, 0, "s");
      std::vector<Var> outs{arange(a, b, s)};
      for (DType od : {DType::Float64, DType::Float32, DType::Int64, DType::Int32, DType::UInt8, DType::UInt64,
                       DType::Int16, DType::Bool})
        outs.push_back(arange(a, b, s, od));
      check_lowering({a, b, s}, outs, {sc(k.start.v, k.start.dt), sc(k.stop.v, k.stop.dt), sc(k.step.v, k.step.dt)});
    }
    // Float inputs into integer dtypes (numpy's conversion): negative values, long ranges.
    {
      Var a = any_tensor(f64, 0, "a"), b = any_tensor(f64, 0, "b"), s = any_tensor(f64, 0, "s");
      std::vector<Var> outs;
      for (DType od : {DType::Int64, DType::Int32, DType::UInt8, DType::UInt32, DType::UInt64, DType::Float32})
        outs.push_back(arange(a, b, s, od));
      check_lowering({a, b, s}, outs, {sc(-7.3, f64), sc(300.2, f64), sc(1.1, f64)});
      check_lowering({a, b, s}, outs, {sc(1e3, f64), sc(-1e3, f64), sc(-7.7, f64)});
      // Errors: zero step, no finite length.
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a, b, s}, outs);
      auto cpp = lowered_thunk(fg);
      check_error<ValueError>(fg, *cpp, {sc(0, f64), sc(1, f64), sc(0, f64)}, "ARange");
      check_error<ValueError>(fg, *cpp, {sc(0, f64), sc(std::numeric_limits<double>::infinity(), f64), sc(1, f64)},
                              "ARange");
      check_error<ValueError>(fg, *cpp, {sc(0, f64), sc(std::numeric_limits<double>::quiet_NaN(), f64), sc(1, f64)},
                              "ARange");
    }
    Var a = any_tensor(i64, 0, "a"), b = any_tensor(i64, 0, "b"), s = any_tensor(i32, 0, "s");
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a, b, s}, std::vector<Var>{arange(a, b, s)});
    auto cpp = lowered_thunk(fg);
    check_error<ValueError>(fg, *cpp, {sc(0), sc(10), sc(0, i32)}, "ARange");
  }

  TEST_CASE("Eye: rectangular, offset diagonals, empty, several dtypes, negative sizes are ValueErrors") {
    Var n = any_tensor(DType::Int64, 0, "n"), m = any_tensor(DType::Int32, 0, "m"), k = any_tensor(DType::Int8, 0, "k");
    std::vector<Var> outs;
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Bool, DType::UInt8})
      outs.push_back(eye(n, m, k, dt));
    outs.push_back(eye(n, std::nullopt, 0, DType::Float64));
    outs.push_back(eye(3, n, k, DType::Float64));
    const std::vector<Var> ins{n, m, k};
    for (auto [nv, mv, kv] : std::vector<std::tuple<int, int, int>>{
             {3, 3, 0}, {4, 2, 0}, {2, 5, 1}, {5, 4, -2}, {3, 3, 7}, {3, 3, -9}, {0, 3, 0}, {3, 0, 0}, {1, 1, 0}}) {
      CAPTURE(nv);
      CAPTURE(mv);
      CAPTURE(kv);
      check_lowering(ins, outs, {sc(nv), sc(mv, DType::Int32), sc(kv, DType::Int8)});
    }
    auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{eye(n, m, k, DType::Float64)});
    auto cpp = lowered_thunk(fg);
    check_error<ValueError>(fg, *cpp, {sc(-1), sc(3, DType::Int32), sc(0, DType::Int8)}, "Eye");
    check_error<ValueError>(fg, *cpp, {sc(2), sc(-3, DType::Int32), sc(0, DType::Int8)}, "Eye");
  }

  TEST_CASE("Assert passes the value through (a view) and fails with its message") {
    std::mt19937_64 rng(9);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 2, "x");
      Var c1 = any_tensor(DType::Bool, 0, "c1"), c2 = any_tensor(DType::Int32, 0, "c2"),
          c3 = any_tensor(DType::Float64, 0, "c3");
      Var y = assert_op(x, {c1, c2, c3}, "x must be nice");
      Var z = assert_op(x * 2, {});
      const std::vector<Var> ins{x, c1, c2, c3};
      const NDArray xv = test::random_array(rng, {3, 4}, dt, -5, 5);
      const NDArray t = sc(1, DType::Bool), i = sc(-3, DType::Int32), f = sc(0.5, DType::Float64);
      check_lowering(ins, {y, z}, {xv, t, i, f});
      check_lowering(ins, {y, z}, {test::random_array(rng, {0, 2}, dt, -5, 5), t, i, sc(std::nan(""), DType::Float64)});
      auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{y});
      auto cpp = lowered_thunk(fg);
      CHECK(run1(*cpp, {xv, t, i, f}).shares_buffer(xv));
      for (const std::vector<NDArray>& bad : {std::vector<NDArray>{xv, sc(0, DType::Bool), i, f},
                                              std::vector<NDArray>{xv, t, sc(0, DType::Int32), f},
                                              std::vector<NDArray>{xv, t, i, sc(0.0, DType::Float64)}}) {
        check_error<ValueError>(fg, *cpp, bad, "Assert");
        const std::string msg = test::error_of([&] { run1(*cpp, bad); });
        CHECK(msg.find("x must be nice") != std::string::npos);
      }
    }
  }

  TEST_CASE("Assert with reported values: the generated code writes them into the message as perform does") {
    Var x = any_tensor(DType::Float64, 1, "x");
    Var a = any_tensor(DType::Int32, 0, "a"), b = any_tensor(DType::Int64, 0, "b"), c = any_tensor(DType::UInt8, 0, "c");
    const NDArray xv = NDArray::from_vector<double>({1, 2}, {2});
    const std::vector<Var> all3{a, b, c};
    for (int k = 1; k <= 3; ++k) {
      CAPTURE(k);
      const std::vector<Var> vals(all3.begin(), all3.begin() + k);
      const std::string msg = k == 1 ? "a = {} is bad" : k == 2 ? "{} vs {}!" : "{}, {} and {}";
      const std::string want_bad = k == 1 ? "a = -7 is bad" : k == 2 ? "-7 vs -9000000000!" : "-7, -9000000000 and 200";
      Var y = assert_op(x, {le(a, b)}, msg, vals);
      const std::vector<Var> ins{x, a, b, c};
      auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{y});
      auto cpp = lowered_thunk(fg);
      const std::vector<NDArray> good{xv, sc(-7, DType::Int32), sc(9000000000.0, DType::Int64), sc(200, DType::UInt8)};
      CHECK(run1(*cpp, good).shares_buffer(xv));
      const std::vector<NDArray> bad{xv, sc(-7, DType::Int32), sc(-9000000000.0, DType::Int64), sc(200, DType::UInt8)};
      check_error<ValueError>(fg, *cpp, bad, want_bad);
      CHECK(test::error_of([&] { run1(*cpp, bad); }).find(want_bad) != std::string::npos);
      // perform on the node's own inputs: x, the condition (false), the reported values.
      std::vector<NDArray> node_in{xv, NDArray::scalar<bool>(false)};
      node_in.insert(node_in.end(), bad.begin() + 1, bad.begin() + 1 + k);
      std::vector<NDArray> outs(1);
      CHECK_THROWS_WITH_AS(y.owner()->op()->perform(*y.owner(), node_in, outs), want_bad.c_str(), AssertionError);
    }
  }

  TEST_CASE("zero_grad and disconnected_grad are identities (views)") {
    std::mt19937_64 rng(10);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 2, "x"), s = any_tensor(dt, 0, "s");
      check_lowering({x, s}, {zero_grad(x), disconnected_grad(x), zero_grad(s) + disconnected_grad(s)},
                     {test::random_array(rng, {3, 5}, dt, -5, 5), test::random_array(rng, {}, dt, -5, 5)});
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{zero_grad(x)});
      const NDArray xv = test::random_array(rng, {2, 2}, dt, -5, 5);
      CHECK(run1(*lowered_thunk(fg), {xv}).shares_buffer(xv));
    }
  }

  TEST_CASE("shape ops inside a larger graph: symbolic shapes feed Reshape and Alloc") {
    std::mt19937_64 rng(11);
    Var x = any_tensor(DType::Float64, 3, "x");
    // reshape(x, (x.shape[0], -1)) and a fill of its shape, from Shape_i, MakeVector and Shape.
    Var flat = reshape(x, make_vector({OpPtr(new Shape_i(0))->apply1({x}), constant(sc(-1))}), 2);
    Var filled = alloc(constant(sc(1.5, DType::Float64)),
                       std::vector<TensorLike>{OpPtr(new Shape_i(0))->apply1({flat}), OpPtr(new Shape_i(1))->apply1({flat})});
    Var both = flat * filled;
    check_lowering({x}, {both, shape(both), shape(flat)}, {test::random_array(rng, {3, 2, 4}, DType::Float64, -5, 5)});
    check_lowering({x}, {both, shape(both), shape(flat)}, {test::random_array(rng, {1, 0, 4}, DType::Float64, -5, 5)});
  }
}
