// Var::eval's cache (issue 15): it holds no reference to the user's graph, so
// dropping every handle on an evaluated graph frees the graph and the
// Function compiled for it without clear_eval_cache(); a second eval of a live
// graph is a cache hit.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "theano/compile/function.h"
#include "theano/graph/intrusive.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::tensor;

namespace {

/// x, and 100 elementwise ops over it.
Var hundred_ops(const Var& x) {
  Var y = x;
  for (int k = 0; k < 100; ++k) y = (k % 3 == 0) ? y * 0.5 : (k % 3 == 1) ? y + 1.0 : tanh(y);
  return y;
}

const NDArray kValue = NDArray::from_vector(std::vector<double>{0.5, -1.0, 2.0}, {3});

}  // namespace

TEST_SUITE("eval_cache") {
  TEST_CASE("dropping every handle on an evaluated graph frees it and its Function") {
    clear_eval_cache();
    const std::int64_t baseline = GraphNode::live_nodes();
    {
      Var x = dvector("x");
      Var y = hundred_ops(x);
      const NDArray r = y.eval({{x, kValue}});
      CHECK(r.size() == 3);
      CHECK(eval_cache_size() == 1);
      CHECK(GraphNode::live_nodes() > baseline + 200);
    }
    CHECK(eval_cache_size() == 0);
    CHECK(GraphNode::live_nodes() == baseline);
  }

  TEST_CASE("only the dropped graph's entries go") {
    clear_eval_cache();
    Var x = dvector("x");
    Var keep = hundred_ops(x);
    keep.eval({{x, kValue}});
    const std::int64_t with_one = GraphNode::live_nodes();
    {
      Var other = tanh(keep) * 3.0;
      other.eval({{x, kValue}});
      CHECK_THROWS(other.eval({}));  // x unbound: a compile error, nothing cached
    }
    CHECK(eval_cache_size() == 1);
    CHECK(GraphNode::live_nodes() == with_one);
  }

  TEST_CASE("a second eval of a live graph is a cache hit: nothing is compiled") {
    clear_eval_cache();
    Var x = dvector("x");
    Var y = hundred_ops(x);
    const NDArray first = y.eval({{x, kValue}});
    // Creation ids are consecutive: a compile would create many nodes between
    // the two probes.
    const std::uint64_t before = dvector("probe")->id();
    const NDArray second = y.eval({{x, kValue}});
    const std::uint64_t after = dvector("probe")->id();
    CHECK(after == before + 1);
    CHECK(eval_cache_size() == 1);
    for (std::int64_t i = 0; i < 3; ++i) CHECK(first.data_as<double>()[i] == second.data_as<double>()[i]);
  }
}
