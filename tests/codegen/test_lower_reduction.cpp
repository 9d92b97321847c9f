// Lowerings of CAReduce (sum, prod, max, min, all, any, prod_without_zeros)
// and ArgReduce (argmax, argmin): generated code against perform.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
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

using Dims = std::vector<std::int64_t>;

Var careduce(const std::string& op, std::vector<int> axes, const Var& x, std::optional<DType> dtype = {},
             std::optional<DType> acc = {}) {
  return OpPtr(new CAReduce(op, std::move(axes), dtype, acc))->make_node({x})->output(0);
}

Var argreduce(bool is_max, std::vector<int> axes, const Var& x) {
  return OpPtr(new ArgReduce(is_max, std::move(axes)))->make_node({x})->output(0);
}

/// Every subset of {0, ..., nd-1} (sorted).
std::vector<std::vector<int>> all_axis_sets(int nd) {
  std::vector<std::vector<int>> r;
  for (int m = 0; m < (1 << nd); ++m) {
    std::vector<int> a;
    for (int d = 0; d < nd; ++d)
      if (m & (1 << d)) a.push_back(d);
    r.push_back(a);
  }
  return r;
}

/// Test shapes of rank 0..4 (with empty dimensions when `with_empty`); the
/// larger ones exercise the fast paths' 16-accumulator and column-chunk loops.
std::vector<std::vector<Dims>> shapes_by_rank(bool with_empty) {
  std::vector<std::vector<Dims>> r = {
      {Dims{}},
      {Dims{5}, Dims{1}, Dims{100}, Dims{33}},
      {Dims{3, 4}, Dims{1, 7}, Dims{7, 1}, Dims{37, 41}, Dims{5, 600}, Dims{600, 5}, Dims{3, 1100}, Dims{3, 5000}},
      {Dims{2, 3, 4}, Dims{4, 1, 300}, Dims{3, 40, 20}},
      {Dims{2, 3, 2, 5}, Dims{3, 1, 4, 20}},
  };
  if (with_empty) {
    r[1].insert(r[1].begin() + 1, Dims{0});
    r[2].insert(r[2].begin() + 1, Dims{0, 3});
    r[2].insert(r[2].begin() + 3, Dims{3, 0});
    r[3].insert(r[3].begin() + 1, Dims{2, 0, 3});
    r[4].insert(r[4].begin() + 1, Dims{2, 3, 0, 1});
  }
  return r;
}

std::size_t max_count(const std::vector<std::vector<Dims>>& shapes) {
  std::size_t n = 0;
  for (const auto& s : shapes) n = std::max(n, s.size());
  return n;
}

/// Value range for an op and dtype (keeps products finite and all/any mixed).
std::pair<double, double> range_for(const std::string& op, DType dt) {
  if (dt == DType::Bool) return {0, 2};
  if (op == "mul" || op == "mul_without_zeros") return is_float(dt) ? std::pair{0.9, 1.1} : std::pair{-3.0, 4.0};
  if (op == "and" || op == "or") return is_float(dt) ? std::pair{0.0, 1.0} : std::pair{0.0, 1.3};
  if (op == "add") return is_float(dt) ? std::pair{0.5, 2.0} : std::pair{-50.0, 50.0};
  return is_float(dt) ? std::pair{-10.0, 10.0} : std::pair{-100.0, 100.0};
}

/// For float and/or tests: exact zeros in some places.
NDArray with_zeros(std::mt19937_64& rng, NDArray a) {
  if (!is_float(a.dtype()) || a.size() == 0) return a;
  NDArray f = a.astype(DType::Float64);
  double* p = f.data_as<double>();
  for (std::int64_t k = 0; k < f.size(); ++k)
    if (rng() % 3 == 0) p[k] = 0;
  return f.astype(a.dtype());
}

}  // namespace

TEST_SUITE("lower reduction") {
  TEST_CASE("CAReduce: every scalar op, dtype, shape and axis subset") {
    std::mt19937_64 rng(11);
    const char* ops[] = {"add", "mul", "maximum", "minimum", "and", "or", "mul_without_zeros"};
    for (const char* op : ops) {
      CAPTURE(op);
      const bool no_identity = std::string(op) == "maximum" || std::string(op) == "minimum";
      for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Int8, DType::UInt16, DType::Bool}) {
        CAPTURE(dtype_name(dt));
        // Inputs of rank 0..4, each reduced over every subset of its axes.
        std::vector<Var> ins, outs;
        for (int nd = 0; nd <= 4; ++nd) {
          ins.push_back(any_tensor(dt, nd, "x" + std::to_string(nd)));
          for (const auto& axes : all_axis_sets(nd)) outs.push_back(careduce(op, axes, ins.back()));
        }
        // max/min of an empty reduction raise (tested below): non-empty shapes only.
        const auto shapes = shapes_by_rank(!no_identity);
        const auto [lo, hi] = range_for(op, dt);
        std::vector<std::vector<NDArray>> sets;
        for (std::size_t k = 0; k < max_count(shapes); ++k) {
          std::vector<NDArray> set;
          for (int nd = 0; nd <= 4; ++nd) {
            const auto& opts = shapes[static_cast<std::size_t>(nd)];
            NDArray v = random_array(rng, opts[k % opts.size()], dt, lo, hi);
            if (std::string(op) == "and" || std::string(op) == "or") v = with_zeros(rng, v);
            set.push_back(v);
          }
          sets.push_back(set);
        }
        check_sets(ins, outs, sets);
      }
    }
  }

  TEST_CASE("CAReduce with a fused elementwise op: every scalar op, shape, axis subset, layout and dtype mix") {
    std::mt19937_64 rng(13);
    auto sd = ScalarType::make(DType::Float64), sf = ScalarType::make(DType::Float32);
    Var a = sd->make_variable("a"), b = sf->make_variable("b");
    // a * exp(b) - 0.5 over a float64 and a float32 input.
    Var body = scalar_op("mul")->apply1({a, scalar_op("exp")->apply1({b})});
    ScalarOpPtr pre(new Composite({a, b}, scalar_op("sub")->apply1({body, sd->make_constant(NDArray::scalar(0.5))})));
    for (const char* op : {"add", "mul", "maximum", "minimum"}) {
      CAPTURE(op);
      std::vector<Var> ins, outs;
      for (int nd = 1; nd <= 3; ++nd) {
        Var x = any_tensor(DType::Float64, nd, "x" + std::to_string(nd));
        Var y = any_tensor(DType::Float32, nd, "y" + std::to_string(nd));
        ins.push_back(x);
        ins.push_back(y);
        for (const auto& axes : all_axis_sets(nd))
          if (!axes.empty()) outs.push_back(CAReduce(op, axes).with_pre(pre)->make_node({x, y})->output(0));
      }
      const auto shapes = shapes_by_rank(false);
      std::vector<std::vector<NDArray>> sets;
      for (std::size_t k = 0; k < max_count(shapes); ++k) {
        std::vector<NDArray> set;
        for (int nd = 1; nd <= 3; ++nd) {
          const auto& opts = shapes[static_cast<std::size_t>(nd)];
          const Dims shape = opts[k % opts.size()];
          set.push_back(random_array(rng, shape, DType::Float64, -1, 1));
          set.push_back(random_array(rng, shape, DType::Float32, -0.2, 0.2));
        }
        sets.push_back(set);
      }
      // exp(b) is a float32 value (rounded to float32, issue 33); the code
      // computes it in float (expf), perform in double then rounded: they
      // agree within float32 rounding.
      check_sets(ins, outs, sets, Agreement{.rtol = 1e-5, .atol = 1e-6});
    }
    // Inputs of different run-time shapes are a ShapeError naming the node.
    Var x = dmatrix("x"), y = fmatrix("y");
    Var s = CAReduce("add", {1}).with_pre(pre)->make_node({x, y})->output(0);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, y}, std::vector<Var>{s});
    check_error<ShapeError>(fg, *lowered_thunk(fg), {NDArray::zeros({2, 3}), NDArray::zeros({2, 4}, DType::Float32)},
                            "Sum{axes=(1,), fused=", "must have the same shape");
    // The flat fold prefetches each input a page ahead where the CPU gains
    // by it, in integer arithmetic (the address may lie past the input).
    const std::string src = codegen::CLinker::generate_source(*fg, {}, false);
    for (const char* ahead : {"THEANO_PREFETCH_NEXT_PAGE(p0 + k);", "THEANO_PREFETCH_NEXT_PAGE(p1 + k);"})
      CHECK(src.find(ahead) != std::string::npos);
    CHECK(codegen::CLinker::prelude().find("__builtin_prefetch((const void*)((uint64_t)(p) + 4096))") !=
          std::string::npos);
  }

  TEST_CASE("CAReduce: sums and products of empty axes give the identity") {
    std::mt19937_64 rng(3);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int64}) {
      Var x = any_tensor(dt, 3, "x");
      std::vector<Var> outs;
      for (const char* op : {"add", "mul", "and", "or", "mul_without_zeros"})
        for (const auto& axes : all_axis_sets(3)) outs.push_back(careduce(op, axes, x));
      for (const Dims& s : {Dims{0, 3, 4}, Dims{2, 0, 4}, Dims{2, 3, 0}, Dims{0, 0, 0}})
        check_lowering({x}, outs, {random_array(rng, s, dt, 0, 3)});
    }
    // An empty axis beside a long one (bench/fuzz, graph 81 of stream
    // 20261122: 2^37 x 0): the identity is written without walking the long
    // axis, whatever the input's layout.
    Var x = dmatrix("x");
    const std::vector<Var> outs{careduce("add", {0, 1}, x), careduce("mul", {0, 1}, x), careduce("add", {0}, x)};
    const std::int64_t big = std::int64_t{1} << 37;
    check_lowering({x}, outs, {NDArray::zeros({big, 0})});
    check_lowering({x}, outs, {NDArray::zeros({0, big}).transpose()});
  }

  TEST_CASE("CAReduce: max/min over an empty axis is a ValueError naming the op, kept empty axes are fine") {
    for (const char* op : {"maximum", "minimum"}) {
      Var x = any_tensor(DType::Float64, 2, "x");
      Var y = careduce(op, {0}, x);
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{y});
      auto cpp = lowered_thunk(fg);
      std::vector<NDArray> out(1);
      const std::vector<NDArray> bad{NDArray::zeros({0, 3})};
      CHECK_THROWS_AS(cpp->run(bad, out), ValueError);
      const std::string msg = test::error_of([&] { cpp->run(bad, out); });
      CHECK(msg.find(std::string(op) == "maximum" ? "Max{axes=(0,)}" : "Min{axes=(0,)}") != std::string::npos);
      CHECK(msg.find("no identity") != std::string::npos);
      CHECK(msg.find("(0, 3)") != std::string::npos);
      // The output is empty: no error, as perform.
      check_lowering({x}, {y}, {NDArray::zeros({3, 0})});
      // And the thunk still works.
      const std::vector<NDArray> ok{NDArray::ones({2, 3})};
      cpp->run(ok, out);
      CHECK(out[0].shape() == Dims{3});
    }
  }

  TEST_CASE("CAReduce: NaN propagates through max and min, infinities") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (DType dt : {DType::Float64, DType::Float32}) {
      Var x = any_tensor(dt, 2, "x");
      std::vector<Var> outs;
      for (const char* op : {"maximum", "minimum", "add", "and", "or"})
        for (const auto& axes : all_axis_sets(2)) outs.push_back(careduce(op, axes, x));
      NDArray v = NDArray::from_list<double>({1, nan, -3, 2, -inf, 4, 5, 6, inf, 0, 0, 0}).reshape({4, 3});
      check_lowering({x}, outs, {v.astype(dt)});
      // Long rows (the 16-accumulator flat fold) with a NaN in the middle / at the end.
      std::mt19937_64 rng(5);
      NDArray w = random_array(rng, {3, 70}, DType::Float64, -5, 5);
      w.data_as<double>()[33] = nan;
      w.data_as<double>()[3 * 70 - 1] = nan;
      check_lowering({x}, outs, {w.astype(dt)});
      // Tall columns (folded eight rows at a time, then the rest one by one):
      // a NaN inside an eight-row block, one in the tail rows, an infinity.
      NDArray c = random_array(rng, {19, 40}, DType::Float64, -5, 5);
      c.data_as<double>()[11 * 40 + 3] = nan;
      c.data_as<double>()[17 * 40 + 9] = nan;
      c.data_as<double>()[5 * 40 + 20] = -inf;
      check_lowering({x}, outs, {c.astype(dt)});
    }
  }

  TEST_CASE("CAReduce: dtype and acc_dtype variants, integer wrap-around") {
    std::mt19937_64 rng(17);
    struct Case {
      const char* op;
      DType in;
      std::optional<DType> dtype, acc;
      double lo, hi;
    };
    const Case cases[] = {
        {"add", DType::Int8, DType::Int8, {}, -120, 120},          // wraps in int8
        {"add", DType::Int8, {}, {}, -120, 120},                   // int64 output
        {"add", DType::UInt8, {}, {}, 0, 250},                     // uint64 output
        {"add", DType::Bool, {}, {}, 0, 2},                        // int64 count
        {"add", DType::Bool, DType::Bool, {}, 0, 2},               // or
        {"mul", DType::Bool, DType::Bool, {}, 0, 2},               // and
        {"add", DType::Int64, DType::Int16, {}, -30000, 30000},    // wraps in int16
        {"mul", DType::Int32, {}, {}, -9, 9},                      // int64 products, wraps
        {"mul", DType::Int16, DType::Int16, {}, -9, 9},            // wraps in int16
        {"mul_without_zeros", DType::Int64, DType::Int8, {}, -300, 300},  // zero test after the int8 cast
        {"add", DType::Float32, {}, DType::Float64, 0.5, 2},       // float64 accumulator
        {"add", DType::Float64, DType::Float32, {}, 0.5, 2},       // float32 output and accumulator
        {"add", DType::Float64, DType::Float64, DType::Float32, 0.5, 2},  // float32 accumulator
        {"add", DType::Int32, DType::Float64, {}, -100, 100},      // int -> float64
        {"add", DType::Float64, {}, DType::Int64, -100, 100},      // float values truncated to int64
        {"mul", DType::Float32, DType::Float64, {}, 0.9, 1.1},
        {"add", DType::UInt64, {}, {}, 0, 1e18},                   // uint64 wraps
    };
    for (const Case& c : cases) {
      CAPTURE(c.op);
      CAPTURE(dtype_name(c.in));
      CAPTURE(c.dtype ? dtype_name(*c.dtype) : "default");
      CAPTURE(c.acc ? dtype_name(*c.acc) : "default");
      Var x = any_tensor(c.in, 2, "x");
      std::vector<Var> outs;
      for (const auto& axes : all_axis_sets(2)) outs.push_back(careduce(c.op, axes, x, c.dtype, c.acc));
      for (const Dims& s : {Dims{4, 5}, Dims{50, 40}, Dims{3, 300}, Dims{0, 2}, Dims{1, 1}})
        check_lowering({x}, outs, {random_array(rng, s, c.in, c.lo, c.hi)}, is_float(c.in) ? 1e-5 : 0);
    }
  }

  TEST_CASE("CAReduce: the graph helpers with keepdims, and broadcast (stride 0) inputs") {
    std::mt19937_64 rng(23);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32}) {
      Var x = any_tensor(dt, 3, "x");
      const std::vector<Var> outs{sum(x, {0, 2}, true), prod(x, 1, true), tensor::max(x, {}, true),
                                  tensor::min(x, 2, true), all_(x, 0, true), any_(x, {1, 2}, true),
                                  sum(x, {}, true),      mean(x, {0, 1}, true)};
      for (const Dims& s : {Dims{2, 3, 4}, Dims{1, 5, 1}, Dims{4, 1, 30}})
        check_lowering({x}, outs, {random_array(rng, s, dt, is_float(dt) ? 0.9 : -3, is_float(dt) ? 1.1 : 4)});
    }
    // A broadcast input (stride 0 in dimension 0).
    Var x = any_tensor(DType::Float64, 2, "x");
    const std::vector<Var> outs{sum(x, 0), sum(x, 1), tensor::max(x), prod(x, 0), argmax(x, 0), argmin(x, 1)};
    NDArray row = random_array(rng, {1, 6}, DType::Float64, 0.5, 1.5);
    NDArray b = NDArray::from_strided(row.owner(), row.data(), DType::Float64, {5, 6}, {0, 8});
    check_lowering({x}, outs, {b});
  }

  TEST_CASE("CAReduce: a node compiles the contiguous forms its input type allows") {
    // Over the trailing axes: no column form; over the leading ones: no row
    // form and no flat fold (the columns form takes a one-value case); both
    // where the sizes can occur (and run, with sizes of 1 at run time too);
    // dimensions of size 1 by type count as absent. "f": the flat fold.
    auto forms = [](const Var& x, const Var& out) {
      const std::string src =
          codegen::CLinker::generate_source(FunctionGraph({x}, {out}), {}, false);
      return std::string(src.find("_flat(const") != std::string::npos ? "f" : "") +
             (src.find("_rows(void*") != std::string::npos ? "r" : "") +
             (src.find("_columns(void*") != std::string::npos ? "c" : "");
    };
    Var x = any_tensor(DType::Float64, 2, "x");
    CHECK(forms(x, careduce("add", {1}, x)) == "fr");
    CHECK(forms(x, careduce("add", {0}, x)) == "c");
    CHECK(forms(x, careduce("add", {0, 1}, x)) == "f");
    Var t = any_tensor(DType::Float64, 3, "t");
    CHECK(forms(t, careduce("add", {1}, t)) == "frc");
    CHECK(forms(t, careduce("add", {0, 1}, t)) == "c");
    Var col = TensorType::from_broadcastable(DType::Float64, {false, true})->make_variable("col");
    CHECK(forms(col, careduce("add", {0}, col)) == "f");
    Var row = TensorType::from_broadcastable(DType::Float64, {true, false})->make_variable("row");
    CHECK(forms(row, careduce("add", {1}, row)) == "f");
    std::mt19937_64 rng(31);
    for (const Dims& s : {Dims{1, 1}, Dims{300, 1}, Dims{1, 300}, Dims{70, 90}})
      check_lowering({x}, {careduce("add", {1}, x), careduce("add", {0}, x), careduce("maximum", {0, 1}, x)},
                     {random_array(rng, s, DType::Float64, -2, 2)});
    for (const Dims& s : {Dims{1, 1, 1}, Dims{40, 1, 1}, Dims{1, 1, 40}, Dims{6, 70, 9}})
      check_lowering({t}, {careduce("add", {1}, t)}, {random_array(rng, s, DType::Float64, -2, 2)});
    check_lowering({col}, {careduce("add", {0}, col)}, {random_array(rng, {5000, 1}, DType::Float64, -2, 2)});
    // Leading axes with every kept size 1 at run time: one column (8-row steps and the rest).
    Var xf = any_tensor(DType::Float32, 2, "xf");
    for (const Dims& s : {Dims{20003, 1}, Dims{7, 1}, Dims{1, 1}})
      check_lowering({xf}, {careduce("add", {0}, xf), careduce("maximum", {0}, xf)},
                     {random_array(rng, s, DType::Float32, -2, 2)});
    for (const Dims& s : {Dims{13, 17, 1}, Dims{1, 1, 1}})
      check_lowering({t}, {careduce("add", {0, 1}, t)}, {random_array(rng, s, DType::Float64, -2, 2)});
    check_lowering({row}, {careduce("add", {1}, row)}, {random_array(rng, {1, 5000}, DType::Float64, -2, 2)});
  }

  TEST_CASE("CAReduce and ArgReduce: rows wider than the column chunks") {
    std::mt19937_64 rng(37);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int64}) {
      Var x = any_tensor(dt, 3, "x");
      const std::vector<Var> outs{careduce("add", {0}, x), careduce("maximum", {0, 1}, x), careduce("mul", {1}, x),
                                  argreduce(true, {0}, x), argreduce(false, {0, 1}, x)};
      check_sets({x}, outs,
                 {{random_array(rng, {3, 1, 9000}, dt, 0.9, 1.1)}, {random_array(rng, {2, 2, 17000}, dt, -3, 3)}});
    }
  }

  TEST_CASE("ArgReduce: argmax / argmin over every axis subset, dtypes, ties") {
    std::mt19937_64 rng(29);
    for (bool is_max : {true, false}) {
      CAPTURE(is_max);
      for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::UInt8, DType::Bool}) {
        CAPTURE(dtype_name(dt));
        std::vector<Var> ins, outs;
        for (int nd = 0; nd <= 4; ++nd) {
          ins.push_back(any_tensor(dt, nd, "x" + std::to_string(nd)));
          for (const auto& axes : all_axis_sets(nd)) outs.push_back(argreduce(is_max, axes, ins.back()));
        }
        const auto shapes = shapes_by_rank(false);  // empty sequences: tested below
        std::vector<std::vector<NDArray>> sets;
        for (std::size_t k = 0; k < max_count(shapes); ++k) {
          std::vector<NDArray> set;
          for (int nd = 0; nd <= 4; ++nd) {
            const auto& opts = shapes[static_cast<std::size_t>(nd)];
            // Few distinct values: many ties (the first occurrence wins).
            const bool fl = is_float(dt);
            NDArray v = random_array(rng, opts[k % opts.size()], dt, fl ? -3 : 0, fl ? 3 : 5);
            if (fl) v = v.astype(DType::Int64).astype(dt);
            set.push_back(v);
          }
          sets.push_back(set);
        }
        check_sets(ins, outs, sets);
      }
    }
  }

  TEST_CASE("ArgReduce: NaN wins (first one), helpers with keepdims") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (DType dt : {DType::Float64, DType::Float32}) {
      Var x = any_tensor(dt, 2, "x");
      std::vector<Var> outs{argmax(x), argmin(x), argmax(x, 0), argmin(x, 0), argmax(x, 1, true), argmin(x, -1, true)};
      NDArray v = NDArray::from_list<double>({1, nan, 3, 2, 7, nan, 5, 6, 0, nan, 9, 4}).reshape({3, 4});
      check_lowering({x}, outs, {v.astype(dt)});
      std::mt19937_64 rng(31);
      NDArray w = random_array(rng, {20, 300}, DType::Float64, -5, 5);
      w.data_as<double>()[2 * 300 + 7] = nan;
      w.data_as<double>()[2 * 300 + 200] = nan;
      w.data_as<double>()[15 * 300 + 7] = nan;
      check_lowering({x}, outs, {w.astype(dt)});
    }
  }

  TEST_CASE("ArgReduce: an empty sequence is a ValueError naming the op") {
    for (bool is_max : {true, false}) {
      Var x = any_tensor(DType::Float64, 2, "x");
      Var y = argreduce(is_max, {1}, x);
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{y});
      auto cpp = lowered_thunk(fg);
      std::vector<NDArray> out(1);
      const std::vector<NDArray> bad{NDArray::zeros({3, 0})};
      CHECK_THROWS_AS(cpp->run(bad, out), ValueError);
      const std::string msg = test::error_of([&] { cpp->run(bad, out); });
      CHECK(msg.find(is_max ? "Argmax" : "Argmin") != std::string::npos);
      CHECK(msg.find("empty sequence") != std::string::npos);
      // Empty output: fine.
      check_lowering({x}, {y}, {NDArray::zeros({0, 4})});
    }
  }
}
