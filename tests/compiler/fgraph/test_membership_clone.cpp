// Membership (a node in one FunctionGraph at a time without clone), disown,
// clone / clone_get_equiv with feature re-attachment.
#include <doctest/doctest.h>

#include "theano/graph/equiv.h"
#include "fake_ops.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/as_string.h"
#include "theano/graph/equality.h"

using namespace theano;
using namespace theano::fake;

TEST_CASE("two graphs cannot share variables without clone, disown releases them") {
  Var x = var("x"), y = var("y");
  Var e = ap(my_op("op1"), {x, ap(my_op("op2"), {y})});
  auto fg1 = std::make_unique<FunctionGraph>(std::vector<Var>{x, y}, std::vector<Var>{e},
                                             std::vector<FeaturePtr>{}, false);
  try {
    FunctionGraph fg2({x, y}, {e}, {}, false);
    FAIL("expected ValueError");
  } catch (const ValueError& err) {
    CHECK(std::string(err.what()).find("another FunctionGraph") != std::string::npos);
  }
  // Only a subgraph: still refused (the node op2 belongs to fg1).
  Var inner = e.owner()->input(1);
  CHECK_THROWS_AS(FunctionGraph({y}, {inner}, {}, false), ValueError);
  // A cloning graph reads the graph without taking it.
  FunctionGraph fc({x, y}, {e});
  fc.check_integrity();
  // A refused change leaves fg1 intact.
  Var w = var("w");
  FunctionGraph fw({w}, {ap(my_op("op3"), {w})}, {}, false);
  CHECK_THROWS_AS(fg1->replace(x, w), MissingInputError);
  CHECK_THROWS_AS(fg1->replace(x, w, "", false, /*import_missing=*/true), ValueError);
  fg1->check_integrity();

  fg1->disown();
  CHECK(fg1->num_apply_nodes() == 0);
  CHECK(fg1->inputs().empty());
  FunctionGraph fg2({x, y}, {e}, {}, false);
  fg2.check_integrity();
  CHECK(fg2.str() == "FunctionGraph(op1(x, op2(y)))");
  fg1.reset();  // destroying the disowned graph does not touch fg2's claims
  fg2.check_integrity();
}

TEST_CASE("destroying a graph releases its nodes, constants are shared freely") {
  Var x = var("x");
  Var c = constant(3.0, "three");
  Var e = ap(my_op("op1"), {x, c});
  { FunctionGraph fg({x}, {e}, {}, false); }
  FunctionGraph again({x}, {e}, {}, false);
  Var y = var("y");
  FunctionGraph other({y}, {ap(my_op("op2"), {y, c})}, {}, false);  // same constant, another graph
  other.check_integrity();
  again.check_integrity();
}

TEST_CASE("pruned nodes leave the graph's membership and can join another") {
  Var x = var("x");
  Var inner = ap(my_op("op2"), {constant(2.0)});
  Var e = ap(my_op("op1"), {x, inner});
  FunctionGraph fg({x}, {e}, {}, false);
  CHECK_THROWS_AS(FunctionGraph({}, {inner}, {}, false), ValueError);
  fg.replace(inner, x);
  FunctionGraph other({}, {inner}, {}, false);  // op2 was pruned from fg
  other.check_integrity();
  fg.check_integrity();
}

TEST_CASE("clone_get_equiv maps every variable and node to a fresh, equal graph") {
  Var x = var("x"), y = var("y");
  Var a = ap(my_op("opA"), {x, y});
  Var e = ap(my_op("op1"), {a, a, constant(1.0)});
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x, y}, {e, y}, {dh});
  dh->set_mutable(fg.inputs()[0]);
  auto [copy, equiv] = fg.clone_get_equiv();
  copy->check_integrity();
  CHECK(copy->str() == fg.str());
  CHECK(equal_computations(copy->outputs(), fg.outputs(), copy->inputs(), fg.inputs()));
  for (Apply* n : fg.apply_nodes()) {
    const ApplyPtr& m = equiv.at(n);
    CHECK(m.get() != n);
    CHECK(copy->contains(m.get()));
    CHECK_FALSE(fg.contains(m.get()));
  }
  for (const Var& v : fg.variables()) {
    CHECK(equiv.contains(v));
    CHECK(copy->contains(equiv.at(v)));
  }
  for (std::size_t i = 0; i < fg.inputs().size(); ++i) CHECK(equiv.at(fg.inputs()[i]) == copy->inputs()[i]);
  // Features that can be cloned are re-attached, with their settings mapped.
  auto* dh2 = copy->find_feature<DestroyHandler>();
  REQUIRE(dh2 != nullptr);
  CHECK(dh2 != dh.get());
  CHECK(dh2->is_mutable(copy->inputs()[0]));
  CHECK_FALSE(dh2->is_mutable(copy->inputs()[1]));
  // Changing the copy leaves the original alone.
  copy->replace(copy->outputs()[0].owner()->input(0), copy->inputs()[1]);
  CHECK(copy->str() != fg.str());
  fg.check_integrity();
  auto plain = fg.clone();
  CHECK(plain->str() == fg.str());
  auto [bare, eq2] = fg.clone_get_equiv(true, /*attach_feature=*/false);
  CHECK(bare->find_feature<DestroyHandler>() == nullptr);
}
