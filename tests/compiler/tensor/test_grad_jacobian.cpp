// jacobian, hessian, Lop and Rop on small graphs, against hand-derived values.
#include <cmath>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/gradient.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

using namespace theano;
namespace T = theano::tensor;

namespace {
NDArray vec(std::initializer_list<double> v) { return NDArray::from_list<double>(v); }
NDArray mat(std::initializer_list<double> v, std::int64_t rows, std::int64_t cols) {
  return NDArray::from_list<double>(v, {rows, cols});
}
Var static_vector(std::int64_t n, std::string name) { return T::tensor(DType::Float64, {T::Dim(n)}, std::move(name)); }
}  // namespace

TEST_SUITE("tensor_tests") {
  TEST_CASE("jacobian of a vector of static length") {
    Var x = static_vector(3, "x");
    Var y = x * x;  // J = diag(2x)
    Var j = jacobian(y, x);
    CHECK(j.ndim() == 2);
    CHECK(allclose(j.eval({{x, vec({1, 2, 3})}}), mat({2, 0, 0, 0, 4, 0, 0, 0, 6}, 3, 3)));
    // Against a second wrt, and an unknown-length wrt.
    Var a = T::dscalar("a");
    Var v = T::dvector("v");
    Var z = x * a + T::sum(v);
    const auto js = jacobian(z, {a, v});
    const NDArray ja = js[0].eval({{x, vec({1, 2, 3})}, {a, NDArray::scalar(2.0)}, {v, vec({1, 1})}});
    CHECK(allclose(ja, vec({1, 2, 3})));
    const NDArray jv = js[1].eval({{x, vec({1, 2, 3})}, {a, NDArray::scalar(2.0)}, {v, vec({1, 1})}});
    CHECK(allclose(jv, NDArray::ones({3, 2})));
    // A 0-d expression: the gradient.
    CHECK(allclose(jacobian(T::sum(x * x), x).eval({{x, vec({1, 2, 3})}}), vec({2, 4, 6})));
  }

  TEST_CASE("jacobian and hessian of a length known only at run time: a scan over the rows") {
    Var v = T::dvector("v");
    Var a = T::dscalar("a");
    const std::vector<Var> j = jacobian(v * v * a, {v, a});
    for (const NDArray& value : {vec({1, 2, 3}), vec({-1, 0.5, 2, 4, 0})}) {
      const std::int64_t n = value.shape()[0];
      const NDArray jv = j[0].eval({{v, value}, {a, NDArray::scalar(3.0)}});
      REQUIRE(jv.shape() == std::vector<std::int64_t>{n, n});
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t c = 0; c < n; ++c)
          CHECK(jv.at<double>({r, c}) == doctest::Approx(r == c ? 6 * value.at<double>({r}) : 0.0));
      const NDArray ja = j[1].eval({{v, value}, {a, NDArray::scalar(3.0)}});
      for (std::int64_t r = 0; r < n; ++r) CHECK(ja.at<double>({r}) == doctest::Approx(value.at<double>({r}) * value.at<double>({r})));
    }
    // cost = sum(v^3): H = diag(6 v)
    const NDArray h = hessian(T::sum(v * v * v), v).eval({{v, vec({1, 2})}});
    CHECK(allclose(h, mat({6, 0, 0, 12}, 2, 2)));
    CHECK_THROWS_AS(jacobian(T::dmatrix("m") * 2.0, v), TypeError);
  }

  TEST_CASE("jacobian of a static length 0 is empty, and a long static length is a scan the size of one row") {
    Var x = static_vector(0, "x");
    Var w = T::dvector("w");
    const NDArray empty = jacobian(x * T::sum(w), w).eval({{x, vec({})}, {w, vec({1, 2})}});
    INFO("shape: ", shape_to_string(empty.shape()));
    CHECK(empty.shape() == std::vector<std::int64_t>{0, 2});
    // 200 rows: the graph does not hold 200 gradients, the values are diag(2x).
    Var y = static_vector(200, "y");
    Var j = jacobian(y * y, y);
    CHECK(ancestors({j}).size() < 200);
    std::vector<double> values(200);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.01 * static_cast<double>(i);
    const NDArray jv = j.eval({{y, NDArray::from_vector(values, {200})}});
    REQUIRE(jv.shape() == std::vector<std::int64_t>{200, 200});
    CHECK(jv.at<double>({7, 7}) == doctest::Approx(0.14));
    CHECK(jv.at<double>({7, 8}) == 0.0);
    CHECK(hessian(T::sum(y * y * y), y).eval({{y, NDArray::from_vector(values, {200})}}).at<double>({3, 3}) ==
          doctest::Approx(0.18));
  }

  TEST_CASE("hessian") {
    Var x = static_vector(2, "x");
    // cost = x0^2 x1 + x1^3: H = [[2 x1, 2 x0], [2 x0, 6 x1]]
    Var x0 = T::sum(x * T::constant(vec({1, 0})));
    Var x1 = T::sum(x * T::constant(vec({0, 1})));
    Var cost = x0 * x0 * x1 + x1 * x1 * x1;
    Var h = hessian(cost, x);
    CHECK(allclose(h.eval({{x, vec({1, 2})}}), mat({4, 2, 2, 12}, 2, 2)));
    // A linear cost has a zero Hessian.
    CHECK(allclose(hessian(T::sum(x * 3.0), x).eval({{x, vec({1, 2})}}), NDArray::zeros({2, 2})));
    CHECK_THROWS_AS(hessian(x * 2.0, x), TypeError);
    CHECK_THROWS_AS(hessian(T::sum(T::dvector("d")), T::dvector("d2")), ValueError);
  }

  TEST_CASE("Lop: vector-Jacobian product") {
    Var x = T::dvector("x");
    Var y = T::exp(x);
    Var u = T::dvector("u");
    Var l = Lop(y, x, u);  // u * exp(x)
    const NDArray r = l.eval({{x, vec({0, 1})}, {u, vec({2, 3})}});
    CHECK(allclose(r, vec({2, 3 * std::exp(1.0)})));
    CHECK_THROWS_AS(Lop(y, x, T::dmatrix("m")), TypeError);
    // Two expressions: their products add up.
    Var y2 = x * 2.0;
    const auto l2 = Lop(std::vector<Var>{y, y2}, std::vector<Var>{x}, std::vector<Var>{u, u});
    CHECK(allclose(l2[0].eval({{x, vec({0, 0})}, {u, vec({1, 1})}}), vec({3, 3})));
  }

  TEST_CASE("Rop: Jacobian-vector product through the double Lop") {
    Var w = T::dmatrix("w");
    Var x = T::dvector("x");
    // y = sum_j w[i, j] * x[j] per row (a matrix-vector product from elementwise ops)
    Var y = T::sum(w * T::shape_padleft(x), 1);
    Var v = T::dvector("v");
    Var r = Rop(y, x, v);  // J v = w v
    const NDArray wv = mat({1, 2, 3, 4, 5, 6}, 2, 3);
    const NDArray got = r.eval({{w, wv}, {x, vec({1, 1, 1})}, {v, vec({1, 0, 2})}});
    CHECK(allclose(got, vec({7, 16})));
    // Nonlinear: d exp(x) . v = exp(x) * v.
    Var e = Rop(T::exp(x), x, v);
    CHECK(allclose(e.eval({{x, vec({0, 1, 2})}, {v, vec({1, 2, 3})}}),
                   vec({1, 2 * std::exp(1.0), 3 * std::exp(2.0)})));
    CHECK_THROWS_AS(Rop(y, x, T::dmatrix("m")), TypeError);
  }
}
