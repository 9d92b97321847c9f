// Elementwise and reduction loops split across the loop threads (THEANO_FLAGS
// threads): on inputs large enough to be split, every loop form agrees with
// perform for 1, 2 and 3 threads; split reductions give the same bits on
// every call; small loops never wake a thread; bad flag values are refused.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/thread_pool.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
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

Config with_threads(const std::string& n) {
  Config c = config();
  c.flags["threads"] = n;
  return c;
}

Var careduce(const std::string& op, std::vector<int> axes, const Var& x) {
  return OpPtr(new CAReduce(op, std::move(axes)))->make_node({x})->output(0);
}

// Sums of large arrays are compared to perform with a tolerance that allows
// another summation order.
const Agreement kSums{.rtol = 1e-9, .atol = 1e-9};

}  // namespace

TEST_SUITE("parallel loops") {
  TEST_CASE("elementwise loops split across threads agree with perform (contiguous, strided, broadcast)") {
    std::mt19937_64 rng(11);
    Var x = dmatrix("x"), y = dmatrix("y"), b = row("b", DType::Float64);
    // 640 x 520: 332,800 elements, several parts even for the cheapest op.
    const NDArray xv = random_array(rng, {640, 520}, DType::Float64, -2, 2);
    const NDArray yv = random_array(rng, {640, 520}, DType::Float64, -2, 2);
    const NDArray bv = random_array(rng, {1, 520}, DType::Float64, -1, 1);
    for (const char* threads : {"1", "2", "3"}) {
      CAPTURE(threads);
      ConfigGuard guard(with_threads(threads));
      // Transcendental (few elements per part) and cheap loops; check_lowering
      // also runs every input strided and reversed (the nested-loop path).
      check_lowering({x, y}, {exp(x) * y + tanh(x) - x * x / (1.0 + y * y)}, {xv, yv});
      check_lowering({x, y}, {x + y}, {xv, yv});
      check_lowering({x, b}, {x * b + 1.0, sqr(x - b)}, {xv, bv});
      Var xf = fmatrix("xf");
      check_lowering({xf}, {exp(xf) * 0.5f}, {xv.astype(DType::Float32)});
    }
  }

  TEST_CASE("reductions split across threads agree with perform and are the same bits on every call") {
    std::mt19937_64 rng(12);
    Var x = dmatrix("x");
    const NDArray xv = random_array(rng, {700, 600}, DType::Float64, -1, 1);
    for (const char* threads : {"1", "2", "3"}) {
      CAPTURE(threads);
      ConfigGuard guard(with_threads(threads));
      // Everything (element ranges), rows (row ranges), columns (column ranges).
      check_lowering({x}, {careduce("add", {0, 1}, x), careduce("add", {1}, x), careduce("add", {0}, x)}, {xv}, kSums);
      check_lowering({x}, {careduce("maximum", {0, 1}, x), careduce("minimum", {0}, x), careduce("mul", {1}, x)},
                     {xv});
      Var xf = fmatrix("xf");
      check_lowering({xf}, {careduce("add", {0, 1}, xf), careduce("add", {0}, xf)}, {xv.astype(DType::Float32)},
                     Agreement{.rtol = 1e-5, .atol32 = 1e-3});
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{careduce("add", {0, 1}, x)});
      auto thunk = lowered_thunk(fg);
      const std::vector<NDArray> in{xv};
      std::vector<NDArray> first(1), again(1);
      thunk->run(in, first);
      for (int k = 0; k < 5; ++k) {
        thunk->run(in, again);
        CHECK(array_equal(first[0], again[0]));
      }
    }
  }

  TEST_CASE("a reduction with a fused elementwise op is split like a plain one") {
    std::mt19937_64 rng(13);
    Var x = dmatrix("x");
    const NDArray xv = random_array(rng, {500, 700}, DType::Float64, -1, 1);
    ConfigGuard guard(with_threads("2"));
    Function f = function({x}, {sum(exp(x) * 2.0), sum(sqr(x), 0)});
    const std::string graph = f.fgraph().str();
    CHECK(graph.find("fused=") != std::string::npos);
    auto ref = function({x}, {sum(exp(x) * 2.0), sum(sqr(x), 0)}, {.mode = "unoptimized"});
    const auto got = f({xv});
    const auto want = ref({xv});
    CHECK(allclose(got[0], want[0], 1e-9, 1e-9));
    CHECK(allclose(got[1], want[1], 1e-9, 1e-9));
  }

  TEST_CASE("small loops run on the caller: results are the same with any thread count") {
    Var x = dvector("x");
    std::vector<NDArray> results;
    for (const char* threads : {"1", "2", "8"}) {
      ConfigGuard guard(with_threads(threads));
      Function f = function({x}, {exp(x) + sum(x)});
      results.push_back(f({vec({0.5, 1.5, -2})})[0]);
    }
    CHECK(array_equal(results[0], results[1]));
    CHECK(array_equal(results[0], results[2]));
  }

  TEST_CASE("THEANO_FLAGS threads: 0 means every core, bad values are refused with the flag's name") {
    Var x = dvector("x");
    {
      ConfigGuard guard(with_threads("0"));
      CHECK_NOTHROW(function({x}, {x + 1.0}));
    }
    for (const char* bad : {"-1", "two", "", "1000"}) {
      CAPTURE(bad);
      ConfigGuard guard(with_threads(bad));
      CHECK_THROWS_WITH_AS(function({x}, {x + 2.0}), doctest::Contains("THEANO_FLAGS threads"), ValueError);
    }
  }
}
