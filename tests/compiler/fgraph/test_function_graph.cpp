// FunctionGraph basics: clients (with the output sentinel), cloning at
// construction, import/prune through replace, change_input type errors,
// replace_all, outputs and node removal, integrity under random rewrites.
#include <doctest/doctest.h>

#include <random>
#include <unordered_set>

#include "fake_ops.h"
#include "theano/fgraph/function_graph.h"
#include "theano/fgraph/history.h"
#include "theano/graph/as_string.h"

using namespace theano;
using namespace theano::fake;

namespace {

std::string text(const FunctionGraph& fg) { return fg.str(); }

}  // namespace

TEST_CASE("clients: e = op1(x, op2(y, z)), with the (output, 0) sentinel") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var e = ap(my_op("op1"), {x, ap(my_op("op2"), {y, z})});
  FunctionGraph fg({x, y, z}, {e}, {}, /*clone=*/false);
  fg.check_integrity();
  Apply* n1 = e.owner();
  Apply* n2 = n1->input(1).owner();
  CHECK(fg.clients(x) == std::vector<Client>{{n1, 0}});
  CHECK(fg.clients(y) == std::vector<Client>{{n2, 0}});
  CHECK(fg.clients(z) == std::vector<Client>{{n2, 1}});
  CHECK(fg.clients(n1->input(1)) == std::vector<Client>{{n1, 1}});
  REQUIRE(fg.clients(e).size() == 1);
  CHECK(fg.clients(e)[0].is_output());
  CHECK(fg.clients(e)[0] == Client::output(0));
  CHECK(fg.apply_nodes() == std::vector<Apply*>{n2, n1});  // by creation id
  CHECK(fg.num_variables() == 5);
  CHECK(fg.toposort() == std::vector<Apply*>{n2, n1});
  CHECK(text(fg) == "FunctionGraph(op1(x, op2(y, z)))");
  CHECK(fg.clients(var("stranger")).empty());
}

TEST_CASE("clone=true copies the user's graph and never mutates it") {
  Var x = var("x"), y = var("y");
  Var a = ap(my_op("op2"), {x, y});
  Var e = ap(my_op("op1"), {a, x});
  FunctionGraph fg({x, y}, {e});
  CHECK_FALSE(fg.inputs()[0] == x);
  CHECK_FALSE(fg.outputs()[0] == e);
  CHECK(fg.inputs()[0].name() == "x");
  CHECK_FALSE(fg.contains(e.owner()));
  fg.replace(fg.outputs()[0].owner()->input(0), fg.inputs()[1], "test");
  CHECK(text(fg) == "FunctionGraph(op1(y, x))");
  CHECK(as_string({x, y}, {e})[0] == "op1(op2(x, y), x)");  // untouched
  fg.check_integrity();
}

TEST_CASE("inputs must be owner-less and listed once, missing inputs are named") {
  Var x = var("x"), y = var("y");
  Var a = ap(my_op("op2"), {x, y});
  CHECK_THROWS_AS(FunctionGraph({a}, {a}), ValueError);
  CHECK_THROWS_AS(FunctionGraph({x, x}, {a}), ValueError);
  try {
    FunctionGraph fg({x}, {a}, {}, false);
    FAIL("expected MissingInputError");
  } catch (const MissingInputError& err) {
    CHECK(std::string(err.what()).find("Input 1 (y)") != std::string::npos);
  }
  // The failed construction released x: another graph may take it.
  FunctionGraph ok({x, y}, {a}, {}, false);
  ok.check_integrity();
  // Constants need no input; import_missing adds undeclared inputs.
  Var c = ap(my_op("op1"), {x, constant(2.0)});
  FunctionGraph fc({x}, {c});
  fc.check_integrity();
  FunctionGraph fm({}, {}, {}, false);
  fm.add_output(ap(my_op("op1"), {var("u"), var("v")}), "r", /*import_missing=*/true);
  CHECK(fm.inputs().size() == 2);
  fm.check_integrity();
}

TEST_CASE("replace imports the new subgraph and prunes the old one, announcing both in order") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var old_inner = ap(my_op("opA"), {ap(my_op("opB"), {x, y}), z});
  Var e = ap(my_op("op1"), {old_inner, x});
  auto rec = std::make_shared<RecordingFeature>();
  FunctionGraph fg({x, y, z}, {e}, {rec}, false);
  CHECK(rec->log == std::vector<std::string>{"attach", "import opB(x, y) init", "import opA(opB.out, z) init",
                                             "import op1(opA.out, x) init"});
  rec->clear();
  Var fresh = ap(my_op("opC"), {ap(my_op("opD"), {z}), y});
  Apply* opA = old_inner.owner();
  Apply* opB = opA->input(0).owner();
  fg.replace(old_inner, fresh, "rw");
  CHECK(rec->log == std::vector<std::string>{"import opD(z) rw", "import opC(opD.out, y) rw",
                                             "prune opA(opB.out, z) rw", "prune opB(x, y) rw",
                                             "change op1(opC.out, x) 0 opA.out opC.out rw"});
  CHECK_FALSE(fg.contains(opA));
  CHECK_FALSE(fg.contains(opB));
  CHECK_FALSE(fg.contains(old_inner));
  CHECK(fg.clients(x) == std::vector<Client>{{e.owner(), 1}});
  fg.check_integrity();
  CHECK(text(fg) == "FunctionGraph(op1(opC(opD(z), y), x))");
  // Replacing a variable that is not in the graph is ignored (as in Theano).
  fg.replace(old_inner, fresh);
  CHECK(text(fg) == "FunctionGraph(op1(opC(opD(z), y), x))");
}

TEST_CASE("pruned nodes die once nothing else holds them") {
  Var x = var("x");
  FunctionGraph fg({x}, {ap(my_op("op1"), {ap(my_op("op2"), {x})})});
  Var inner = fg.outputs()[0].owner()->input(0);
  ApplyPtr watched(inner.owner());
  inner = Var();
  CHECK(watched->use_count() > 1);  // held by the graph
  fg.replace(fg.outputs()[0].owner()->input(0), fg.inputs()[0]);
  CHECK(watched->use_count() == 2);  // the History log keeps replaced variables for revert
  fg.find_feature<History>()->clear();
  CHECK(watched->use_count() == 1);  // only this test holds it now
}

TEST_CASE("change_input refuses a type mismatch, naming both types and the node") {
  Var x = var("x"), y = var("y");
  Var e = ap(my_op("op1"), {x, y});
  FunctionGraph fg({x, y}, {e}, {}, false);
  Var other = var("w", my_type("OtherType"));
  try {
    fg.change_input(e.owner(), 1, other, "bad");
    FAIL("expected TypeError");
  } catch (const TypeError& err) {
    const std::string msg = err.what();
    CHECK(msg.find("MyType") != std::string::npos);
    CHECK(msg.find("OtherType") != std::string::npos);
    CHECK(msg.find("op1(x, y)") != std::string::npos);
  }
  CHECK_THROWS_AS(fg.replace(y, other), TypeError);
  CHECK_THROWS_AS(fg.change_input(nullptr, 0, other), TypeError);
  CHECK_THROWS_AS(fg.change_input(nullptr, 3, x), IndexError);
  fg.check_integrity();
  CHECK(text(fg) == "FunctionGraph(op1(x, y))");
}

TEST_CASE("change_input on an output slot changes the graph's output") {
  Var x = var("x"), y = var("y");
  Var e = ap(my_op("op1"), {x, y});
  auto rec = std::make_shared<RecordingFeature>();
  FunctionGraph fg({x, y}, {e}, {rec}, false);
  rec->clear();
  Var f = ap(my_op("op2"), {y});
  fg.change_input(nullptr, 0, f, "out");
  CHECK(fg.outputs()[0] == f);
  CHECK(rec->log == std::vector<std::string>{"import op2(y) out", "prune op1(x, y) out", "change output 0 op1.out op2.out out"});
  CHECK(fg.clients(x).empty());  // an input stays, unused
  CHECK(fg.contains(x));
  fg.check_integrity();
}

TEST_CASE("replace_all and outputs that are inputs") {
  Var x = var("x"), y = var("y"), z = var("z");
  Var a = ap(my_op("opA"), {x, y});
  Var b = ap(my_op("opB"), {a, z});
  FunctionGraph fg({x, y, z}, {b, a, x}, {}, false);
  CHECK(fg.clients(a).size() == 2);
  CHECK(fg.clients(x) == std::vector<Client>{{a.owner(), 0}, Client::output(2)});
  fg.replace_all({{a, z}, {x, y}}, "all");
  CHECK(text(fg) == "FunctionGraph(opB(z, z), z, y)");
  CHECK(fg.num_apply_nodes() == 1);
  fg.check_integrity();
}

TEST_CASE("remove_output, add_output and remove_node") {
  Var x = var("x"), y = var("y");
  Var a = ap(my_op("opA"), {x});
  Var b = ap(my_op("opB"), {a, y});
  Var c = ap(my_op("opC"), {a});
  FunctionGraph fg({x, y}, {b, c, y}, {}, false);
  fg.remove_output(0, "drop");
  CHECK(text(fg) == "FunctionGraph(opC(opA(x)), y)");
  CHECK(fg.clients(y) == std::vector<Client>{Client::output(1)});
  CHECK_FALSE(fg.contains(b.owner()));
  fg.check_integrity();
  fg.add_output(b, "again");
  CHECK(fg.clients(b) == std::vector<Client>{Client::output(2)});
  fg.check_integrity();
  // Removing opA takes everything downstream with it, outputs included.
  fg.remove_node(*a.owner(), "gone");
  CHECK(fg.outputs() == std::vector<Var>{y});
  CHECK(fg.num_apply_nodes() == 0);
  CHECK(fg.clients(y) == std::vector<Client>{Client::output(0)});
  fg.check_integrity();
}

TEST_CASE("check_integrity holds after many random replacements") {
  std::mt19937 rng(1234);
  Var x = var("x"), y = var("y"), z = var("z");
  std::vector<Var> leaves{x, y, z};
  const std::vector<std::pair<OpPtr, int>> ops{
      {my_op("u1", 1), 1}, {my_op("b1", 2), 2}, {my_op("b2", 2), 2}, {my_op("t1", 3), 3}};
  auto random_expr = [&](int depth, const std::vector<Var>& pool) {
    std::vector<Var> built = pool;
    for (int k = 0; k < depth; ++k) {
      const auto& [op, n] = ops[rng() % ops.size()];
      std::vector<Var> ins;
      for (int j = 0; j < n; ++j) ins.push_back(built[rng() % built.size()]);
      built.push_back(ap(op, ins));
    }
    return built.back();
  };
  std::vector<Var> outs{random_expr(12, leaves), random_expr(8, leaves)};
  FunctionGraph fg(leaves, outs, {}, false);
  fg.check_integrity();
  for (int step = 0; step < 300; ++step) {
    std::vector<Var> vars = fg.variables();
    std::vector<Var> owned;
    for (const Var& v : vars)
      if (v.owner()) owned.push_back(v);
    if (owned.empty()) break;
    const Var target = owned[rng() % owned.size()];
    // The replacement must not depend on target (no cycle): either a fresh
    // expression over the inputs, or an existing variable outside target's
    // descendants (sharing subgraphs that are already there).
    std::unordered_set<Var> downstream{target};
    std::vector<Var> todo{target};
    while (!todo.empty()) {
      const Var v = todo.back();
      todo.pop_back();
      for (const Client& c : fg.clients(v))
        if (!c.is_output())
          for (const Var& o : c.node->outputs())
            if (downstream.insert(o).second) todo.push_back(o);
    }
    std::vector<Var> candidates;
    for (const Var& v : vars)
      if (!downstream.count(v)) candidates.push_back(v);
    const Var replacement = (rng() % 2 && !candidates.empty()) ? candidates[rng() % candidates.size()]
                                                               : random_expr(1 + static_cast<int>(rng() % 3), leaves);
    fg.replace(target, replacement, "random");
    fg.check_integrity();
    if (step % 50 == 49) fg.add_output(random_expr(6, fg.variables()), "grow");
  }
  fg.toposort();
}
