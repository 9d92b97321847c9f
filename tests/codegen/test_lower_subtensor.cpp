// Lowerings of the indexing ops (codegen/src/emit/lower/subtensor.cpp): Subtensor,
// IncSubtensor, AdvancedSubtensor1 and AdvancedIncSubtensor1, against perform.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/subtensor.h>
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

namespace {

NDArray iscal(std::int64_t v, DType dt = DType::Int64) { return NDArray::scalar<std::int64_t>(v).astype(dt); }

/// The idx_list and symbolic inputs of `sub` (an output of Subtensor).
std::pair<IdxList, std::vector<Var>> idx_of(const Var& sub) {
  const auto* s = dynamic_cast<const Subtensor*>(sub.owner()->op().get());
  REQUIRE(s != nullptr);
  std::vector<Var> sym(sub.owner()->inputs().begin() + 1, sub.owner()->inputs().end());
  return {s->idx_list(), sym};
}

/// IncSubtensor with every prop spelled out.
Var inc_sub(const Var& x, const Var& y, const Var& sub, bool inplace, bool set) {
  auto [idx, sym] = idx_of(sub);
  std::vector<Var> ins{x, y};
  ins.insert(ins.end(), sym.begin(), sym.end());
  return OpPtr(new IncSubtensor(idx, inplace, set))->apply1(ins);
}

const std::vector<DType> kDtypes{DType::Float64, DType::Float32, DType::Int32, DType::Int8};

}  // namespace

TEST_SUITE("lower subtensor") {
  TEST_CASE("Subtensor: constant integers and slices, every dtype and shape") {
    std::mt19937_64 rng(1);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::UInt8, DType::Bool}) {
      CAPTURE(dtype_name(dt));
      Var x = tensor::tensor(dt, {std::nullopt, std::nullopt, std::nullopt}, "x");
      std::vector<Var> outs{
          x[1],
          x[-1],
          x[{slice(1, 3)}],
          x[{slice(none, none, -1)}],
          x[{slice(none, none, 2), 1}],
          x[{slice(-3, none), slice(none, none, -2), slice(2, 5, 2)}],
          x[{slice(10, none)}],
          x[{slice(-10, 2)}],
          x[{all, slice(4, 1, -1)}],
          x[{1, 2, 3}],
          x[{all, all, -1}],
          x[{slice(5, 1)}],
          x[{slice(2, none, -1), -2, slice(none, -1)}],
          x[{slice(none, -10, -1)}],
          x[{slice(100, -100, -3), slice(-100, 100, 3)}],
      };
      for (std::vector<std::int64_t> shape : std::vector<std::vector<std::int64_t>>{{4, 5, 6}, {3, 4, 7}}) {
        CAPTURE(shape[0]);
        check_lowering({x}, outs, {random_array(rng, shape, dt, -50, 50)});
      }
      // Empty dimensions: slices on the empty axes, integers elsewhere.
      std::vector<Var> eouts{x[{slice(1, none)}], x[{slice(none, none, -1), slice(1, none)}],
                             x[{all, slice(none, none, -2), -1}]};
      for (std::vector<std::int64_t> shape : std::vector<std::vector<std::int64_t>>{{0, 3, 2}, {2, 0, 3}}) {
        CAPTURE(shape[1]);
        check_lowering({x}, eouts, {random_array(rng, shape, dt, -50, 50)});
      }
    }
  }

  TEST_CASE("Subtensor: fewer indices than dimensions, vectors and 0-d results") {
    std::mt19937_64 rng(2);
    Var v = dvector("v");
    Var m = imatrix("m");
    check_lowering({v, m}, {v[3], v[-1], v[{slice(none, none, -3)}], m[1], m[{-1, 0}], m[{slice(1, none)}]},
                   {random_array(rng, {5}, DType::Float64, -1, 1), random_array(rng, {3, 4}, DType::Int32, -9, 9)});
  }

  TEST_CASE("Subtensor: symbolic bounds of several integer dtypes, negative steps, out-of-range slices") {
    std::mt19937_64 rng(3);
    for (DType it : {DType::Int64, DType::Int32, DType::Int8, DType::UInt8}) {
      CAPTURE(dtype_name(it));
      Var x = dmatrix("x");
      Var a = tensor::tensor(it, {}, "a"), b = tensor::tensor(it, {}, "b"), c = tensor::tensor(it, {}, "c");
      std::vector<Var> outs{x[{slice(a, b, c)}], x[{slice(a, none, c), 1}], x[{all, slice(none, b)}],
                            x[{slice(a, b), slice(none, none, c)}]};
      const bool u = it == DType::UInt8;
      std::vector<std::vector<std::int64_t>> abc{{1, 3, 1}, {0, 5, 2}, {4, 0, 3}, {9, 20, 1}, {2, 2, 1}};
      if (!u) {
        for (std::vector<std::int64_t> s : std::vector<std::vector<std::int64_t>>{
                 {-1, -5, -1}, {3, -10, -2}, {-10, 10, 3}, {-2, 1, -1}, {100, -100, -3}})
          abc.push_back(s);
      }
      for (const auto& s : abc) {
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        const bool neg = s[2] < 0;
        // x[a::c] with a symbolic integer index on axis 1: keep it in range.
        check_lowering({x, a, b, c}, outs,
                       {random_array(rng, {5, neg ? 4 : 3}, DType::Float64, -1, 1), iscal(s[0], it), iscal(s[1], it),
                        iscal(s[2], it)});
      }
      // A symbolic integer index.
      Var xs = x[{a, slice(none, none, -1)}];
      check_lowering({x, a}, {xs, x[{all, a}]},
                     {random_array(rng, {4, 4}, DType::Float64, -1, 1), iscal(u ? 3 : -2, it)});
    }
  }

  TEST_CASE("Subtensor: the output is a view of x, and feeds other lowered ops") {
    std::mt19937_64 rng(4);
    Var x = dmatrix("x");
    Var s = x[{slice(1, none), slice(none, none, -1)}];
    auto cpp = lowered_thunk({x}, {s});
    NDArray xv = random_array(rng, {4, 5}, DType::Float64, -1, 1);
    std::vector<NDArray> out(1);
    const std::vector<NDArray> in{xv};
    cpp->run(in, out);
    CHECK(out[0].shares_buffer(xv));
    CHECK(out[0].shape() == std::vector<std::int64_t>{3, 5});
    check_lowering({x}, {exp(s) * 2.0, s + x[{slice(none, 3), slice(none, none, -1)}]}, {xv});
  }

  TEST_CASE("Subtensor: errors") {
    Var x = dmatrix("x");
    Var a = lscalar("a"), c = lscalar("c");
    const NDArray xv = NDArray::zeros({3, 4});
    check_error<IndexError>({x}, {x[5]}, {xv}, "Subtensor");
    check_error<IndexError>({x}, {x[{all, -5}]}, {xv}, "Subtensor");
    check_error<IndexError>({x}, {x[0]}, {NDArray::zeros({0, 4})}, "Subtensor");
    check_error<IndexError>({x, a}, {x[a]}, {xv, test::i64(3)}, "Subtensor");
    check_error<IndexError>({x, a}, {x[a]}, {xv, test::i64(-4)}, "index -4");
    check_error<ValueError>({x, c}, {x[{slice(none, none, c)}]}, {xv, test::i64(0)}, "slice step cannot be zero");
  }

  TEST_CASE("IncSubtensor: set and inc, inplace or not, every dtype") {
    std::mt19937_64 rng(5);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = tensor::tensor(dt, {std::nullopt, std::nullopt}, "x");
      Var y = tensor::tensor(dt, {std::nullopt, std::nullopt}, "y");
      Var r = tensor::tensor(dt, {1, std::nullopt}, "r");   // broadcasts over the rows
      Var v = tensor::tensor(dt, {std::nullopt}, "v");      // left-padded
      Var s0 = tensor::tensor(dt, {}, "s0");                // 0-d
      for (bool inplace : {false, true}) {
        for (bool set : {false, true}) {
          CAPTURE(inplace);
          CAPTURE(set);
          // One node per graph for the inplace forms (each destroys x).
          auto one = [&](const Var& sub, const Var& val, const NDArray& vv, std::vector<std::int64_t> xshape) {
            Var out = inc_sub(x, val, sub, inplace, set);
            check_lowering({x, val}, {out}, {random_array(rng, xshape, dt, -20, 20), vv});
          };
          one(x[{slice(1, 3)}], y, random_array(rng, {2, 5}, dt, -20, 20), {4, 5});
          one(x[{slice(none, none, -2), slice(1, none)}], y, random_array(rng, {2, 3}, dt, -20, 20), {4, 4});
          one(x[{slice(1, 3)}], r, random_array(rng, {1, 5}, dt, -20, 20), {4, 5});
          one(x[{all, slice(none, none, -1)}], v, random_array(rng, {5}, dt, -20, 20), {3, 5});
          one(x[{1, 2}], s0, random_array(rng, {}, dt, -20, 20), {3, 4});
          one(x[-1], v, random_array(rng, {4}, dt, -20, 20), {3, 4});
          // Empty indexed part, empty x.
          one(x[{slice(5, none)}], r, random_array(rng, {1, 4}, dt, -20, 20), {3, 4});
          one(x[{slice(1, none)}], y, random_array(rng, {0, 4}, dt, -20, 20), {0, 4});
        }
      }
      // set_subtensor / inc_subtensor build the non-inplace forms.
      check_lowering({x, y}, {set_subtensor(x[{slice(1, 3)}], y), inc_subtensor(x[{slice(1, 3)}], y)},
                     {random_array(rng, {3, 2}, dt, -20, 20), random_array(rng, {2, 2}, dt, -20, 20)});
    }
  }

  TEST_CASE("IncSubtensor: symbolic bounds, a value of another dtype, 3-d") {
    std::mt19937_64 rng(6);
    Var x = dtensor3("x");
    Var a = lscalar("a"), b = iscalar("b"), c = lscalar("c");
    Var sub = x[{slice(a, b, c), 1}];
    Var ym = fmatrix("ym");
    for (bool set : {false, true}) {
      Var out = inc_sub(x, ym, sub, false, set);
      for (const auto& s : std::vector<std::vector<std::int64_t>>{{0, 3, 1}, {3, -5, -2}, {-1, 0, -1}, {7, 9, 1}}) {
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        // The indexed part has shape (len, 5); ym broadcasts only when it matches.
        const std::int64_t n = 4;
        NDArray probe = NDArray::zeros({n}).slice(0, s[0], s[1], s[2]);
        check_lowering({x, ym, a, b, c}, {out},
                       {random_array(rng, {n, 3, 5}, DType::Float64, -1, 1),
                        random_array(rng, {probe.shape()[0], 5}, DType::Float32, -1, 1), test::i64(s[0]),
                        iscal(s[1], DType::Int32), test::i64(s[2])});
      }
    }
    // int8 into int32, bool into bool.
    Var xi = imatrix("xi");
    Var yi = bmatrix("yi");
    check_lowering(
        {xi, yi}, {inc_subtensor(xi[{slice(none, 2)}], yi), set_subtensor(xi[{slice(none, 2)}], yi)},
        {random_array(rng, {3, 3}, DType::Int32, -100, 100), random_array(rng, {2, 3}, DType::Int8, -100, 100)});
    Var xb = tensor::tensor(DType::Bool, {std::nullopt}, "xb");
    Var yb = tensor::tensor(DType::Bool, {std::nullopt}, "yb");
    check_lowering({xb, yb}, {inc_subtensor(xb[{slice(1, none)}], yb), set_subtensor(xb[{slice(1, none)}], yb)},
                   {random_array(rng, {5}, DType::Bool, 0, 2), random_array(rng, {4}, DType::Bool, 0, 2)});
  }

  TEST_CASE("IncSubtensor: errors") {
    Var x = dmatrix("x"), y = dmatrix("y"), r = drow("r");
    Var a = lscalar("a");
    const NDArray xv = NDArray::zeros({3, 4});
    for (bool set : {false, true}) {
      CAPTURE(set);
      Var sub = x[{slice(1, 3)}];
      check_error<ShapeError>({x, y}, {inc_sub(x, y, sub, false, set)}, {xv, NDArray::zeros({3, 4})},
                              "IncSubtensor");
      check_error<ShapeError>({x, y}, {inc_sub(x, y, sub, true, set)}, {xv, NDArray::zeros({2, 1})},
                              "IncSubtensor");
      check_error<ShapeError>({x, r}, {inc_sub(x, r, sub, false, set)}, {xv, NDArray::zeros({1, 5})},
                              "IncSubtensor");
      Var si = x[a];
      Var v = dvector("v");
      check_error<IndexError>({x, v, a}, {inc_sub(x, v, si, false, set)}, {xv, NDArray::zeros({4}), test::i64(3)},
                              "IncSubtensor");
      check_error<IndexError>({x, v, a}, {inc_sub(x, v, si, true, set)}, {xv, NDArray::zeros({4}), test::i64(-4)},
                              "IncSubtensor");
    }
  }

  TEST_CASE("AdvancedSubtensor1: gathers rows, negative and repeated indices, every dtype") {
    std::mt19937_64 rng(7);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Int8, DType::Bool}) {
      CAPTURE(dtype_name(dt));
      for (DType it : {DType::Int64, DType::Int32, DType::UInt8}) {
        CAPTURE(dtype_name(it));
        Var v = tensor::tensor(dt, {std::nullopt}, "v");
        Var m = tensor::tensor(dt, {std::nullopt, std::nullopt}, "m");
        Var t = tensor::tensor(dt, {std::nullopt, std::nullopt, std::nullopt}, "t");
        Var il = tensor::tensor(it, {std::nullopt}, "il");
        std::vector<Var> outs{advanced_subtensor1(v, il), advanced_subtensor1(m, il), advanced_subtensor1(t, il),
                              take(m, il, 1), take(t, il, 2)};
        const bool u = it == DType::UInt8;
        for (const NDArray& idx : {ivec({0, 2, 2, 1, 0}, it), u ? ivec({3, 3}, it) : ivec({-1, 3, -4, 0}, it),
                                   ivec({}, it)}) {
          CAPTURE(idx.size());
          check_lowering({v, m, t, il}, outs,
                         {random_array(rng, {4}, dt, -50, 50), random_array(rng, {4, 4}, dt, -50, 50),
                          random_array(rng, {4, 3, 4}, dt, -50, 50), idx});
        }
        // Empty trailing dimensions: indices are still checked, nothing is copied.
        check_lowering({m, il}, {advanced_subtensor1(m, il)}, {random_array(rng, {3, 0}, dt, 0, 1), ivec({2, 0}, it)});
        check_error<IndexError>({m, il}, {advanced_subtensor1(m, il)},
                                {random_array(rng, {3, 0}, dt, 0, 1), ivec({2, 3}, it)}, "AdvancedSubtensor1");
      }
    }
  }

  TEST_CASE("AdvancedSubtensor1: x[ilist] through operator[] on a larger x") {
    std::mt19937_64 rng(8);
    Var x = dmatrix("x");
    Var il = lvector("il");
    NDArray xv = random_array(rng, {300, 17}, DType::Float64, -1, 1);
    NDArray iv = random_array(rng, {500}, DType::Int64, -300, 300);
    check_lowering({x, il}, {x[il], x[{all, slice(2, 9)}][il] * 3.0}, {xv, iv});
  }

  TEST_CASE("AdvancedSubtensor1: errors") {
    Var x = dmatrix("x");
    Var il = lvector("il");
    const NDArray xv = NDArray::zeros({3, 2});
    check_error<IndexError>({x, il}, {advanced_subtensor1(x, il)}, {xv, ivec({0, 3})}, "AdvancedSubtensor1");
    check_error<IndexError>({x, il}, {advanced_subtensor1(x, il)}, {xv, ivec({-4})}, "index -4");
    check_error<IndexError>({x, il}, {advanced_subtensor1(x, il)}, {NDArray::zeros({0, 2}), ivec({0})},
                            "AdvancedSubtensor1");
  }

  TEST_CASE("AdvancedIncSubtensor1: set and inc, inplace or not, repeated indices, broadcast values") {
    std::mt19937_64 rng(9);
    for (DType dt : kDtypes) {
      CAPTURE(dtype_name(dt));
      Var x = tensor::tensor(dt, {std::nullopt, std::nullopt}, "x");
      Var y = tensor::tensor(dt, {std::nullopt, std::nullopt}, "y");
      Var r = tensor::tensor(dt, {1, std::nullopt}, "r");
      Var v = tensor::tensor(dt, {std::nullopt}, "v");
      Var s0 = tensor::tensor(dt, {}, "s0");
      Var x1 = tensor::tensor(dt, {std::nullopt}, "x1");
      Var il = lvector("il");
      for (bool inplace : {false, true}) {
        for (bool set : {false, true}) {
          CAPTURE(inplace);
          CAPTURE(set);
          OpPtr op(new AdvancedIncSubtensor1(inplace, set));
          const NDArray idx = ivec({1, -1, 1, 0, 1});
          check_lowering({x, y, il}, {op->apply1({x, y, il})},
                         {random_array(rng, {4, 3}, dt, -20, 20), random_array(rng, {5, 3}, dt, -20, 20), idx});
          check_lowering({x, r, il}, {op->apply1({x, r, il})},
                         {random_array(rng, {4, 3}, dt, -20, 20), random_array(rng, {1, 3}, dt, -20, 20), idx});
          check_lowering({x, v, il}, {op->apply1({x, v, il})},
                         {random_array(rng, {4, 3}, dt, -20, 20), random_array(rng, {3}, dt, -20, 20), idx});
          check_lowering({x, s0, il}, {op->apply1({x, s0, il})},
                         {random_array(rng, {4, 3}, dt, -20, 20), random_array(rng, {}, dt, -20, 20), idx});
          check_lowering(
              {x1, v, il}, {op->apply1({x1, v, il})},
              {random_array(rng, {3}, dt, -20, 20), random_array(rng, {5}, dt, -20, 20), ivec({2, 2, -3, 0, 2})});
          // Empty index list, empty rows.
          check_lowering({x, y, il}, {op->apply1({x, y, il})},
                         {random_array(rng, {4, 3}, dt, -20, 20), random_array(rng, {0, 3}, dt, -20, 20), ivec({})});
          check_lowering(
              {x, y, il}, {op->apply1({x, y, il})},
              {random_array(rng, {4, 0}, dt, -20, 20), random_array(rng, {2, 0}, dt, -20, 20), ivec({3, 3})});
        }
      }
    }
  }

  TEST_CASE("AdvancedIncSubtensor1: int32 indices, a value of another dtype, inc_subtensor of x[ilist]") {
    std::mt19937_64 rng(10);
    Var x = dtensor3("x");
    Var y = ftensor3("y");
    Var il = ivector("il");
    check_lowering({x, y, il}, {inc_subtensor(x[il], y), set_subtensor(x[il], y)},
                   {random_array(rng, {5, 2, 3}, DType::Float64, -1, 1),
                    random_array(rng, {6, 2, 3}, DType::Float32, -1, 1), ivec({4, 0, 4, -5, 2, 4}, DType::Int32)});
    Var xi = lmatrix("xi");
    Var yi = bmatrix("yi");
    check_lowering({xi, yi, il}, {inc_subtensor(xi[il], yi)},
                   {random_array(rng, {3, 4}, DType::Int64, -100, 100),
                    random_array(rng, {3, 4}, DType::Int8, -100, 100), ivec({2, 2, 2}, DType::Int32)});
    // Increment along axis 1 (through transposes).
    Var m = dmatrix("m");
    Var vv = dmatrix("vv");
    check_lowering({m, vv, il}, {inc_subtensor(take(m, il, 1), vv)},
                   {random_array(rng, {3, 4}, DType::Float64, -1, 1), random_array(rng, {3, 3}, DType::Float64, -1, 1),
                    ivec({1, 1, 3}, DType::Int32)});
  }

  TEST_CASE("AdvancedIncSubtensor1: errors") {
    Var x = dmatrix("x"), y = dmatrix("y");
    Var il = lvector("il");
    const NDArray xv = NDArray::zeros({3, 2});
    for (bool inplace : {false, true}) {
      for (bool set : {false, true}) {
        CAPTURE(inplace);
        CAPTURE(set);
        OpPtr op(new AdvancedIncSubtensor1(inplace, set));
        check_error<IndexError>({x, y, il}, {op->apply1({x, y, il})}, {xv, NDArray::zeros({2, 2}), ivec({0, 3})},
                                "AdvancedIncSubtensor1");
        check_error<IndexError>({x, y, il}, {op->apply1({x, y, il})}, {xv, NDArray::zeros({1, 2}), ivec({-4})},
                                "index -4");
        check_error<ShapeError>({x, y, il}, {op->apply1({x, y, il})}, {xv, NDArray::zeros({3, 2}), ivec({0, 1})},
                                "AdvancedIncSubtensor1");
        check_error<ShapeError>({x, y, il}, {op->apply1({x, y, il})}, {xv, NDArray::zeros({2, 3}), ivec({0, 1})},
                                "AdvancedIncSubtensor1");
      }
    }
  }
}
