// Reductions: verify_grad for every differentiable reduction (prod with zero
// groups included), check_infer_shape for CAReduce / Argmax, and the grad rules
// for integer and logical inputs.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

// Distinct values (no ties for max/min), deterministic, away from zero.
NDArray point(std::vector<int64_t> shape, double lo = 0.5, double hi = 2.0) {
  NDArray a = NDArray::empty(shape);
  const int64_t n = a.size();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = (i * 7) % n;  // scrambled order
    a.data_as<double>()[i] = lo + (hi - lo) * (static_cast<double>(j) + 0.5) / static_cast<double>(n);
  }
  return a;
}

const std::vector<Axes> kAxes = {Axes(), 0, 1, 2, {0, 2}, {1, 2}};

}  // namespace

TEST_CASE("verify_grad: sum, max, min, mean over axis sets, with keepdims") {
  const NDArray p = point({2, 3, 4});
  for (const Axes& ax : kAxes)
    for (bool keep : {false, true}) {
      CAPTURE(keep);
      testing::verify_grad([&](const std::vector<Var>& in) { return sum(in[0], ax, keep); }, {p});
      testing::verify_grad([&](const std::vector<Var>& in) { return max(in[0], ax, keep); }, {p});
      testing::verify_grad([&](const std::vector<Var>& in) { return min(in[0], ax, keep); }, {p});
      testing::verify_grad([&](const std::vector<Var>& in) { return mean(in[0], ax, keep); }, {p});
    }
}

TEST_CASE("verify_grad: var and std (graphs of primitives)") {
  const NDArray p = point({3, 4});
  for (const Axes& ax : {Axes(), Axes(0), Axes(1)})
    for (int ddof : {0, 1}) {
      testing::verify_grad([&](const std::vector<Var>& in) { return var(in[0], ax, ddof); }, {p});
      testing::verify_grad([&](const std::vector<Var>& in) { return tensor::std(in[0], ax, ddof, true); }, {p});
    }
}

TEST_CASE("verify_grad: prod without zeros, with one zero per group, with two zeros") {
  const NDArray p = point({3, 4}, 0.5, 1.5);
  for (const Axes& ax : {Axes(), Axes(0), Axes(1)})
    testing::verify_grad([&](const std::vector<Var>& in) { return prod(in[0], ax); }, {p});
  // Row 0 has one zero, row 1 two zeros, row 2 none (Theano's three cases).
  NDArray z = p.copy();
  z.at<double>({0, 1}) = 0.0;
  z.at<double>({1, 0}) = 0.0;
  z.at<double>({1, 3}) = 0.0;
  testing::verify_grad([](const std::vector<Var>& in) { return prod(in[0], 1); }, {z});
  // The exact values: d prod / dx at the single zero is the product of the others.
  const Var x = dmatrix("x");
  const NDArray g = grad(sum(prod(x, 1)), x).eval({{x, z}});
  double others = 1;
  for (int j : {0, 2, 3}) others *= z.at<double>({0, j});
  CHECK(g.at<double>({0, 1}) == doctest::Approx(others));
  CHECK(g.at<double>({0, 0}) == 0.0);
  for (int j = 0; j < 4; ++j) CHECK(g.at<double>({1, j}) == 0.0);
  CHECK(g.at<double>({2, 1}) == doctest::Approx(p.at<double>({2, 0}) * p.at<double>({2, 2}) * p.at<double>({2, 3})));
}

TEST_CASE("max grad goes to the maximum's position") {
  const Var x = dmatrix("x");
  const NDArray v = NDArray::from_list<double>({1, 5, 2, 7, 3, 0}, {2, 3});
  const NDArray g = grad(sum(max(x, 1)), x).eval({{x, v}});
  CHECK(array_equal(g, NDArray::from_list<double>({0, 1, 0, 1, 0, 0}, {2, 3})));
  const NDArray gmin = grad(sum(min(x, 0)), x).eval({{x, v}});
  CHECK(array_equal(gmin, NDArray::from_list<double>({1, 0, 0, 0, 1, 1}, {2, 3})));
}

TEST_CASE("no gradient through integer, logical and index reductions") {
  const Var x = dmatrix("x");
  const Var i = imatrix("i");
  const ApplyPtr s = sum(i, 0).owner();
  CHECK_FALSE(s->op()->grad(*s, {dvector()}).at(0));
  const ApplyPtr a = argmax(x, 0).owner();
  CHECK_FALSE(a->op()->grad(*a, {dvector()}).at(0));
  CHECK(a->op()->connection_pattern(*a) == std::vector<std::vector<bool>>{{false}});
  const ApplyPtr al = all_(x, 0).owner();
  CHECK_FALSE(al->op()->grad(*al, {dvector()}).at(0));
}

TEST_CASE("infer_shape of CAReduce and Argmax") {
  const Var x = dtensor3("x");
  const NDArray v = point({2, 3, 4});
  for (const Axes& ax : kAxes) {
    testing::check_infer_shape({x}, {sum(x, ax), prod(x, ax), max(x, ax, true), all_(x, ax), mean(x, ax)}, {v});
  }
  for (std::optional<int> ax : {std::optional<int>(), std::optional<int>(0), std::optional<int>(2)}) {
    testing::check_infer_shape({x}, {argmax(x, ax), argmin(x, ax, true)}, {v});
  }
}
