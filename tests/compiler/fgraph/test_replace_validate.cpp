// ReplaceValidate and History: transactional replacement, exact rollback.
#include <doctest/doctest.h>

#include "fake_ops.h"
#include "theano/fgraph/function_graph.h"
#include "theano/fgraph/history.h"
#include "theano/fgraph/replace_validate.h"
#include "theano/graph/as_string.h"

using namespace theano;
using namespace theano::fake;

namespace {

// Refuses any graph containing a node whose op is named "bad".
class NoBadOps : public Feature {
 public:
  void validate(const FunctionGraph& fg) override {
    for (Apply* n : fg.apply_nodes())
      if (n->op()->name() == "bad") throw InconsistencyError("bad op in graph");
  }
};

std::vector<std::string> text(const FunctionGraph& fg) { return as_string(fg.inputs(), fg.outputs()); }

}  // namespace

TEST_CASE("replace_validate reverts a replacement refused by validate, leaving identical text") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var a = ap(my_op("opA"), {x, y});
  Var e = ap(my_op("op1"), {a, ap(my_op("opB"), {a, z})});
  FunctionGraph fg({x, y, z}, {e}, {std::make_shared<NoBadOps>()}, false);
  const std::vector<std::string> before = text(fg);
  const std::vector<Apply*> nodes_before = fg.apply_nodes();
  auto rec = std::make_shared<RecordingFeature>();
  fg.attach_feature(rec);

  Var bad = ap(my_op("bad"), {z});
  CHECK_THROWS_AS(fg.replace_validate(a, bad, "try"), InconsistencyError);
  CHECK(text(fg) == before);
  CHECK(fg.apply_nodes() == nodes_before);  // the very same nodes are back
  CHECK_FALSE(fg.contains(bad));
  fg.check_integrity();
  // Features heard the change and its undoing.
  CHECK(rec->log.size() > 2);
  CHECK(rec->log.back().find("revert try") != std::string::npos);

  // An accepted replacement stays.
  Var good = ap(my_op("good"), {z});
  fg.replace_validate(a, good, "ok");
  CHECK(text(fg) == std::vector<std::string>{"op1(*1 -> good(z), opB(*1, z))"});
  fg.check_integrity();
}

TEST_CASE("replace_all_validate reverts earlier pairs when a later one fails") {
  Var x = var("x"), y = var("y");
  Var a = ap(my_op("opA"), {x});
  Var b = ap(my_op("opB"), {y});
  FunctionGraph fg({x, y}, {ap(my_op("op1"), {a, b})}, {}, false);
  const auto before = text(fg);
  Var wrong = var("w", my_type("OtherType"));
  CHECK_THROWS_AS(fg.replace_all_validate({{a, y}, {b, wrong}}, "pairs"), TypeError);
  CHECK(text(fg) == before);
  CHECK_THROWS_AS(fg.replace_all_validate({{a, y}, {b, ap(my_op("opC"), {var("missing")})}}), MissingInputError);
  CHECK(text(fg) == before);
  fg.check_integrity();
  fg.replace_all_validate({{a, y}, {b, x}});
  CHECK(text(fg) == std::vector<std::string>{"op1(y, x)"});
}

TEST_CASE("replace_all_validate_remove refuses when a node to remove survives") {
  Var x = var("x");
  Var a = ap(my_op("opA"), {x});
  Var e = ap(my_op("op1"), {a, a});
  FunctionGraph fg({x}, {e, a}, {}, false);  // a is also an output: opA survives
  const auto before = text(fg);
  auto* rv = fg.find_feature<ReplaceValidate>();
  CHECK_THROWS_AS(rv->replace_all_validate_remove(fg, {{e, x}}, {a.owner()}, "rm"),
                  ReplacementDidNotRemoveError);
  CHECK(text(fg) == before);
  rv->replace_all_validate_remove(fg, {{e, x}}, {e.owner()}, "rm");
  CHECK(text(fg) == std::vector<std::string>{"x", "opA(x)"});
}

TEST_CASE("History records changes and reverts to any checkpoint") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var e = ap(my_op("op1"), {x, ap(my_op("op2"), {y, z})});
  FunctionGraph fg({x, y, z}, {e}, {}, false);
  History* h = fg.find_feature<History>();
  REQUIRE(h != nullptr);
  const auto t0 = text(fg);
  const std::size_t c0 = h->checkpoint();
  fg.replace(x, z, "one");
  const auto t1 = text(fg);
  const std::size_t c1 = h->checkpoint();
  CHECK(c1 == c0 + 1);
  fg.replace(e.owner()->input(1), ap(my_op("op3"), {x}), "two");
  fg.change_input(nullptr, 0, y, "three");
  CHECK(text(fg) == std::vector<std::string>{"y"});
  CHECK(fg.num_apply_nodes() == 0);
  h->revert(c1);
  CHECK(text(fg) == t1);
  fg.check_integrity();
  h->revert(c0);
  CHECK(text(fg) == t0);
  CHECK(fg.outputs()[0] == e);
  fg.check_integrity();
  CHECK(h->size() == c0);
  CHECK_THROWS_AS(h->revert(c0 + 5), ValueError);
}
