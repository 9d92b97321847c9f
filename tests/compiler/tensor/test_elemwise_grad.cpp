// verify_grad for every differentiable row of the scalar table, broadcasting
// gradients, and Composite (evaluation, C expression, gradient).
#include <doctest/doctest.h>

#include <map>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

// A point inside each op's domain, away from kinks.
NDArray point(double lo, double hi, std::vector<std::int64_t> shape = {2, 3}) {
  NDArray a = NDArray::empty(shape);
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) a.data_as<double>()[i] = lo + (hi - lo) * (i + 0.5) / static_cast<double>(n);
  return a;
}

}  // namespace

TEST_CASE("verify_grad: unary rows") {
  const std::map<std::string, std::pair<double, double>> domains{
      {"neg", {-2, 2}},    {"reciprocal", {0.5, 2}}, {"sqr", {-2, 2}},      {"sqrt", {0.5, 3}},
      {"abs", {0.2, 2}},   {"exp", {-2, 2}},         {"exp2", {-2, 2}},     {"expm1", {-1, 1}},
      {"log", {0.5, 3}},   {"log2", {0.5, 3}},       {"log10", {0.5, 3}},   {"log1p", {-0.5, 2}},
      {"sin", {-2, 2}},    {"cos", {-2, 2}},         {"tan", {-1, 1}},      {"arcsin", {-0.8, 0.8}},
      {"arccos", {-0.8, 0.8}}, {"arctan", {-2, 2}},  {"sinh", {-2, 2}},     {"cosh", {-2, 2}},
      {"tanh", {-2, 2}},   {"arcsinh", {-2, 2}},     {"arccosh", {1.2, 3}}, {"arctanh", {-0.8, 0.8}},
      {"sigmoid", {-3, 3}}, {"softplus", {-3, 3}},   {"erf", {-1.5, 1.5}},  {"erfc", {-1.5, 1.5}},
      {"gammaln", {0.5, 4}}, {"identity", {-1, 1}}};
  for (const auto& [name, dom] : domains) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0]}); },
                         {point(dom.first, dom.second)});
  }
}

TEST_CASE("verify_grad: binary and ternary rows, with broadcasting") {
  const NDArray a = point(0.5, 2.0), b = point(0.7, 1.9, {1, 3});
  for (const char* name : {"add", "sub", "mul", "true_div", "pow", "arctan2", "maximum", "minimum"}) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0], in[1]}); }, {a, b});
  }
  testing::verify_grad([](const std::vector<Var>& in) { return mod(in[0], 0.7); }, {point(0.1, 0.6)});
  testing::verify_grad([](const std::vector<Var>& in) { return clip(in[0], 0.8, 1.6); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return switch_(gt(in[0], 1.2), in[0] * 3, in[1]); },
                       {a, b});
  testing::verify_grad([](const std::vector<Var>& in) { return mul(std::vector<Var>{in[0], in[1], in[0]}); }, {a, b});
  testing::verify_grad([](const std::vector<Var>& in) { return cast(in[0], DType::Float32) * 1.0; }, {a},
                       {.eps = 1e-3, .abs_tol = 1e-3, .rel_tol = 1e-3});
}

TEST_CASE("piecewise-constant rows have zero gradient") {
  Var x = dvector("x");
  for (const char* name : {"floor", "ceil", "round", "trunc", "sign"}) {
    CAPTURE(name);
    const NDArray g = theano::grad(elemwise(name, {x}).sum(), x).eval({{x, point(-2, 2, {4})}});
    CHECK(array_equal(g, NDArray::zeros({4})));
  }
}

TEST_CASE("Composite evaluates its inner graph as one scalar op") {
  auto st = ScalarType::make(DType::Float64);
  Var a = st->make_variable("a"), b = st->make_variable("b");
  Var two = st->make_constant(NDArray::scalar(2.0));
  Var inner = scalar_op("add")->apply1({scalar_op("mul")->apply1({a, two}), scalar_op("exp")->apply1({b})});
  OpPtr comp(new Composite({a, b}, inner));
  const auto& c = dynamic_cast<const Composite&>(*comp);
  CHECK(c.name() == "Composite{add(mul(i0, Constant{2.0}), exp(i1))}");
  CHECK(c.c_expr() == "(({0} * (2.0)) + exp({1}))");
  Var x = dmatrix("x"), y = drow("y");
  Var e = elemwise(ScalarOpPtr(&c), {x, y});
  const NDArray xv = point(-1, 1), yv = point(-1, 1, {1, 3});
  const NDArray expected = (x * 2.0 + exp(y)).eval({{x, xv}, {y, yv}});
  CHECK(allclose(e.eval({{x, xv}, {y, yv}}), expected, 1e-14, 0));
  testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(ScalarOpPtr(&c), {in[0], in[1]}); },
                       {xv, yv});
  // Equal inner graphs give equal ops.
  Var a2 = st->make_variable(), b2 = st->make_variable();
  Var inner2 = scalar_op("add")->apply1({scalar_op("mul")->apply1({a2, st->make_constant(NDArray::scalar(2.0))}),
                                         scalar_op("exp")->apply1({b2})});
  OpPtr comp2(new Composite({a2, b2}, inner2));
  CHECK(*comp == *comp2);
  CHECK(comp->hash() == comp2->hash());
  CHECK_THROWS_WITH_AS(Composite({a}, inner), doctest::Contains("neither an input nor a constant"), MissingInputError);
}
