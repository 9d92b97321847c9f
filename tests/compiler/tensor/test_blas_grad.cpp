// BLAS ops: verify_grad for Dot (every rank combination), Dot22, Gemm, Gemv,
// Ger (alpha and beta included), outer, tensordot and batched_dot; infer_shape
// of each op; props and equality.
#include <cmath>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray point(std::vector<int64_t> shape, double offset = 0.0) {
  NDArray a = NDArray::empty(shape);
  const int64_t n = a.size();
  for (int64_t i = 0; i < n; ++i)
    a.data_as<double>()[i] = offset + std::sin(1.3 * static_cast<double>(i) + 0.4) + 0.1 * static_cast<double>(i % 3);
  return a;
}

}  // namespace

TEST_CASE("verify_grad: dot for every rank combination") {
  const NDArray v3 = point({3}), v4 = point({4}, 0.2), m34 = point({3, 4}, -0.1), m45 = point({4, 5}, 0.3);
  auto d = [](const std::vector<Var>& in) { return dot(in[0], in[1]); };
  testing::verify_grad(d, {v4, v4.copy()});
  testing::verify_grad(d, {m34, v4});
  testing::verify_grad(d, {v3, m34});
  testing::verify_grad(d, {m34, m45});
  testing::verify_grad(d, {NDArray::scalar(1.5), m34});
  testing::verify_grad([](const std::vector<Var>& in) { return dot22(in[0], in[1]); }, {m34, m45});
  testing::verify_grad([](const std::vector<Var>& in) { return outer(in[0], in[1]); }, {v3, v4});
}

TEST_CASE("verify_grad: Gemm, Gemv, Ger with respect to every input") {
  const NDArray z = point({3, 5}), x = point({3, 4}, 0.1), y = point({4, 5}, -0.2);
  const NDArray al = NDArray::scalar(0.75), be = NDArray::scalar(-1.25);
  testing::verify_grad([](const std::vector<Var>& in) { return gemm(in[0], in[1], in[2], in[3], in[4]); },
                       {z, al, x, y, be});
  const NDArray yv = point({3}), xv = point({4}, 0.5);
  testing::verify_grad([](const std::vector<Var>& in) { return gemv(in[0], in[1], in[2], in[3], in[4]); },
                       {yv, al, x, xv, be});
  testing::verify_grad([](const std::vector<Var>& in) { return ger(in[0], in[1], in[2], in[3]); }, {x, al, yv, xv});
}

TEST_CASE("verify_grad: tensordot and batched_dot") {
  const NDArray a = point({2, 3, 4}), b = point({3, 4, 2}, 0.1), c = point({4, 3, 2}, -0.3);
  testing::verify_grad([](const std::vector<Var>& in) { return tensordot(in[0], in[1], 2); }, {a, b});
  testing::verify_grad(
      [](const std::vector<Var>& in) {
        return tensordot(in[0], in[1], std::make_pair(std::vector<int>{1, 2}, std::vector<int>{1, 0}));
      },
      {a, c});
  const NDArray p = point({3, 2, 4}), q = point({3, 4, 2}, 0.2), r = point({3, 4}, -0.1);
  auto bd = [](const std::vector<Var>& in) { return batched_dot(in[0], in[1]); };
  testing::verify_grad(bd, {p, q});
  testing::verify_grad(bd, {p, r});
  testing::verify_grad(bd, {r, q});
}

TEST_CASE("infer_shape of the BLAS ops") {
  const Var v = dvector("v"), w = dvector("w"), m = dmatrix("m"), n = dmatrix("n"), z = dmatrix("z");
  const Var s = dscalar("s"), t = dscalar("t");
  const NDArray v4 = point({4}), v3 = point({3}), m34 = point({3, 4}), m45 = point({4, 5}), z35 = point({3, 5});
  testing::check_infer_shape({v, w}, {dot(v, w)}, {v4, v4});
  testing::check_infer_shape({m, v}, {dot(m, v)}, {m34, v4});
  testing::check_infer_shape({w, m}, {dot(w, m)}, {v3, m34});
  testing::check_infer_shape({m, n}, {dot(m, n), dot22(m, n)}, {m34, m45});
  testing::check_infer_shape({z, s, m, n, t}, {gemm(z, s, m, n, t)}, {z35, NDArray::scalar(2.0), m34, m45,
                                                                      NDArray::scalar(0.5)});
  testing::check_infer_shape({w, s, m, v, t}, {gemv(w, s, m, v, t)}, {v3, NDArray::scalar(2.0), m34, v4,
                                                                      NDArray::scalar(0.5)});
  testing::check_infer_shape({m, s, w, v}, {ger(m, s, w, v)}, {m34, NDArray::scalar(2.0), v3, v4});
  const Var a = dtensor3("a"), b = dtensor3("b");
  testing::check_infer_shape({a, b}, {tensordot(a, b, 2), batched_dot(a, b)}, {point({3, 3, 4}), point({3, 4, 2})});
}

TEST_CASE("BLAS op props, equality and names") {
  CHECK(*OpPtr(new Gemm(false)) == Gemm(false));
  CHECK(*OpPtr(new Gemm(true)) != Gemm(false));
  CHECK(Gemv(true).props() == Props{{"inplace", true}});
  CHECK(Ger(true).props() == Props{{"destructive", true}});
  CHECK(dot(dmatrix(), dmatrix()).owner()->op()->name() == "Dot");
  CHECK(*dot(dmatrix(), dmatrix()).owner()->op() == *dot(dvector(), dmatrix()).owner()->op());
  // Integer operands get no gradient.
  const Var i = imatrix("i"), d = dmatrix("d");
  const ApplyPtr node = dot(i, d).owner();
  const std::vector<Var> g = node->op()->grad(*node, {dmatrix("g")});
  CHECK_FALSE(g[0]);
  CHECK(g[1]);
}
