// scan (theano/control/scan.h): values against plain C++ loops (the
// NumPy-style reference), in the reference VM and the cpp linker; taps of
// sequences and outputs, map outputs, go_backwards, until, n_steps, implicit
// non-sequences, shared-variable updates and random streams inside the
// loop, the helpers, and the errors that name the scan and the output.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/control/control_test_util.h"
#include "test_util.h"
#include "use_linker.h"
#include "theano/codegen/c_linker.h"
#include "theano/config.h"
#include "theano/control/scan.h"
#include "theano/rewrite/optdb.h"
#include "theano/extending.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::error_of;
using theano::test::matrix;
using theano::test::vector_of;
using theano::test::i64;
using theano::test::vec;

namespace {

using theano::test::UseLinker;

const char* const kLinkers[] = {"py", "cpp"};


}  // namespace

TEST_SUITE("scan") {
  TEST_CASE("a running sum: one sequence, one recurrent output, against a loop") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var x = T::dmatrix("x");
      Var h0 = T::dvector("h0");
      ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{a[1] + a[0]}}; },
                          ScanArgs().sequences(x).outputs_info(h0));
      Function f = function({In(x), In(h0)}, {r.outputs[0]});
      const NDArray xv = matrix(7, 3, 1.0, 1), hv = vec({1, 2, 3});
      const NDArray got = f({xv, hv})[0];
      REQUIRE(got.shape() == std::vector<std::int64_t>{7, 3});
      std::vector<double> h{1, 2, 3};
      for (std::int64_t t = 0; t < 7; ++t)
        for (std::int64_t j = 0; j < 3; ++j) {
          h[static_cast<std::size_t>(j)] += xv.at<double>({t, j});
          CHECK(got.at<double>({t, j}) == doctest::Approx(h[static_cast<std::size_t>(j)]).epsilon(1e-12));
        }
      // No rows: no steps, an empty result.
      CHECK(f({NDArray::zeros({0, 3}), hv})[0].shape() == std::vector<std::int64_t>{0, 3});
    }
  }

  TEST_CASE("taps: Fibonacci from two initial states, a centred difference of a sequence") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var init = T::lvector("init");
      Var n = T::lscalar("n");
      ScanResult fib = scan([](const std::vector<Var>& a) { return StepResult{{a[0] + a[1]}}; },
                            ScanArgs().outputs_info(OutputInfo(init, {-2, -1})).n_steps(n).name("fib"));
      Function f = function({In(init), In(n)}, {fib.outputs[0]});
      const NDArray got = f({NDArray::from_list<std::int64_t>({0, 1}), i64(10)})[0];
      const std::vector<std::int64_t> want{1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
      REQUIRE(got.shape() == std::vector<std::int64_t>{10});
      for (std::int64_t t = 0; t < 10; ++t) CHECK(got.at<std::int64_t>({t}) == want[static_cast<std::size_t>(t)]);

      Var x = T::dvector("x");
      ScanResult d = scan([](const std::vector<Var>& a) { return StepResult{{a[0] - a[2] * 2.0 + a[1]}}; },
                          ScanArgs().sequences(SeqInfo(x, {-1, 1, 0})).outputs_info(OutputInfo::none()));
      Function g = function({In(x)}, {d.outputs[0]});
      const NDArray xv = vec({1, 4, 9, 16, 25, 36});
      const NDArray dv = g({xv})[0];
      REQUIRE(dv.shape() == std::vector<std::int64_t>{4});  // 6 rows, taps spanning 3
      for (std::int64_t t = 0; t < 4; ++t) CHECK(dv.at<double>({t}) == doctest::Approx(2.0));
    }
  }

  TEST_CASE("go_backwards, map outputs beside recurrent ones, non-sequences and closed-over variables") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var x = T::dmatrix("x");
      Var W = T::dmatrix("W"), U = T::dmatrix("U");
      Var h0 = T::dvector("h0");
      // U is read without being passed: an implicit non-sequence.
      ScanResult r = scan(
          [&](const std::vector<Var>& a) {
            Var h = T::tanh(T::dot(a[0], a[2]) + T::dot(a[1], U));
            return StepResult{{h, T::sum(h * h)}};
          },
          ScanArgs().sequences(x).outputs_info({h0, OutputInfo::none()}).non_sequences(W).go_backwards(true));
      Function f = function({In(x), In(W), In(U), In(h0)}, {r.outputs[0], r.outputs[1]});
      const NDArray xv = matrix(5, 3, 1.0, 2), Wv = matrix(3, 4, 0.5, 3), Uv = matrix(4, 4, 0.5, 4);
      const NDArray hv = vec({0.1, -0.2, 0.3, 0.0});
      const auto got = f({xv, Wv, Uv, hv});
      std::vector<double> h(hv.data_as<double>(), hv.data_as<double>() + 4);
      for (std::int64_t t = 0; t < 5; ++t) {
        const std::int64_t row = 4 - t;  // backwards
        std::vector<double> nh(4);
        double ss = 0;
        for (std::int64_t j = 0; j < 4; ++j) {
          double v = 0;
          for (std::int64_t i = 0; i < 3; ++i) v += xv.at<double>({row, i}) * Wv.at<double>({i, j});
          for (std::int64_t i = 0; i < 4; ++i) v += h[static_cast<std::size_t>(i)] * Uv.at<double>({i, j});
          nh[static_cast<std::size_t>(j)] = std::tanh(v);
          ss += std::tanh(v) * std::tanh(v);
        }
        h = nh;
        for (std::int64_t j = 0; j < 4; ++j)
          CHECK(got[0].at<double>({t, j}) == doctest::Approx(h[static_cast<std::size_t>(j)]).epsilon(1e-12));
        CHECK(got[1].at<double>({t}) == doctest::Approx(ss).epsilon(1e-12));
      }
    }
  }

  TEST_CASE("until stops after the step whose condition holds, and n_steps bounds the steps") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var limit = T::dscalar("limit");
      Var n = T::lscalar("n");
      ScanResult r = scan(
          [&](const std::vector<Var>& a) {
            Var next = a[0] * 2.0;
            return StepResult{{next}, {}, T::gt(next, limit)};
          },
          ScanArgs().outputs_info(T::constant(NDArray::scalar(1.0))).n_steps(n).name("doubling"));
      Function f = function({In(limit), In(n)}, {r.outputs[0]});
      const NDArray a = f({NDArray::scalar(20.0), i64(100)})[0];
      REQUIRE(a.shape() == std::vector<std::int64_t>{5});  // 2 4 8 16 32
      CHECK(a.at<double>({4}) == 32.0);
      CHECK(f({NDArray::scalar(1000.0), i64(3)})[0].shape() == std::vector<std::int64_t>{3});
      const std::string neg = error_of([&] { f({NDArray::scalar(1.0), i64(-1)}); });
      CHECK(neg.find("doubling: n_steps is -1") != std::string::npos);
    }
  }

  TEST_CASE("n_steps with sequences: fewer steps take the first rows, more is an error naming the sequence") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var x = T::dvector("x");
      Var n = T::lscalar("n");
      ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{a[0] * 3.0}}; },
                          ScanArgs().sequences(x).outputs_info(OutputInfo::none()).n_steps(n).name("triple"));
      Function f = function({In(x), In(n)}, {r.outputs[0]});
      CHECK(allclose(f({vec({1, 2, 3}), i64(2)})[0], vec({3, 6})));
      const std::string e = error_of([&] { f({vec({1, 2, 3}), i64(5)}); });
      CHECK(e.find("triple: sequence 0 (x) has 3 rows, but 5 steps") != std::string::npos);
    }
  }

  TEST_CASE("map, reduce, foldl and foldr") {
    Var x = T::dvector("x");
    Var z = T::constant(NDArray::scalar(0.0));
    std::vector<Var> sq = scan_map([](const std::vector<Var>& a) { return std::vector<Var>{a[0] * a[0]}; }, {x});
    std::vector<Var> total = scan_reduce([](const std::vector<Var>& a) { return std::vector<Var>{a[0] + a[1]}; }, {x}, {z});
    // foldl / foldr of "acc * 10 + x" read the digits in opposite orders.
    auto digits = [](const std::vector<Var>& a) { return std::vector<Var>{a[1] * 10.0 + a[0]}; };
    std::vector<Var> left = foldl(digits, {x}, {z});
    std::vector<Var> right = foldr(digits, {x}, {z});
    Function f = function({In(x)}, {sq[0], total[0], left[0], right[0]});
    const auto got = f({vec({1, 2, 3})});
    CHECK(allclose(got[0], vec({1, 4, 9})));
    CHECK(got[1].item<double>() == 6.0);
    CHECK(got[2].item<double>() == 123.0);
    CHECK(got[3].item<double>() == 321.0);
  }

  TEST_CASE("updates inside the loop: a shared counter advanced by every step, a random stream") {
    for (const char* linker : kLinkers) {
      const std::string way = linker;
      CAPTURE(way);
      UseLinker l(linker);
      Var count = shared(NDArray::scalar(0.0), "count");
      Var x = T::dvector("x");
      ScanResult r = scan(
          [&](const std::vector<Var>& a) {
            return StepResult{{a[0] * count}, {{count, count + 1.0}}};
          },
          ScanArgs().sequences(x).outputs_info(OutputInfo::none()));
      REQUIRE(r.updates.size() == 1);
      FunctionOptions o;
      o.updates = r.updates;
      Function f = function({In(x)}, {r.outputs[0]}, o);
      CHECK(allclose(f({vec({5, 5, 5})})[0], vec({0, 5, 10})));
      CHECK(as_shared(count)->get_value().item<double>() == 3.0);
      CHECK(allclose(f({vec({1, 1})})[0], vec({3, 4})));

      T::RandomStream rs(7);
      ScanResult noise =
          scan([&](const std::vector<Var>&) { return StepResult{{rs.uniform({2})}}; },
               ScanArgs().outputs_info(OutputInfo::none()).n_steps(T::constant(NDArray::scalar<std::int64_t>(3))));
      REQUIRE(noise.updates.size() == 1);  // the stream's state, carried through the steps
      FunctionOptions on;
      on.updates = noise.updates;
      Function g = function({}, {noise.outputs[0]}, on);
      const NDArray a = g({})[0], b = g({})[0];
      REQUIRE(a.shape() == std::vector<std::int64_t>{3, 2});
      CHECK(a.at<double>({0, 0}) != a.at<double>({1, 0}));  // every step draws anew
      CHECK(a.at<double>({1, 1}) != a.at<double>({2, 1}));
      CHECK(a.at<double>({0, 0}) != b.at<double>({0, 0}));  // and every call
    }
  }

  TEST_CASE("errors name the scan and the output") {
    Var x = T::dvector("x");
    Var h0 = T::fscalar("h0");
    const std::string dt = error_of([&] {
      scan([](const std::vector<Var>& a) { return StepResult{{a[0] + a[1]}}; },
           ScanArgs().sequences(x).outputs_info(h0).name("acc"));
    });
    CHECK(dt.find("acc: output 0") != std::string::npos);
    CHECK(dt.find("float32") != std::string::npos);
    CHECK(error_of([&] {
            scan([](const std::vector<Var>& a) { return StepResult{{a[0]}}; },
                 ScanArgs().outputs_info(OutputInfo(T::dvector("v"), {1})).n_steps(T::lscalar("n")).name("s"));
          }).find("s: output 0: the taps of a recurrent output must be negative") != std::string::npos);
    CHECK(error_of([&] {
            scan([](const std::vector<Var>& a) { return StepResult{{a[1]}}; },
                 ScanArgs()
                     .outputs_info(OutputInfo(T::tensor(DType::Float64, {1}), {-3, -1}))
                     .n_steps(T::lscalar("n"))
                     .name("s"));
          }).find("need 3 initial states") != std::string::npos);
    CHECK(error_of([&] {
            scan([](const std::vector<Var>& a) { return StepResult{{a[0]}}; },
                 ScanArgs().outputs_info(T::dscalar("h")).name("s"));
          }).find("without sequences the number of steps must be given") != std::string::npos);
    CHECK(error_of([&] {
            scan(
                [](const std::vector<Var>& a) {
                  return StepResult{{a[0], a[0]}};
                },
                ScanArgs().sequences(x).outputs_info(OutputInfo::none()).name("s"));
          }).find("the step returned 2 outputs but outputs_info lists 1") != std::string::npos);
    CHECK(error_of([&] {
            scan([](const std::vector<Var>& a) { return StepResult{{a[0]}}; },
                 ScanArgs().sequences(T::dscalar("s0")).name("s"));
          }).find("must have at least one dimension") != std::string::npos);
    // A step whose output changes shape between steps.
    Var v = T::dvector("v");
    ScanResult grow = scan(
        [](const std::vector<Var>& a) {
          return StepResult{{T::join(0, {a[0], a[0]})}};
        },
        ScanArgs().outputs_info(v).n_steps(T::constant(NDArray::scalar<std::int64_t>(2))).name("grow"));
    Function f = function({In(v)}, {grow.outputs[0]});
    CHECK(error_of([&] { f({vec({1})}); }).find("grow: step 0: output 0 has shape (2,) but its state has shape (1,)") !=
          std::string::npos);
  }
}

TEST_SUITE("scan in the cpp linker") {
  TEST_CASE("the loop and its step are generated code in the function's translation unit, gradient included") {
    Var x = T::dmatrix("x"), W = T::dmatrix("W"), h0 = T::dvector("h0");
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(T::dot(a[0], a[2]) + a[1])}}; },
                        ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).name("rnn"));
    Var cost = T::sum(r.outputs[0]);
    FunctionGraph fg({x, W, h0}, {cost, grad(cost, W), grad(cost, h0)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    std::string src;
    CHECK_NOTHROW(src = codegen::CLinker::generate_source(fg, {}, /*perform_fallback=*/false));
    CHECK(src.find("_step(ctx, in_p, out_p)") != std::string::npos);
    CHECK(src.find("no lowering") == std::string::npos);
  }

  TEST_CASE("nested scans and an ifelse inside the step, against the reference VM") {
    auto build = [] {
      Var m = T::dmatrix("m");
      Var c = T::dscalar("c");
      // Outer over rows; inner running sum over each row; ifelse on the row's total.
      ScanResult outer = scan(
          [&](const std::vector<Var>& a) {
            ScanResult inner =
                scan([](const std::vector<Var>& b) { return StepResult{{b[0] + b[1]}}; },
                     ScanArgs().sequences(a[0]).outputs_info(T::constant(NDArray::scalar(0.0))).name("inner"));
            Var total = T::subtensor(inner.outputs[0], {T::Index(std::int64_t{-1})});
            Var picked = ifelse(T::gt(total, c), total * 2.0, -total);
            return StepResult{{a[1] + picked}};
          },
          ScanArgs().sequences(m).outputs_info(T::constant(NDArray::scalar(0.0))).name("outer"));
      return std::make_tuple(m, c, outer.outputs[0]);
    };
    const NDArray mv = matrix(6, 5, 1.0, 11);
    std::vector<NDArray> results;
    for (const char* linker : kLinkers) {
      UseLinker l(linker);
      auto [m, c, out] = build();
      Function f = function({In(m), In(c)}, {out});
      results.push_back(f({mv, NDArray::scalar(0.2)})[0]);
    }
    CHECK(allclose(results[0], results[1], 1e-12, 1e-12));
    double acc = 0;
    for (std::int64_t i = 0; i < 6; ++i) {
      double total = 0;
      for (std::int64_t j = 0; j < 5; ++j) total += mv.at<double>({i, j});
      acc += total > 0.2 ? total * 2 : -total;
      CHECK(results[1].at<double>({i}) == doctest::Approx(acc).epsilon(1e-12));
    }
  }

  TEST_CASE("an error inside a step names the node, the step and the scan") {
    UseLinker l("cpp");
    Var x = T::dvector("x");
    Var idx = T::lvector("idx");
    ScanResult r = scan([&](const std::vector<Var>& a) { return StepResult{{T::subtensor(x, {T::Index(a[0])})}}; },
                        ScanArgs().sequences(idx).outputs_info(OutputInfo::none()).name("gather"));
    Function f = function({In(x), In(idx)}, {r.outputs[0]});
    CHECK(allclose(f({vec({1, 2, 3}), NDArray::from_list<std::int64_t>({2, 0})})[0], vec({3, 1})));
    const std::string e = error_of([&] { f({vec({1, 2, 3}), NDArray::from_list<std::int64_t>({2, 7})}); });
    CHECK(e.find("Scan{gather}") != std::string::npos);
    CHECK(e.find("out of bounds") != std::string::npos);
    CHECK(e.find("(gather step 1)") != std::string::npos);
  }
}

TEST_SUITE("scan in the cpp linker") {
  TEST_CASE("an RNN and its gradient in every mode, checking modes included, agree with the reference VM") {
    auto build = [] {
      Var x = T::dmatrix("x"), W = T::dmatrix("W"), h0 = T::dvector("h0");
      ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(T::dot(a[0], a[2]) + a[1])}}; },
                          ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).name("rnn"));
      Var cost = T::sum(T::sqr(r.outputs[0]));
      return std::make_tuple(x, W, h0, std::vector<Var>{cost, grad(cost, W), grad(cost, h0), grad(cost, x)});
    };
    const NDArray xv = matrix(6, 3, 1.0, 31), Wv = matrix(3, 3, 0.6, 32), hv = theano::test::vec({0.1, -0.2, 0.3});
    std::vector<NDArray> want;
    {
      UseLinker l("py");
      auto [x, W, h0, outs] = build();
      want = function({In(x), In(W), In(h0)}, {Out(outs[0]), Out(outs[1]), Out(outs[2]), Out(outs[3])})({xv, Wv, hv});
    }
    for (const char* mode : {"fast_run", "fast_compile", "unoptimized", "debugmode", "nanguardmode"}) {
      const std::string way = mode;
      CAPTURE(way);
      UseLinker l("cpp");
      auto [x, W, h0, outs] = build();
      FunctionOptions o;
      o.mode = mode;
      const auto got =
          function({In(x), In(W), In(h0)}, {Out(outs[0]), Out(outs[1]), Out(outs[2]), Out(outs[3])}, o)({xv, Wv, hv});
      for (std::size_t k = 0; k < got.size(); ++k) CHECK(allclose(got[k], want[k], 1e-10, 1e-12));
    }
  }
}

TEST_SUITE("scan in the cpp linker") {
  TEST_CASE("an until condition of dtype float16: the scan runs through perform, with the same result") {
    UseLinker l("cpp");
    Var limit = T::dscalar("limit");
    ScanResult r = scan(
        [&](const std::vector<Var>& a) {
          Var next = a[0] * 2.0;
          return StepResult{{next}, {}, T::cast(T::gt(next, limit), DType::Float16)};
        },
        ScanArgs()
            .outputs_info(T::constant(NDArray::scalar(1.0)))
            .n_steps(T::constant(NDArray::scalar<std::int64_t>(50)))
            .name("half"));
    Function f = function({In(limit)}, {r.outputs[0]});
    const NDArray a = f({NDArray::scalar(20.0)})[0];
    REQUIRE(a.shape() == std::vector<std::int64_t>{5});
    CHECK(a.at<double>({4}) == 32.0);
  }
}
