// Feature plumbing: every callback with its arguments, attach/remove,
// AlreadyThere, typed execute/collect_callbacks, toposort with feature
// orderings (and its cache).
#include <doctest/doctest.h>

#include "fake_ops.h"
#include "theano/fgraph/function_graph.h"
#include "theano/fgraph/history.h"
#include "theano/fgraph/replace_validate.h"
#include "theano/graph/equiv.h"
#include "theano/graph/toposort.h"
#include "theano/fgraph/validator.h"

using namespace theano;
using namespace theano::fake;

namespace {

// Refuses to be attached twice to one graph, like Theano features do.
class Unique : public Feature {
 public:
  void on_attach(FunctionGraph& fg) override {
    for (const FeaturePtr& f : fg.features())
      if (f.get() != this && dynamic_cast<Unique*>(f.get())) throw AlreadyThere("Unique");
  }
};

// Requires `after` to run after `before` (when both are in the graph).
class OrderFeature : public Feature {
 public:
  Apply* before = nullptr;
  Apply* after = nullptr;
  int calls = 0;
  Orderings orderings(const FunctionGraph& fg) override {
    ++calls;
    if (before && after && fg.contains(before) && fg.contains(after)) return {{after, {before}}};
    return {};
  }
};

// Counts validate calls and refuses when told to.
class Veto : public Feature {
 public:
  bool refuse = false;
  int calls = 0;
  void validate(const FunctionGraph&) override {
    ++calls;
    if (refuse) throw InconsistencyError("vetoed");
  }
  int answer(const FunctionGraph&, int x) { return x + 1; }
};

}  // namespace

TEST_CASE("a recording feature hears every callback with the right arguments") {
  Var x = var("x"), y = var("y");
  Var e = ap(my_op("op1"), {x, ap(my_op("op2"), {y})});
  FunctionGraph fg({x, y}, {e}, {}, false);
  auto rec = std::make_shared<RecordingFeature>();
  CHECK(fg.attach_feature(rec));
  CHECK(rec->attached == &fg);
  CHECK(rec->log == std::vector<std::string>{"attach"});  // attached late: no import replay by the graph
  Apply* n1 = e.owner();
  fg.change_input(n1, 0, y, "swap");
  CHECK(rec->log.back() == "change op1(y, op2.out) 0 x y swap");
  Var z = ap(my_op("op3"), {x});
  fg.change_input(n1, 1, z, "new");
  CHECK(rec->log == std::vector<std::string>{"attach", "change op1(y, op2.out) 0 x y swap", "import op3(x) new",
                                             "prune op2(y) new", "change op1(y, op3.out) 1 op2.out op3.out new"});
  CHECK(fg.remove_feature(rec.get()));
  CHECK(rec->log.back() == "detach");
  CHECK(rec->attached == nullptr);
  CHECK_FALSE(fg.remove_feature(rec.get()));
  fg.change_input(n1, 0, x, "unheard");
  CHECK(rec->log.back() == "detach");
}

TEST_CASE("features are detached when the graph dies") {
  auto rec = std::make_shared<RecordingFeature>();
  {
    Var x = var("x");
    FunctionGraph fg({x}, {ap(my_op("op1"), {x})}, {rec});
  }
  CHECK(rec->log.back() == "detach");
  CHECK(rec->attached == nullptr);
}

TEST_CASE("attach_feature skips duplicates and AlreadyThere") {
  Var x = var("x");
  FunctionGraph fg({x}, {ap(my_op("op1"), {x})});
  // ReplaceValidate brings History and Validator.
  CHECK(fg.find_feature<History>() != nullptr);
  CHECK(fg.find_feature<Validator>() != nullptr);
  CHECK(fg.find_feature<ReplaceValidate>() != nullptr);
  const std::size_t n = fg.features().size();
  CHECK_FALSE(fg.attach_feature(std::make_shared<ReplaceValidate>()));
  CHECK_FALSE(fg.attach_feature(std::make_shared<History>()));
  auto u = std::make_shared<Unique>();
  CHECK(fg.attach_feature(u));
  CHECK_FALSE(fg.attach_feature(u));
  CHECK_FALSE(fg.attach_feature(std::make_shared<Unique>()));
  CHECK(fg.features().size() == n + 1);
}

TEST_CASE("execute_callbacks / collect_callbacks are typed member-pointer calls") {
  Var x = var("x");
  auto veto = std::make_shared<Veto>();
  FunctionGraph fg({x}, {ap(my_op("op1"), {x})}, {veto});
  fg.execute_callbacks(&Feature::validate);
  CHECK(veto->calls == 1);
  CHECK(fg.consistent());
  veto->refuse = true;
  CHECK_FALSE(fg.consistent());
  CHECK_THROWS_AS(fg.validate(), InconsistencyError);
  auto results = fg.collect_callbacks(&Feature::orderings);
  CHECK(results.size() == fg.features().size());
  CHECK(results[0].first == veto.get());
  auto rec = std::make_shared<RecordingFeature>();
  fg.attach_feature(rec);
  Apply* node = fg.outputs()[0].owner();
  fg.execute_callbacks(&Feature::on_import, *node, std::string_view("manual"));
  CHECK(rec->log.back() == "import op1(x) manual");
}

TEST_CASE("toposort honours every feature's orderings and caches its result") {
  Var x = var("x");
  Var a = ap(my_op("opA"), {x});
  Var b = ap(my_op("opB"), {x});
  Var e = ap(my_op("op1"), {a, b});
  auto order = std::make_shared<OrderFeature>();
  FunctionGraph fg({x}, {e}, {order}, false);
  CHECK(fg.toposort() == std::vector<Apply*>{a.owner(), b.owner(), e.owner()});
  order->before = b.owner();
  order->after = a.owner();
  fg.invalidate_toposort();
  CHECK(fg.toposort() == std::vector<Apply*>{b.owner(), a.owner(), e.owner()});
  const int calls = order->calls;
  fg.toposort();
  CHECK(order->calls == calls);  // cached
  CHECK(fg.orderings().at(a.owner()) == std::vector<Apply*>{b.owner()});
  // Any change invalidates the cache.
  Var c = ap(my_op("opC"), {x});
  fg.replace(b, c);
  CHECK(fg.toposort() == std::vector<Apply*>{a.owner(), c.owner(), e.owner()});
  CHECK(order->calls > calls);
  // Contradictory orderings are a cycle.
  order->before = e.owner();
  fg.invalidate_toposort();
  CHECK_THROWS_AS(fg.toposort(), ValueError);
}
