// RowStreamGemv's lowering (codegen/src/emit/lower/row_stream_gemv.cpp: two
// BLAS products for a matrix under THEANO_FLAGS stream_gemv_two_pass_bytes,
// one pass over its rows above) against perform (two BLAS products), both
// paths, all three outputs: shapes with and without the four-row
// groups' tails, split across threads or not, strided
// and transposed X, a broadcast vector of fn, alpha = 0, beta = 0 with NaN
// in y, float32; the shape rules' errors with perform's words
// (row_stream_gemv_rules.h); infer_shape.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/type.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"
#include <theano/testing.h>

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

// fn(z, e, c) = tanh(z) * e + c: c a broadcastable vector (one value).
ScalarOpPtr tanh_times_plus(DType dt) {
  auto st = ScalarType::make(dt);
  Var zs = st->make_variable(), es = st->make_variable(), cs = st->make_variable();
  Var out = scalar_op("add")->apply1({scalar_op("mul")->apply1({scalar_op("tanh")->apply1({zs}), es}), cs});
  return ScalarOpPtr(new Composite({zs, es, cs}, std::vector<Var>{out}));
}

struct Graph {
  std::vector<Var> ins, outs;
};

Graph row_stream_graph(DType dt) {
  Var X = any_tensor(dt, 2, "X"), w = any_tensor(dt, 1, "w"), y = any_tensor(dt, 1, "y");
  Var alpha = tensor::scalar("alpha", DType::Float64), beta = tensor::scalar("beta", DType::Float64);
  Var e = any_tensor(dt, 1, "e"), c = tensor::tensor(dt, StaticShape{1}, "c");
  ApplyPtr node = OpPtr(new RowStreamGemv(tanh_times_plus(dt)))->make_node({X, w, y, alpha, beta, e, c});
  return {{X, w, y, alpha, beta, e, c}, {node->output(0), node->output(1), node->output(2)}};
}

std::vector<NDArray> values(std::mt19937_64& rng, DType dt, std::int64_t m, std::int64_t n, double alpha,
                            double beta) {
  return {random_array(rng, {m, n}, dt, -1, 1), random_array(rng, {n}, dt, -1, 1), random_array(rng, {n}, dt, -1, 1),
          NDArray::scalar<double>(alpha), NDArray::scalar<double>(beta), random_array(rng, {m}, dt, -1, 1),
          random_array(rng, {1}, dt, -1, 1)};
}

}  // namespace

TEST_SUITE("lower row stream gemv") {
  TEST_CASE("RowStreamGemv: generated code against perform, shapes, layouts, alpha and beta, both dtypes") {
    std::mt19937_64 rng(71);
    // Both code paths on any CPU: two BLAS products under 16 MB (the default on AMD CPUs), one pass
    // over the rows above; then the one pass for every matrix (the default elsewhere).
    for (std::string two_pass_bytes : {"16777216", "0"}) {
      for (DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(two_pass_bytes);
        CAPTURE(dtype_name(dt));
        Config c = config();
        c.flags["stream_gemv_two_pass_bytes"] = two_pass_bytes;
        ConfigGuard guard(c);
        const Graph g = row_stream_graph(dt);
        std::vector<std::vector<NDArray>> sets;
        // Empty, one row, a few shapes, a tail after the four-row groups, split across the threads or not.
        for (auto [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                 {0, 3}, {3, 0}, {1, 1}, {5, 7}, {67, 130}, {2003, 17}, {4203, 1000}, {4201, 1003}})
          sets.push_back(values(rng, dt, m, n, 0.7, 0.3));
        sets.push_back(values(rng, dt, 40, 9, 0.0, 2.0));  // alpha = 0: beta * y
        {
          // beta = 0: y is not read (NaN there changes nothing).
          std::vector<NDArray> v = values(rng, dt, 41, 10, 1.5, 0.0);
          v[2] = NDArray::full({10}, std::numeric_limits<double>::quiet_NaN()).astype(dt);
          sets.push_back(v);
        }
        {
          // X a transposed view (its rows strided).
          std::vector<NDArray> v = values(rng, dt, 50, 12, 0.5, 1.0);
          v[0] = random_array(rng, {12, 50}, dt, -1, 1).transpose();
          sets.push_back(v);
        }
        check_sets(g.ins, g.outs, sets, {.rtol = dt == DType::Float32 ? 1e-4 : 1e-10, .atol32 = 1e-4});
        // The flag decides which paths the unit holds: the BLAS products only under a positive size.
        const std::string src = codegen::CLinker::generate_source(FunctionGraph(g.ins, g.outs), {}, false);
        CHECK((src.find("ctx->kernels->blas_gemv_") != std::string::npos) == (two_pass_bytes != "0"));
      }
    }
  }

  TEST_CASE("RowStreamGemv: the shape rules, in perform's words") {
    std::mt19937_64 rng(73);
    const Graph g = row_stream_graph(DType::Float64);
    auto fg = std::make_shared<FunctionGraph>(g.ins, g.outs);
    auto cpp = lowered_thunk(fg);
    auto bad = [&](int input, NDArray v) {
      std::vector<NDArray> vals = values(rng, DType::Float64, 6, 4, 1.0, 1.0);
      vals[static_cast<std::size_t>(input)] = std::move(v);
      return vals;
    };
    auto same_words = [&](const std::vector<NDArray>& vals, const std::string& what) {
      check_error<ShapeError>(fg, *cpp, vals, "RowStreamGemv", what);
      std::vector<NDArray> out(3);
      const std::string msg = error_of([&] { make_perform_linker()->make_thunk(fg)->run(vals, out); });
      INFO(msg);
      CHECK(msg.find("RowStreamGemv: " + what) != std::string::npos);
    };
    same_words(bad(1, NDArray::zeros({5})), "X has 4 columns but w has length 5");
    same_words(bad(2, NDArray::zeros({3})), "y has length 3 but dot(X^T, fn(...)) has length 4");
    same_words(bad(5, NDArray::zeros({7})), "input 5 (a vector of fn) has length 7 but X has 6 rows");
    // Length 1 broadcasts only where the type says so (e's does not).
    same_words(bad(5, NDArray::zeros({1})), "input 5 (a vector of fn) has length 1 but X has 6 rows");
  }

  TEST_CASE("RowStreamGemv: types checked at make_node, infer_shape") {
    const Graph g = row_stream_graph(DType::Float64);
    Var X = g.ins[0], w = g.ins[1], y = g.ins[2], a = g.ins[3], b = g.ins[4], e = g.ins[5], c = g.ins[6];
    auto op = OpPtr(new RowStreamGemv(tanh_times_plus(DType::Float64)));
    CHECK_THROWS_AS(op->make_node({X, w, y, a, b, e}), TypeError);                               // fn's inputs
    CHECK_THROWS_AS(op->make_node({w, w, y, a, b, e, c}), TypeError);                            // X a vector
    CHECK_THROWS_AS(op->make_node({X, any_tensor(DType::Float32, 1, "w32"), y, a, b, e, c}), TypeError);
    CHECK_THROWS_AS(op->make_node({X, w, y, a, b, X, c}), TypeError);                            // e a matrix
    std::mt19937_64 rng(79);
    testing::check_infer_shape(g.ins, g.outs, values(rng, DType::Float64, 9, 5, 1.0, 0.5));
  }
}
