// DestroyHandler: destroyers, protected inputs, constants, views, orderings,
// cycles, and rollback of refused in-place rewrites.
#include <doctest/doctest.h>

#include <algorithm>

#include "fake_ops.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/as_string.h"
#include "theano/graph/toposort.h"

using namespace theano;
using namespace theano::fake;

namespace {

std::string error_of(const FunctionGraph& fg) {
  try {
    fg.validate();
  } catch (const InconsistencyError& e) {
    return e.what();
  }
  return "";
}

bool before(const std::vector<Apply*>& order, const Apply* a, const Apply* b) {
  auto ia = std::find(order.begin(), order.end(), a), ib = std::find(order.begin(), order.end(), b);
  return ia != order.end() && ib != order.end() && ia < ib;
}

}  // namespace

TEST_CASE("two destroyers of one variable are refused, naming both nodes") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var d1 = ap(destroy_op("D1"), {t});
  Var d2 = ap(destroy_op("D2"), {t});
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x}, {ap(my_op("join", 2), {d1, d2})}, {dh}, false);
  const std::string msg = error_of(fg);
  CHECK(msg.find("multiple destroyers of pre.out") != std::string::npos);
  CHECK(msg.find("D1(pre.out)") != std::string::npos);
  CHECK(msg.find("D2(pre.out)") != std::string::npos);
  CHECK(dh->destroyers(t) == std::vector<Apply*>{d1.owner(), d2.owner()});
  CHECK_THROWS_AS(fg.toposort(), InconsistencyError);
}

TEST_CASE("destroying a graph input is refused unless the input is mutable") {
  Var x = var("x"), y = var("y");
  Var d = ap(destroy_op("D", 2), {x, y});
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x, y}, {d}, {dh});
  const std::string msg = error_of(fg);
  CHECK(msg.find("graph input x") != std::string::npos);
  CHECK(msg.find("not marked mutable") != std::string::npos);
  dh->set_mutable(fg.inputs()[0]);
  CHECK(fg.consistent());
  dh->set_mutable(fg.inputs()[0], false);
  CHECK_FALSE(fg.consistent());
  // Given at construction (clone=false keeps the user's variables).
  Var u = var("u");
  FunctionGraph fu({u}, {ap(destroy_op("D"), {u})}, {std::make_shared<DestroyHandler>(std::vector<Var>{u})}, false);
  CHECK(fu.consistent());
}

TEST_CASE("destroying a constant is refused") {
  Var c = constant(1.0, "one");
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({}, {ap(destroy_op("D"), {c})}, {dh});
  CHECK(error_of(fg).find("destroys the constant one") != std::string::npos);
}

TEST_CASE("readers of a destroyed variable run before its destroyer") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var d = ap(destroy_op("D"), {t});   // created first: without orderings it would run first
  Var r1 = ap(my_op("R1"), {t});
  Var r2 = ap(my_op("R2"), {t});
  Var out = ap(my_op("join", 3), {d, r1, r2});
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x}, {out}, {dh}, false);
  CHECK(fg.consistent());
  const std::vector<Apply*> order = fg.toposort();
  CHECK(before(order, r1.owner(), d.owner()));
  CHECK(before(order, r2.owner(), d.owner()));
  CHECK(fg.orderings().at(d.owner()) == std::vector<Apply*>{r1.owner(), r2.owner()});
  CHECK(dh->destroyers(t) == std::vector<Apply*>{d.owner()});
  CHECK(dh->destroyers(r1).empty());
}

TEST_CASE("view chains: destroying a view of x destroys x") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var v1 = ap(view_op("V1"), {t});
  Var v2 = ap(view_op("V2"), {v1});
  Var d = ap(destroy_op("D"), {v2});
  Var reader = ap(my_op("R"), {v1});  // reads a view of the destroyed memory
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x}, {ap(my_op("join", 2), {d, reader})}, {dh}, false);
  CHECK(dh->view_root(v2) == t);
  CHECK(dh->views_of(t) == std::vector<Var>{t, v1, v2});
  CHECK(dh->destroyers(t) == std::vector<Apply*>{d.owner()});
  CHECK(dh->destroyers(v1) == std::vector<Apply*>{d.owner()});
  CHECK(fg.consistent());
  CHECK(before(fg.toposort(), reader.owner(), d.owner()));

  // A second destroyer of another view of the same root is refused.
  Var d2 = ap(destroy_op("D2"), {ap(view_op("V3"), {t})});
  fg.add_output(d2, "more");
  const std::string msg = error_of(fg);
  CHECK(msg.find("multiple destroyers of pre.out") != std::string::npos);
  CHECK(msg.find("through its view") != std::string::npos);
  fg.remove_output(1);
  CHECK(fg.consistent());

  // Destroying a view of an input is destroying the input.
  Var y = var("y");
  FunctionGraph fy({y}, {ap(destroy_op("D"), {ap(view_op("V"), {y})})}, {std::make_shared<DestroyHandler>()}, false);
  CHECK(error_of(fy).find("graph input y (through its view V.out)") != std::string::npos);
}

TEST_CASE("a destroyer may not read the destroyed variable through another input") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var d = ap(destroy_op("D", 2), {t, ap(view_op("V"), {t})});
  FunctionGraph fg({x}, {d}, {std::make_shared<DestroyHandler>()}, false);
  CHECK(error_of(fg).find("also reads it, or a view of it, as input 1") != std::string::npos);
}

TEST_CASE("a reader that needs the destroyer's result is a cycle") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var d = ap(destroy_op("D"), {t});
  Var r = ap(my_op("R", 2), {t, d});  // reads t after D overwrote it
  FunctionGraph fg({x}, {r}, {std::make_shared<DestroyHandler>()}, false);
  const std::string msg = error_of(fg);
  CHECK(msg.find("R(pre.out, D.out)") != std::string::npos);
  CHECK(msg.find("depends on that node's result") != std::string::npos);
}

TEST_CASE("an in-place rewrite refused by the DestroyHandler is rolled back") {
  Var x = var("x");
  Var t = ap(my_op("pre"), {x});
  Var a = ap(my_op("add"), {t});
  Var r = ap(my_op("R"), {t});
  auto dh = std::make_shared<DestroyHandler>();
  FunctionGraph fg({x}, {ap(my_op("join", 2), {a, r})}, {dh}, false);
  const auto text_before = as_string(fg.inputs(), fg.outputs());
  // add -> add_inplace is fine: R is ordered first.
  Var a_inplace = ap(destroy_op("add_inplace"), {t});
  fg.replace_validate(a, a_inplace, "inplace");
  CHECK(before(fg.toposort(), r.owner(), a_inplace.owner()));
  // Making R in place too would give pre.out two destroyers: refused, reverted.
  const auto text_mid = as_string(fg.inputs(), fg.outputs());
  CHECK(text_mid != text_before);
  Var r_inplace = ap(destroy_op("R_inplace"), {t});
  CHECK_THROWS_AS(fg.replace_validate(r, r_inplace, "inplace"), InconsistencyError);
  CHECK(as_string(fg.inputs(), fg.outputs()) == text_mid);
  CHECK_FALSE(fg.contains(r_inplace.owner()));
  CHECK(dh->destroyers(t) == std::vector<Apply*>{a_inplace.owner()});
  CHECK(fg.consistent());
  fg.check_integrity();
}

TEST_CASE("DestroyHandler attached late sees existing nodes, one per graph") {
  Var x = var("x");
  FunctionGraph fg({x}, {ap(destroy_op("D"), {x})});
  CHECK(fg.consistent());  // no DestroyHandler: nothing checks in-place safety
  auto dh = std::make_shared<DestroyHandler>();
  CHECK(fg.attach_feature(dh));
  CHECK(dh->has_destroyers());
  CHECK_FALSE(fg.consistent());
  CHECK_FALSE(fg.attach_feature(std::make_shared<DestroyHandler>()));
  Var y = var("y");
  FunctionGraph other({y}, {ap(my_op("op"), {y})});
  CHECK_THROWS_AS(other.attach_feature(dh), ValueError);
  CHECK(fg.remove_feature(dh.get()));
  CHECK_FALSE(dh->has_destroyers());
  CHECK(other.attach_feature(dh));
}
