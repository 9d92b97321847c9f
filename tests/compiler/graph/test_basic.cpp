// Variable / Constant / Apply construction and ownership: the seed's explicit
// construction example, adoption errors, cloning, and lifetime.
#include <sstream>

#include <doctest/doctest.h>

#include "fake_ops.h"
#include "test_util.h"
#include "theano/graph/traversal.h"

using namespace theano;
using namespace theano::testing;

TEST_CASE("seed example: explicit construction of e = x + y * z") {
  const TypePtr float64_matrix = tensor::TensorType::from_broadcastable(DType::Float64, {false, false});
  const OpPtr add = op("add"), mul = op("mul");
  Var x = float64_matrix->make_variable("x");
  Var y = float64_matrix->make_variable("y");
  Var z = float64_matrix->make_variable("z");

  Var mul_variable = float64_matrix->make_variable();
  CHECK(mul_variable.owner() == nullptr);
  ApplyPtr node_mul = Apply::create(mul, {y, z}, {mul_variable});
  CHECK(mul_variable.owner() == node_mul.get());
  CHECK(mul_variable.index() == 0);

  Var add_variable = float64_matrix->make_variable();
  CHECK(add_variable.owner() == nullptr);
  ApplyPtr node_add = Apply::create(add, {x, mul_variable}, {add_variable});
  CHECK(add_variable.owner() == node_add.get());
  CHECK(add_variable.index() == 0);

  Var e = add_variable;
  CHECK(e.owner()->inputs()[0] == x);
  CHECK(e.owner()->inputs()[1] == mul_variable);
  CHECK(e.owner()->inputs()[1].owner()->inputs()[0] == y);
  CHECK(e.owner()->inputs()[1].owner()->inputs()[1] == z);
  CHECK(e.owner()->nin() == 2);
  CHECK(e.owner()->nout() == 1);
  CHECK(e.owner()->out() == e);
  CHECK(e.owner()->get_parents() == std::vector<Apply*>{node_mul.get()});
}

TEST_CASE("an output that already has an owner is refused with ValueError") {
  Var x = var("x"), y = var("y");
  Var out = ap(op("add"), {x, y});
  CHECK_THROWS_WITH_AS(Apply::create(op("mul"), {x, y}, {out}),
                       doctest::Contains("already has an owner, add; a Variable is the output of at most one Apply"),
                       ValueError);
  Var fresh = dmat()->make_variable();
  CHECK_THROWS_WITH_AS(Apply::create(op("two", 2, 2), {x, y}, {fresh, fresh}), doctest::Contains("is listed twice"),
                       ValueError);
  CHECK(fresh.owner() == nullptr);  // a refused Apply adopts nothing
}

TEST_CASE("variable strings follow Theano") {
  Var x = var("x"), y = var("y");
  Var s = ap(op("add"), {x, y});
  CHECK(s.str() == "add.out");
  ApplyPtr two = op("split", 1, 2)->make_node({x});
  CHECK(two->output(1).str() == "split.1");
  CHECK_THROWS_WITH_AS(two->out(), doctest::Contains("has 2 outputs and its op names no default output"), ValueError);
  CHECK_THROWS_AS(two->output(2), IndexError);
  CHECK(dmat()->make_variable().str() == "<TensorType(float64, matrix)>");
  s->set_name("s");
  CHECK(s.str() == "s");
  std::ostringstream os;
  os << *s.owner();
  CHECK(os.str() == "add(x, y)");
}

TEST_CASE("constants: data filtered into the type, signature, equality, text") {
  const auto dvec = tensor::TensorType::make(DType::Float64, {tensor::Dim()});
  Var c1 = dvec->make_constant(NDArray::from_list<double>({1.0, 2.0}));
  Var c2 = dvec->make_constant(NDArray::from_list<int32_t>({1, 2}));  // safe cast to float64
  Var c3 = dvec->make_constant(NDArray::from_list<double>({1.0, 3.0}));
  REQUIRE(c1.is_constant());
  CHECK(c2.as_constant()->data().dtype() == DType::Float64);
  CHECK(c1.as_constant()->signature() == c2.as_constant()->signature());
  CHECK(c1.as_constant()->equals(*c2.as_constant()));
  CHECK_FALSE(c1.as_constant()->equals(*c3.as_constant()));
  const auto dscal = tensor::TensorType::make(DType::Float64, {});
  CHECK(dscal->make_constant(NDArray::scalar(2.0)).str() == "Constant{2.0}");
  CHECK(dscal->make_constant(NDArray::scalar(0.5), "half").str() == "half");
  const auto big = dvec->make_constant(NDArray::arange(0, 100));
  CHECK(big.str().find("...") != std::string::npos);
  CHECK(big.str().size() <= std::string("Constant{}").size() + 23);
  // A clone of a constant is a new constant with equal data.
  Var cc = c1->clone();
  CHECK(cc != c1);
  CHECK(cc.as_constant()->equals(*c1.as_constant()));
  // ...of the same type, name, signature and values (taken over, not recomputed).
  Var named = dvec->make_constant(NDArray::from_list<double>({4.0, -0.0}), "w");
  Var nc = named->clone();
  CHECK(nc.type() == named.type());
  CHECK(nc.name() == "w");
  CHECK(nc.as_constant()->signature() == named.as_constant()->signature());
  CHECK(nc.as_constant()->data().dtype() == DType::Float64);
  CHECK(array_equal(nc.as_constant()->data(), named.as_constant()->data()));
  CHECK_FALSE(nc.as_constant()->equals(*c1.as_constant()));
  CHECK_THROWS_AS(dvec->make_constant(NDArray::from_list<double>({1, 2, 3, 4}, {2, 2})), TypeError);
}

TEST_CASE("Apply::clone and clone_with_new_inputs") {
  Var x = var("x"), y = var("y"), z = var("z");
  ApplyPtr n = op("add")->make_node({x, y});
  n->output(0)->set_name("sum");
  ApplyPtr c = n->clone();
  CHECK(c != n);
  CHECK(c->inputs() == n->inputs());
  CHECK(c->output(0) != n->output(0));
  CHECK(c->output(0).name() == "sum");
  CHECK(c->output(0).owner() == c.get());

  ApplyPtr w = n->clone_with_new_inputs({z, y});
  CHECK(w->input(0) == z);
  CHECK(*w->op() == *n->op());

  // strict: a different type is refused with both types named.
  Var v = tensor::dvector("v");
  CHECK_THROWS_WITH_AS(n->clone_with_new_inputs({v, y}),
                       doctest::Contains("has type TensorType(float64, vector) but the node expects "
                                         "TensorType(float64, matrix)"),
                       TypeError);
  // non-strict: rebuilt through make_node, whose own type check speaks.
  CHECK_THROWS_WITH_AS(n->clone_with_new_inputs({v, y}, false), doctest::Contains("add expects float64 matrices"),
                       TypeError);
  // A more specific static shape converts (is_super) even when strict.
  Var fixed = tensor::tensor(DType::Float64, {3, 4}, "fixed");
  ApplyPtr f = n->clone_with_new_inputs({fixed, y});
  CHECK(f->input(0) == fixed);
  CHECK_THROWS_AS(n->clone_with_new_inputs({x}), ValueError);
}

TEST_CASE("holding any output keeps the whole upstream graph alive") {
  Var out;
  {
    Var x = var("x"), y = var("y");
    Var m = ap(op("mul"), {x, y});
    out = ap(op("add"), {m, x});
  }
  const std::vector<Var> ins = inputs({out});
  REQUIRE(ins.size() == 2);
  CHECK(ins[0].name() == "x");
  CHECK(ins[1].name() == "y");
  // An Apply handle keeps its outputs alive and vice versa.
  ApplyPtr node(out.owner());
  out = Var();
  CHECK(node->output(0).owner() == node.get());
}

TEST_CASE("dropping a graph of 10^5 nodes frees everything (LeakSanitizer checks)") {
  const std::int64_t live_before = GraphNode::live_nodes();
  const OpPtr add = op("add");
  std::vector<Var> layer;
  for (int i = 0; i < 300; ++i) layer.push_back(var("x" + std::to_string(i)));
  int nodes = 0;
  while (nodes < 100000) {
    std::vector<Var> next;
    for (std::size_t i = 0; i < layer.size(); ++i) {
      next.push_back(ap(add, {layer[i], layer[(i * 7 + 1) % layer.size()]}));
      ++nodes;
    }
    layer = std::move(next);
  }
  CHECK(layer.front().owner() != nullptr);
  CHECK(GraphNode::live_nodes() - live_before >= 2 * 100000);
  layer.clear();  // everything must be released here (LSan would also fail the run)
  CHECK(GraphNode::live_nodes() == live_before);
}
