// Code of deep and shared elementwise expressions (issue 15): a Composite's C
// code is one local per inner node, so a chain of 10^4 unary ops nests no
// brackets and a value used twice is computed once; the generated source is
// linear in the number of inner nodes, for Elemwise and for the elementwise
// op fused into a reduction. Since issue 33 such a chain is several fused
// nodes of at most 256 inner nodes each (compile time linear in the graph).
// And clang's fatal errors count as errors.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/errors.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;
using theano::codegen::CLinker;

namespace {

constexpr int kChain = 10000;  // unary ops in the chain
constexpr int kLevels = 30;    // levels of y = sin(y) * cos(y)
// Bytes of generated source allowed per inner node (the loop body is written
// twice, contiguous and strided; the node's label, with the Composite's
// canonical text, is in each error message).
constexpr std::size_t kBytesPerNode = 400;

Var chain(Var y, int n) {
  for (int k = 0; k < n; ++k) y = (k % 2) ? sin(y) : cos(y);
  return y;
}
double chain_ref(double y, int n) {
  for (int k = 0; k < n; ++k) y = (k % 2) ? std::sin(y) : std::cos(y);
  return y;
}
Var reuse(Var y, int n) {
  for (int k = 0; k < n; ++k) y = sin(y) * cos(y);
  return y;
}
double reuse_ref(double y, int n) {
  for (int k = 0; k < n; ++k) y = std::sin(y) * std::cos(y);
  return y;
}

const NDArray kX = NDArray::from_vector(std::vector<double>{-2.0, -0.3, 0.0, 0.25, 1.0, 3.5, 7.0},
                                        {static_cast<std::int64_t>(7)});

/// The inner nodes of the Composites the optimizer made of `f`'s graph (every
/// node is one, of at most 256 inner nodes), in all; `fused` gets their number.
std::size_t inner_nodes(const Function& f, std::size_t* fused = nullptr) {
  const std::vector<Apply*> order = f.fgraph().toposort();
  std::size_t total = 0;
  for (const Apply* node : order) {
    const Op* op = node->op().get();
    const ScalarOp* s = nullptr;
    if (const auto* e = dynamic_cast<const Elemwise*>(op)) s = e->scalar_op().get();
    if (const auto* r = dynamic_cast<const CAReduce*>(op)) s = r->pre().get();
    const auto* comp = dynamic_cast<const Composite*>(s);
    REQUIRE(comp != nullptr);
    const auto prog = comp->c_program();
    REQUIRE(prog.has_value());
    CHECK(prog->locals.size() <= 256);
    total += prog->locals.size();
  }
  if (fused) *fused = order.size();
  return total;
}

void check_values(const NDArray& got, double (*ref)(double, int), int n) {
  REQUIRE(got.size() == kX.size());
  for (std::int64_t i = 0; i < kX.size(); ++i) {
    const double want = ref(kX.data_as<double>()[i], n);
    CAPTURE(i);
    CHECK(got.data_as<double>()[i] == doctest::Approx(want).epsilon(1e-9));
  }
}

}  // namespace

TEST_SUITE("composite_codegen") {
  TEST_CASE("Composite::c_program: one local per inner node, a shared value computed once") {
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    Var s = scalar_op("add")->apply1({a, b});
    Var o = scalar_op("mul")->apply1({scalar_op("sin")->apply1({s}), scalar_op("cos")->apply1({s})});
    Composite comp({a, b}, std::vector<Var>{o, s, a});
    const auto prog = comp.c_program();
    REQUIRE(prog.has_value());
    REQUIRE(prog->locals.size() == 4);  // add, sin, cos, mul: the sum once
    CHECK(prog->locals[0].expr.find("{0}") != std::string::npos);
    CHECK(prog->locals[0].expr.find("{1}") != std::string::npos);
    CHECK(prog->locals[1].expr.find("{2}") != std::string::npos);  // sin(local 0)
    CHECK(prog->locals[2].expr.find("{2}") != std::string::npos);  // cos(local 0)
    CHECK(prog->outputs == std::vector<std::string>{"{5}", "{2}", "{0}"});
  }

  TEST_CASE("a chain of 10^4 unary ops: 40 fused loops, source linear in the ops, right values") {
    Var x = dvector("x");
    Var y = chain(x, kChain);
    Function f = function({x}, {y});
    std::size_t fused = 0;
    const std::size_t nodes = inner_nodes(f, &fused);
    CHECK(nodes == static_cast<std::size_t>(kChain));
    CHECK(fused == (kChain + 255) / 256);
    const std::size_t bytes = f.profile().build.source_bytes;
    CAPTURE(bytes);
    CHECK(bytes < CLinker::prelude().size() + kBytesPerNode * nodes + 20000);
    check_values(f({kX})[0], &chain_ref, kChain);
  }

  TEST_CASE("30 levels of y = sin(y) * cos(y): each value computed once, source linear, right values") {
    Var x = dvector("x");
    Var y = reuse(x, kLevels);
    Function f = function({x}, {y});
    std::size_t fused = 0;
    const std::size_t nodes = inner_nodes(f, &fused);
    CHECK(fused == 1);
    CHECK(nodes == static_cast<std::size_t>(3 * kLevels));
    const std::size_t bytes = f.profile().build.source_bytes;
    CAPTURE(bytes);
    CHECK(bytes < CLinker::prelude().size() + kBytesPerNode * nodes + 20000);
    check_values(f({kX})[0], &reuse_ref, kLevels);
  }

  TEST_CASE("the same deep and shared expressions fused into a reduction") {
    Var x = dvector("x");
    Var deep = sum(chain(reuse(x, kLevels), 2000));
    Function f = function({x}, {deep});
    std::size_t fused = 0;
    const std::size_t nodes = inner_nodes(f, &fused);
    CAPTURE(fused);
    CHECK(nodes >= static_cast<std::size_t>(3 * kLevels + 2000));
    CHECK(nodes <= static_cast<std::size_t>(3 * kLevels + 2000 + fused));
    CHECK(fused >= (3 * kLevels + 2000 + 255) / 256);
    const std::size_t bytes = f.profile().build.source_bytes;
    CAPTURE(bytes);
    CHECK(bytes < CLinker::prelude().size() + kBytesPerNode * nodes + 20000);
    double want = 0;
    for (std::int64_t i = 0; i < kX.size(); ++i) want += chain_ref(reuse_ref(kX.data_as<double>()[i], kLevels), 2000);
    CHECK(f({kX})[0].item<double>() == doctest::Approx(want).epsilon(1e-9));
  }

  TEST_CASE("a multi-output Composite with a long shared chain, in the strided loop too") {
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a");
    Var s = a;
    for (int k = 0; k < 500; ++k) s = scalar_op(k % 2 ? "sin" : "cos")->apply1({s});
    Var o1 = scalar_op("mul")->apply1({s, s});
    ScalarOpPtr comp(new Composite({a}, std::vector<Var>{s, o1}));
    Var x = dmatrix("x");
    ApplyPtr node = OpPtr(new Elemwise(comp))->make_node({x});
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{node->output(0), node->output(1)});
    auto thunk = CLinker().make_thunk(fg);
    // A transposed (strided) 3x2 input.
    const NDArray xv = NDArray::from_vector(std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {2, 3}).transpose({1, 0});
    std::vector<NDArray> out(2);
    thunk->run(std::vector<NDArray>{xv}, out);
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 2; ++j) {
        const double v = chain_ref(0.1 + 0.1 * static_cast<double>(3 * j + i), 500);
        CHECK(out[0].data_as<double>()[i * 2 + j] == doctest::Approx(v).epsilon(1e-12));
        CHECK(out[1].data_as<double>()[i * 2 + j] == doctest::Approx(v * v).epsilon(1e-12));
      }
  }

  TEST_CASE("ClangCompiler: fatal errors are counted, with their message") {
    std::string deep = "double f(double x) { return ";
    for (int k = 0; k < 300; ++k) deep += "(";
    deep += "x";
    for (int k = 0; k < 300; ++k) deep += ")";
    deep += "; }\n";
    for (const auto& [src, text] : std::vector<std::pair<std::string, std::string>>{
             {deep, "bracket nesting level exceeded"}, {"#include \"no_such_header_here.h\"\n", "not found"}}) {
      try {
        codegen::ClangCompiler().compile(src, "fatal.cpp");
        FAIL("expected CompileError");
      } catch (const codegen::CompileError& e) {
        const std::string what = e.what();
        CAPTURE(what);
        CHECK(what.find("(clang 1 error)") != std::string::npos);
        CHECK(what.find("fatal error: ") != std::string::npos);
        CHECK(what.find(text) != std::string::npos);
      }
    }
  }
}
