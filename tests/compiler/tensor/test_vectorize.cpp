// vectorize / blockwise (theano/tensor/vectorize.h): signatures, batch axes
// broadcast together, a user graph and a core op mapped over them against a
// loop of the core computation, an empty batch, gradients, and bad input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "theano/testing.h"
#include "theano/tensor/vectorize.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray seq(std::vector<std::int64_t> shape, double scale) {
  NDArray a = NDArray::empty(shape, DType::Float64);
  for (std::int64_t k = 0; k < a.size(); ++k) a.data_as<double>()[k] = scale * static_cast<double>((k * 7) % 11 - 5);
  return a;
}

/// The core function of the tests: (m,n),(n)->(m),() : A x + 1, and x . x.
std::vector<Var> core_fn(const std::vector<Var>& in) { return {dot(in[0], in[1]) + 1.0, sum(in[1] * in[1])}; }

}  // namespace

TEST_CASE("vectorize: signatures parsed, bad ones named") {
  const CoreSignature s = parse_signature("(m,n),(n)->(m),()");
  CHECK(s.inputs == std::vector<int>{2, 1});
  CHECK(s.outputs == std::vector<int>{1, 0});
  CHECK(parse_signature(" () , (a_1) -> (a_1) ").inputs == std::vector<int>{0, 1});
  CHECK_THROWS_WITH_AS(parse_signature("(m,n)(n)"), doctest::Contains("no \"->\""), ValueError);
  CHECK_THROWS_WITH_AS(parse_signature("(m,n),(n->(m)"), doctest::Contains("bad signature"), ValueError);
  CHECK_THROWS_WITH_AS(parse_signature("(m;n)->()"), doctest::Contains("unexpected ';'"), ValueError);
}

TEST_CASE("vectorize: a user graph over broadcast batch axes equals a loop of the core graph") {
  // A: batch (2, 1), x: batch (3,) -> outputs batch (2, 3).
  const Var A = tensor::tensor(DType::Float64, {std::nullopt, 1, std::nullopt, std::nullopt}, "A");
  const Var x = dmatrix("x");
  const std::vector<Var> out = vectorize(core_fn, {A, x}, "(m,n),(n)->(m),()");
  REQUIRE(out.size() == 2);
  CHECK(tensor_type(out[0])->ndim() == 3);
  CHECK(tensor_type(out[1])->ndim() == 2);
  const NDArray av = seq({2, 1, 4, 5}, 0.25), xv = seq({3, 5}, 0.5);
  Function f = function({A, x}, {out[0], out[1]});
  const std::vector<NDArray> got = f({av, xv});
  CHECK(got[0].shape() == std::vector<std::int64_t>{2, 3, 4});
  CHECK(got[1].shape() == std::vector<std::int64_t>{2, 3});
  const Var a2 = dmatrix("a2"), x1 = dvector("x1");
  Function core = function({a2, x1}, std::vector<Out>{core_fn({a2, x1})[0], core_fn({a2, x1})[1]});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      const std::vector<NDArray> want = core({av.index(0, i).index(0, 0).copy(), xv.index(0, j).copy()});
      CHECK(allclose(got[0].index(0, i).index(0, j).copy(), want[0], 1e-13, 1e-13));
      CHECK(allclose(got[1].index(0, i).index(0, j).copy(), want[1], 1e-13, 1e-13));
    }
  // An empty batch gives empty outputs of the right rank.
  const std::vector<NDArray> empty = f({seq({0, 1, 4, 5}, 1), xv});
  CHECK(empty[0].shape() == std::vector<std::int64_t>{0, 3, 4});
  // No batch axis: the core graph itself.
  CHECK(vectorize(core_fn, {a2, x1}, "(m,n),(n)->(m),()")[0].owner()->op()->type_name() != "Scan");
  testing::check_infer_shape({A, x}, {out[0], out[1]}, {av, xv});
}

TEST_CASE("vectorize: an elementwise core of one core rank is the elementwise graph itself, no loop") {
  const Var a = dtensor3("a"), b = dmatrix("b");
  const auto fn = [](const std::vector<Var>& in) { return std::vector<Var>{tanh(in[0]) * in[1] + 1.0}; };
  const Var out = vectorize(fn, {a, b}, "(n),(n)->(n)")[0];
  CHECK(debugprint(out).find("Scan") == std::string::npos);
  const NDArray av = seq({2, 3, 4}, 0.1), bv = seq({3, 4}, 0.2);
  const Var a1 = dvector("a1"), b1 = dvector("b1");
  Function core = function({a1, b1}, fn({a1, b1})[0]);
  const NDArray got = function({a, b}, out)({av, bv}).value();
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      CHECK(allclose(got.index(0, i).index(0, j).copy(),
                     core({av.index(0, i).index(0, j).copy(), bv.index(0, j).copy()}).value(), 1e-14, 1e-14));
  // Different core ranks: right alignment would be wrong, so the loop runs.
  const auto fn2 = [](const std::vector<Var>& in) { return std::vector<Var>{in[0] * in[1]}; };
  CHECK(debugprint(vectorize(fn2, {b, dvector("s")}, "(n),()->(n)")[0]).find("Scan") != std::string::npos);
}

TEST_CASE("blockwise of a core op, gradients, and batch sizes that do not broadcast") {
  const Var a = dmatrix("a"), b = dmatrix("b");
  const OpPtr core = dot(a, b).owner()->op();
  const Var A = dtensor3("A"), B = dtensor3("B");
  const Var out = blockwise(core, {A, B}, "(m,k),(k,n)->(m,n)")[0];
  const NDArray av = seq({3, 2, 4}, 0.5), bv = seq({3, 4, 2}, 0.25);
  const NDArray got = function({A, B}, out)({av, bv}).value();
  Function mm = function({a, b}, dot(a, b));
  for (std::int64_t i = 0; i < 3; ++i)
    CHECK(allclose(got.index(0, i).copy(), mm({av.index(0, i).copy(), bv.index(0, i).copy()}).value(), 1e-13, 1e-13));
  // A matrix product core is one BatchedDot over the batch, not a loop.
  CHECK(debugprint(out).find("Scan") == std::string::npos);
  CHECK(debugprint(out).find("BatchedDot") != std::string::npos);
  testing::verify_grad([&](const std::vector<Var>& in) { return blockwise(core, {in[0], in[1]}, "(m,k),(k,n)->(m,n)")[0]; },
                       {av, bv});
  testing::verify_grad([&](const std::vector<Var>& in) { return vectorize(core_fn, in, "(m,n),(n)->(m),()")[0]; },
                       {seq({2, 3, 4}, 0.1), seq({2, 4}, 0.2)});
  // Batch axes of different known sizes: an error at run time.
  Function f = function({A, B}, out);
  CHECK_THROWS(f({av, seq({2, 4, 2}, 1)}));
  CHECK_THROWS_WITH_AS(vectorize(core_fn, {dvector("v"), dvector("w")}, "(m,n),(n)->(m),()"),
                       doctest::Contains("below its core rank 2"), ValueError);
  CHECK_THROWS_WITH_AS(vectorize(core_fn, {A, B}, "(m,n)->(m)"), doctest::Contains("has 1 inputs, got 2"), ValueError);
  CHECK_THROWS_WITH_AS(vectorize(core_fn, {A, dmatrix("x")}, "(m,n),(n)->(m)"),
                       doctest::Contains("fn returned 2 outputs"), ValueError);
}
