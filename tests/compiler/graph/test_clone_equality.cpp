// clone / clone_get_equiv / clone_replace, equal_computations, is_same_graph,
// view_roots, io_connection_pattern and as_string.
#include <doctest/doctest.h>

#include "fake_ops.h"
#include "test_util.h"
#include "theano/graph/as_string.h"
#include "theano/graph/clone.h"
#include "theano/graph/equiv.h"
#include "theano/graph/equality.h"
#include "theano/graph/toposort.h"
#include "theano/graph/traversal.h"
#include "theano/graph/views.h"

using namespace theano;
using namespace theano::testing;

TEST_CASE("clone_get_equiv maps every variable and node, flags decide inputs and orphans") {
  Var x = var("x"), y = var("y");
  Var c = dmat()->make_constant(NDArray::ones({2, 2}), "c");
  Var m = ap(op("mul"), {x, c});
  Var e = ap(op("add"), {m, y});
  Equiv eq = clone_get_equiv({x, y}, {e});
  CHECK(eq.at(x) != x);
  CHECK(eq.at(x).name() == "x");
  CHECK(eq.at(x).owner() == nullptr);
  CHECK(eq.at(c) != c);
  CHECK(eq.at(c).is_constant());
  CHECK(eq.at(e).owner() == eq.at(e.owner()).get());
  CHECK(eq.at(e).owner()->input(0) == eq.at(m));
  CHECK(eq.nodes.size() == 2);
  CHECK(equal_computations({e}, {eq.at(e)}, {x, y}, {eq.at(x), eq.at(y)}));

  Equiv keep = clone_get_equiv({x, y}, {e}, false, false);
  CHECK(keep.at(x) == x);
  CHECK(keep.at(c) == c);
  CHECK(keep.at(e) != e);
  CHECK(equal_computations({e}, {keep.at(e)}));

  // A pre-filled memo substitutes.
  Var z = var("z");
  Equiv memo;
  memo.vars.emplace(y, z);
  Equiv sub = clone_get_equiv({x, y}, {e}, false, false, memo);
  CHECK(sub.at(e).owner()->input(1) == z);
  CHECK_THROWS_WITH_AS(sub.at(var("other")), doctest::Contains("other is not part of the cloned graph"), ValueError);
}

TEST_CASE("clone returns copied inputs and outputs, the original is untouched") {
  Var x = var("x"), y = var("y");
  Var e = ap(op("add"), {x, y});
  auto [ins, outs] = clone({x, y}, {e});
  CHECK(ins[0] != x);
  CHECK(outs[0].owner()->input(0) == ins[0]);
  CHECK(e.owner()->input(0) == x);
  auto [ins2, outs2] = clone({x, y}, {e}, false);
  CHECK(ins2[0] == x);
  CHECK(outs2[0] != e);
}

TEST_CASE("clone_replace substitutes and checks types") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var e = ap(op("add"), {ap(op("mul"), {x, y}), x});
  std::vector<Var> r = clone_replace({e}, {{x, z}});
  CHECK(as_string({z, y}, r) == std::vector<std::string>{"add(mul(z, y), z)"});
  CHECK(as_string({x, y}, {e}) == std::vector<std::string>{"add(mul(x, y), x)"});
  // Replacing by an expression of the replaced variable is fine.
  Var xp = ap(op("neg", 1), {x});
  CHECK(as_string({x, y}, clone_replace({e}, {{x, xp}})) == std::vector<std::string>{"add(mul(*1 -> neg(x), y), *1)"});
  CHECK_THROWS_WITH_AS(clone_replace({e}, {{x, tensor::dvector("v")}}), doctest::Contains("the types differ"),
                       TypeError);
}

TEST_CASE("equal_computations") {
  Var x = var("x"), y = var("y"), z = var("z");
  const OpPtr mul = op("mul");
  Var a = ap(mul, {x, ap(mul, {y, z})});
  Var b = ap(mul, {x, ap(mul, {y, z})});
  Var c = ap(mul, {ap(mul, {x, y}), z});
  CHECK(equal_computations({a}, {b}));
  CHECK_FALSE(equal_computations({a}, {c}));
  CHECK(equal_computations({a, x}, {b, x}));
  CHECK_FALSE(equal_computations({a}, {x}));
  // An equal op built separately (equal props) counts as the same op.
  Var d = ap(op("mul"), {x, ap(op("mul"), {y, z})});
  CHECK(equal_computations({a}, {d}));
  CHECK_FALSE(equal_computations({a}, {ap(op("add"), {x, ap(mul, {y, z})})}));
  // Leaves paired through in_xs / in_ys.
  Var x2 = var("x2");
  Var a2 = ap(mul, {x2, ap(mul, {y, z})});
  CHECK_FALSE(equal_computations({a}, {a2}));
  CHECK(equal_computations({a}, {a2}, {x}, {x2}));
  // Constants compare by value.
  Var c1 = dmat()->make_constant(NDArray::ones({2, 2}));
  Var c2 = dmat()->make_constant(NDArray::ones({2, 2}));
  Var c3 = dmat()->make_constant(NDArray::zeros({2, 2}));
  CHECK(equal_computations({ap(mul, {x, c1})}, {ap(mul, {x, c2})}));
  CHECK_FALSE(equal_computations({ap(mul, {x, c1})}, {ap(mul, {x, c3})}));
  // Output position matters.
  ApplyPtr two = op("split", 1, 2)->make_node({x});
  ApplyPtr two_b = op("split", 1, 2)->make_node({x});
  CHECK(equal_computations({two->output(1)}, {two_b->output(1)}));
  CHECK_FALSE(equal_computations({two->output(0)}, {two_b->output(1)}));
  CHECK_THROWS_AS(equal_computations({a}, {}), ValueError);
}

TEST_CASE("is_same_graph, with and without givens (Theano's test cases)") {
  Var x = var("x"), y = var("y"), z = var("z");
  const OpPtr mul = op("mul"), add = op("add");
  CHECK(is_same_graph(ap(mul, {x, ap(mul, {y, z})}), ap(mul, {x, ap(mul, {y, z})})));
  CHECK_FALSE(is_same_graph(ap(mul, {x, ap(mul, {y, z})}), ap(mul, {ap(mul, {x, y}), z})));
  // givens: a variable of one graph considered equal to one of the other.
  CHECK(is_same_graph(ap(add, {x, y}), ap(add, {z, y}), {{x, z}}));
  CHECK(is_same_graph(ap(add, {z, y}), ap(add, {x, y}), {{x, z}}));
  CHECK_FALSE(is_same_graph(ap(add, {x, y}), ap(add, {z, y})));
  // A non-leaf given: replace the subexpression y*z by x.
  Var other_yz = ap(mul, {y, z});  // not the node used below: substituting it changes nothing
  CHECK_FALSE(is_same_graph(ap(add, {x, ap(mul, {y, z})}), ap(add, {x, x}), {{other_yz, x}}));
  Var yz = ap(mul, {y, z});
  CHECK(is_same_graph(ap(add, {x, yz}), ap(add, {x, x}), {{yz, x}}));
  // The same variable on both sides of a given.
  CHECK(is_same_graph(ap(add, {x, y}), ap(add, {x, z}), {{y, z}}));
  CHECK(is_same_graph(ap(add, {x, z}), ap(add, {x, y}), {{y, z}}));
}

TEST_CASE("view_roots follows view_map chains") {
  Var x = var("x"), y = var("y");
  const OpPtr view = OpPtr(new FakeOp("view", 1, 1, {{0, {0}}}));
  const OpPtr view2 = OpPtr(new FakeOp("view2", 2, 1, {{0, {0, 1}}}));
  Var v = ap(view, {x});
  Var vv = ap(view, {v});
  CHECK(view_roots(vv) == std::vector<Var>{x});
  CHECK(view_roots(x) == std::vector<Var>{x});
  Var both = ap(view2, {vv, y});
  CHECK(view_roots(both) == std::vector<Var>{x, y});
  Var not_view = ap(op("add"), {vv, y});
  CHECK(view_roots(not_view) == std::vector<Var>{not_view});
}

namespace {
// An op whose output 0 depends on input 0 only and output 1 on input 1 only.
class Pairwise : public FakeOp {
 public:
  Pairwise() : FakeOp("pairwise", 2, 2) {}
  std::vector<std::vector<bool>> connection_pattern(const Apply&) const override {
    return {{true, false}, {false, true}};
  }
};
}  // namespace

TEST_CASE("io_connection_pattern combines the ops' connection patterns") {
  Var x = var("x"), y = var("y"), z = var("z");
  ApplyPtr p = OpPtr(new Pairwise())->make_node({x, y});
  Var o0 = ap(op("neg", 1), {p->output(0)});
  Var o1 = ap(op("add"), {p->output(1), z});
  const auto pat = io_connection_pattern({x, y, z}, {o0, o1, x});
  CHECK(pat == std::vector<std::vector<bool>>{{true, false, true}, {false, true, false}, {false, true, false}});
  // An output not reached from any input.
  Var w = var("w");
  CHECK(io_connection_pattern({x}, {w}) == std::vector<std::vector<bool>>{{false}});
}

TEST_CASE("as_string: shared nodes are printed once and referred to by label") {
  Var x = var("x"), y = var("y");
  const OpPtr add = op("add"), mul = op("mul");
  Var m = ap(mul, {x, y});
  Var e = ap(add, {m, m});
  CHECK(as_string({x, y}, {e}) == std::vector<std::string>{"add(*1 -> mul(x, y), *1)"});
  CHECK(as_string({x, y}, {e, m}) == std::vector<std::string>{"add(*1 -> mul(x, y), *1)", "*1"});
  CHECK(as_string({m}, {e}) == std::vector<std::string>{"add(mul.out, mul.out)"});
  ApplyPtr two = op("split", 1, 2)->make_node({x});
  Var s = ap(add, {two->output(0), two->output(1)});
  CHECK(as_string({x}, {s}) == std::vector<std::string>{"add(*1 -> split(x), *1::1)"});
  auto leaf = [](const Var& v) { return "<" + v.str() + ">"; };
  CHECK(as_string({x, y}, {m}, leaf) == std::vector<std::string>{"mul(<x>, <y>)"});
}
