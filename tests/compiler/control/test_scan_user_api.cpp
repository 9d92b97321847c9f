// scan as a Theano user types it: the tutorial's loops (theano/doc/tutorial/
// loop.txt: A**k, the polynomial, tanh(x W + b), the accumulator, powers of
// two until a limit) with its numbers; options in any order with plain
// integers; steps taking one Var per argument and returning a Var, a vector,
// Updates or a StepResult; the updates as a map; strict mode;
// scan_checkpoints against plain scan (values and gradients); debugprint's
// inner graphs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/control/control_test_util.h"
#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::error_of;
using theano::test::matrix;
using theano::test::vec;

namespace {

NDArray mat(std::initializer_list<double> v, std::int64_t rows, std::int64_t cols) {
  return NDArray::from_list<double>(v, {rows, cols});
}

}  // namespace

TEST_SUITE("scan user api") {
  TEST_CASE("the tutorial's A**k: a step taking Vars, outputs_info, non_sequences, n_steps") {
    Var k = T::iscalar("k");
    Var A = T::vector("A");
    // Symbolic description of the result
    auto [result, updates] = scan([](Var prior_result, Var B) { return prior_result * B; },
                                  ScanArgs().outputs_info(T::ones_like(A)).non_sequences(A).n_steps(k));
    // We only care about A**k, but scan has provided us with A**1 through A**k.
    // Discard the values that we don't care about. Scan is smart enough to
    // notice this and not waste memory saving them.
    Var final_result = result[0][-1];
    Function power = function({A, k}, {final_result}, {.updates = updates});
    CHECK(allclose(power({NDArray::arange(0, 10), NDArray::scalar<std::int32_t>(2)})[0],
                   vec({0, 1, 4, 9, 16, 25, 36, 49, 64, 81})));
    // The options in another order, n_steps a plain integer.
    auto [cubes, none] = scan([](Var prior_result, Var B) { return prior_result * B; },
                              ScanArgs().n_steps(3).non_sequences(A).outputs_info(T::ones_like(A)));
    CHECK(none.empty());
    CHECK(allclose(function({A}, {cubes[0][-1]})({vec({1, 2, 3})})[0], vec({1, 8, 27})));
    const std::vector<double> a{1, 2};
    auto [squares, u2] = scan([](Var prior_result, Var B) { return prior_result * B; },
                              ScanArgs().outputs_info(T::ones_like(A)).non_sequences(A).n_steps(a.size()));
    CHECK(allclose(function({A}, {squares[0][-1]})({vec({3, 4})})[0], vec({9, 16})));
  }

  TEST_CASE("the tutorial's polynomial: two sequences of different lengths, a non-sequence, no outputs_info") {
    Var coefficients = T::vector("coefficients");
    Var x = T::scalar("x");
    const std::int64_t max_coefficients_supported = 10000;
    // Generate the components of the polynomial
    Var full_range = T::arange(max_coefficients_supported);
    auto [components, updates] =
        scan([](Var coeff, Var power, Var free_var) { return coeff * T::pow(free_var, power); },
             ScanArgs().sequences({coefficients, full_range}).non_sequences(x));
    Var polynomial = T::sum(components[0]);
    Function calculate_polynomial = function({coefficients, x}, {polynomial});
    const NDArray test_coeff = vec({1, 0, 2});
    CHECK(calculate_polynomial({test_coeff, NDArray::scalar(3.0)})[0].item<double>() == 19.0);
  }

  TEST_CASE("the tutorial's tanh(x(t).dot(W) + b) elementwise: a step closing over W and b") {
    Var X = T::matrix("X");
    Var W = T::matrix("W");
    Var b_sym = T::vector("b_sym");
    auto [results, updates] = scan([&](Var v) { return T::tanh(T::dot(v, W) + b_sym); }, ScanArgs().sequences(X));
    Function compute_elementwise = function({X, W, b_sym}, {results[0]});
    // test values
    const NDArray x = mat({1, 0, 0, 1}, 2, 2);
    const NDArray w = NDArray::ones({2, 2});
    const NDArray b = vec({1, 2});
    const NDArray expected = mat({0.96402758, 0.99505475, 0.96402758, 0.99505475}, 2, 2);  // np.tanh(x.dot(w) + b)
    CHECK(allclose(compute_elementwise({x, w, b})[0], expected));
  }

  TEST_CASE("the tutorial's accumulator: a step returning only updates, passed straight to function") {
    Var k = shared(NDArray::scalar<std::int64_t>(0), "k");
    Var n_sym = T::iscalar("n_sym");
    auto [results, updates] = scan([&] { return Updates{{k, k + 1}}; }, ScanArgs().n_steps(n_sym));
    CHECK(results.empty());
    Function accumulator = function({n_sym}, {}, {.updates = updates, .allow_input_downcast = true});
    CHECK(get_value(k).item<std::int64_t>() == 0);
    accumulator({NDArray::scalar<std::int64_t>(5)});
    CHECK(get_value(k).item<std::int64_t>() == 5);
  }

  TEST_CASE("the tutorial's powers of two until a limit: StepResult with until, n_steps an int") {
    Var max_value = T::scalar("max_value");
    auto power_of_2 = [](Var previous_power, Var max) {
      return StepResult({previous_power * 2}, {}, T::gt(previous_power * 2, max));  // (outputs, updates, until)
    };
    auto [values, updates] = scan(
        power_of_2, ScanArgs().outputs_info(T::constant(NDArray::scalar(1.0))).non_sequences(max_value).n_steps(1024));
    Function f = function({max_value}, {values[0]});
    CHECK(allclose(f({NDArray::scalar(45.0)})[0], vec({2, 4, 8, 16, 32, 64})));
  }

  TEST_CASE("steps return a Var, a vector (several outputs), Updates, or take the vector of arguments") {
    Var x = T::vector("x");
    Var h0 = T::scalar("h0");
    // Two outputs from a `{..}` list; the second has no recurrence.
    auto [outs, u] = scan(
        [](Var x_t, Var h) -> std::vector<Var> {
          return {h + x_t, x_t * 10.0};
        },
        ScanArgs().sequences(x).outputs_info({h0, OutputInfo::none()}));
    REQUIRE(outs.size() == 2);
    const std::vector<NDArray> got = function({x, h0}, {outs[0], outs[1]})({vec({1, 2, 3}), NDArray::scalar(0.5)});
    CHECK(allclose(got[0], vec({1.5, 3.5, 6.5})));
    CHECK(allclose(got[1], vec({10, 20, 30})));
    // The vector form, returning a Var.
    auto [twice, u2] = scan([](const std::vector<Var>& a) { return a[0] * 2.0; }, ScanArgs().sequences(x));
    CHECK(allclose(function({x}, {twice[0]})({vec({1, 2})})[0], vec({2, 4})));
  }

  TEST_CASE("the updates are a map: [], at, contains, iteration, insert, and function() takes them") {
    Var count = shared(NDArray::scalar(0.0), "count");
    Var w = shared(NDArray::scalar(1.0), "w");
    Var x = T::vector("x");
    ScanResult r = scan(
        [&](Var x_t) {
          return StepResult({x_t * count}, {{count, count + 1.0}});
        },
        ScanArgs().sequences(x));
    REQUIRE(r.updates.size() == 1);
    CHECK(r.updates.contains(count));
    CHECK_FALSE(r.updates.contains(w));
    const Var next_count = r.updates[count];
    CHECK(r.updates.at(count) == next_count);
    CHECK(error_of([&] { (void)r.updates.at(w); }).find("updates: w has no update") != std::string::npos);
    CHECK_THROWS_AS((void)r.updates.at(w), IndexError);
    int n = 0;
    for (const auto& [shared_var, new_value] : r.updates) {
      CHECK(shared_var == count);
      CHECK(new_value == next_count);
      ++n;
    }
    CHECK(n == 1);
    Updates all = r.updates;
    all[w] = w * 2.0;  // one more, as `updates[w] = ...` in Python
    CHECK(all.size() == 2);
    CHECK(error_of([&] { all.insert(w, w + 1.0); }).find("w is given two update expressions") != std::string::npos);
    Function f = function({x}, {r.outputs[0]}, {.updates = all});
    CHECK(allclose(f({vec({5, 5, 5})})[0], vec({0, 5, 10})));
    CHECK(get_value(count).item<double>() == 3.0);
    CHECK(get_value(w).item<double>() == 2.0);
  }

  TEST_CASE("strict: a variable the step reads without being given it is an error naming it") {
    Var W = shared(matrix(2, 2, 1.0, 3), "W");
    Var b = T::vector("b");
    Var X = T::matrix("X");
    const std::string e1 =
        error_of([&] { scan([&](Var x_t) { return T::dot(x_t, W); }, ScanArgs().sequences(X).strict()); });
    CHECK(e1.find("scan: strict: the step reads W (a shared variable)") != std::string::npos);
    CHECK(e1.find("pass it in non_sequences") != std::string::npos);
    CHECK_THROWS_AS(scan([&](Var x_t) { return T::dot(x_t, W) + b; }, ScanArgs().sequences(X).strict()), ValueError);
    CHECK(error_of([&] {
            scan([&](Var x_t, Var w) { return T::dot(x_t, w) + b; },
                 ScanArgs().sequences(X).non_sequences(W).strict().name("rnn"));
          }).find("rnn: strict: the step reads b,") != std::string::npos);
    // Given everything it reads, the strict step builds the same loop.
    auto [y, u] = scan([](Var x_t, Var w, Var bias) { return T::dot(x_t, w) + bias; },
                       ScanArgs().sequences(X).non_sequences({W, b}).strict());
    auto [y_lax, u_lax] = scan([&](Var x_t) { return T::dot(x_t, W) + b; }, ScanArgs().sequences(X));
    const NDArray xv = matrix(3, 2, 1.0, 4), bv = vec({0.5, -0.5});
    CHECK(allclose(function({X, b}, {y[0]})({xv, bv})[0], function({X, b}, {y_lax[0]})({xv, bv})[0]));
  }

  TEST_CASE("wrong option values and argument counts are errors naming the option") {
    Var x = T::vector("x");
    Var h0 = T::scalar("h0");
    auto add = [](Var x_t, Var h) { return h + x_t; };
    CHECK(error_of([&] {
            scan([](Var h) { return h + 1.0; }, ScanArgs().outputs_info(h0).n_steps(-1).name("acc"));
          }).find("acc: n_steps is -1; it must be >= 0") != std::string::npos);
    CHECK(error_of([&] {
            scan(add, ScanArgs().sequences(x).outputs_info(h0).truncate_gradient(-2));
          }).find("scan: truncate_gradient is -2; it must be -1") != std::string::npos);
    CHECK(error_of([&] {
            scan(add, ScanArgs().sequences(x).outputs_info(h0).n_steps(T::scalar("n")));
          }).find("n_steps must be an integer scalar") != std::string::npos);
    CHECK(error_of([&] {
            scan(add, ScanArgs().sequences(x).outputs_info(h0).save_every_N(4));
          }).find("save_every_N is an option of scan_checkpoints, not of scan") != std::string::npos);
    CHECK(error_of([&] {
            ScanArgs().n_steps(~0ULL);
          }).find("ScanArgs::n_steps: 18446744073709551615 steps do not fit") != std::string::npos);
    const std::string arity =
        error_of([&] { scan([](Var x_t) { return x_t; }, ScanArgs().sequences(x).outputs_info(h0).name("one")); });
    CHECK(arity.find("one: the step takes 1 argument but scan gives it 2 (1 sequence slice, 1 previous output, "
                     "0 non-sequences") != std::string::npos);
    CHECK_THROWS_AS(scan([](Var a, Var b, Var c) { return a + b + c; }, ScanArgs().sequences(x).outputs_info(h0)),
                    ValueError);
    CHECK(error_of([&] {
            scan_checkpoints(add, ScanArgs().sequences(x).outputs_info(h0).save_every_N(0));
          }).find("save_every_N is 0; it must be >= 1") != std::string::npos);
    CHECK(error_of([&] {
            scan_checkpoints(add, ScanArgs().sequences(SeqInfo(x, {-1, 0})).outputs_info(h0));
          }).find("scan_checkpoints takes no taps, but sequence 0 has taps {-1, 0}") != std::string::npos);
    CHECK(error_of([&] {
            scan_checkpoints(add, ScanArgs().sequences(x).outputs_info(h0).go_backwards());
          }).find("does not support go_backwards") != std::string::npos);
  }

  TEST_CASE("scan_checkpoints: the states every N steps, values and gradients equal plain scan's") {
    Var x = T::matrix("x");
    Var h0 = T::vector("h0");
    Var W = T::matrix("W");
    auto step = [](Var x_t, Var h, Var w) { return T::tanh(T::dot(h, w) + x_t); };
    auto [plain, pu] = scan(step, ScanArgs().sequences(x).outputs_info(h0).non_sequences(W));
    // 10 steps in blocks of 4: the states after steps 4, 8 and 10.
    auto [ckpt, cu] = scan_checkpoints(step, ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).save_every_N(4));
    const NDArray xv = matrix(10, 3, 1.0, 5), hv = matrix(1, 3, 1.0, 6).reshape({3}), wv = matrix(3, 3, 0.8, 7);
    const std::vector<NDArray> got = function({x, h0, W}, {plain[0], ckpt[0], plain[0][-1], ckpt[0][-1]})({xv, hv, wv});
    REQUIRE(got[1].shape() == std::vector<std::int64_t>{3, 3});
    const std::int64_t rows[] = {3, 7, 9};
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 3; ++j)
        CHECK(got[1].at<double>({i, j}) == doctest::Approx(got[0].at<double>({rows[i], j})).epsilon(1e-12));
    CHECK(allclose(got[2], got[3], 1e-12));

    const Var cost_plain = T::sum(T::sqr(plain[0][-1])), cost_ckpt = T::sum(T::sqr(ckpt[0][-1]));
    const std::vector<Var> g_plain = grad(cost_plain, {W, x, h0}), g_ckpt = grad(cost_ckpt, {W, x, h0});
    std::vector<Out> outs(g_plain.begin(), g_plain.end());
    outs.insert(outs.end(), g_ckpt.begin(), g_ckpt.end());
    const std::vector<NDArray> g = function({x, h0, W}, outs)({xv, hv, wv});
    for (std::size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      CHECK(g[k].shape() == g[k + 3].shape());
      CHECK(allclose(g[k], g[k + 3], 1e-10, 1e-12));
    }
    // n_steps of 7 (blocks 4 and 3); no padding on a length that is a whole
    // number of blocks, an assertion on one that is not.
    auto [seven, su] =
        scan_checkpoints(step, ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).n_steps(7).save_every_N(4));
    const NDArray s7 = function({x, h0, W}, {seven[0]})({xv, hv, wv})[0];
    REQUIRE(s7.shape() == std::vector<std::int64_t>{2, 3});
    for (std::int64_t j = 0; j < 3; ++j)
      CHECK(s7.at<double>({1, j}) == doctest::Approx(got[0].at<double>({6, j})).epsilon(1e-12));
    auto [whole, wu] = scan_checkpoints(
        step, ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).save_every_N(5).padding(false));
    Function fw = function({x, h0, W}, {whole[0]});
    CHECK(allclose(fw({xv, hv, wv})[0].reshape({2, 3}),
                   function({x, h0, W}, {T::stack({plain[0][4], plain[0][9]})})({xv, hv, wv})[0], 1e-12));
    CHECK(error_of([&] {
            fw({matrix(9, 3, 1.0, 5), hv, wv});
          }).find("without padding its length must be a multiple of save_every_N (5), got 9") != std::string::npos);
    // No rows: no blocks.
    CHECK(function({x, h0, W}, {ckpt[0]})({NDArray::zeros({0, 3}), hv, wv})[0].shape() ==
          std::vector<std::int64_t>{0, 3});
  }

  TEST_CASE("README's examples: an RNN with BPTT, the Jacobian") {
    Var x = T::matrix("x"), h0 = T::vector("h0"), W = T::matrix("W"), U = T::matrix("U");
    auto [h, updates] =
        scan([](Var x_t, Var h_tm1, Var W, Var U) { return T::tanh(T::dot(x_t, W) + T::dot(h_tm1, U)); },
             ScanArgs().sequences(x).outputs_info(h0).non_sequences({W, U}));
    std::vector<Var> g = grad(T::sum(T::sqr(h[0])), {W, U});  // h[0]: (steps, ...), stacked; BPTT
    const NDArray xv = matrix(4, 2, 1.0, 8), hv = vec({0.1, -0.2}), wv = matrix(2, 2, 0.5, 9),
                  uv = matrix(2, 2, 0.5, 10);
    const std::vector<NDArray> got = function({x, h0, W, U}, {h[0], g[0]})({xv, hv, wv, uv});
    CHECK(got[0].shape() == std::vector<std::int64_t>{4, 2});
    CHECK(got[1].shape() == std::vector<std::int64_t>{2, 2});

    Var v = T::vector("v");
    Var y = T::sqr(v);
    Var J = scan([](Var i, Var y, Var x) { return grad(y[i], x); },
                 ScanArgs().sequences(T::arange(T::shape_i(y, 0), DType::Int64)).non_sequences({y, v}))
                .outputs[0];
    // The tutorial's jacobian of x ** 2 at [4, 4]: [[8, 0], [0, 8]].
    CHECK(allclose(function({v}, {J})({vec({4, 4})})[0], mat({8, 0, 0, 8}, 2, 2)));
  }

  TEST_CASE("debugprint shows each scan's inner graph after the outer one, as Theano does") {
    Var k = T::iscalar("k");
    Var A = T::vector("A");
    auto [result, updates] = scan([](Var prior_result, Var B) { return prior_result * B; },
                                  ScanArgs().outputs_info(T::ones_like(A)).non_sequences(A).n_steps(k).name("power"));
    CHECK(debugprint(result[0]) == theano::test::lines({
                                       "Scan{power} [id A] 'power[0]'",
                                       " |Elemwise{Cast{int64},no_inplace} [id B] ''",
                                       " | |k [id C]",
                                       " |Elemwise{second,no_inplace} [id D] ''",
                                       " | |A [id E]",
                                       " | |DimShuffle{x} [id F] ''",
                                       " |   |TensorConstant{1.0} [id G]",
                                       " |A [id E]",
                                       "",
                                       "Inner graphs of the scan ops:",
                                       "",
                                       "Scan{power} [id A] 'power[0]'",
                                       " >Elemwise{mul,no_inplace} [id H] ''",
                                       " > |out0[t-1] [id I] -> [id D]",
                                       " > |A [id J] -> [id E]",
                                   }));
    // A scan in a scan's step: its inner graph follows the outer one's.
    Var m = T::matrix("m");
    auto [sums, u] = scan(
        [](Var row) {
          return scan([](Var v, Var acc) { return acc + v; },
                      ScanArgs().sequences(row).outputs_info(T::constant(NDArray::scalar(0.0))).name("inner"))
              .outputs[0][-1];
        },
        ScanArgs().sequences(m).name("outer"));
    const std::string text = debugprint(sums[0]);
    CAPTURE(text);
    const std::size_t tail = text.find("Inner graphs of the scan ops:");
    REQUIRE(tail != std::string::npos);
    const std::size_t outer = text.find("\nScan{outer}", tail), inner = text.find("\nScan{inner}", tail);
    CHECK(outer != std::string::npos);
    CHECK(inner != std::string::npos);
    CHECK(outer < inner);
    CHECK(text.find(" > |Scan{inner}", tail) != std::string::npos);
  }

  TEST_CASE("map, reduce, foldl and foldr with steps taking Vars and returning a Var, and a scan's one output") {
    Var x = T::vector("x");
    Var z = T::scalar("z");
    // The tutorial's `theano.map(lambda v: v ** 2, x)` and `theano.reduce(lambda v, acc: acc + v, x, 0)`.
    Var squares = scan_map([](Var v) { return v * v; }, {x})[0];
    Var total = scan_reduce([](Var v, Var acc) { return acc + v; }, {x}, {z})[0];
    Var left = foldl([](Var v, Var acc) { return acc * 10.0 + v; }, {x}, {z})[0];
    Var right = foldr([](Var v, Var acc) { return acc * 10.0 + v; }, {x}, {z})[0];
    Function f = function({x, z}, {squares, total, left, right});
    Outputs r = f(vec({1, 2, 3}), 0.0);
    CHECK(allclose(r[0], vec({1, 4, 9})));
    CHECK(r[1].item<double>() == 6.0);
    CHECK(r[2].item<double>() == 123.0);
    CHECK(r[3].item<double>() == 321.0);
    // A step of the wrong arity is the same ValueError as scan's.
    CHECK_THROWS_AS(scan_map([](Var a, Var b) { return a + b; }, {x}), ValueError);

    // ScanResult::output(): the one output, as Theano returns it alone.
    ScanResult doubled = scan([](Var v) { return v * 2.0; }, ScanArgs().sequences(x));
    CHECK(allclose(function({x}, doubled.output())(vec({1, 2}))[0], vec({2, 4})));
    ScanResult two = scan([](Var v) { return std::vector<Var>{v, v * v}; }, ScanArgs().sequences(x));
    CHECK_THROWS_WITH_AS(two.output(), doctest::Contains("the scan has 2 outputs"), ValueError);
  }
}
