// Lowerings of Join and Split (codegen/src/emit/lower/join.cpp) against their
// perform (PerformLinker), on contiguous and strided inputs, with the error
// cases raising perform's error kind.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/join.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_SUITE("lower join") {
  TEST_CASE("Join along every axis (negative ones too) of inputs with different sizes along it") {
    std::mt19937_64 rng(1);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Bool}) {
      CAPTURE(dtype_name(dt));
      Var a = any_tensor(dt, 3, "a"), b = any_tensor(dt, 3, "b"), c = any_tensor(dt, 3, "c");
      Var v = any_tensor(dt, 1, "v"), w = any_tensor(dt, 1, "w");
      const std::vector<Var> ins{a, b, c, v, w};
      for (int axis = 0; axis < 3; ++axis) {
        CAPTURE(axis);
        std::vector<Var> outs{join(axis, {a, b, c}), join(axis - 3, {c, a}), join(axis, {a, a, a, b}),
                              concatenate({v, w, v}), join(-1, {w, v})};
        for (auto sizes : std::vector<std::vector<std::int64_t>>{{2, 3, 1}, {0, 4, 2}, {1, 0, 0}, {5, 5, 5}}) {
          CAPTURE(sizes[0]);
          std::vector<std::int64_t> base{2, 3, 4};
          auto shape_with = [&](std::int64_t n) {
            std::vector<std::int64_t> s = base;
            s[static_cast<std::size_t>(axis)] = n;
            return s;
          };
          check_lowering(
              ins, outs,
              {test::random_array(rng, shape_with(sizes[0]), dt, -5, 5),
               test::random_array(rng, shape_with(sizes[1]), dt, -5, 5),
               test::random_array(rng, shape_with(sizes[2]), dt, -5, 5), test::random_array(rng, {sizes[1]}, dt, -5, 5),
               test::random_array(rng, {sizes[2]}, dt, -5, 5)});
        }
      }
      // Empty off the axis.
      check_lowering({a, b}, {join(0, {a, b}), join(1, {b, a})},
                     {test::random_array(rng, {2, 0, 3}, dt, -5, 5), test::random_array(rng, {2, 0, 3}, dt, -5, 5)});
    }
  }

  TEST_CASE("Join of mixed dtypes promotes, stack, one input") {
    std::mt19937_64 rng(2);
    Var i8 = any_tensor(DType::Int8, 2, "i8"), i16 = any_tensor(DType::Int16, 2, "i16"),
        f32 = any_tensor(DType::Float32, 2, "f32"), i32 = any_tensor(DType::Int32, 2, "i32"),
        u8 = any_tensor(DType::UInt8, 2, "u8"), bl = any_tensor(DType::Bool, 2, "bl"),
        f64 = any_tensor(DType::Float64, 2, "f64");
    const std::vector<Var> ins{i8, i16, f32, i32, u8, bl, f64};
    std::vector<Var> outs{join(0, {i8, i16}),      join(1, {f32, i32}),  join(0, {u8, i8, bl}),
                          join(1, {bl, f64, i16}), join(0, {f32, f32}),  stack({i8, i8, u8}, 1),
                          stack({f64, f32}, 0),    stack({i32, i32}, 2), join(0, {f64})};
    CHECK(tensor_type(outs[0])->dtype() == DType::Int16);
    CHECK(tensor_type(outs[1])->dtype() == DType::Float64);
    std::vector<NDArray> values;
    for (const Var& v : ins) values.push_back(test::random_array(rng, {3, 3}, tensor_type(v)->dtype(), -100, 100));
    check_lowering(ins, outs, values);
  }

  TEST_CASE("Join: sizes that differ off the axis are ShapeErrors naming the op") {
    std::mt19937_64 rng(3);
    Var a = any_tensor(DType::Float64, 2, "a"), b = any_tensor(DType::Float64, 2, "b"),
        c = any_tensor(DType::Float32, 2, "c");
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a, b, c}, std::vector<Var>{join(1, {a, b, c})});
    auto cpp = lowered_thunk(fg);
    auto r = [&](std::vector<std::int64_t> s, DType dt = DType::Float64) {
      return test::random_array(rng, std::move(s), dt, -1, 1);
    };
    check_error<ShapeError>(fg, *cpp, {r({2, 3}), r({3, 3}), r({2, 1}, DType::Float32)}, "Join");
    check_error<ShapeError>(fg, *cpp, {r({2, 3}), r({2, 3}), r({0, 1}, DType::Float32)}, "Join");
    std::vector<NDArray> out(1);
    cpp->run(std::vector<NDArray>{r({2, 3}), r({2, 0}), r({2, 5}, DType::Float32)}, out);  // still works afterwards
    CHECK(out[0].shape() == std::vector<std::int64_t>{2, 8});
  }

  TEST_CASE("Split with run-time sizes of several int dtypes, along every axis, outputs are views") {
    std::mt19937_64 rng(4);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32}) {
      for (DType st : {DType::Int64, DType::Int32, DType::UInt8}) {
        CAPTURE(dtype_name(dt));
        CAPTURE(dtype_name(st));
        Var x = any_tensor(dt, 3, "x");
        Var sizes = any_tensor(st, 1, "sizes");
        for (int axis = -3; axis < 3; ++axis) {
          CAPTURE(axis);
          std::vector<Var> outs = split(x, sizes, 3, axis);
          const int ax = axis < 0 ? axis + 3 : axis;
          for (auto sz : std::vector<std::vector<std::int64_t>>{{1, 2, 3}, {0, 6, 0}, {6, 0, 0}, {2, 2, 2}}) {
            check_lowering({x, sizes}, outs, {test::random_array(rng, {6, 6, 6}, dt, -5, 5), ivec(sz, st)});
          }
          std::vector<std::int64_t> shape{3, 4, 5};
          shape[static_cast<std::size_t>(ax)] = 0;
          check_lowering({x, sizes}, outs, {test::random_array(rng, shape, dt, -5, 5), ivec({0, 0, 0}, st)});
        }
      }
    }
    // Constant sizes, one piece, and the outputs are views of x.
    Var x = any_tensor(DType::Float64, 2, "x");
    std::vector<Var> outs = split(x, {1, 3}, 1);
    std::vector<Var> one = split(x, {4}, 1);
    outs.push_back(one[0]);
    check_lowering({x}, outs, {test::random_array(rng, {3, 4}, DType::Float64, -5, 5)});
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, outs);
    auto cpp = lowered_thunk(fg);
    const NDArray xv = test::random_array(rng, {3, 4}, DType::Float64, -5, 5);
    std::vector<NDArray> got(3);
    cpp->run(std::vector<NDArray>{xv}, got);
    for (const NDArray& g : got) CHECK(g.shares_buffer(xv));
  }

  TEST_CASE("Split errors: wrong sum (ShapeError), negative sizes and a wrong count (ValueError)") {
    std::mt19937_64 rng(5);
    Var x = any_tensor(DType::Float32, 2, "x");
    Var sizes = any_tensor(DType::Int64, 1, "sizes");
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, sizes}, split(x, sizes, 2, 0));
    auto cpp = lowered_thunk(fg);
    const NDArray xv = test::random_array(rng, {5, 2}, DType::Float32, -1, 1);
    check_error<ShapeError>(fg, *cpp, {xv, ivec({2, 2})}, "Split");
    check_error<ShapeError>(fg, *cpp, {xv, ivec({4, 2})}, "Split");
    check_error<ValueError>(fg, *cpp, {xv, ivec({-1, 6})}, "Split");
    check_error<ValueError>(fg, *cpp, {xv, ivec({1, 1, 3})}, "Split");
    check_error<ValueError>(fg, *cpp, {xv, ivec({5})}, "Split");
  }
}
