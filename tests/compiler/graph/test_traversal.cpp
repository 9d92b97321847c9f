// ancestors, inputs, variables/orphans, ops, list_of_nodes, stack_search and the
// toposorts, on small fake-op graphs whose expected orders are worked out by hand.
#include <doctest/doctest.h>

#include <unordered_map>
#include <map>

#include "fake_ops.h"
#include "test_util.h"
#include "theano/graph/as_string.h"
#include "theano/graph/clone.h"
#include "theano/graph/equality.h"
#include "theano/graph/toposort.h"
#include "theano/graph/stack_search.h"
#include "theano/graph/traversal.h"

using namespace theano;
using namespace theano::testing;

namespace {

std::vector<std::string> names(const std::vector<Var>& vs) {
  std::vector<std::string> r;
  for (const Var& v : vs) r.push_back(v.str());
  return r;
}
std::vector<std::string> op_names(const std::vector<Apply*>& ns) {
  std::vector<std::string> r;
  for (const Apply* n : ns) r.push_back(n->op()->name());
  return r;
}
using S = std::vector<std::string>;

// e = add(x, mul(y, z)), with a constant c feeding a third node: f = sub(e, c)
struct Graph {
  Var x = var("x"), y = var("y"), z = var("z");
  Var c = dmat()->make_constant(NDArray::zeros({2, 2}), "c");
  Var m = ap(op("mul"), {y, z});
  Var e = ap(op("add"), {x, m});
  Var f = ap(op("sub"), {e, c});
  Graph() {
    m->set_name("m");
    e->set_name("e");
    f->set_name("f");
  }
};

}  // namespace

TEST_CASE("ancestors and inputs walk depth first, inputs left to right") {
  Graph g;
  CHECK(names(ancestors({g.f})) == S{"f", "e", "x", "m", "y", "z", "c"});
  CHECK(names(ancestors({g.f}, {g.e})) == S{"f", "e", "c"});
  CHECK(names(inputs({g.f})) == S{"x", "y", "z", "c"});
  CHECK(names(inputs({g.f}, {g.m})) == S{"x", "c"});  // a blocker with an owner is no input
}

TEST_CASE("variables_and_orphans, ops") {
  Graph g;
  auto vo = variables_and_orphans({g.x, g.y, g.z}, {g.f});
  CHECK(names(vo.variables) == S{"f", "e", "x", "m", "y", "z", "c"});
  CHECK(names(vo.orphans) == S{"c"});
  CHECK(names(orphans({g.x, g.m}, {g.f})) == S{"c"});
  CHECK(names(variables({g.m}, {g.e})) == S{"e", "x", "m"});
  CHECK(names(orphans({g.m}, {g.e})) == S{"x"});
  std::vector<std::string> o;
  for (const ApplyPtr& n : ops({g.x, g.y, g.z}, {g.f})) o.push_back(n->op()->name());
  CHECK(o == S{"sub", "add", "mul"});
  o.clear();
  for (const ApplyPtr& n : ops({g.m}, {g.f})) o.push_back(n->op()->name());
  CHECK(o == S{"sub", "add"});
}

TEST_CASE("list_of_nodes stops at nodes that compute an input") {
  Graph g;
  std::vector<std::string> o;
  for (const ApplyPtr& n : list_of_nodes({g.x, g.y, g.z}, {g.f})) o.push_back(n->op()->name());
  CHECK(o == S{"sub", "add", "mul"});
  o.clear();
  for (const ApplyPtr& n : list_of_nodes({g.m}, {g.f})) o.push_back(n->op()->name());
  CHECK(o == S{"sub", "add"});
}

TEST_CASE("stack_search: bfs, dfs and the inverse map") {
  // A small DAG over ints: 1 -> {2, 3}, 2 -> {4}, 3 -> {4}
  std::map<int, std::vector<int>> edges{{1, {2, 3}}, {2, {4}}, {3, {4}}};
  auto expand = [&](int n) { return edges.count(n) ? edges[n] : std::vector<int>{}; };
  CHECK(stack_search<int>({1}, expand, SearchMode::BFS) == std::vector<int>{1, 2, 3, 4});
  CHECK(stack_search<int>({1}, expand, SearchMode::DFS) == std::vector<int>{1, 3, 4, 2});
  std::unordered_map<int, std::vector<int>> inv;
  stack_search<int>({1}, expand, SearchMode::BFS, &inv);
  CHECK(inv[4] == std::vector<int>{2, 3});
  CHECK(inv[2] == std::vector<int>{1});
}

TEST_CASE("io_toposort: dependencies first, structural order, orderings honoured") {
  Graph g;
  CHECK(op_names(io_toposort({g.x, g.y, g.z}, {g.f})) == S{"mul", "add", "sub"});
  // Nothing past an input is included.
  CHECK(op_names(io_toposort({g.m}, {g.f})) == S{"add", "sub"});
  // Two independent nodes: the order follows the outputs' order...
  Var a = ap(op("a", 1), {g.x}), b = ap(op("b", 1), {g.y});
  CHECK(op_names(io_toposort({g.x, g.y}, {a, b})) == S{"a", "b"});
  CHECK(op_names(io_toposort({g.x, g.y}, {b, a})) == S{"b", "a"});
  // ...unless an ordering says otherwise.
  Orderings ord{{a.owner(), {b.owner()}}};
  CHECK(op_names(io_toposort({g.x, g.y}, {a, b}, ord)) == S{"b", "a"});
  // A contradictory ordering is a cycle.
  Var c = ap(op("c", 1), {a});
  Orderings cyc{{a.owner(), {c.owner()}}};
  CHECK_THROWS_WITH_AS(io_toposort({g.x}, {c}, cyc), doctest::Contains("cycle"), ValueError);
}

TEST_CASE("general_toposort over arbitrary nodes") {
  std::map<int, std::vector<int>> deps{{4, {2, 3}}, {2, {1}}, {3, {1}}};
  auto d = [&](int n) { return deps.count(n) ? deps[n] : std::vector<int>{}; };
  CHECK(general_toposort<int>({4}, d) == std::vector<int>{1, 2, 3, 4});
  deps[1] = {4};
  CHECK_THROWS_WITH_AS(general_toposort<int>({4}, d), doctest::Contains("cycle"), ValueError);
}

TEST_CASE("a chain of 10^6 nodes walks, sorts, clones and dies without deep recursion") {
  const std::int64_t live_before = GraphNode::live_nodes();
  {
    const OpPtr inc = op("inc", 1);
    Var x = var("x");
    Var v = x;
    constexpr int kN = 1000000;
    for (int i = 0; i < kN; ++i) v = ap(inc, {v});
    CHECK(inputs({v}) == std::vector<Var>{x});
    CHECK(ancestors({v}).size() == kN + 1);
    const std::vector<Apply*> topo = io_toposort({x}, {v});
    REQUIRE(topo.size() == kN);
    CHECK(topo.front()->input(0) == x);
    CHECK(topo.back() == v.owner());
    auto [ins, outs] = clone({x}, {v});
    CHECK(equal_computations({v}, outs, {x}, ins));
  }
  CHECK(GraphNode::live_nodes() == live_before);
}

TEST_CASE("as_string of a deep chain does not recurse") {
  // The text nests, so its cost grows with depth squared: 10^4 is enough here.
  const OpPtr inc = op("inc", 1);
  Var x = var("x");
  Var v = x;
  constexpr int kN = 10000;
  for (int i = 0; i < kN; ++i) v = ap(inc, {v});
  CHECK(as_string({x}, {v})[0].size() == 5 * kN + 1);  // "inc(" * n + "x" + ")" * n
}
