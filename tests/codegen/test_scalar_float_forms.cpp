// The scalar table's float column is true: every row that claims a float32
// form (ScalarOpInfo::float_form) has its C expression compile, in the
// prelude's float domain (namespace theano_s, the helpers of
// runtime/include/theano/runtime/kernels/scalar_math.h), to a float
// computation through the real Clang path. A row whose helper has no float
// overload fails here: either the name is not found (theano_digamma) or the
// call goes through a double function (lgamma), which -Wdouble-promotion
// turns into an error. And the rows without the column compute in double.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/errors.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/special.h>
#include <theano/tensor/type.h>

#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;

TEST_SUITE("c_linker") {
  TEST_CASE("every scalar row that claims a float form compiles to float in the prelude's float domain") {
    // The prelude, and the special functions' kernels (special_math.h, special_math2.h), which
    // generated code embeds after it in the units that call them: the unit of a graph that calls
    // erfinv and gammainc has all three.
    Var x = tensor::dvector("x");
    std::string src = codegen::CLinker::generate_source(FunctionGraph({x}, {erfinv(x) + gammainc(x, x)}));
    CHECK(src.find("// support: special_math.h") != std::string::npos);
    CHECK(src.find("// support: special_math2.h") != std::string::npos);
    src += "namespace theano_s {\n";
    int rows = 0;
    for (const ScalarOpInfo& info : scalar_op_table()) {
      const ScalarOpPtr op = scalar_op(info.name);
      CHECK(op->has_float_form() == info.float_form);
      if (!info.float_form) continue;
      const int n = info.arity < 0 ? 2 : info.arity;
      std::vector<std::string> args;
      std::string params;
      for (int k = 0; k < n; ++k) {
        args.push_back("a" + std::to_string(k));
        params += (k ? ", float a" : "float a") + std::to_string(k);
      }
      const std::string expr = apply_c_expr(*op, args, DType::Float32, false);
      src += "float theano_float_form_" + info.name + "(" + params + ") {\n  auto v = " + expr +
             ";\n  static_assert(__is_same(decltype(v), float), \"" + info.name +
             ": its float form is not a float\");\n  return v;\n}\n";
      ++rows;
    }
    src += "}  // namespace theano_s\n";
    CHECK(rows >= 40);
    codegen::CompileOptions o;
    o.opt = codegen::OptLevel::O0;
    o.cxxflags = {"-Werror=double-promotion"};
    try {
      codegen::ClangCompiler(o).compile(src, "float_forms.cpp");
    } catch (const codegen::CompileError& e) {
      FAIL("a row claims a float form the prelude does not have: " << std::string(e.what()));
    }
  }

  TEST_CASE("float32 values compute in float exactly for the rows with a float form") {
    const std::vector<DType> f32{DType::Float32};
    const std::vector<DType> f32x2{DType::Float32, DType::Float32};
    for (const ScalarOpInfo& info : scalar_op_table()) {
      const ScalarOpPtr op = scalar_op(info.name);
      const int n = info.arity < 0 ? 2 : info.arity;
      if (n > 2) continue;
      CAPTURE(info.name);
      // Only rows whose output is float32 for float32 inputs can compute in float.
      if (info.rule != OutRule::Float && info.rule != OutRule::Upcast && info.rule != OutRule::SecondInput) continue;
      CHECK(computes_in_float32(*op, n == 1 ? f32 : f32x2, DType::Float32) == info.float_form);
      CHECK_FALSE(computes_in_float32(*op, n == 1 ? f32 : f32x2, DType::Float64));
    }
  }
}
