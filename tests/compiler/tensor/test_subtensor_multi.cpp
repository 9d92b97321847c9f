// Advanced indexing with several integer arrays (x[i, j], numpy semantics) and
// set / inc on it: values against a hand loop, negative indices, broadcasting a
// scalar index, errors per axis, gradients, and the Theano tutorial's
// -log(p)[arange(n), y] idiom compiled.
#include <doctest/doctest.h>

#include <cmath>

#include "test_util.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
using namespace theano::tensor;

namespace {
NDArray lvec(std::initializer_list<std::int64_t> v) { return NDArray::from_list<std::int64_t>(v); }
}  // namespace

TEST_CASE("x[i, j] with two integer vectors picks elements, numpy's way") {
  Var x = dmatrix("x"), i = lvector("i"), j = lvector("j");
  NDArray xv = range({3, 4});  // x[r, c] = 4r + c
  Function f = function({x, i, j}, {x[{i, j}]});
  NDArray r = f({xv, lvec({0, 2, -1, 1}), lvec({3, 0, -4, 1})})[0];
  CHECK(array_equal(r, NDArray::from_list<double>({3, 8, 8, 5})));
  // A scalar index (a literal or a 0-d variable) broadcasts against a vector: x[i, 2] picks x[i[n], 2].
  Var t = dtensor3("t"), k = lscalar("k");
  NDArray tv = range({2, 3, 2});
  NDArray rt = function({t, i, k}, {t[{i, k}]})({tv, lvec({1, 0}), NDArray::scalar<std::int64_t>(2)})[0];
  CHECK(rt.shape() == std::vector<std::int64_t>{2, 2});
  CHECK(array_equal(rt, NDArray::from_list<double>({10, 11, 4, 5}, {2, 2})));
  Var i3 = lvector("i3");
  NDArray r2 = function({x, i}, {x[{i, 2}]})({xv, lvec({2, 0})})[0];
  CHECK(array_equal(r2, NDArray::from_list<double>({10, 2})));
  NDArray r3 = function({t, i, j, i3}, {t[{i, j, i3}]})({tv, lvec({1, 0}), lvec({2, 0}), lvec({1, 0})})[0];
  CHECK(array_equal(r3, NDArray::from_list<double>({11, 0})));
  // Empty index vectors give an empty result with the trailing axes.
  NDArray e = function({t, i, j}, {t[{i, j}]})({tv, lvec({}), lvec({})})[0];
  CHECK(e.shape() == std::vector<std::int64_t>{0, 2});
}

TEST_CASE("x[i, j]: each index is checked against its own axis, and the error names the indexing") {
  Var x = dmatrix("x"), i = lvector("i"), j = lvector("j");
  Function f = function({x, i, j}, {x[{i, j}]});
  // x[0, 5] on a 3x4 matrix: merged, it would silently read x[1, 1].
  const std::string msg = error_of([&] { f({range({3, 4}), lvec({0}), lvec({5})}); });
  CHECK(msg.find("x[i, j]") != std::string::npos);
  CHECK(msg.find("out of bounds") != std::string::npos);
  CHECK(!error_of([&] { f({range({3, 4}), lvec({-4}), lvec({0})}); }).empty());
  // Vectors of different lengths do not broadcast.
  CHECK(!error_of([&] { f({range({3, 4}), lvec({0, 1}), lvec({0, 1, 2})}); }).empty());
  // Arrays apart follow NumPy's rules: the broadcast axis first (test_general_index.cpp).
  CHECK(tensor_type(dtensor3("t")[{i, all, j}])->ndim() == 2);
}

TEST_CASE("set_subtensor and inc_subtensor on x[i, j] keep the shape of x, repeated pairs accumulate") {
  Var x = dmatrix("x"), i = lvector("i"), j = lvector("j"), v = dvector("v");
  NDArray xv = NDArray::zeros({2, 3});
  NDArray s = function({x, i, j, v}, {set_subtensor(x[{i, j}], v)})(
      {xv, lvec({0, 1}), lvec({2, 0}), NDArray::from_list<double>({5, 7})})[0];
  CHECK(array_equal(s, NDArray::from_list<double>({0, 0, 5, 7, 0, 0}, {2, 3})));
  NDArray a = function({x, i, j, v}, {inc_subtensor(x[{i, j}], v)})(
      {xv, lvec({1, 1, 0}), lvec({1, 1, -1}), NDArray::from_list<double>({1, 2, 3})})[0];
  CHECK(array_equal(a, NDArray::from_list<double>({0, 0, 3, 0, 3, 0}, {2, 3})));
  // A Reshape the user wrote keeps its shape: set_subtensor(x.reshape((6,))[i], v) is a vector.
  Var flat = reshape(x, std::vector<std::int64_t>{6});
  CHECK(tensor_type(set_subtensor(flat[i], v))->ndim() == 1);
}

TEST_CASE("x[i, j]: gradients through the gather and through inc_subtensor") {
  const NDArray ii = lvec({0, 2, 2}), jj = lvec({1, 0, 0});
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return in[0][{constant(ii), constant(jj)}] * 3.0; }, {range({3, 2})});
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return inc_subtensor(in[0][{constant(ii), constant(jj)}], in[1]) * in[0]; },
      {range({3, 2}), NDArray::from_list<double>({0.5, -1, 2})});
}

TEST_CASE("the logistic regression tutorial's -mean(log(p)[arange(n), y]) compiles and equals the crossentropy") {
  Var X = dmatrix("X"), y = lvector("y");
  Var p = nnet::softmax(X);
  Var nll = -mean(log(p)[{arange(shape_i(y, 0)), y}]);
  Var ce = mean(nnet::crossentropy_categorical_1hot(p, y));
  NDArray Xv = NDArray::from_list<double>({1, 2, 3, -1, 0, 1000}, {2, 3});
  std::vector<NDArray> r = function({X, y}, {nll, ce, grad(nll, X)})({Xv, lvec({2, 1})});
  CHECK(std::isfinite(r[0].data_as<double>()[0]));  // log(softmax) is LogSoftmax: finite at x = 1000
  const double l0 = 3 - std::log(std::exp(1) + std::exp(2) + std::exp(3));
  CHECK(r[0].data_as<double>()[0] == doctest::Approx(-(l0 - 1000) / 2));
  CHECK(std::isfinite(r[2].data_as<double>()[5]));
}
