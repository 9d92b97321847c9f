// verify_grad for every differentiable row of the scalar table, broadcasting
// gradients, and Composite (evaluation, C expression, gradient).
#include <doctest/doctest.h>

#include <cmath>
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
      {"gammaln", {0.5, 4}}, {"identity", {-1, 1}},     {"log1mexp", {-3, -0.1}},
      {"softsign", {-3, 3}},  {"selu", {-3, 3}},          {"hard_sigmoid", {-2, 2}},
      {"ultra_fast_sigmoid", {-3, 3}}};
  for (const auto& [name, dom] : domains) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0]}); },
                         {point(dom.first, dom.second)});
  }
}

TEST_CASE("verify_grad: binary and ternary rows, with broadcasting") {
  const NDArray a = point(0.5, 2.0), b = point(0.7, 1.9, {1, 3});
  for (const char* name : {"add", "sub", "mul", "true_div", "pow", "arctan2", "maximum", "minimum", "relu", "elu",
                           "sigmoid_binary_crossentropy"}) {
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

TEST_CASE("a multi-output Composite: one Elemwise node with an output per inner output") {
  auto st = ScalarType::make(DType::Float64);
  Var a = st->make_variable("a"), b = st->make_variable("b");
  Var s = scalar_op("add")->apply1({a, b});
  Var o0 = scalar_op("mul")->apply1({s, st->make_constant(NDArray::scalar(2.0))});
  Var o1 = scalar_op("exp")->apply1({s});
  auto comp = IntrusivePtr<const Composite>(new Composite({a, b}, std::vector<Var>{o0, o1}));
  CHECK(comp->nout() == 2);
  CHECK(comp->name() == "Composite{mul(*1 -> add(i0, i1), Constant{2.0}), exp(*1)}");
  CHECK(comp->c_exprs() == std::vector<std::string>{"(({0} + {1}) * (2.0))", "exp(({0} + {1}))"});
  ScalarValue in[2], out[2];
  in[0].d = 0.5;
  in[1].d = 0.25;
  comp->evaluate(in, out);
  CHECK(out[0].d == doctest::Approx(1.5));
  CHECK(out[1].d == doctest::Approx(std::exp(0.75)));

  Var x = dmatrix("x"), y = drow("y");
  ApplyPtr node = OpPtr(new Elemwise(comp))->make_node({x, y});
  REQUIRE(node->nout() == 2);
  CHECK(node->output(0).type()->str() == node->output(1).type()->str());
  const NDArray xv = point(-1, 1), yv = point(-1, 1, {1, 3});
  CHECK(allclose(node->output(0).eval({{x, xv}, {y, yv}}), ((x + y) * 2.0).eval({{x, xv}, {y, yv}}), 1e-14, 0));
  CHECK(allclose(node->output(1).eval({{x, xv}, {y, yv}}), exp(x + y).eval({{x, xv}, {y, yv}}), 1e-14, 0));
  // Gradient through both outputs (and through one: the other output's
  // gradient is disconnected).
  auto both = [&](const std::vector<Var>& in) {
    ApplyPtr n = OpPtr(new Elemwise(comp))->make_node({in[0], in[1]});
    return n->output(0) * 3.0 + n->output(1);
  };
  testing::verify_grad(both, {xv, yv});
  testing::verify_grad([&](const std::vector<Var>& in) { return OpPtr(new Elemwise(comp))->make_node({in[0], in[1]})->output(1); },
                       {xv, yv});
  // Shapes: every output has the broadcast shape.
  testing::check_infer_shape({x, y}, {node->output(0), node->output(1)},
                             {NDArray::zeros({4, 3}), NDArray::zeros({1, 3})});
}

TEST_CASE("a multi-output Elemwise over integers computes in int64 and may overwrite an input") {
  auto st = ScalarType::make(DType::Int64);
  Var a = st->make_variable("a"), b = st->make_variable("b");
  Var s = scalar_op("add")->apply1({a, b});
  Var o0 = scalar_op("mul")->apply1({s, s});
  Var o1 = scalar_op("sub")->apply1({s, b});
  auto comp = IntrusivePtr<const Composite>(new Composite({a, b}, std::vector<Var>{o0, o1}));
  Var x = lvector("x"), y = lvector("y");
  ApplyPtr node = OpPtr(new Elemwise(comp, {{1, 0}}))->make_node({x, y});
  CHECK(node->op()->name().find(",inplace}[(1, 0)]") != std::string::npos);
  NDArray xv = NDArray::from_list<std::int64_t>({3000000000, -7, 0});
  const NDArray yv = NDArray::from_list<std::int64_t>({5, 2, -1});
  std::vector<NDArray> in{xv, yv}, out(2);
  node->op()->perform(*node, in, out);
  CHECK(out[0].data_as<std::int64_t>()[0] == 3000000005LL * 3000000005LL);  // exact, wraps like int64
  CHECK(out[1].data_as<std::int64_t>()[1] == -7);
  CHECK(out[1].data() == xv.data());  // output 1 is x's buffer
  CHECK_THROWS_AS(OpPtr(new Elemwise(comp, {{2, 0}}))->make_node({x, y}), ValueError);
}
