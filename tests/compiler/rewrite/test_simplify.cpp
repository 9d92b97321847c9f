// The canonicalize / specialize simplifications of simplify.cpp and the
// integer powers, log(1 - x) and prod(s * x) forms beside them (PyTensor's
// tests/tensor/rewriting/test_math.py and test_basic.py cover the same
// families). Each: the graph before / after, the optimized function against the
// unoptimized one, and the cases that must NOT be rewritten (dtypes, NaN).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var cd(double v, DType dt) { return T::constant(NDArray::full({1}, v, dt)); }

// The one node local_pow_specialize makes of x**n: Elemwise{Composite{body(s)}}(x), s a scalar of x's dtype.
Var power_node(const Var& x, const std::function<Var(const Var&)>& body) {
  const Var s = T::ScalarType::make(T::tensor_type(x)->dtype())->make_variable();
  return T::elemwise(T::ScalarOpPtr(new T::Composite({s}, body(s))), {x});
}
Var smul(const Var& a, const Var& b) { return T::scalar_op("mul")->apply1({a, b}); }
Var ssqr(const Var& a) { return T::scalar_op("sqr")->apply1({a}); }
Var srec(const Var& a) { return T::scalar_op("reciprocal")->apply1({a}); }

NDArray run1(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args,
             const std::string& mode = "fast_run") {
  FunctionOptions o;
  o.mode = mode;
  return function({ins.begin(), ins.end()}, {out}, o)(args)[0];
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_mul_neg_const: negations folded into the product's constant or cancelled in pairs") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    check_rewrite({x}, {T::neg(x) * c(2)}, {T::mul(c(-2), x)});
    check_rewrite({x, y}, {T::neg(x) * T::neg(y)}, {x * y});
    // An odd number of negations: the sign stays one factor of the one Mul (local_neg_to_mul, local_mul_specialize).
    check_rewrite({x, y, z}, {T::mul({T::neg(x), T::neg(y), T::neg(z)})}, {T::mul({c(-1), x, y, z})});
    // One negation and no constant: nothing to fold into.
    check_rewrite({x, y}, {T::neg(x) * y}, {T::neg(x) * y});
    // Integers: -x * -y == x * y also under wrap-around, but the rule stays float-only (INT_MIN * -1).
    Var i = T::ivector("i"), j = T::ivector("j");
    FunctionGraph fg({i, j}, {T::neg(i) * T::neg(j)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    CHECK(count_nodes(fg, "neg") == 2);
  }

  TEST_CASE("local_mul_specialize: a zero factor gives zeros of the output's shape and dtype") {
    Var f = T::fvector("f"), i = T::ivector("i"), m = T::dmatrix("m");
    check_rewrite({f}, {f * cd(0, DType::Float32)}, {T::second(f, cd(0, DType::Float32))});
    FunctionGraph fg({i}, {i * cd(0, DType::Int32)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    CHECK(count_nodes(fg, "mul") == 0);
    NDArray z = run1({i}, i * cd(0, DType::Int32), {NDArray::from_list<std::int32_t>({5, -7, 9})});
    CHECK(z.dtype() == DType::Int32);
    CHECK(z.shape() == std::vector<std::int64_t>{3});
    CHECK(z.data_as<std::int32_t>()[1] == 0);
    // A (1, 1) zero against a matrix: the output keeps the matrix's shape.
    NDArray mz = run1({m}, m * T::constant(NDArray::full({1, 1}, 0.0, DType::Float64)), {range({2, 3})});
    CHECK(mz.shape() == std::vector<std::int64_t>{2, 3});
  }

  TEST_CASE("local_pow_specialize: integer powers up to 512 by repeated squaring, negative ones through reciprocal") {
    Var x = T::dvector("x"), i = T::ivector("i");
    check_rewrite({x}, {T::pow(x, c(5))}, {power_node(x, [](const Var& s) { return smul(s, ssqr(ssqr(s))); })});
    check_rewrite({x}, {T::pow(x, c(8))}, {power_node(x, [](const Var& s) { return ssqr(ssqr(ssqr(s))); })});
    check_rewrite({x}, {T::pow(x, c(-3))}, {power_node(x, [](const Var& s) { return srec(smul(s, ssqr(s))); })});
    check_rewrite({x}, {T::pow(x, c(513))}, {T::pow(x, c(513))});
    // 2^i products match pow at 10 significant digits even for exponent 512 (|x| near 1).
    NDArray a = run1({x}, T::pow(x, c(512)), {vec({1.001, -0.999, 0.0})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(std::pow(1.001, 512)).epsilon(1e-12));
    CHECK(a.data_as<double>()[1] == doctest::Approx(std::pow(0.999, 512)).epsilon(1e-12));
    CHECK(a.data_as<double>()[2] == 0.0);
    // An integer to a negative power is an error in pow: it is not rewritten into a reciprocal.
    Var neg3 = cd(-3, DType::Int32);
    FunctionGraph fg({i}, {T::pow(i, neg3)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    CHECK(count_nodes(fg, "pow") == 1);
  }

  TEST_CASE("local_pow_specialize: x**n for |n| > 2 is ONE node after specialize and after fusion, values as std::pow") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::pow(x, c(7))}, {power_node(x, [](const Var& s) {
                    const Var s2 = ssqr(s);
                    return smul(smul(s, s2), ssqr(s2));
                  })});
    const std::vector<double> xs{0.5, -1.25, 1.1, 3.0, -2.0, 0.999};
    for (DType dt : {DType::Float32, DType::Float64}) {
      for (int n : {3, 4, 7, -3, -5}) {
        const std::string dtn(dtype_name(dt));
        CAPTURE(dtn);
        CAPTURE(n);
        Var v = T::vector("v", dt);
        const Var p = T::pow(v, T::constant(NDArray::full({1}, n, dt)));
        FunctionGraph spec({v}, {p});
        rewrite::optimize(spec, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
        CHECK(spec.apply_nodes().size() == 1);  // specialize: one Elemwise{Composite}, not a chain of products
        FunctionGraph fused({v}, {p});
        rewrite::optimize(fused, rewrite::mode_query("fast_run"));
        CHECK(fused.apply_nodes().size() == 1);
        FunctionOptions o;
        o.mode = "fast_run";
        NDArray in = vec({0.5, -1.25, 1.1, 3.0, -2.0, 0.999}).astype(dt);
        const NDArray got = function({v}, {p}, o)({in})[0].astype(DType::Float64);
        REQUIRE(got.dtype() == DType::Float64);
        for (std::size_t k = 0; k < xs.size(); ++k) {
          const double a = in.astype(DType::Float64).data_as<double>()[k];
          const double want = dt == DType::Float32 ? static_cast<double>(std::pow(static_cast<float>(a), n)) : std::pow(a, n);
          CHECK(got.data_as<double>()[k] == doctest::Approx(want).epsilon(dt == DType::Float32 ? 1e-6 : 1e-14));
        }
      }
    }
  }

  TEST_CASE("local_log1p: log(1 - x) -> log1p(-x), accurate for tiny x") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::log(c(1) - x)}, {T::log1p(T::neg(x))});
    NDArray a = run1({x}, T::log(c(1) - x), {vec({1e-18})});
    CHECK(a.data_as<double>()[0] == doctest::Approx(-1e-18).epsilon(1e-12));
  }

  TEST_CASE("local_exp_log: log(exp(x)) -> x, exp(log(x)) -> x where log is defined, NaN elsewhere") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::log(T::exp(x))}, {x});
    check_rewrite({x}, {T::log1p(T::expm1(x))}, {x});
    // The NaN constant compares unequal to itself, so the switch forms are checked by their ops.
    for (const Var& y : {T::exp(T::log(x)), T::expm1(T::log1p(x))}) {
      FunctionGraph fg({x}, {y});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
      CHECK(T::is_elemwise(fg.outputs()[0].owner(), "switch"));
      CHECK(count_nodes(fg, "exp") + count_nodes(fg, "log") + count_nodes(fg, "expm1") + count_nodes(fg, "log1p") == 0);
      const Constant* k = fg.outputs()[0].owner()->input(2).as_constant();
      REQUIRE(k);
      CHECK(std::isnan(k->data().astype(DType::Float64).contiguous().data_as<double>()[0]));
    }
    // log(exp(1000)) overflows naively; the rewritten graph gives 1000.
    NDArray a = run1({x}, T::log(T::exp(x)), {vec({1000, -1000})});
    CHECK(a.data_as<double>()[0] == 1000);
    CHECK(a.data_as<double>()[1] == -1000);
    NDArray b = run1({x}, T::exp(T::log(x)), {vec({-1, 0, 2})});
    CHECK(std::isnan(b.data_as<double>()[0]));
    CHECK(b.data_as<double>()[1] == 0);
    CHECK(b.data_as<double>()[2] == 2);
    // An integer input: exp(i) is a float, so log(exp(i)) is a cast of i.
    Var i = T::ivector("i");
    check_rewrite({i}, {T::log(T::exp(i))}, {T::log(T::exp(i))});
  }

  TEST_CASE("local_useless_comparison: x < x is false, x == x is true only where NaN cannot occur") {
    Var x = T::dvector("x"), i = T::ivector("i");
    FunctionGraph fg({x, i}, {T::lt(x, x), T::gt(x, x), T::eq(x, x), T::neq(x, x), T::eq(i, i), T::le(i, i), T::ge(i, i),
                              T::neq(i, i), T::lt(i, i)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    CHECK(count_nodes(fg, "lt") == 0);
    CHECK(count_nodes(fg, "gt") == 0);
    CHECK(count_nodes(fg, "eq") == 1);   // the float one
    CHECK(count_nodes(fg, "neq") == 1);  // the float one
    CHECK(count_nodes(fg, "le") == 0);
    CHECK(count_nodes(fg, "ge") == 0);
    check_rewrite({i}, {T::eq(i, i)}, {T::second(i, T::constant(NDArray::full({1}, 1.0, DType::Bool)))});
    NDArray e = run1({x}, T::eq(x, x), {vec({1, std::numeric_limits<double>::quiet_NaN()})});
    CHECK(e.data_as<bool>()[0]);
    CHECK(!e.data_as<bool>()[1]);
  }

  TEST_CASE("local_cast_cast: a cast of a lossless cast is one cast, a lossy one stays") {
    Var i = T::ivector("i"), d = T::dvector("d");
    check_rewrite({i}, {T::cast(T::cast(i, DType::Int64), DType::Float64)}, {T::cast(i, DType::Float64)});
    check_rewrite({i}, {T::cast(T::cast(i, DType::Float64), DType::Int32)}, {i});
    // float64 -> float32 rounds: cast(cast(d, float32), float64) is not d.
    check_rewrite({d}, {T::cast(T::cast(d, DType::Float32), DType::Float64)},
                  {T::cast(T::cast(d, DType::Float32), DType::Float64)});
    // int64 -> float64 is numpy-"safe" but not exact above 2^53.
    Var l = T::lvector("l");
    FunctionGraph fg({l}, {T::cast(T::cast(l, DType::Float64), DType::Int64)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int casts = 0;
    for (Apply* n : fg.apply_nodes()) casts += T::elemwise_scalar_op(n) && T::elemwise_scalar_op(n)->type_name() == "Cast";
    CHECK(casts == 2);
  }

  TEST_CASE("local_sum_scalar_mul: prod(s * x) -> s^n * prod(x)") {
    Var m = T::dmatrix("m");
    Var n = T::cast(T::dimshuffle(T::shape_i(m, 1), {T::kNewAxis}), DType::Float64);
    check_rewrite({m}, {T::prod(m * T::constant(NDArray::full({1, 1}, 2.0, DType::Float64)), 1)},
                  {T::mul(T::pow(c(2), n), T::prod(m, 1))});
    NDArray p = function({m}, {T::prod(m * c(3), 1)})({vec({1, 2, 3, 4}).reshape({2, 2})})[0];
    CHECK(p.data_as<double>()[0] == doctest::Approx(18.0));
    CHECK(p.data_as<double>()[1] == doctest::Approx(108.0));
  }

  TEST_CASE("local_useless_assert: constant-true conditions are dropped, the others kept") {
    Var x = T::dvector("x"), s = T::dscalar("s");
    Var yes = T::constant(NDArray::scalar<bool>(true));
    check_rewrite({x}, {T::assert_op(x, {yes})}, {x});
    check_rewrite({x, s}, {T::exp(T::assert_op(x, {yes, T::gt(s, T::constant(NDArray::scalar<double>(0)))}))},
                  {T::exp(T::assert_op(x, {T::gt(s, T::constant(NDArray::scalar<double>(0)))}))});
    // A failing constant condition is kept, and raises.
    Var no = T::constant(NDArray::scalar<bool>(false));
    Function f = function({x}, {T::assert_op(x, {yes, no}, "must fail")});
    CHECK(error_of([&] { f({vec({1})}); }).find("must fail") != std::string::npos);
    // The reported values stay with the conditions kept.
    Var n = T::lscalar("n");
    const Var small = T::lt(n, T::constant(NDArray::scalar<std::int64_t>(5)));  // check_rewrite's n is 0, 1 or 2
    check_rewrite({x, n}, {T::assert_op(x, {yes, small}, "n = {}", {n})}, {T::assert_op(x, {small}, "n = {}", {n})});
    check_rewrite({x, n}, {T::assert_op(x, {yes}, "n = {}", {n})}, {x});
  }

  TEST_CASE("local_remove_grad_stops: zero_grad and disconnected_grad are identities in the compiled graph") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::exp(zero_grad(x)) + T::exp(disconnected_grad(x))}, {T::add(T::exp(x), T::exp(x))});
  }

  TEST_CASE("local_reduce_reduce: a reduction of the same reduction is one, over both axis sets") {
    Var t = T::dtensor3("t"), m = T::dmatrix("m");
    check_rewrite({m}, {T::sum(T::sum(m, 0), 0)}, {T::sum(m, std::vector<int>{0, 1})});
    check_rewrite({t}, {T::max(T::max(t, 1), 1)}, {T::max(t, std::vector<int>{1, 2})});
    check_rewrite({t}, {T::prod(T::prod(t, 2), 0)}, {T::prod(t, std::vector<int>{0, 2})});
    // Different reductions, or a sum read elsewhere, stay.
    check_rewrite({m}, {T::max(T::sum(m, 0), 0)}, {T::max(T::sum(m, 0), 0)});
    Var inner = T::sum(m, 0);
    FunctionGraph fg({m}, {T::sum(inner, 0), inner});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int sums = 0;
    for (Apply* n : fg.apply_nodes()) sums += n->op()->type_name() == "CAReduce";
    CHECK(sums == 2);
    // An int8 sum widens (to int64): merged it would not be the same accumulation.
    Var b = T::bmatrix("b");
    FunctionGraph fb({b}, {T::sum(T::sum(b, 0), 0)});
    rewrite::optimize(fb, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    int bsums = 0;
    for (Apply* n : fb.apply_nodes()) bsums += n->op()->type_name() == "CAReduce";
    CHECK(bsums == 2);
  }

  TEST_CASE("local_abs_merge and local_trivial_arith: abs(x) * abs(y), 0 / x, i % 1, sqrt(sqr(x))") {
    Var x = T::dvector("x"), y = T::dvector("y"), i = T::ivector("i");
    check_rewrite({x, y}, {T::abs(x) * T::abs(y)}, {T::abs(x * y)});
    check_rewrite({x, y}, {T::abs(x) / T::abs(y)}, {T::abs(x / y)});
    check_rewrite({x}, {c(0) / x}, {T::second(x, c(0))});
    check_rewrite({i}, {T::mod(i, T::constant(NDArray::full({1}, 1.0, DType::Int32)))},
                  {T::second(i, T::constant(NDArray::full({1}, 0.0, DType::Int32)))});
    check_rewrite({x}, {T::mod(x, c(1))}, {T::mod(x, c(1))});  // a float x % 1 is its fraction
    check_rewrite({x}, {T::sqrt(T::sqr(x))}, {T::abs(x)});
    // sqrt(sqr(1e200)) overflows naively.
    NDArray a = run1({x}, T::sqrt(T::sqr(x)), {vec({-1e200, 3})});
    CHECK(a.data_as<double>()[0] == 1e200);
    CHECK(a.data_as<double>()[1] == 3);
  }
}
