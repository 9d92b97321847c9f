// The first rewrites of optdb: each one's graph before/after under a mode
// (compared with equal_computations against a graph built by hand, both
// printed on failure) and a numeric check that the optimized function computes
// what the unoptimized one does.
#include <doctest/doctest.h>

#include <cmath>
#include <iostream>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/gpu/ops.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace N = theano::tensor::nnet;


TEST_SUITE("rewrite_tests") {
  TEST_CASE("merge: (x+y)*2, (x+y)*3 computes x+y once") {
    Var x = T::dvector("x"), y = T::dvector("y");
    std::vector<Var> outs{(x + y) * 2, (x + y) * 3};
    FunctionGraph fg({x, y}, outs);
    CHECK(count_nodes(fg, "add") == 2);
    rewrite::RewriteStats stats = rewrite::optimize(fg, rewrite::mode_query("fast_compile"));
    CHECK(count_nodes(fg, "add") == 1);
    CHECK(stats.applied("merge") >= 1);
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const auto want = function({x, y}, {outs.begin(), outs.end()}, raw)({vec({1, 2}), vec({3, 5})});
    const auto got = function({x, y}, {outs.begin(), outs.end()})({vec({1, 2}), vec({3, 5})});
    CHECK(close_enough(got[0], want[0]));
    CHECK(close_enough(got[1], want[1]));
  }

  TEST_CASE("merge: equal constants become one") {
    Var x = T::dvector("x");
    FunctionGraph fg({x}, {x + c(2), x * c(2)});
    rewrite::optimize(fg, rewrite::mode_query("fast_compile"));
    std::set<const Variable*> consts;
    for (Apply* n : fg.apply_nodes())
      for (const Var& in : n->inputs())
        if (in.is_constant()) consts.insert(in.get());
    CHECK(consts.size() == 1);
  }

  TEST_CASE("constant_folding: exp(c) + x -> Constant(exp(c)) + x") {
    Var x = T::dvector("x");
    check_rewrite({x}, {x + T::exp(c(1.5))}, {x + c(std::exp(1.5))}, "fast_compile");
    check_rewrite({x}, {x + T::exp(c(1.5))}, {x + c(std::exp(1.5))});
  }

  TEST_CASE("constant_folding: Alloc and failing Asserts are not folded") {
    Var x = T::dscalar("x");
    Var a = T::alloc(T::constant(NDArray::scalar<double>(1.0)), std::vector<T::TensorLike>{4});
    FunctionGraph fg({x}, {a * x});
    rewrite::optimize(fg, rewrite::mode_query("fast_compile"));
    bool has_alloc = false;
    for (Apply* n : fg.apply_nodes()) has_alloc |= n->op()->type_name() == "Alloc";
    CHECK(has_alloc);
    Var bad = T::assert_op(x, {T::constant(NDArray::scalar<bool>(false))}, "never");
    Function f = function({x}, {bad});
    CHECK(error_of([&] { f({NDArray::scalar<double>(1)}); }).find("never") != std::string::npos);
  }

  TEST_CASE("constant_folding: a large constant grown from small inputs is computed at run time instead") {
    // eye(500) (2 MB of doubles from three integers) stays an Eye node, and so does 0.1 * eye(500) above it;
    // eye(90) (63 KiB, under the 64 KiB limit) folds, and so does a fold that shrinks a big constant.
    const Var x = T::dmatrix("x");
    auto count = [](const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view kind) {
      FunctionGraph fg(ins, outs);
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion"}));
      int n = 0;
      for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == kind ? 1 : 0;
      return n;
    };
    CHECK(count({x}, {x + T::eye(500) * 0.1}, "Eye") == 1);
    CHECK(count({x}, {x + T::eye(90) * 0.1}, "Eye") == 0);
    CHECK(count({x}, {x + T::arange(100000)}, "ARange") == 1);
    CHECK(count({x}, {x + T::arange(1000)}, "ARange") == 0);
    const NDArray big = NDArray::full({300, 300}, 0.5);
    CHECK(count({x}, {x * T::sum(T::constant(big))}, "CAReduce") == 0);  // the sum of a big constant folds
    // Values are the same either way.
    Function f = function({x}, {x + T::eye(500) * 0.1});
    const NDArray r = f({NDArray::zeros({500, 500})})[0];
    CHECK(r.at<double>({7, 7}) == 0.1);
    CHECK(r.at<double>({7, 8}) == 0.0);
  }

  TEST_CASE("constant_folding: each op says whether it folds, a GPU form as its host op") {
    CHECK_FALSE(OpPtr(new T::Alloc())->foldable());
    CHECK_FALSE(OpPtr(new T::RandomFunction(T::Distribution::Uniform, DType::Float64))->foldable());
    CHECK(OpPtr(new T::Dot())->foldable());
    // GpuAlloc is not folded either (the rule by type name "Alloc" let it through).
    CHECK_FALSE(OpPtr(new gpu::GpuOp(OpPtr(new T::Alloc()), {true, false}, {}, "cuda0"))->foldable());
    CHECK_FALSE(OpPtr(new gpu::GpuOp(OpPtr(new T::RandomFunction(T::Distribution::Normal, DType::Float32)),
                                     {false, false, true, true}, {false, true}, "cuda0"))
                    ->foldable());
    CHECK(OpPtr(new gpu::GpuOp(OpPtr(new T::Dot()), {true, true}, {}, "cuda0"))->foldable());
  }

  TEST_CASE("local_neg_neg: neg(neg(x)) -> x") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::exp(-(-x))}, {T::exp(x)});
  }

  TEST_CASE("local_mul_specialize: x*1 -> x, x*-1 -> -x, x*0 -> zeros, x*-1*y stays one Mul") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x}, {T::exp(x * c(1))}, {T::exp(x)});
    check_rewrite({x}, {T::exp(x * c(-1))}, {T::exp(-x)});
    check_rewrite({x, y}, {T::exp(T::mul({x, c(-1), y}))}, {T::exp(T::mul({c(-1), x, y}))});  // one Mul, not neg(mul)
    check_rewrite({x}, {x * c(0)}, {T::second(x, c(0))});
  }

  TEST_CASE("local_add_specialize: x+0 -> x") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::exp(x + c(0))}, {T::exp(x)});
  }

  TEST_CASE("local_pow_specialize: x**2, x**0.5, x**1, x**-1, x**0, x**-2, x**-0.5, not x**5.5") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::pow(x, c(2))}, {T::sqr(x)});
    check_rewrite({x}, {T::pow(x, c(0.5))}, {T::sqrt(x)});
    check_rewrite({x}, {T::exp(T::pow(x, c(1)))}, {T::exp(x)});
    check_rewrite({x}, {T::pow(x, c(-1))}, {T::reciprocal(x)});
    check_rewrite({x}, {T::pow(x, c(0))}, {T::second(x, c(1))});
    check_rewrite({x}, {T::pow(x, c(-2))}, {T::reciprocal(T::sqr(x))});
    check_rewrite({x}, {T::pow(x, c(-0.5))}, {T::reciprocal(T::sqrt(x))});
    check_rewrite({x}, {T::pow(x, c(5.5))}, {T::pow(x, c(5.5))});  // no special form (integers: test_simplify.cpp)
  }

  TEST_CASE("local_useless_elemwise and local_useless_dimshuffle") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::exp(T::identity(m))}, {T::exp(m)});
    check_rewrite({m}, {T::exp(m.dimshuffle({0, 1}))}, {T::exp(m)});
    check_rewrite({m}, {T::exp(m.dimshuffle({1, 0}))}, {T::exp(m.dimshuffle({1, 0}))});
  }

  TEST_CASE("local_dimshuffle_merge: two DimShuffles in a row become one, or none") {
    Var m = T::dmatrix("m"), v = T::dvector("v");
    const int X = T::kNewAxis;
    check_rewrite({m}, {T::exp(m.dimshuffle({1, 0}).dimshuffle({1, 0}))}, {T::exp(m)});
    check_rewrite({v}, {T::exp(v.dimshuffle({X, 0}).dimshuffle({1}))}, {T::exp(v)});
    check_rewrite({v}, {T::exp(v.dimshuffle({0, X}).dimshuffle({1, 0}))}, {T::exp(v.dimshuffle({X, 0}))});
    check_rewrite({m}, {T::exp(m.dimshuffle({1, X, 0}).dimshuffle({2, 1, 0}))}, {T::exp(m.dimshuffle({0, X, 1}))});
  }

  TEST_CASE("local_log_softmax: log(softmax(x)) -> log_softmax(x)") {
    Var m = T::dmatrix("m");
    check_rewrite({m}, {T::log(N::softmax(m))}, {N::log_softmax(m)});
    check_rewrite({m}, {T::log(N::softmax(m, 0))}, {N::log_softmax(m, 0)});
  }

  TEST_CASE("local_log1p and local_softplus") {
    Var x = T::dvector("x");
    check_rewrite({x}, {T::log(c(1) + x)}, {T::log1p(x)});
    check_rewrite({x}, {T::log(x + c(1))}, {T::log1p(x)});
    check_rewrite({x}, {T::log(c(1) + T::exp(x))}, {T::softplus(x)});
    check_rewrite({x}, {T::log1p(T::exp(x))}, {T::softplus(x)});
    check_rewrite({x}, {T::log(c(1) + T::exp(x))}, {T::log(c(1) + T::exp(x))}, "fast_compile");
    check_rewrite({x}, {T::log(c(1) + T::exp(x))}, {T::softplus(x)}, "stabilize");
  }

  TEST_CASE("local_remove_all_assert: only in unsafe") {
    Var x = T::dvector("x"), s = T::dscalar("s");
    Var a = T::assert_op(x, {T::gt(s, 0.0)}, "s must be positive");
    check_rewrite({x, s}, {T::exp(a)}, {T::exp(x)}, "unsafe");
    check_rewrite({x, s}, {T::exp(a)}, {T::exp(T::assert_op(x, {T::gt(s, 0.0)}, "s must be positive"))});
    CHECK(error_of([&] { function({x, s}, {a})({vec({1}), NDArray::scalar<double>(-1)}); }).find("positive") !=
          std::string::npos);
    FunctionOptions unsafe;
    unsafe.mode = "unsafe";
    CHECK(function({x, s}, {a}, unsafe)({vec({1}), NDArray::scalar<double>(-1)}).size() == 1);
  }

  TEST_CASE("rewrites keep types and copy the user's name") {
    Var x = T::fvector("x");
    Var y = T::exp(x * T::constant(NDArray::from_list<float>({1.0f})));
    y->set_name("y");
    Var z = T::exp(x * c(1));  // float64 constant: the result is float64 and must stay so
    FunctionGraph fg({x}, {y, z});
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    CHECK(fg.outputs()[0].name() == "y");
    CHECK(*fg.outputs()[0].type() == *y.type());
    CHECK(*fg.outputs()[1].type() == *z.type());
    Function f = function({x}, {y, z});
    auto r = f({NDArray::from_list<float>({1.0f, 2.0f})});
    CHECK(r[0].dtype() == DType::Float32);
    CHECK(r[1].dtype() == DType::Float64);
  }
}
