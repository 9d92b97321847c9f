// stream_gemv (rewrite/stream_gemv.cpp): a Dot of X and a Gemv of X^T whose
// vector is an elementwise function of the Dot's result become one
// RowStreamGemv, as graph text before and after, the optimized function
// computing what the unoptimized one does; and the graphs it must leave.
#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var s(double v) { return T::constant(NDArray::scalar<double>(v)); }

int count_ops(const std::vector<Var>& ins, const std::vector<Var>& outs, std::string_view type,
              const std::vector<std::string>& excluding = {"fusion", "inplace"}) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding(excluding));
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type;
  return n;
}

// Composite{sigmoid(i0) - i1}: fn of logistic regression's gradient.
T::ScalarOpPtr sigmoid_minus() {
  Var zs = T::ScalarType::make(DType::Float64)->make_variable();
  Var ys = T::ScalarType::make(DType::Float64)->make_variable();
  Var out = T::scalar_op("sub")->apply1({T::scalar_op("sigmoid")->apply1({zs}), ys});
  return T::ScalarOpPtr(new T::Composite({zs, ys}, std::vector<Var>{out}));
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("stream_gemv: w + dot(X^T, sigmoid(dot(X, w)) - y) is one RowStreamGemv, z kept for its clients") {
    Var X = T::dmatrix("X"), w = T::dvector("w"), y = T::dvector("y");
    Var z = T::dot(X, w);
    Var g = w + T::dot(X.T(), T::sigmoid(z) - y);
    ApplyPtr want = OpPtr(new T::RowStreamGemv(sigmoid_minus()))->make_node({X, w, w, s(1), s(1), y});
    check_rewrite({X, w, y}, {g}, {want->output(1)});
    check_rewrite({X, w, y}, {z, g}, {want->output(0), want->output(1)});
    // The Gemv's vector has another client: it reads the node's third output (fn is not computed twice).
    check_rewrite({X, w, y}, {g, T::sum(T::sigmoid(z) - y)}, {want->output(1), T::sum(want->output(2))});
    // ... and the nodes between z and it stay for theirs, on the new z.
    check_rewrite({X, w, y}, {g, T::sigmoid(z) - y, T::sigmoid(z)},
                  {want->output(1), want->output(2), T::sigmoid(want->output(0))});
    CHECK(count_ops({X, w, y}, {z, g}, "Dot") == 0);
    CHECK(count_ops({X, w, y}, {z, g}, "Gemv") == 0);
    // Left out on request.
    CHECK(count_ops({X, w, y}, {z, g}, "RowStreamGemv", {"fusion", "inplace", "stream_gemv"}) == 0);
    CHECK(count_ops({X, w, y}, {z, g}, "Gemv", {"fusion", "inplace", "stream_gemv"}) == 1);
  }

  TEST_CASE("stream_gemv: the Gemv's vector z itself (fn the identity)") {
    Var X = T::dmatrix("X"), w = T::dvector("w");
    Var z = T::dot(X, w);
    Var zs = T::ScalarType::make(DType::Float64)->make_variable();
    T::ScalarOpPtr identity(new T::Composite({zs}, std::vector<Var>{zs}));
    ApplyPtr want = OpPtr(new T::RowStreamGemv(identity))->make_node({X, w, w, s(1), s(1)});
    check_rewrite({X, w}, {z, w + T::dot(X.T(), z)}, {want->output(0), want->output(1)});
  }

  TEST_CASE("stream_gemv: logistic regression's step (W2) with every fused node, float32 too") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var X = T::matrix("X", dt), y = T::vector("y", dt), w = T::vector("w", dt), b = T::scalar("b", dt);
      Var p = T::sigmoid(T::dot(X, w) + b);
      auto k = [&](double v) { return T::constant(NDArray::full({}, v, dt)); };
      Var xent = -y * T::log(p) - (k(1) - y) * T::log(k(1) - p);
      Var cost = T::mean(xent) + k(0.01) * T::sum(T::sqr(w));
      auto grads = grad(cost, {w, b});
      const std::vector<Var> outs{cost, w - k(0.1) * grads[0], b - k(0.1) * grads[1]};
      CHECK(count_ops({X, y, w, b}, outs, "RowStreamGemv", {}) == 1);
      CHECK(count_ops({X, y, w, b}, outs, "Gemv", {}) == 0);
      // The bias gradient sums the node's r: no elementwise node computes the sigmoid again.
      FunctionGraph fg({X, y, w, b}, outs);
      rewrite::optimize(fg, rewrite::mode_query("fast_run"));
      for (Apply* node : fg.apply_nodes())
        if (node->op()->type_name() == "Elemwise")
          CHECK_MESSAGE(node->op()->name().find("sigmoid") == std::string::npos, node->op()->name());
    }
  }

  TEST_CASE("stream_gemv leaves: another matrix, a vector not computed from z, a cycle, a reduction of z") {
    Var X = T::dmatrix("X"), A = T::dmatrix("A"), w = T::dvector("w"), y = T::dvector("y");
    Var z = T::dot(X, w);
    // The Gemv's matrix is another's transpose.
    CHECK(count_ops({X, A, w}, {w + T::dot(A.T(), T::sigmoid(z))}, "RowStreamGemv") == 0);
    // The vector does not depend on z.
    CHECK(count_ops({X, w, y}, {z, w + T::dot(X.T(), T::sigmoid(y))}, "RowStreamGemv") == 0);
    // The Gemv's y is computed from z: the joined node would read its own output.
    CHECK(count_ops({X, w}, {w * T::sum(z) + T::dot(X.T(), T::sigmoid(z))}, "RowStreamGemv") == 0);
    // The vector reads a reduction of z: not elementwise.
    CHECK(count_ops({X, w}, {w + T::dot(X.T(), z - T::mean(z))}, "RowStreamGemv") == 0);
  }
}
