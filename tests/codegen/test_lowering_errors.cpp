// Why the cpp linker refuses a node travels as a LoweringError (reason and
// detail), not as message text to parse: the message the user sees is
// unchanged, the perform fallback writes the detail into the generated code,
// and a caller can tell a missing lowering from an unsupported dtype.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/errors.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/type.h>

#include <string>

#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using codegen::CLinker;
using codegen::LoweringError;
using codegen::LoweringReason;

namespace {

// An op with a perform but no lowering.
class UnloweredOp final : public Op {
 public:
  std::string_view type_name() const override { return "UnloweredOp"; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    Var out = inputs.at(0).type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {out});
  }
  bool has_perform() const override { return true; }
  void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
    out[0] = in[0].copy();
  }
};

/// The LoweringError generating `fg`'s source without the perform fallback throws.
LoweringError refusal(const FunctionGraph& fg) {
  try {
    CLinker::generate_source(fg, {}, /*perform_fallback=*/false);
  } catch (const LoweringError& e) {
    return e;
  }
  FAIL("the graph was lowered");
  return LoweringError("", LoweringReason::NoLowering, "");
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("lowering refusals: an op without a lowering") {
    Var x = dmatrix("x");
    Var y = OpPtr(new UnloweredOp())->make_node({exp(x)})->output(0);
    FunctionGraph fg({x}, {y * 2.0});
    const LoweringError e = refusal(fg);
    CHECK(e.reason() == LoweringReason::NoLowering);
    CHECK(e.detail() == " yet");
    CHECK(std::string(e.what()) == "the cpp linker cannot compile op UnloweredOp yet; use linker=py");
    // Still a MethodNotDefined for callers that catch that.
    CHECK_THROWS_AS(CLinker::generate_source(fg, {}, false), MethodNotDefined);
    // With the fallback the node calls its perform, and the code says why.
    const std::string src = CLinker::generate_source(fg);
    CHECK(src.find("// no lowering yet: the op's perform runs on the host") != std::string::npos);
  }

  TEST_CASE("lowering refusals: a dtype the lowering has no C form for") {
    Var z = zmatrix("z");
    Var t = transpose(z);
    FunctionGraph fg({z}, {t});
    const LoweringError e = refusal(fg);
    CHECK(e.reason() == LoweringReason::Dtype);
    CHECK(e.detail() == " (dtype complex128)");
    CHECK(std::string(e.what()) ==
          "the cpp linker cannot compile op " + t.owner()->op()->name() + " (dtype complex128); use linker=py");
    const std::string src = CLinker::generate_source(fg);
    CHECK(src.find("// no lowering (dtype complex128): the op's perform runs on the host") != std::string::npos);
  }
}
