// The loops of Elemwise (elemwise.cpp): inputs broadcast by their type (a
// bias row, a column scale, size-1 middle dimensions) run one vectorizable
// loop per row (emit_rows), the others one flat loop; an operand outside the
// loop's layout (its last dimension, or for the flat loop any dimension, not
// contiguous) is copied into a contiguous scratch array first, and an output
// computed in place into such a copy is copied back. Generated code against
// perform on contiguous inputs, on strided copies, on inner-sliced views, in
// place (also into a transposed view) and with several outputs.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/type.h>

#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

Var typed(DType dt, const std::vector<bool>& broadcastable, const std::string& name) {
  return TensorType::from_broadcastable(dt, broadcastable)->make_variable(name);
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("Elemwise row loop: bias rows, column scales, broadcast middle dimensions, 1-d") {
    std::mt19937_64 rng(41);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      // A matrix plus a row (broadcast over rows: each row one vector loop).
      Var x = typed(dt, {false, false}, "x"), r = typed(dt, {true, false}, "r");
      // A column (broadcast along the row: loaded once per row).
      Var c = typed(dt, {false, true}, "c");
      const std::vector<Var> outs{tanh(x + r), x * c - r, exp(c) + r};
      for (const std::vector<std::int64_t>& shape :
           std::vector<std::vector<std::int64_t>>{{37, 129}, {1, 1000}, {300, 1}, {0, 5}, {5, 0}}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        check_lowering({x, r, c}, outs,
                       {random_array(rng, shape, dt, -2, 2), random_array(rng, {1, shape[1]}, dt, -2, 2),
                        random_array(rng, {shape[0], 1}, dt, -2, 2)});
      }
      // Rank 3 with size-1 middle and last dimensions in the inputs' types.
      Var t = typed(dt, {false, false, false}, "t"), m = typed(dt, {false, true, false}, "m"),
          l = typed(dt, {true, false, true}, "l");
      check_lowering({t, m, l}, {t * m + l, sqrt(abs(t)) - m * l},
                     {random_array(rng, {6, 7, 45}, dt, -3, 3), random_array(rng, {6, 1, 45}, dt, -3, 3),
                      random_array(rng, {1, 7, 1}, dt, -3, 3)});
      // 1-d: a vector plus a broadcast one-element vector.
      Var v = typed(dt, {false}, "v"), one = typed(dt, {true}, "one");
      check_lowering({v, one}, {log1p(abs(v)) * one}, {random_array(rng, {1001}, dt, -2, 2), random_array(rng, {1}, dt, -2, 2)});
    }
  }

  TEST_CASE("Elemwise row loop: inner-sliced views take the strided loop, outputs in place and several at once") {
    std::mt19937_64 rng(43);
    Var x = typed(DType::Float64, {false, false}, "x"), r = typed(DType::Float64, {true, false}, "r");
    // A view whose rows are not contiguous (every other column): the strided loop.
    NDArray wide = random_array(rng, {20, 64}, DType::Float64, -1, 1);
    NDArray every_other = NDArray::from_strided(wide.owner(), wide.data(), DType::Float64, {20, 32}, {64 * 8, 16});
    // A view whose rows are contiguous but not adjacent (the first 40 columns): the row loop.
    NDArray left = NDArray::from_strided(wide.owner(), wide.data(), DType::Float64, {20, 40}, {64 * 8, 8});
    check_lowering({x, r}, {x * r + 1.0}, {every_other, random_array(rng, {1, 32}, DType::Float64, -1, 1)});
    check_lowering({x, r}, {x * r + 1.0}, {left, random_array(rng, {1, 40}, DType::Float64, -1, 1)});

    // In place: the output overwrites x (a copy the test owns), x + r.
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    ScalarOpPtr comp(new Composite({a, b}, std::vector<Var>{scalar_op("tanh")->apply1({scalar_op("add")->apply1({a, b})}),
                                                            scalar_op("mul")->apply1({a, b})}));
    ApplyPtr node = OpPtr(new Elemwise(comp, {{0, 0}}))->make_node({x, r});
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, r},
                                              std::vector<Var>{node->output(0), node->output(1)});
    auto cpp = lowered_thunk(fg);
    const NDArray xv = random_array(rng, {33, 70}, DType::Float64, -2, 2), rv = random_array(rng, {1, 70}, DType::Float64, -2, 2);
    compare_thunks(fg, *cpp, {xv.copy(), rv});
  }

  TEST_CASE("Elemwise in place reads the overwritten input through the output's pointer: the vector loop runs") {
    // Read through its own pointer, the overwritten input was another address
    // to the vectorizer: it checked at run time that input and output do not
    // overlap, and since they are one buffer, ran the scalar loop (a scalar
    // exp per element: tanh(X W + b) in place took 10x its time).
    std::mt19937_64 rng(53);
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    const Var a_plus_b = scalar_op("add")->apply1({a, b});
    ScalarOpPtr tanh_add(new Composite({a, b}, std::vector<Var>{scalar_op("tanh")->apply1({a_plus_b})}));
    Var x = typed(DType::Float64, {false, false}, "x"), r = typed(DType::Float64, {true, false}, "r");
    for (bool bias : {false, true}) {
      CAPTURE(bias);
      ApplyPtr node = bias ? OpPtr(new Elemwise(tanh_add, {{0, 0}}))->make_node({x, r})
                           : OpPtr(new Elemwise(scalar_op("tanh"), {{0, 0}}))->make_node({x});
      const std::vector<Var> ins = bias ? std::vector<Var>{x, r} : std::vector<Var>{x};
      auto fg = std::make_shared<FunctionGraph>(ins, std::vector<Var>{node->output(0)});
      const std::string src = codegen::CLinker::generate_source(*fg, {}, false);
      CHECK(src.find(bias ? "const double* r0 = (const double*)ro0;" : "const double* p0 = (const double*)po0;") !=
            std::string::npos);
      if (!bias) {
        // One operand, one address: the loop needs no run-time alias check,
        // and its vector body calls libmvec's exp (the IR has no value names:
        // the check is the subtraction of the two addresses as integers).
        const std::string ir = codegen::ClangCompiler().emit_llvm_ir(src).bytes;
        std::string body;  // the part function's definition
        for (auto def = ir.find("\ndefine "); def != std::string::npos && body.empty();
             def = ir.find("\ndefine ", def + 1))
          if (const auto eol = ir.find('\n', def + 1);
              ir.substr(def, eol - def).find("node0_flat") != std::string::npos)
            body = ir.substr(def, ir.find("\n}", def) - def);
        REQUIRE(!body.empty());
        CAPTURE(body);
        CHECK(body.find(" x double>") != std::string::npos);
        CHECK(body.find("ptrtoint") == std::string::npos);  // the check compares the two addresses' difference
        CHECK(body.find("@_ZGV") != std::string::npos);
      }
      auto cpp = lowered_thunk(fg);
      std::vector<NDArray> values{random_array(rng, {40, 129}, DType::Float64, -3, 3)};
      if (bias) values.push_back(random_array(rng, {1, 129}, DType::Float64, -1, 1));
      compare_thunks(fg, *cpp, values);
    }
  }

  TEST_CASE("Elemwise splits a loop over threads from twice as many float32 elements as float64 ones") {
    // A vector holds twice as many float32 elements, so a part of the same
    // time has twice as many (lowering.h, min_part_elements): a 1000-element
    // float32 exp(x) * y + tanh(y) (W1s) ran 1.3x slower split in two.
    auto min_part = [](DType dt) {
      Var x = typed(dt, {false}, "x"), y = typed(dt, {false}, "y");
      auto st = ScalarType::make(dt);
      Var a = st->make_variable("a"), b = st->make_variable("b");
      const Var e = scalar_op("mul")->apply1({scalar_op("exp")->apply1({a}), b});
      const Var sum = scalar_op("add")->apply1({e, scalar_op("tanh")->apply1({b})});
      ScalarOpPtr comp(new Composite({a, b}, std::vector<Var>{sum}));
      ApplyPtr node = OpPtr(new Elemwise(comp))->make_node({x, y});
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, y}, std::vector<Var>{node->output(0)});
      const std::string src = codegen::CLinker::generate_source(*fg, {}, false);
      const std::string call = "theano_parallel(ctx, n, ";
      const auto at = src.find(call);
      REQUIRE_MESSAGE(at != std::string::npos, src);
      return std::stoll(src.substr(at + call.size()));
    };
    const long long f64 = min_part(DType::Float64), f32 = min_part(DType::Float32);
    CHECK(f64 >= 256);
    CHECK(f32 == 2 * f64);
  }

  TEST_CASE("Elemwise in place into a transposed view: computed in a contiguous copy, copied back") {
    std::mt19937_64 rng(47);
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    ScalarOpPtr tanh_add(new Composite({a, b}, std::vector<Var>{scalar_op("tanh")->apply1({scalar_op("add")->apply1({a, b})})}));
    Var x = typed(DType::Float64, {false, false}, "x"), y = typed(DType::Float64, {false, false}, "y");
    Var r = typed(DType::Float64, {true, false}, "r"), z = typed(DType::Float64, {false, false}, "z");
    // dot(x, y).T, a view of a buffer the function owns, overwritten in place:
    // plus z (the flat loop) and plus a bias row (the row loop).
    for (bool bias : {false, true}) {
      CAPTURE(bias);
      Var t = OpPtr(new DimShuffle(2, {1, 0}))->make_node({dot22(x, y)})->output(0);
      Var other = bias ? r : z;
      ApplyPtr node = OpPtr(new Elemwise(tanh_add, {{0, 0}}))->make_node({t, other});
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, y, other}, std::vector<Var>{node->output(0)});
      auto cpp = lowered_thunk(fg);
      const std::string src = codegen::CLinker::generate_source(*fg, {}, false);
      CHECK(src.find("ctx->kernels->scratch_inputs(ctx, in, tmp, 2") != std::string::npos);
      CHECK(src.find(bias ? "_rows(void*" : "_flat(void*") != std::string::npos);
      CHECK(src.find("_strided(void*") == std::string::npos);  // no strided loop
      const NDArray xv = random_array(rng, {70, 9}, DType::Float64, -1, 1),
                    yv = random_array(rng, {9, 130}, DType::Float64, -1, 1);
      const NDArray ov = random_array(rng, {bias ? 1 : 130, 70}, DType::Float64, -1, 1);
      compare_thunks(fg, *cpp, {xv, yv, ov});
    }
  }
}
