// Elementwise fusion of very long chains (issue 15): a chain of n unary ops
// must not be walked by recursion on the C++ stack (it overflowed an 8 MB
// stack near n = 4*10^4); since issue 33 it becomes ceil(n / 256) fused nodes
// (a fused body is bounded so that compile time is linear in the graph).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "theano/compile/function.h"
#include "theano/fgraph/function_graph.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::tensor;

TEST_CASE("fusing a chain of 6*10^4 elementwise ops: bounded fused nodes, no stack overflow, right values") {
  constexpr int kOps = 60000;
  Var x = dvector("x");
  Var y = x;
  for (int k = 0; k < kOps; ++k) y = (k % 2) ? sin(y) : cos(y);
  Function f = function({x}, {y});
  CHECK(f.fgraph().toposort().size() == (kOps + 255) / 256);
  for (const Apply* node : f.fgraph().toposort()) {
    const auto* e = dynamic_cast<const Elemwise*>(node->op().get());
    REQUIRE(e);
    const auto* c = dynamic_cast<const Composite*>(e->scalar_op().get());
    REQUIRE(c);
    CHECK(c->inner_size() <= 256);
  }
  const std::vector<double> xs{-1.5, 0.0, 0.7, 3.0};
  const NDArray r = f({NDArray::from_vector(xs, {4})})[0];
  for (std::int64_t i = 0; i < 4; ++i) {
    double want = xs[static_cast<std::size_t>(i)];
    for (int k = 0; k < kOps; ++k) want = (k % 2) ? std::sin(want) : std::cos(want);
    CHECK(r.data_as<double>()[i] == doctest::Approx(want).epsilon(1e-9));
  }
}
