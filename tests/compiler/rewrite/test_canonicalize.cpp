// The algebra family of canonicalize/specialize: the Canonizer (add and mul),
// neg_div_neg, sum of a product by a scalar, fill cut / sink, useless
// arithmetic and casts, x*x and small integer powers. Each: the graph before /
// after (equal_computations against a hand-built graph) and the numeric check
// of check_rewrite; plus the driver's cap (no rewrite of the family cycles).
#include <doctest/doctest.h>

#include <iostream>
#include <functional>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var c0d(double v) { return T::constant(NDArray::scalar<double>(v)); }
Var ci(std::int64_t v, DType dt) { return T::constant(NDArray::full({1}, static_cast<double>(v), dt)); }

// A deterministic test value of `v`'s dtype (integers in 1..5: no zero divisors).
NDArray typed_value(const Var& v, int salt) {
  const T::TensorType* t = T::tensor_type(v);
  NDArray a = value_for(v, salt);
  if (!is_integer(t->dtype())) return a.astype(t->dtype());
  double* p = a.data_as<double>();
  for (std::int64_t i = 0; i < a.size(); ++i) p[i] = 1.0 + static_cast<double>((i * 7 + salt) % 5);
  return a.astype(t->dtype());
}

// Elemwise{Composite{body(s)}}(x), s a scalar of x's dtype (what local_pow_specialize makes of x**n).
Var elemwise_of(const Var& x, const std::function<Var(const Var&)>& body) {
  const Var s = T::ScalarType::make(T::tensor_type(x)->dtype())->make_variable();
  return T::elemwise(T::ScalarOpPtr(new T::Composite({s}, body(s))), {x});
}
Var ssqr(const Var& a) { return T::scalar_op("sqr")->apply1({a}); }
// x**3 computed in `dt`: x * sqr(x), x converted first when its dtype differs.
Var cube(const Var& x, DType dt) {
  return elemwise_of(x, [dt, &x](const Var& s) {
    const Var so = T::tensor_type(x)->dtype() == dt ? s : T::scalar_cast_op(dt)->apply1({s});
    return T::scalar_op("mul")->apply1({so, ssqr(so)});
  });
}

// check_rewrite for any input dtypes, optimizing under fast_run without fusion,
// inplace and `also_excluded`; also checks that no rewrite hit its use cap.
void check_exact(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected,
                 const std::vector<std::string>& also_excluded = {}) {
  std::vector<std::string> excl{"fusion", "inplace"};
  excl.insert(excl.end(), also_excluded.begin(), also_excluded.end());
  FunctionGraph fg(ins, outs);
  rewrite::RewriteStats stats = rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding(excl));
  CHECK(stats.capped.empty());
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same)
    std::cerr << "Input:\n"
              << debugprint(outs) << "Output:\n"
              << debugprint(fg) << "Expected:\n"
              << debugprint(expected);
  CHECK(same);
  std::vector<NDArray> args;
  for (std::size_t i = 0; i < ins.size(); ++i) args.push_back(typed_value(ins[i], static_cast<int>(i)));
  FunctionOptions raw, opt;
  raw.mode = "unoptimized";
  opt.optimizer_excluding = excl;
  const auto want = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, raw)(args);
  const auto got = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()}, opt)(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].dtype() == want[i].dtype());
    CHECK(close_enough(got[i], want[i]));
  }
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_add_canonizer: cancels, merges constants, keeps order") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    check_rewrite({x, y}, {T::exp((x + y) - x)}, {T::exp(y)});
    check_rewrite({x, y, z}, {T::exp((x - (z - y)) - x)}, {T::exp(y - z)});
    check_rewrite({x, y}, {T::exp(-(y - x) + c(0))}, {T::exp(x - y)});
    check_rewrite({x}, {T::exp((x + c(1)) + c(2))}, {T::exp(x + c(3))});
    check_rewrite({x}, {T::exp((c(1) - x) - c(1))}, {T::exp(-x)});
    check_rewrite({x, y}, {T::exp(x + y)}, {T::exp(x + y)});  // already canonical
    check_rewrite({x, y}, {T::exp(x - y)}, {T::exp(x - y)});
    // x - x: a zero of x's shape (then fill sink + constant folding of exp(0)).
    check_rewrite({x}, {T::exp(x - x)}, {T::second(x, c(1))});
  }

  TEST_CASE("local_add_canonizer: broadcasting and run-time shape are kept") {
    Var m = T::dmatrix("m"), v = T::dvector("v");
    Var one = T::tensor(DType::Float64, {1}, "one"), x = T::dvector("x");
    // v alone would be a vector: it is broadcast back against m.
    check_rewrite({m, v}, {(m + v) - m}, {T::second(m, v.dimshuffle({T::kNewAxis, 0}))});
    // `one` has static size 1 where the output's size is unknown: not `one` alone.
    check_rewrite({x, one}, {(x + one) - x}, {T::second(x, one)});
    Var s = T::dscalar("s");
    check_rewrite({s}, {(s + c0d(2.0)) - s}, {c0d(2.0)});
  }

  TEST_CASE("local_add_canonizer: integers keep their dtype, shared subtrees are not duplicated") {
    Var i = T::ivector("i"), j = T::ivector("j");
    check_exact({i, j}, {(i + j) - i}, {j});
    check_exact({i}, {(i + ci(1, DType::Int32)) + ci(2, DType::Int32)}, {i + ci(3, DType::Int32)});
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    Var shared = x + y;
    check_exact({x, y, z}, {shared - z, shared * c(2)}, {shared - z, T::mul(c(2), shared)});
  }

  TEST_CASE("local_mul_canonizer: cancels, merges constants, divides only floats") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    check_rewrite({x, y}, {T::exp((x * y) / x)}, {T::exp(y)});
    check_rewrite({x, y, z}, {T::exp((x / (z / y)) / x)}, {T::exp(y / z)});
    check_rewrite({x}, {T::exp((x * c(2)) * c(3))}, {T::exp(T::mul(c(6), x))});
    check_rewrite({x, y}, {T::exp(x * T::reciprocal(x) * y)}, {T::exp(y)});
    check_rewrite({x, y}, {T::exp(x * y)}, {T::exp(x * y)});
    check_rewrite({x, y}, {T::exp(x / y)}, {T::exp(x / y)});
    check_rewrite({x}, {x / x}, {T::second(x, c(1))});
    check_rewrite({x, y}, {T::exp(c(1) / (x * y) * c(2))}, {T::exp(c(2) / (x * y))});
    Var f = T::fvector("f"), g = T::fvector("g");
    check_exact({f, g}, {(f * g) / f}, {g});
    Var i = T::ivector("i");
    check_exact({i}, {(i * ci(2, DType::Int32)) * ci(3, DType::Int32)}, {T::mul(ci(6, DType::Int32), i)});
  }

  TEST_CASE("a float tree over integer leaves converts them before the product or sum (no integer overflow)") {
    // k0 / (k2 / x1) has float64 nodes only; its canonical form must not
    // multiply the int64 leaves k0 * x1 in int64 (it wraps near 2^62).
    Var k0 = T::lscalar("k0"), k2 = T::lscalar("k2"), x1 = T::lvector("x1");
    Var out = k0 / (k2 / x1);
    check_exact({k0, k2, x1}, {out},
                {T::true_div(T::mul(T::cast(k0.dimshuffle({T::kNewAxis}), DType::Float64), T::cast(x1, DType::Float64)),
                             T::cast(k2.dimshuffle({T::kNewAxis}), DType::Float64))});
    // x - k1 - k2: the sum of the two int64 subtrahends in float64.
    Var x = T::dvector("x"), k1 = T::lscalar("k1");
    check_exact({x, k1, k2}, {(x - k1) - k2},
                {T::sub(x, T::add(T::cast(k1.dimshuffle({T::kNewAxis}), DType::Float64),
                                  T::cast(k2.dimshuffle({T::kNewAxis}), DType::Float64)))});
    // Numerically at the int64 edge, against the unoptimized graph.
    const std::int64_t big = std::int64_t{1} << 62;
    const std::vector<NDArray> args{NDArray::scalar<std::int64_t>(3), NDArray::scalar<std::int64_t>(4),
                                    NDArray::from_vector(std::vector<std::int64_t>{big, -big, 5}, {3})};
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const NDArray want = function({k0, k2, x1}, {out}, raw)(args)[0];
    const NDArray got = function({k0, k2, x1}, {out})(args)[0];
    CHECK(allclose(got, want, 1e-12, 0));
    CHECK(got.at<double>({0}) == doctest::Approx(0.75 * static_cast<double>(big)));
  }

  TEST_CASE("canonizers and specialize do not cycle") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Var e = T::exp(((x * c(-1)) / (y * c(-1))) - (-(x * x)) + x / x + (c(0) - y) * c(1));
    FunctionGraph fg({x, y}, {e});
    rewrite::RewriteStats stats =
        rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    CHECK(stats.capped.empty());
    CHECK(stats.applied("local_add_canonizer") >= 1);
    CHECK(stats.applied("local_mul_canonizer") >= 1);
    check_rewrite({x, y}, {e}, {T::exp(T::add({x / y, T::sqr(x), c(1)}) - y)});
  }

  TEST_CASE("local_neg_div_neg: -(-a / b) -> a / b, -(c / b) -> (-c) / b") {
    Var a = T::dvector("a"), b = T::dvector("b");
    check_rewrite({a, b}, {T::exp(-(-a / b))}, {T::exp(a / b)});
    check_rewrite({b}, {T::exp(-(c(2) / b))}, {T::exp(c(-2) / b)});
    Var i = T::ivector("i");
    // Integer numerator: -(-i) wraps, so the negations stay (the float tree converts -i to float64).
    check_exact({i, b}, {-(-i / b)}, {-(T::cast(-i, DType::Float64) / b)});
  }

  TEST_CASE("local_sum_scalar_mul: sum(s * x) -> s * sum(x), sum(-x) -> -sum(x)") {
    Var s = T::dscalar("s"), m = T::dmatrix("m");
    check_rewrite({s, m}, {T::sum(s * m)}, {s * T::sum(m)});
    check_rewrite({s, m}, {T::sum(s * m, 0)}, {T::mul(s.dimshuffle({T::kNewAxis}), T::sum(m, 0))});
    check_rewrite({s, m}, {T::sum(s * m, 1, true)},
                  {T::mul(s.dimshuffle({T::kNewAxis, T::kNewAxis}), T::sum(m, 1).dimshuffle({0, T::kNewAxis}))});
    check_rewrite({m}, {T::sum(-m, 1)}, {-T::sum(m, 1)});
    Var v = T::dvector("v");
    check_rewrite({v, m}, {T::sum(v * m)}, {T::sum(v * m)});  // v is not broadcast on every axis
    Var i = T::imatrix("i"), k = T::iscalar("k");
    check_exact({k, i}, {T::sum(k * i)}, {T::sum(k * i)});  // integer sum: dtype changes
  }

  TEST_CASE("local_mul_specialize: x*x -> sqr(x), local_pow_specialize: x**3, x**4") {
    Var x = T::dvector("x"), i = T::ivector("i");
    check_rewrite({x}, {x * x}, {T::sqr(x)});
    // x**3, x**4: one Elemwise{Composite} of the squarings (test_simplify.cpp)
    check_rewrite({x}, {T::pow(x, c(3))}, {cube(x, DType::Float64)});
    check_rewrite({x}, {T::pow(x, c(4))}, {elemwise_of(x, [](const Var& s) { return ssqr(ssqr(s)); })});
    check_exact({i}, {T::pow(i, ci(3, DType::Int32))}, {cube(i, DType::Int32)});
    // int ** float64 3 is a float64 power: the products are float64 (an int product would wrap first).
    check_exact({i}, {T::pow(i, c(3))}, {cube(i, DType::Float64)});
  }

  TEST_CASE("local_fill_cut and local_fill_sink") {
    Var m = T::dmatrix("m"), v = T::dvector("v"), w = T::dvector("w");
    // m alone already gives the output its shape: the fill is cut.
    check_rewrite({m, v}, {T::second(m, v) + m}, {T::add(v.dimshuffle({T::kNewAxis, 0}), m)});
    // w does not: the fill is sunk past the add and the exp.
    check_rewrite({m, v, w}, {T::exp(T::second(m, v) + w)},
                  {T::second(m, T::exp(T::add(v.dimshuffle({T::kNewAxis, 0}), w.dimshuffle({T::kNewAxis, 0}))))});
  }

  TEST_CASE("local_useless_arith and local_useless_cast") {
    Var x = T::dvector("x"), i = T::ivector("i");
    check_exact({i}, {T::int_div(i, ci(1, DType::Int32))}, {i});
    check_rewrite({x}, {T::exp(T::elemwise(T::scalar_cast_op(DType::Float64), {x}))}, {T::exp(x)});
    check_exact({i}, {T::exp(T::elemwise(T::scalar_cast_op(DType::Float64), {i}))},
                {T::exp(T::elemwise(T::scalar_cast_op(DType::Float64), {i}))});
    check_rewrite({x}, {T::int_div(x, c(1))}, {T::int_div(x, c(1))});  // floor(x) for floats
    const std::vector<std::string> no_canon{"local_add_canonizer", "local_mul_canonizer"};
    check_exact({x}, {T::exp(x - c(0))}, {T::exp(x)}, no_canon);
    check_exact({x}, {T::exp(x / c(1))}, {T::exp(x)}, no_canon);
    check_exact({x}, {T::exp(c(0) - x)}, {T::exp(c(0) - x)}, no_canon);
  }
}
