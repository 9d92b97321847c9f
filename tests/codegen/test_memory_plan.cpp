// The cpp linker's memory plan and call-time buffers: slot sharing between
// intermediates, fresh outputs, Out(borrow) recycling, views that escape,
// in-place ops on protected inputs, concurrent calls of one thunk.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using theano::codegen::CLinker;

namespace {

/// The slot numbers the generated code passes to the allocator (through
/// theano_alloc_checked, which checks the size first).
std::vector<long> alloc_slots(const std::string& src) {
  std::vector<long> slots;
  const std::regex re(R"(theano_alloc_checked\(ctx, o\d+, (-?\d+),)");
  for (auto it = std::sregex_iterator(src.begin(), src.end(), re); it != std::sregex_iterator(); ++it)
    slots.push_back(std::stol((*it)[1]));
  return slots;
}

}  // namespace

TEST_SUITE("codegen memory plan") {
  TEST_CASE("a chain of intermediates reuses two slots, the output is fresh") {
    Var x = dvector("x");
    Var v = x;
    for (int i = 0; i < 6; ++i) v = exp(v) * 0.5;  // 12 nodes, each reads only the previous
    FunctionGraph fg({x}, {v});
    const std::vector<long> slots = alloc_slots(CLinker::generate_source(fg));
    REQUIRE(slots.size() == 12);
    CHECK(slots.back() == -1);  // the graph output: fresh each call
    std::set<long> used(slots.begin(), slots.end() - 1);
    CHECK(used == std::set<long>{0, 1});
    // And the values are right, call after call (buffers are reused).
    auto fgp = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{v});
    auto thunk = CLinker(test::quick_options()).make_thunk(fgp);
    test::compare_thunks(fgp, *thunk, {test::vec({0.1, 0.2, -0.3})});
    test::compare_thunks(fgp, *thunk, {test::vec({1, 2, 3, 4, 5, 6, 7})});
    test::compare_thunks(fgp, *thunk, {test::vec({0.5})});
  }

  TEST_CASE("outputs are fresh arrays unless borrowed, borrowed outputs are recycled") {
    Var x = dvector("x");
    Function fresh = function({x}, {exp(x) + 1.0}, {.mode = "unoptimized"});
    REQUIRE(fresh.mode().linker == "cpp");
    NDArray a = fresh({test::vec({1, 2})})[0];
    NDArray b = fresh({test::vec({3, 4})})[0];
    CHECK_FALSE(a.shares_buffer(b));
    CHECK(a.at<double>({0}) == doctest::Approx(std::exp(1.0) + 1));  // not overwritten by the second call

    Function borrowed = function({x}, {Out(exp(x) + 1.0, true)}, {.mode = "unoptimized"});
    NDArray c = borrowed({test::vec({1, 2})})[0];
    NDArray d = borrowed({test::vec({3, 4})})[0];
    CHECK(c.shares_buffer(d));  // recycled: the caller accepted that
    CHECK(d.at<double>({0}) == doctest::Approx(std::exp(3.0) + 1));
  }

  TEST_CASE("a view of an intermediate that reaches an output keeps its own buffer") {
    Var x = dmatrix("x");
    Var t = transpose(exp(x));  // a DimShuffle view of exp's buffer
    Function f = function({x}, {t, exp(x) * 2.0}, {.mode = "unoptimized"});
    NDArray m = test::vec({0, 1, 2, 3, 4, 5}).reshape({2, 3});
    std::vector<NDArray> r1 = f({m});
    const NDArray keep = r1[0].copy();
    std::vector<NDArray> r2 = f({test::vec({9, 9, 9, 9, 9, 9}).reshape({2, 3})});
    CHECK(array_equal(r1[0], keep));
    CHECK(r1[0].shape() == std::vector<std::int64_t>{3, 2});
  }

  TEST_CASE("an in-place op on a protected input works on a copy, a mutable input is overwritten") {
    Var x = dvector("x");
    const OpPtr op(new Elemwise(scalar_op("exp"), {{0, 0}}));
    REQUIRE_FALSE(op->destroy_map().empty());
    Var y = op->make_node({x})->output(0);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{y});
    const NDArray in = test::vec({0, 1});
    std::vector<NDArray> out(1);
    CLinker(test::quick_options()).make_thunk(fg)->run(std::vector<NDArray>{in}, out);
    CHECK(array_equal(in, test::vec({0, 1})));
    CHECK(out[0].at<double>({1}) == doctest::Approx(std::exp(1.0)));

    LinkOptions mut;
    mut.mutable_inputs = {true};
    const NDArray in2 = test::vec({0, 1});
    CLinker(test::quick_options()).make_thunk(fg, mut)->run(std::vector<NDArray>{in2}, out);
    CHECK(in2.at<double>({1}) == doctest::Approx(std::exp(1.0)));
    CHECK(out[0].shares_buffer(in2));
  }

  TEST_CASE("one thunk called from several threads at once") {
    Var x = dvector("x");
    Var v = x;
    for (int i = 0; i < 4; ++i) v = tanh(v) + v * 0.5;
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, std::vector<Var>{v});
    auto thunk = CLinker(test::quick_options()).make_thunk(fg);
    auto ref = make_perform_linker()->make_thunk(fg);
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int k = 0; k < 200; ++k) {
          const std::int64_t n = 1 + (k * 7 + t) % 50;
          NDArray in = NDArray::full({n}, 0.01 * (t + 1) * (k % 13), DType::Float64);
          std::vector<NDArray> got(1), want(1);
          thunk->run(std::vector<NDArray>{in}, got);
          ref->run(std::vector<NDArray>{in}, want);
          if (!allclose(got[0], want[0], 1e-12, 1e-14)) ++failures[static_cast<std::size_t>(t)];
        }
      });
    }
    for (auto& th : threads) th.join();
    CHECK(failures == std::vector<int>(4, 0));
  }
}
