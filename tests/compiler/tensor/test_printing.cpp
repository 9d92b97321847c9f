// debugprint and pprint golden strings: Theano's test_debugprint graph with
// every ids style, stop_on_name, node reuse, multi-output ops, constants,
// depth limits, types, destroy/view maps, compiled functions (toposort
// indices, clients, updates, shared marks), and the pprint operator table.
#include <sstream>

#include <doctest/doctest.h>

#include "compiler/graph/fake_ops.h"
#include "test_util.h"
#include "theano/pprinter.h"
#include "theano/printing.h"
#include "theano/tensor/random.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::lines;

namespace {

/// Theano's test_debugprint graph: G = C + F, C = A + B (named), F = D + E.
struct TheanoGraph {
  Var A = T::dmatrix("A"), B = T::dmatrix("B"), D = T::dmatrix("D"), E = T::dmatrix("E");
  Var C, F, G;
  TheanoGraph() {
    C = A + B;
    C->set_name("C");
    F = D + E;
    G = C + F;
  }
};

DebugPrintOptions with_ids(IdStyle ids) {
  DebugPrintOptions o;
  o.ids = ids;
  return o;
}

}  // namespace

TEST_SUITE("tensor_tests") {

TEST_CASE("debugprint: Theano's reference graph in every id style") {
  TheanoGraph g;
  CHECK(debugprint(g.G) == lines({"Elemwise{add,no_inplace} [id A] ''",
                                  " |Elemwise{add,no_inplace} [id B] 'C'",
                                  " | |A [id C]",
                                  " | |B [id D]",
                                  " |Elemwise{add,no_inplace} [id E] ''",
                                  "   |D [id F]",
                                  "   |E [id G]"}));
  CHECK(debugprint(g.G, with_ids(IdStyle::Int)) == lines({"Elemwise{add,no_inplace} [id 0] ''",
                                                          " |Elemwise{add,no_inplace} [id 1] 'C'",
                                                          " | |A [id 2]",
                                                          " | |B [id 3]",
                                                          " |Elemwise{add,no_inplace} [id 4] ''",
                                                          "   |D [id 5]",
                                                          "   |E [id 6]"}));
  CHECK(debugprint(g.G, with_ids(IdStyle::None)) == lines({"Elemwise{add,no_inplace}  ''",
                                                           " |Elemwise{add,no_inplace}  'C'",
                                                           " | |A",
                                                           " | |B",
                                                           " |Elemwise{add,no_inplace}  ''",
                                                           "   |D",
                                                           "   |E"}));
  const std::string by_creation = debugprint(g.G, with_ids(IdStyle::Id));
  CHECK(by_creation.find("A [id " + std::to_string(g.A.id()) + "]") != std::string::npos);
  CHECK(by_creation.find("[id " + std::to_string(g.G.owner()->id()) + "] ''") != std::string::npos);

  DebugPrintOptions stop;
  stop.stop_on_name = true;
  CHECK(debugprint(g.G, stop) == lines({"Elemwise{add,no_inplace} [id A] ''",
                                        " |Elemwise{add,no_inplace} [id B] 'C'",
                                        " |Elemwise{add,no_inplace} [id C] ''",
                                        "   |D [id D]",
                                        "   |E [id E]"}));
  // The ostream overload writes the same text.
  std::ostringstream os;
  debugprint(os, g.G);
  CHECK(os.str() == debugprint(g.G));
}

TEST_CASE("debugprint: reused nodes, constants, several outputs") {
  const Var x = T::dvector("x");
  const Var y = x * 2.0;
  const Var z = y + y;
  // A node seen again is one line with the same id and no inputs.
  CHECK(debugprint(z) == lines({"Elemwise{add,no_inplace} [id A] ''",
                                " |Elemwise{mul,no_inplace} [id B] ''",
                                " | |x [id C]",
                                " | |DimShuffle{x} [id D] ''",
                                " |   |TensorConstant{2.0} [id E]",
                                " |Elemwise{mul,no_inplace} [id B] ''"}));
  // Several outputs share the id table.
  CHECK(debugprint(std::vector<Var>{y, z}) == lines({"Elemwise{mul,no_inplace} [id A] ''",
                                                     " |x [id B]",
                                                     " |DimShuffle{x} [id C] ''",
                                                     "   |TensorConstant{2.0} [id D]",
                                                     "Elemwise{add,no_inplace} [id E] ''",
                                                     " |Elemwise{mul,no_inplace} [id A] ''",
                                                     " |Elemwise{mul,no_inplace} [id A] ''"}));
  // A named constant prints its name; a scalar graph needs no DimShuffle.
  const Var s = T::dscalar("s");
  const Var k = T::constant(NDArray::scalar(3.0), "three");
  CHECK(debugprint(T::exp(s - k)) == lines({"Elemwise{exp,no_inplace} [id A] ''",
                                            " |Elemwise{sub,no_inplace} [id B] ''",
                                            "   |s [id C]",
                                            "   |three [id D]"}));
  // Unnamed inputs print their type.
  CHECK(debugprint(-T::ivector()) == lines({"Elemwise{neg,no_inplace} [id A] ''",
                                            " |<TensorType(int32, vector)> [id B]"}));
}

TEST_CASE("debugprint: multi-output nodes, depth, types, destroy and view maps") {
  using namespace theano::testing;
  const Var a = var("a"), b = var("b");
  const OpPtr split = OpPtr(new FakeOp("split", 1, 2, /*view=*/{{0, {0}}}));
  const ApplyPtr node = split->make_node({a});
  const Var top = ap(op("join"), {node->output(0), node->output(1)});
  CHECK(debugprint(top) == lines({"join [id A] ''",
                                  " |split.0 [id B] ''",
                                  " | |a [id C]",
                                  " |split.1 [id B] ''"}));
  CHECK(debugprint(*node) == lines({"split.0 [id A] ''", " |a [id B]", "split.1 [id A] ''"}));

  DebugPrintOptions depth1;
  depth1.depth = 1;
  CHECK(debugprint(top, depth1) == lines({"join [id A] ''"}));
  DebugPrintOptions depth2;
  depth2.depth = 2;
  CHECK(debugprint(top, depth2) == lines({"join [id A] ''", " |split.0 [id B] ''", " |split.1 [id B] ''"}));
  DebugPrintOptions depth0;
  depth0.depth = 0;
  CHECK(debugprint(top, depth0).empty());
  DebugPrintOptions bad;
  bad.depth = -2;
  CHECK_THROWS_WITH_AS(debugprint(top, bad),
                       "debugprint: depth must be -1 (unlimited) or a number of levels >= 0, got -2", ValueError);

  DebugPrintOptions typed;
  typed.print_type = true;
  CHECK(debugprint(ap(op("f", 1), {a}), typed) ==
        lines({"f [id A] <TensorType(float64, matrix)> ''", " |a [id B] <TensorType(float64, matrix)>"}));

  const OpPtr inplace = OpPtr(new FakeOp("iadd", 2, 1, {}, /*destroy=*/{{0, {0}}}));
  const Var d = ap(inplace, {ap(split, {b}), b});
  DebugPrintOptions maps;
  maps.print_destroy_map = true;
  maps.print_view_map = true;
  CHECK(debugprint(d, maps) == lines({"iadd [id A] '' d={0: [0]}",
                                      " |split.0 [id B] ''  v={0: [0]}",
                                      " | |b [id C]",
                                      " |b [id C]"}));
}

TEST_CASE("debugprint: compiled functions show toposort indices, clients, updates and shared marks") {
  TheanoGraph g;
  // Without fusion, which would fold the three adds into one Composite, the
  // canonicalizer, which would flatten them into one add, and the inplace
  // stages (their own tests show their names).
  Function f = function({g.A, g.B, g.D, g.E}, {g.G}, {.optimizer_excluding = {"fusion", "canonicalize", "inplace"}});
  CHECK(debugprint(f) == lines({"Elemwise{add,no_inplace} [id A] ''   2",
                                " |Elemwise{add,no_inplace} [id B] 'C'   0",
                                " | |A [id C]",
                                " | |B [id D]",
                                " |Elemwise{add,no_inplace} [id E] ''   1",
                                "   |D [id F]",
                                "   |E [id G]"}));

  // Theano's print_clients test: the 'output' sentinel takes an id slot
  // (without fusion, which would compute both outputs in one node).
  const Var s = g.A + g.B;
  Function h = function({g.A, g.B, g.D}, {s, s - g.D}, {.optimizer_excluding = {"fusion"}});
  DebugPrintOptions clients;
  clients.print_clients = true;
  CHECK(debugprint(h, clients) ==
        lines({"Elemwise{add,no_inplace} [id A] ''   0 clients:[('output', ''), ('[id C]', 1)]",
               " |A [id D]",
               " |B [id E]",
               "Elemwise{sub,no_inplace} [id C] ''   1",
               " |Elemwise{add,no_inplace} [id A] ''   0 clients:[('output', ''), ('[id C]', 1)]",
               " |D [id F]"}));

  // Updates are extra outputs; shared variables are marked.
  const Var w = shared(NDArray::zeros({3}), "w");
  const Var x = T::dvector("x");
  FunctionOptions opt;
  opt.updates = {{w, w - x}};
  Function train = function({x}, {(w * x).sum()}, opt);
  const std::string text = debugprint(train);
  CHECK(text.find(" |w [id ") != std::string::npos);
  CHECK(text.find("] (shared)\n") != std::string::npos);
  // w - x overwrites w's storage: w is updated, and w * x reads it first.
  CHECK(text.find("Elemwise{sub,inplace} [id ") != std::string::npos);
  DebugPrintOptions unmarked;
  unmarked.mark_shared = false;
  CHECK(debugprint(train, unmarked).find("(shared)") == std::string::npos);
}

TEST_CASE("debugprint: random variables") {
  T::RandomStream rs(1);
  const Var u = rs.uniform({3});
  CHECK(debugprint(u) == lines({"RandomFunction{uniform}.1 [id A] ''",
                                " |<TensorType(uint64, vector)> [id B] (shared)",
                                " |TensorConstant{[3]} [id C]",
                                " |TensorConstant{0.0} [id D]",
                                " |TensorConstant{1.0} [id E]"}));
}

TEST_CASE("leaf_text: numpy's str of constants, cut in the middle like Theano") {
  CHECK(leaf_text(T::constant(NDArray::from_vector(std::vector<double>{1.5, 2.5}, {2}))) == "TensorConstant{[1.5 2.5]}");
  CHECK(leaf_text(T::constant(NDArray::from_vector(std::vector<std::int8_t>{1, -2, 3}, {3}))) ==
        "TensorConstant{[ 1 -2  3]}");
  CHECK(leaf_text(T::constant(NDArray::arange(0, 100, 1, DType::Int64))) == "TensorConstant{[ 0  1  2 .. 97 98 99]}");
  CHECK(leaf_text(T::constant(NDArray::from_vector(std::vector<double>{1, 2, 3, 4}, {2, 2}))) ==
        "TensorConstant{[[1. 2.]\n [3. 4.]]}");
  CHECK(leaf_text(T::constant(NDArray::scalar(true))) == "TensorConstant{True}");
  CHECK(leaf_text(T::constant(NDArray::scalar(2.0), "two")) == "two");
  CHECK(leaf_text(T::dvector("v")) == "v");
}

TEST_CASE("char_from_number counts in base 26 with A as zero") {
  CHECK(char_from_number(0) == "A");
  CHECK(char_from_number(25) == "Z");
  CHECK(char_from_number(26) == "BA");
  CHECK(char_from_number(27) == "BB");
  CHECK(char_from_number(26 * 26) == "BAA");
}

TEST_CASE("pprint: infix operators, function calls, DimShuffle, leaves") {
  const Var x = T::dscalar("x"), y = T::dscalar("y"), z = T::dscalar("z");
  CHECK(pprint(x + y * z) == "(x + (y * z))");
  CHECK(pp((x + y) * z) == "((x + y) * z)");
  CHECK(pp(x - y / z) == "(x - (y / z))");
  CHECK(pp(-x) == "(-x)");
  CHECK(pp(T::pow(x, y)) == "(x ** y)");
  CHECK(pp(T::int_div(x, y)) == "(x // y)");
  CHECK(pp(T::mod(x, y)) == "mod(x, y)");
  CHECK(pp(T::add({x, y, z})) == "(x + y + z)");
  CHECK(pp(T::lt(x, y)) == "lt(x, y)");  // Theano 1.0 prints comparisons by name
  CHECK(pp(T::neq(x, y)) == "neq(x, y)");
  CHECK(pp(T::exp(x - 1)) == "exp((x - TensorConstant{1}))");
  CHECK(pp(T::maximum(x, T::sigmoid(y))) == "maximum(x, sigmoid(y))");
  const Var i = T::iscalar("i"), j = T::iscalar("j");
  CHECK(pp(T::and_(i, T::invert(j))) == "and_(i, invert(j))");
  // A shared sub-expression is repeated.
  const Var s = x + y;
  CHECK(pp(s * s) == "((x + y) * (x + y))");
  // Broadcasting DimShuffles are invisible; a reversal is .T.
  const Var v = T::dvector("v"), m = T::dmatrix("m");
  CHECK(pp(v * 2.0) == "(v * TensorConstant{2.0})");
  CHECK(pp(m + v) == "(m + v)");
  CHECK(pp(m.T()) == "m.T");
  CHECK(pp(T::dimshuffle(m, {1, T::kNewAxis, 0})) == "DimShuffle{1, x, 0}(m)");
  // Greek names and unnamed leaves.
  CHECK(pp(T::dscalar("alpha") * x) == "(\\alpha * x)");
  CHECK(pp(T::dscalar() + 1.5) == "(<TensorType(float64, scalar)> + TensorConstant{1.5})");
  // Ops without a printer use function-call form.
  using namespace theano::testing;
  CHECK(pp(ap(op("myop"), {var("a"), var("b")})) == "myop(a, b)");
  CHECK(pprint(std::vector<Var>{x + y, -z}) == "(x + y)\n(-z)\n");
}

TEST_CASE("pprint: the table can be extended and process_graph prints a program") {
  using namespace theano::testing;
  PPrinter p = pprinter();
  p.assign("myop", operator_printer("@", 0));
  p.assign("FakeOp", function_printer({"fake"}));
  const Var a = var("a"), b = var("b");
  CHECK(p(ap(op("myop"), {a, b})) == "(a @ b)");
  CHECK(p(ap(op("other"), {a, b})) == "fake(a, b)");
  PPrinter q = p.clone_assign([](const PrinterState&, const Var& r) { return r.owner() != nullptr; },
                              pattern_printer({"<{1}|{0}>"}));
  CHECK(q(ap(op("myop"), {a, b})) == "<b|a>");
  CHECK(pprint(ap(op("myop"), {a, b})) == "myop(a, b)");  // the global table is unchanged

  const Var x = T::dscalar("x"), y = T::dscalar("y");
  Var h = x * y;
  h->set_name("h");
  const Var out = h + T::exp(h);
  CHECK(pprinter().process_graph({x, y}, {out}) == "h = (x * y)\nreturn (h + exp(h))");
  const Var w = shared(NDArray::scalar(0.0), "w");
  CHECK(pprinter().process_graph({x}, {x * 2.0, -x}, {{w, w - x}}, true) ==
        "inputs: x, w\nw <- (w - x)\nout[0] = (x * TensorConstant{2.0})\nout[1] = (-x)");
  CHECK_THROWS_WITH_AS(pprint(Var()), "pprint: cannot print a null Var", ValueError);
  CHECK_THROWS_WITH_AS(operator_printer("+", 0)->process(x, *std::make_unique<PrinterState>()),
                       "pprint: operator + cannot represent x, which is not the result of an operation", TypeError);
}

}  // TEST_SUITE
