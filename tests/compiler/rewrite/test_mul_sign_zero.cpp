// Signs and zeros of products (issue 33, PyTensor's local_neg_to_mul,
// local_mul_specialize and the mul canonizer's absorbing 0): a negated
// product keeps its sign as a factor of ONE Mul, specialization never adds a
// node, and a product whose constants multiply to 0 is zeros of the output's
// shape and dtype. Each: the graph after the stage against a hand-built graph,
// and the optimized values against the unoptimized ones.
#include <iostream>

#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var cd(double v, DType dt) { return T::constant(NDArray::full({1}, v, dt)); }

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_neg_to_mul: -(c*x) folds the sign into the constant, -(x*y) is one flat Mul") {
    Var x = T::dvector("x"), y = T::dvector("y"), z = T::dvector("z");
    // canonicalize (fast_compile has no algebra; the stabilize mode stops after stabilize).
    check_rewrite({x}, {T::exp(-(c(2) * x))}, {T::exp(T::mul(c(-2), x))}, "stabilize");
    check_rewrite({x, y}, {T::exp(-(x * y))}, {T::exp(T::mul({c(-1), x, y}))}, "stabilize");
    // ... and after specialize: mul(-1, x, y) stays one node.
    check_rewrite({x}, {T::exp(-(c(2) * x))}, {T::exp(T::mul(c(-2), x))});
    check_rewrite({x, y, z}, {T::exp(-(x * y * z))}, {T::exp(T::mul({c(-1), x, y, z}))});
    // A product with other clients is not rewritten (it would be computed twice).
    Var p = x * y;
    check_rewrite({x, y}, {T::exp(-p), p}, {T::exp(-(x * y)), x * y});
    // Integers: the same under wrap-around (k * x mod 2^n).
    Var i = T::ivector("i"), j = T::ivector("j");
    FunctionGraph fg({i, j}, {-(i * j)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    CHECK(count_nodes(fg, "neg") == 0);
    CHECK(count_nodes(fg, "mul") == 1);
    FunctionOptions o;
    const NDArray got = function({i, j}, {-(i * j)}, o)(
        {NDArray::from_list<std::int32_t>({65536, -3, 2147483647}), NDArray::from_list<std::int32_t>({65536, 5, 1})})[0];
    CHECK(got.dtype() == DType::Int32);
    CHECK(got.data_as<std::int32_t>()[0] == 0);  // 2^32 wraps to 0
    CHECK(got.data_as<std::int32_t>()[1] == 15);
    CHECK(got.data_as<std::int32_t>()[2] == -2147483647);
  }

  TEST_CASE("local_mul_specialize never adds nodes: mul(-1, x, y) stays one Mul, neg only for one factor") {
    Var x = T::dvector("x"), y = T::dvector("y");
    // specialize on a graph canonicalize leaves as it is (local_mul_canonizer excluded).
    auto spec = [&](const std::vector<Var>& ins, const Var& out, const Var& want) {
      FunctionGraph fg(ins, {out});
      rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace", "local_mul_canonizer"}));
      const bool same = equal_computations(fg.outputs(), {want}, fg.inputs(), ins);
      if (!same) std::cerr << "Output:\n" << debugprint(fg) << "Expected:\n" << debugprint({want});
      CHECK(same);
    };
    spec({x, y}, T::mul({c(-1), x, y}), T::mul({c(-1), x, y}));
    spec({x, y}, T::mul({c(-1), c(1), x, y}), T::mul({c(-1), x, y}));
    spec({x, y}, T::mul({c(-1), x, c(-1), y}), T::mul(x, y));
    spec({x}, T::mul({c(-1), x}), T::neg(x));
    spec({x}, T::mul({c(1), x, x}), T::sqr(x));
    spec({x}, T::mul({c(-1), x, x}), T::mul({c(-1), x, x}));  // not neg(sqr(x)): two nodes
    check_rewrite({x, y}, {T::exp(T::mul({x, c(-1), y}))}, {T::exp(T::mul({c(-1), x, y}))});
    // A one-factor negation in the output's dtype: -uint8 would wrap before the widening.
    Var u = T::vector("u", DType::Int8);
    FunctionOptions o;
    const NDArray got = function({u}, {T::mul(u, cd(-1, DType::Int16))}, o)({NDArray::from_list<std::int8_t>({-128, 5})})[0];
    CHECK(got.dtype() == DType::Int16);
    CHECK(got.data_as<std::int16_t>()[0] == 128);
    CHECK(got.data_as<std::int16_t>()[1] == -5);
  }

  TEST_CASE("local_mul_canonizer: constants multiplying to 0 give zeros of the broadcast shape and dtype") {
    Var x = T::dvector("x"), y = T::dvector("y");
    // In canonicalize already (the stabilize mode stops before specialize's local_mul_specialize).
    check_rewrite({x, y}, {T::mul({c(2), x, c(0), y})}, {T::second(x, c(0))}, "stabilize");
    check_rewrite({x}, {(c(0) * x) / c(3)}, {T::second(x, c(0))}, "stabilize");
    // The zero constant broadcasts: x of static shape (1,) times zeros(4) is zeros(4).
    Var one = T::tensor(DType::Float64, {T::Dim{1}}, "one");
    Var z4 = T::constant(NDArray::full({4}, 0.0, DType::Float64));
    check_rewrite({one}, {T::mul({c(3), one, z4})}, {z4}, "stabilize");  // second(z4, 0), constant-folded
    NDArray r = function({one}, {T::mul({c(3), one, z4})}, FunctionOptions{})({vec({7})})[0];
    CHECK(r.shape() == std::vector<std::int64_t>{4});
    // A column times a row: the zeros take both dimensions.
    Var cv = T::tensor(DType::Float64, {T::Dim{}, T::Dim{1}}, "cv");
    Var rv = T::tensor(DType::Float64, {T::Dim{1}, T::Dim{}}, "rv");
    Var zero = T::constant(NDArray::full({1, 1}, 0.0, DType::Float64));
    check_rewrite({cv, rv}, {T::mul({cv, zero, rv})}, {T::second(rv, T::second(cv, zero))}, "stabilize");
    NDArray cr = function({cv, rv}, {T::mul({cv, zero, rv})}, FunctionOptions{})({range({3, 1}), range({1, 5})})[0];
    CHECK(cr.shape() == std::vector<std::int64_t>{3, 5});
    // Integers keep their dtype.
    Var i = T::ivector("i");
    NDArray zi = function({i}, {T::mul({cd(0, DType::Int32), i, cd(5, DType::Int32)})}, FunctionOptions{})(
        {NDArray::from_list<std::int32_t>({5, -7, 9})})[0];
    CHECK(zi.dtype() == DType::Int32);
    CHECK(zi.data_as<std::int32_t>()[2] == 0);
  }
}
