// einsum (compiler/src/tensor/einsum/) against np.einsum over the table of
// tests/data/einsum/gen_einsum.py (cases.txt: implicit and explicit outputs,
// ellipsis with broadcasting, diagonals, traces, transposes, sums, outer and
// batched products, chains of three operands, size-1 broadcasting,
// uppercase letters, spaces, float32 and integer dtypes), with static and
// unknown shapes; the ops it builds (BatchedDot / Dot22, no broadcast
// product for floats); the greedy path; bad subscripts; verify_grad.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/runtime/npy.h"
#include "theano/tensor/einsum.h"
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

void check_close(const NDArray& got, const NDArray& want, double rtol) {
  REQUIRE(got.shape() == want.shape());
  CHECK(got.dtype() == want.dtype());
  const NDArray g = got.astype(DType::Float64).copy(), w = want.astype(DType::Float64).copy();
  for (int64_t i = 0; i < w.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(g.data_as<double>()[i] - w.data_as<double>()[i]) <=
          rtol * std::max(1.0, std::fabs(w.data_as<double>()[i])));
  }
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

TEST_SUITE("einsum") {
  TEST_CASE("einsum matches np.einsum over the fixture table, static and unknown shapes") {
    std::ifstream in(fixture("cases.txt"));
    REQUIRE(in.good());
    int cases = 0;
    for (std::string line; std::getline(in, line); ++cases) {
      std::vector<std::string> c;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, '|');) c.push_back(x);
      REQUIRE(c.size() == 4);
      CAPTURE(c[1]);
      std::vector<NDArray> vals;
      for (int j = 0; j < std::stoi(c[3]); ++j) vals.push_back(load("case" + c[0] + "_" + std::to_string(j)));
      const NDArray want = load("case" + c[0]);
      for (bool st : {true, false}) {
        CAPTURE(st);
        std::vector<Var> vars;
        std::vector<TensorLike> ops;
        std::vector<std::pair<Var, NDArray>> given;
        for (std::size_t j = 0; j < vals.size(); ++j) {
          vars.push_back(var_of(vals[j], "x" + std::to_string(j), st));
          ops.emplace_back(vars.back());
        }
        const Var o = einsum(c[1], ops);
        Function f = function(std::vector<In>(vars.begin(), vars.end()), {o}, {.mode = "fast_run"});
        check_close(f(vals)[0], want, c[2] == "float32" ? 1e-5 : 1e-10);
        if (st) testing::check_infer_shape(vars, {o}, vals);
      }
    }
    CHECK(cases >= 25);
  }

  TEST_CASE("einsum: the ops it builds and the greedy path") {
    const Var a = tensor::tensor(DType::Float64, {8, 3, 4}, "a"), b = tensor::tensor(DType::Float64, {8, 4, 5}, "b");
    Function f = function({a, b}, {einsum("bij,bjk->bik", {a, b}), einsum("bij,bkj->bki", {a, a})},
                          {.mode = "fast_run"});
    CHECK(count(f, "BatchedDot") == 2);
    CHECK(count(f, "Sum") == 0);  // no broadcast product summed
    // Elementwise products and batched inner products are broadcast products (no 1 x 1 gemms).
    Function e = function({a}, {einsum("bij,bij->bij", {a, a}), einsum("bij,bij->bi", {a, a})}, {.mode = "fast_run"});
    CHECK(count(e, "BatchedDot") == 0);
    // A batch of static size 1 is a plain matrix product (local_batched_dot_to_dot22).
    const Var a1 = tensor::tensor(DType::Float64, {1, 3, 4}, "a1"), b1 = tensor::tensor(DType::Float64, {1, 4, 5}, "b1");
    Function g = function({a1, b1}, {einsum("bij,bjk->bik", {a1, b1})}, {.mode = "fast_run"});
    CHECK(count(g, "BatchedDot") == 0);
    CHECK(count(g, "Dot22") == 1);
    const NDArray A1 = point({1, 3, 4}), B1 = point({1, 4, 5}, 0.5);
    check_close(g({A1, B1})[0], einsum("bij,bjk->bik", {a1, b1}).eval({{a1, A1}, {b1, B1}}), 1e-12);
    // Greedy order: the small matrix-vector product first (b . v), then a with it.
    const Var A = tensor::tensor(DType::Float64, {100, 100}), B = tensor::tensor(DType::Float64, {100, 100});
    const Var v = tensor::tensor(DType::Float64, {100});
    CHECK(einsum_path("ij,jk,k->i", {A, B, v}) == std::vector<std::pair<int, int>>{{1, 2}, {0, 1}});
    CHECK(einsum_path("ij,jk->ik", {A, B}) == std::vector<std::pair<int, int>>{{0, 1}});
  }

  TEST_CASE("einsum: bad subscripts are ValueErrors naming the subscripts and the operand") {
    const Var m = dmatrix("m"), v = dvector("v");
    auto bad = [&](const std::string& s, const std::vector<TensorLike>& ops, const std::string& what) {
      CAPTURE(s);
      CHECK_THROWS_WITH_AS(einsum(s, ops), doctest::Contains(what.c_str()), ValueError);
    };
    bad("ij,j", {m}, "2 operand term(s) but 1 operand(s)");
    bad("ijk", {m}, "operand 0 ('ijk') names 3 axes but operand 0 (m) has 2");
    bad("i1", {m}, "operand 0 ('i1') has the character '1'");
    bad("i..j", {m}, "not part of '...'");
    bad("...i...", {m}, "'...' more than once");
    bad("ij->k", {m}, "'k', which no operand term has");
    bad("ij->ii", {m}, "'i' more than once");
    bad("...j->j", {m}, "no '...' to keep them");
    bad("ij->j->i", {m}, "'->' more than once");
    bad("ij-j", {m}, "not part of '->'");
    bad("ij", {}, "no operands");
    CHECK_THROWS_WITH_AS(einsum("ij,j", {tensor::tensor(DType::Float64, {3, 4}), tensor::tensor(DType::Float64, {5})}),
                         doctest::Contains("'j' has size 4 in one operand and 5 in operand 1"), ShapeError);
    CHECK_THROWS_WITH_AS(einsum("ii", {tensor::tensor(DType::Float64, {3, 4})}),
                         doctest::Contains("repeats 'i' on axes of sizes 3 and 4"), ShapeError);
    (void)v;
  }

  TEST_CASE("einsum: verify_grad through BatchedDot, Dot22, diagonals and sums") {
    auto g = [](const std::string& s) {
      return [s](const std::vector<Var>& in) {
        std::vector<TensorLike> ops(in.begin(), in.end());
        return einsum(s, ops);
      };
    };
    testing::verify_grad(g("bij,bjk->bik"), {point({2, 3, 4}), point({2, 4, 2}, 0.3)});
    testing::verify_grad(g("ij,jk,k->i"), {point({3, 4}), point({4, 2}, 0.2), point({2}, -0.4)});
    testing::verify_grad(g("iij->j"), {point({3, 3, 2})});
    testing::verify_grad(g("...ij,...jk"), {point({2, 3, 4}), point({4, 2}, 0.1)});
  }
}
