// BatchedDot (compiler/src/tensor/blas/batched_dot.cpp) and the functions
// built on it against NumPy fixtures (tests/data/einsum/gen_einsum.py):
// matmul with broadcast batch dims and 1-d operands, batched_tensordot
// (a loop of np.tensordot), batched_dot; errors at make_node and at run
// time; infer_shape; verify_grad, broadcast batch dims included.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/runtime/npy.h"
#include "theano/tensor/batched_blas.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/einsum/" + name; }
NDArray load(const std::string& name) { return load_npy(fixture(name + ".npy")); }

Var var_of(const NDArray& a, const std::string& name, bool static_shape) {
  StaticShape s;
  for (int64_t d : a.shape()) s.push_back(static_shape || d == 1 ? Dim(d) : Dim());
  return tensor::tensor(a.dtype(), s, name);
}

void check_close(const NDArray& got, const NDArray& want, double rtol = 1e-10) {
  REQUIRE(got.shape() == want.shape());
  const NDArray g = got.astype(DType::Float64).copy(), w = want.astype(DType::Float64).copy();
  for (int64_t i = 0; i < w.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(g.data_as<double>()[i] - w.data_as<double>()[i]) <=
          rtol * std::max(1.0, std::fabs(w.data_as<double>()[i])));
  }
}

std::vector<std::vector<std::string>> table_rows(const std::string& file) {
  std::ifstream in(fixture(file));
  REQUIRE(in.good());
  std::vector<std::vector<std::string>> r;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '|');) cols.push_back(c);
    r.push_back(cols);
  }
  return r;
}

std::vector<int> ints(const std::string& s) {
  std::vector<int> r;
  std::stringstream ss(s);
  for (std::string c; std::getline(ss, c, ',');)
    if (!c.empty()) r.push_back(std::stoi(c));
  return r;
}

NDArray point(std::vector<int64_t> shape, double offset = 0.0) {
  NDArray a = NDArray::empty(shape);
  for (int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = offset + std::sin(1.3 * static_cast<double>(i) + 0.4) + 0.1 * static_cast<double>(i % 3);
  return a;
}

int count(const Function& f, std::string_view type) {
  int n = 0;
  for (const Apply* a : f.fgraph().toposort())
    if (a->op()->type_name() == type) ++n;
  return n;
}

}  // namespace

TEST_SUITE("batched_dot") {
  TEST_CASE("BatchedDot: types, static shapes and make_node errors") {
    const Var a = tensor::tensor(DType::Float64, {2, 3, 4}, "a"), b = tensor::tensor(DType::Float64, {2, 4, 5}, "b");
    const Var o = batched_dot3(a, b);
    CHECK(o.owner()->op()->type_name() == "BatchedDot");
    CHECK(tensor_type(o)->shape() == StaticShape{2, 3, 5});
    // Broadcast batch dims (static size 1) and unknown sizes.
    const Var c = tensor::tensor(DType::Float64, {Dim(1), Dim(), Dim(7), Dim(4)}, "c");
    const Var d = tensor::tensor(DType::Float64, {Dim(6), Dim(1), Dim(4), Dim(2)}, "d");
    CHECK(tensor_type(batched_dot3(c, d))->shape() == StaticShape{6, Dim(), 7, 2});
    CHECK_THROWS_WITH_AS(batched_dot3(a, tensor::tensor(DType::Float64, {3, 4, 5}, "b3")),
                         doctest::Contains("BatchedDot: batch dimensions do not broadcast: axis 0 of a has size 2 but "
                                           "b has size 3"),
                         ShapeError);
    CHECK_THROWS_WITH_AS(batched_dot3(a, tensor::tensor(DType::Float64, {2, 5, 5}, "b5")),
                         doctest::Contains("BatchedDot: inner dimensions"), ShapeError);
    CHECK_THROWS_WITH_AS(batched_dot3(a, tensor::tensor(DType::Float32, {2, 4, 5}, "bf")),
                         doctest::Contains("BatchedDot: b must have dtype float64"), TypeError);
    CHECK_THROWS_WITH_AS(batched_dot3(dmatrix("m"), dmatrix("n")), doctest::Contains("BatchedDot: a must have rank 3"),
                         TypeError);
    CHECK_THROWS_WITH_AS(batched_dot3(tensor::tensor(DType::Int32, {2, 3, 4}), tensor::tensor(DType::Int32, {2, 4, 5})),
                         doctest::Contains("float32 or float64"), TypeError);
  }

  TEST_CASE("BatchedDot: run-time shape errors name the axis and both sizes") {
    const Var a = tensor::tensor(DType::Float64, StaticShape(3, Dim()), "a");
    const Var b = tensor::tensor(DType::Float64, StaticShape(3, Dim()), "b");
    Function f = function({a, b}, {batched_dot3(a, b)});
    CHECK_THROWS_WITH_AS(f({point({2, 3, 4}), point({3, 4, 5})}),
                         doctest::Contains("batch dimensions do not broadcast: axis 0 of a has size 2 but b has size 3"),
                         ShapeError);
    CHECK_THROWS_WITH_AS(f({point({2, 3, 4}), point({2, 5, 5})}),
                         doctest::Contains("a has k = 4 along its last axis but b has 5"), ShapeError);
    // A size 1 that the type does not declare does not broadcast (Theano's rule).
    CHECK_THROWS_WITH_AS(f({point({1, 3, 4}), point({2, 4, 5})}), doctest::Contains("broadcasts only where its type"),
                         ShapeError);
    // Empty batch, empty inner dimension.
    CHECK(f({point({0, 3, 4}), point({0, 4, 5})})[0].shape() == std::vector<int64_t>{0, 3, 5});
    const NDArray z = f({NDArray::empty({2, 3, 0}), NDArray::empty({2, 0, 5})})[0];
    CHECK(z.shape() == std::vector<int64_t>{2, 3, 5});
    for (int64_t i = 0; i < z.size(); ++i) CHECK(z.data_as<double>()[i] == 0.0);
  }

  TEST_CASE("matmul with broadcast batch dims and 1-d operands matches NumPy") {
    for (const auto& r : table_rows("matmul.txt")) {
      CAPTURE(r[0]);
      const NDArray A = load("mm" + r[0] + "_a"), B = load("mm" + r[0] + "_b");
      for (bool st : {true, false}) {
        CAPTURE(st);
        const Var a = var_of(A, "a", st), b = var_of(B, "b", st);
        check_close(linalg::matmul(a, b).eval({{a, A}, {b, B}}), load("mm" + r[0]));
      }
    }
    // Float32 stays float32; int32 uses the broadcast product (no BLAS).
    const Var a = tensor::tensor(DType::Float32, {2, 3, 4}), b = tensor::tensor(DType::Float32, {2, 4, 5});
    CHECK(tensor_type(linalg::matmul(a, b))->dtype() == DType::Float32);
    const NDArray A = load("mm0_a"), B = load("mm0_b");
    const Var ai = tensor::tensor(DType::Int32, {2, 3, 4}), bi = tensor::tensor(DType::Int32, {2, 4, 5});
    const NDArray Ai = A.astype(DType::Int32), Bi = B.astype(DType::Int32);
    const NDArray got = linalg::matmul(ai, bi).eval({{ai, Ai}, {bi, Bi}});
    CHECK(got.dtype() == DType::Int32);
    check_close(got, linalg::matmul(a, b).eval({{a, Ai.astype(DType::Float32)}, {b, Bi.astype(DType::Float32)}}));
    CHECK_THROWS_WITH_AS(linalg::matmul(dscalar("s"), dmatrix("m")), doctest::Contains("matmul"), ValueError);
  }

  TEST_CASE("matmul: one BatchedDot for batches, Dot22 for matrices and for a batch times a matrix") {
    const Var a = tensor::tensor(DType::Float64, {5, 3, 4}, "a"), b = tensor::tensor(DType::Float64, {5, 4, 2}, "b");
    const Var m = tensor::tensor(DType::Float64, {4, 2}, "m"), n = tensor::tensor(DType::Float64, {3, 4}, "n");
    Function f = function({a, b}, {linalg::matmul(a, b)});
    CHECK(count(f, "BatchedDot") == 1);
    Function g = function({n, m}, {linalg::matmul(n, m)});
    CHECK(count(g, "Dot22") == 1);
    CHECK(count(g, "BatchedDot") == 0);
    // b one matrix: local_batched_dot_to_dot22 makes one Dot22 of (15, 4) x (4, 2).
    Function h = function({a, m}, {linalg::matmul(a, m)});
    CHECK(count(h, "BatchedDot") == 0);
    CHECK(count(h, "Dot22") == 1);
    const NDArray A = point({5, 3, 4}), M = point({4, 2}, 0.3);
    check_close(h({A, M})[0], linalg::matmul(a, m).eval({{a, A}, {m, M}}));
  }

  TEST_CASE("batched_tensordot matches a loop of np.tensordot, batched_dot keeps Theano's shapes") {
    for (const auto& r : table_rows("btd.txt")) {
      CAPTURE(r[0]);
      const NDArray A = load("btd" + r[0] + "_a"), B = load("btd" + r[0] + "_b");
      const Var a = var_of(A, "a", false), b = var_of(B, "b", false);
      const std::string spec = r[3];
      const std::size_t semi = spec.find(';');
      const TensordotAxes axes = semi == std::string::npos
                                     ? TensordotAxes(std::stoi(spec))
                                     : TensordotAxes(ints(spec.substr(0, semi)), ints(spec.substr(semi + 1)));
      const Var o = batched_tensordot(a, b, axes);
      check_close(o.eval({{a, A}, {b, B}}), load("btd" + r[0]));
      testing::check_infer_shape({a, b}, {o}, {A, B});
    }
    CHECK_THROWS_WITH_AS(batched_tensordot(tensor::tensor(DType::Float64, {2, 3, 4}), tensor::tensor(DType::Float64, {2, 4, 5}),
                                           TensordotAxes({0}, {1})),
                         doctest::Contains("batched_tensordot: axis 0 is the batch axis"), ValueError);
    CHECK_THROWS_WITH_AS(batched_tensordot(tensor::tensor(DType::Float64, {2, 3, 4}), tensor::tensor(DType::Float64, {3, 4, 5}), 1),
                         doctest::Contains("batched_tensordot: batch sizes differ"), ShapeError);
    CHECK_THROWS_WITH_AS(batched_tensordot(tensor::tensor(DType::Float64, {2, 3, 4}), tensor::tensor(DType::Float64, {2, 5, 5}), 1),
                         doctest::Contains("shape mismatch for summed axes"), ShapeError);
    // batched_dot of float operands is one BatchedDot.
    const Var p = tensor::tensor(DType::Float64, {3, 2, 4}), q = tensor::tensor(DType::Float64, {3, 4, 5});
    Function f = function({p, q}, {batched_dot(p, q)}, {.mode = "fast_run"});
    CHECK(count(f, "BatchedDot") == 1);
  }

  TEST_CASE("BatchedDot: infer_shape and verify_grad, broadcast batch dims included") {
    const Var a = tensor::tensor(DType::Float64, {Dim(), Dim(1), Dim(), Dim()}, "a");
    const Var b = tensor::tensor(DType::Float64, {Dim(1), Dim(), Dim(), Dim()}, "b");
    testing::check_infer_shape({a, b}, {batched_dot3(a, b)}, {point({2, 1, 3, 4}), point({1, 3, 4, 2})});
    auto f = [](const std::vector<Var>& in) { return batched_dot3(in[0], in[1]); };
    testing::verify_grad(f, {point({2, 3, 4}), point({2, 4, 5}, 0.2)});
    testing::verify_grad(f, {point({2, 1, 3, 4}), point({1, 3, 4, 2}, -0.3)});
    auto mm = [](const std::vector<Var>& in) { return linalg::matmul(in[0], in[1]); };
    testing::verify_grad(mm, {point({4}), point({2, 4, 3}, 0.1)});
    testing::verify_grad([](const std::vector<Var>& in) { return batched_tensordot(in[0], in[1], 2); },
                         {point({2, 3, 4, 2}), point({2, 4, 2, 3}, 0.4)});
  }
}
