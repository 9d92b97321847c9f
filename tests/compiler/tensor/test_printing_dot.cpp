// Graphviz output: golden DOT text for small graphs (Theano's pydotprint
// shapes, colours, labels, compact mode), compiled functions with updates,
// rendering through `dot` when Graphviz is installed, and the errors.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "compiler/graph/fake_ops.h"
#include "test_util.h"
#include "theano/printing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::lines;

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// A fresh directory under the temp dir, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "theano-dot-test-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// Sets an environment variable for the scope.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* o = std::getenv(name.c_str())) old = o;
    ::setenv(name.c_str(), value, 1);
  }
  ~ScopedEnv() {
    if (old)
      ::setenv(name.c_str(), old->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_SUITE("tensor_tests") {

TEST_CASE("to_dot: golden text of a two-input node") {
  using namespace theano::testing;
  const Var x = var("x"), y = var("y");
  CHECK(to_dot(ap(op("myop"), {x, y})) ==
        lines({"digraph G {",
               "  n0 [label=\"myop\", shape=\"ellipse\"];",
               "  n1 [label=\"name=x TensorType(float64, matrix)\", shape=\"box\", style=\"filled\", fillcolor=\"green\"];",
               "  n1 -> n0 [label=\"0\"];",
               "  n2 [label=\"name=y TensorType(float64, matrix)\", shape=\"box\", style=\"filled\", fillcolor=\"green\"];",
               "  n2 -> n0 [label=\"1\"];",
               "  n3 [label=\"TensorType(float64, matrix)\", shape=\"box\", style=\"filled\", fillcolor=\"blue\"];",
               "  n0 -> n3;",
               "}"}));
}

TEST_CASE("to_dot: compact mode, colours, constants, view edges, unused outputs") {
  const Var x = T::dvector("x");
  const Var e = (x * 2.0 + x).sum();
  CHECK(to_dot(e) ==
        lines({"digraph G {",
               "  n0 [label=\"DimShuffle{x}\", shape=\"ellipse\"];",
               "  n1 [label=\"val=2.0 TensorType(float32, scalar)\", shape=\"box\", style=\"filled\", fillcolor=\"green\"];",
               "  n1 -> n0 [color=\"blue\"];",
               "  n2 [label=\"Elemwise{mul,no_inplace}\", shape=\"ellipse\", style=\"filled\", fillcolor=\"#FFAABB\"];",
               "  n3 [label=\"name=x TensorType(float64, vector)\", shape=\"box\", style=\"filled\", fillcolor=\"green\"];",
               "  n3 -> n2 [label=\"0\"];",
               "  n0 -> n2 [label=\"1 TensorType(float32, (True,))\"];",
               "  n4 [label=\"Elemwise{add,no_inplace}\", shape=\"ellipse\", style=\"filled\", fillcolor=\"#FFAABB\"];",
               "  n2 -> n4 [label=\"0 TensorType(float64, vector)\"];",
               "  n3 -> n4 [label=\"1\"];",
               "  n5 [label=\"Sum{axes=(0,)}\", shape=\"ellipse\"];",
               "  n4 -> n5 [label=\"TensorType(float64, vector)\"];",
               "  n6 [label=\"TensorType(float64, scalar)\", shape=\"box\", style=\"filled\", fillcolor=\"blue\"];",
               "  n5 -> n6;",
               "}"}));

  // Not compact: every variable gets a box; named intermediates always do.
  DotOptions full;
  full.compact = false;
  full.high_contrast = false;
  full.var_with_name_simple = true;
  Var h = x * x;
  h->set_name("h");
  CHECK(to_dot(T::exp(h), full) ==
        lines({"digraph G {",
               "  n0 [label=\"Elemwise{mul,no_inplace}\", shape=\"ellipse\", color=\"#FFAABB\"];",
               "  n1 [label=\"x\", shape=\"box\", color=\"green\"];",
               "  n1 -> n0 [label=\"0\"];",
               "  n1 -> n0 [label=\"1\"];",
               "  n2 [label=\"h\", shape=\"box\"];",
               "  n0 -> n2;",
               "  n3 [label=\"Elemwise{exp,no_inplace}\", shape=\"ellipse\", color=\"#FFAABB\"];",
               "  n2 -> n3;",
               "  n4 [label=\"TensorType(float64, vector)\", shape=\"box\", color=\"blue\"];",
               "  n3 -> n4;",
               "}"}));

  // Multi-output nodes label their output edges; an unused output is grey;
  // destroyed inputs are red; equal op labels get their toposort index.
  using namespace theano::testing;
  const Var a = var("a");
  const ApplyPtr split = OpPtr(new FakeOp("split", 1, 2))->make_node({a});
  const Var d = ap(OpPtr(new FakeOp("iadd", 2, 1, {}, {{0, {0}}})), {split->output(0), a});
  const Var twice = ap(op("f", 1), {ap(op("f", 1), {d})});
  const std::string text = to_dot(twice);
  CHECK(text.find("[label=\"TensorType(float64, matrix)\", shape=\"box\", style=\"filled\", fillcolor=\"grey\"];") !=
        std::string::npos);
  CHECK(text.find("-> n3 [label=\"1\"];") != std::string::npos);  // split's second output, unused
  CHECK(text.find("[label=\"0 TensorType(float64, matrix)\", color=\"red\"];") != std::string::npos);
  CHECK(text.find("[label=\"f\", shape=\"ellipse\"];") != std::string::npos);
  CHECK(text.find("[label=\"f id=3\", shape=\"ellipse\"];") != std::string::npos);
  DotOptions ids;
  ids.with_ids = true;
  CHECK(to_dot(twice, ids).find("[label=\"split id=0\"") != std::string::npos);
  // Long labels are cut.
  DotOptions small;
  small.max_label_size = 8;
  CHECK(to_dot(T::exp(x), small).find("[label=\"name=...\"") != std::string::npos);
  // Quotes and backslashes in names are escaped.
  CHECK(to_dot(T::exp(T::dvector("a\"b\\c"))).find("label=\"name=a\\\"b\\\\c TensorType") != std::string::npos);
}

TEST_CASE("to_dot: compiled functions draw updates, FunctionGraphs work too") {
  const Var w = shared(NDArray::zeros({3}), "w");
  const Var x = T::dvector("x");
  FunctionOptions opt;
  opt.updates = {{w, w - x}};
  Function train = function({x}, {(w * x).sum()}, opt);
  const std::string text = to_dot(train);
  CHECK(text.find("[label=\"name=w TensorType(float64, vector)\", shape=\"box\", style=\"filled\", fillcolor=\"cyan\"];") !=
        std::string::npos);
  CHECK(text.find("[label=\"w TensorType(float64, vector)\", shape=\"box\", style=\"filled\", fillcolor=\"blue\"];") !=
        std::string::npos);
  CHECK(text.find(" [label=\"UPDATE\", color=\"blue\"];") != std::string::npos);
  // Updates given for a plain graph.
  DotOptions upd;
  upd.updates = {{w, w - x}};
  CHECK(to_dot(std::vector<Var>{(w * x).sum()}, upd).find("UPDATE") != std::string::npos);
  CHECK(to_dot(train.fgraph()).find("UPDATE") == std::string::npos);
}

TEST_CASE("write_graph: .dot text, Graphviz rendering, errors") {
  TempDir dir;
  const Var x = T::dvector("x");
  const Var e = T::exp(x * 2.0) + x;
  write_graph((dir.path / "g.dot").string(), {e});
  CHECK(read_file(dir.path / "g.dot") == to_dot(e));
  CHECK_THROWS_WITH_AS(write_graph((dir.path / "noext").string(), {e}),
                       doctest::Contains("has no extension; use .dot (text) or a Graphviz format such as .svg or .png"),
                       ValueError);
  CHECK_THROWS_WITH_AS(render_dot("digraph G {}", (dir.path / "g.x").string(), "s v g"),
                       "render_dot: 's v g' is not a Graphviz output format (expected e.g. svg, png, pdf)", ValueError);
  {
    ScopedEnv no_path("PATH", "/nonexistent-dir");
    CHECK_FALSE(graphviz_available());
    CHECK_THROWS_WITH_AS(write_graph((dir.path / "g.svg").string(), {e}),
                         doctest::Contains("Graphviz's `dot` program was not found on PATH. Install the Debian package "
                                           "graphviz"),
                         IOError);
  }
  if (!graphviz_available()) {
    MESSAGE("Graphviz's dot is not installed: the .svg/.png rendering checks are skipped (apt-get install graphviz)");
    return;
  }
  // dot parses our text: SVG and PNG come out.
  write_graph((dir.path / "g.svg").string(), {e});
  const std::string svg = read_file(dir.path / "g.svg");
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("Elemwise{exp,no_inplace}") != std::string::npos);
  const Var w = shared(NDArray::zeros({3}), "w");
  FunctionOptions opt;
  opt.updates = {{w, w - x}};
  Function train = function({x}, {(w * x).sum()}, opt);
  write_graph((dir.path / "f.png").string(), train);
  CHECK(read_file(dir.path / "f.png").substr(1, 3) == "PNG");
  DotOptions odd;
  odd.compact = false;
  odd.high_contrast = false;
  write_graph((dir.path / "odd.svg").string(), {T::dvector("a\"b\\c") + 1}, odd);
  CHECK(std::filesystem::file_size(dir.path / "odd.svg") > 0);
  // A syntax error from dot is reported with its message.
  CHECK_THROWS_WITH_AS(render_dot("digraph G { -> }", (dir.path / "bad.svg").string(), "svg"),
                       doctest::Contains("render_dot: `dot -Tsvg -o "), IOError);
}

}  // TEST_SUITE
