// scan's non-sequences and taps at their limits (issue 33): the step receives
// the outer non-sequences themselves, so the gradients tutorial's Jacobian
// (grad(y[i], x) with non_sequences {y, x}) works in every mode and linker;
// a gradient the step cannot take says what to do; taps whose row
// arithmetic would leave int64 are a ValueError naming the scan and the
// sequence or output (never a loop reading outside the sequence), while
// extreme taps that fit (a sequence tap of INT64_MIN) compile and run.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "compiler/control/control_test_util.h"
#include "test_util.h"
#include "use_linker.h"
#include "theano/control/scan.h"
#include "theano/gradient.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::error_of;
using theano::test::matrix;
using theano::test::UseLinker;
using theano::test::vector_of;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

/// y(x) = tanh(x) * sum(x^2): every entry depends on every entry of x.
Var y_of(const Var& x) { return T::tanh(x) * T::sum(x * x); }

/// The Jacobian of y_of at `xv` by central differences.
std::vector<std::vector<double>> fd_jacobian(const NDArray& xv) {
  const auto n = static_cast<std::size_t>(xv.shape()[0]);
  auto f = [&](const std::vector<double>& x) {
    double ss = 0;
    for (double v : x) ss += v * v;
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]) * ss;
    return y;
  };
  std::vector<double> x(xv.data_as<double>(), xv.data_as<double>() + n);
  std::vector<std::vector<double>> J(n, std::vector<double>(n));
  const double h = 1e-6;
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> a = x, b = x;
    a[j] += h;
    b[j] -= h;
    const auto ya = f(a), yb = f(b);
    for (std::size_t i = 0; i < n; ++i) J[i][j] = (ya[i] - yb[i]) / (2 * h);
  }
  return J;
}

/// scan(lambda i, y, x: grad(y[i], x), sequences=arange(y.shape[0]), non_sequences=[y, x])
Var tutorial_jacobian(const Var& y, const Var& x) {
  ScanResult r =
      scan([](const std::vector<Var>& a) { return StepResult{{grad(T::subtensor(a[1], {T::Index(a[0])}), a[2])}}; },
           ScanArgs()
               .sequences(T::arange(T::shape_i(y, 0), DType::Int64))
               .outputs_info(OutputInfo::none())
               .non_sequences({y, x})
               .name("jac"));
  return r.outputs[0];
}

}  // namespace

TEST_SUITE("scan non-sequences") {
  TEST_CASE("the gradients tutorial's Jacobian: grad(y[i], x) with y and x as non-sequences, in every mode") {
    const NDArray xv = vector_of(5, 1.0, 7);
    const auto fd = fd_jacobian(xv);
    struct Way {
      const char* linker;
      const char* mode;
    };
    for (const Way& w : {Way{"cpp", "fast_run"}, Way{"cpp", "fast_compile"}, Way{"py", "fast_run"}}) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var x = T::dvector("x");
      Var y = y_of(x);
      FunctionOptions o;
      o.mode = w.mode;
      const auto got = function({In(x)}, {Out(tutorial_jacobian(y, x)), Out(jacobian(y, x))}, o)({xv});
      REQUIRE(got[0].shape() == std::vector<std::int64_t>{5, 5});
      CHECK(allclose(got[0], got[1], 1e-12, 1e-12));
      for (std::int64_t i = 0; i < 5; ++i)
        for (std::int64_t j = 0; j < 5; ++j)
          CHECK(got[0].at<double>({i, j}) ==
                doctest::Approx(fd[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]).epsilon(1e-6));
    }
  }

  TEST_CASE("a non-sequence whose outer graph the step reads past stays one input: its ancestors are not closed over") {
    UseLinker l("cpp");
    Var x = T::dvector("x"), s = T::dvector("s");
    Var y = T::exp(x);  // the step receives y itself, built over x
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{a[0] * a[1]}}; },
                        ScanArgs().sequences(s).outputs_info(OutputInfo::none()).non_sequences(y));
    Var out = r.outputs[0];
    REQUIRE(out.owner() != nullptr);
    const Apply& node = *out.owner();
    const Scan* op = as_scan(node);
    REQUIRE(op != nullptr);
    CHECK(op->info().n_nonseq == 1);  // y only, not x beside it
    CHECK(node.inputs().back() == y);
    const NDArray got = function({In(x), In(s)}, {out})({theano::test::vec({0.0, 1.0}), theano::test::vec({2.0, 3.0, 4.0})})[0];
    REQUIRE(got.shape() == std::vector<std::int64_t>{3, 2});
    CHECK(got.at<double>({2, 1}) == doctest::Approx(4.0 * std::exp(1.0)));
  }

  TEST_CASE("non-sequences outside C order (a transposed matrix, a column) step as their values, 0 to 7 steps") {
    // The cpp linker copies such a non-sequence once, before the loop, into a
    // contiguous array every step reads (scan_lowering.cpp); the py linker
    // hands the views themselves: both must agree, for every step count.
    Var w = T::dmatrix("w"), h0 = T::dvector("h0"), n = T::lscalar("n");
    Var wt = T::transpose(w);                 // strides swapped
    Var colw = w[{T::all, T::Index(1)}];      // a column of w: a row's byte stride
    Var col = wt[{T::all, T::Index(1)}];      // a column of wt, w's row 1: contiguous again
    ScanResult r = scan(
        [](const std::vector<Var>& a) {
          return StepResult{{T::tanh(T::dot(a[0], a[1]) * 0.5 + a[2]) + a[3]}};
        },
        ScanArgs().outputs_info(h0).non_sequences({wt, colw, col}).n_steps(n).name("strided"));
    const NDArray wv = matrix(4, 4, 1.0, 41), hv = vector_of(4, 1.0, 42);
    for (std::int64_t steps : {0, 1, 2, 7}) {
      CAPTURE(steps);
      std::vector<NDArray> got;
      for (const char* linker : {"py", "cpp"}) {
        UseLinker l(linker);
        const NDArray n_steps = NDArray::scalar<std::int64_t>(steps);
        got.push_back(function({In(w), In(h0), In(n)}, {r.outputs[0]})({wv, hv, n_steps})[0]);
      }
      REQUIRE(got[1].shape() == std::vector<std::int64_t>{steps, 4});
      CHECK(allclose(got[0], got[1], 1e-14, 1e-14));
      if (steps > 0) {  // the first step by hand: h1 = tanh(h0 . w^T * 0.5 + w[:, 1]) + w[1, :]
        for (std::int64_t j = 0; j < 4; ++j) {
          double dot = 0;
          for (std::int64_t k = 0; k < 4; ++k) dot += hv.at<double>({k}) * wv.at<double>({j, k});
          const double want = std::tanh(dot * 0.5 + wv.at<double>({j, 1})) + wv.at<double>({1, j});
          CHECK(got[1].at<double>({0, j}) == doctest::Approx(want).epsilon(1e-14));
        }
      }
    }
  }

  TEST_CASE("a gradient the step cannot take names the scan and says to pass non_sequences") {
    Var x = T::dvector("x");
    Var cost = T::sum(x * x);
    const std::string msg = error_of([&] {
      // The step's slice of x is a fresh variable: the outer cost does not depend on it.
      (void)scan([&](const std::vector<Var>& a) { return StepResult{{grad(cost, a[0])}}; },
                 ScanArgs().sequences(x).outputs_info(OutputInfo::none()).name("slices"));
    });
    CAPTURE(msg);
    CHECK(msg.find("slices: in the step function") != std::string::npos);
    CHECK(msg.find("non_sequences") != std::string::npos);
    CHECK_THROWS_AS((void)scan([&](const std::vector<Var>& a) { return StepResult{{grad(cost, a[0])}}; },
                               ScanArgs().sequences(x).outputs_info(OutputInfo::none())),
                    DisconnectedInputError);
  }
}

TEST_SUITE("scan taps at the limits of int64") {
  TEST_CASE("sequence taps whose span overflows int64 are a ValueError naming the scan and the sequence") {
    Var x = T::dmatrix("x");
    const std::vector<std::vector<std::int64_t>> bad = {
        {-(std::int64_t{1} << 40), kMax - (std::int64_t{1} << 39)},  // segfaulted: rows past the 8x4 input
        {-(std::int64_t{1} << 59), 8646911284551352328LL},          // returned heap memory
        {kMin, 0},
        {-1, kMax},
    };
    for (const auto& taps : bad) {
      CAPTURE(taps[0]);
      CAPTURE(taps[1]);
      const std::string msg = error_of([&] {
        (void)scan([](const std::vector<Var>& a) { return StepResult{{a[0] + a[1]}}; },
                   ScanArgs()
                       .sequences(SeqInfo(x, taps))
                       .outputs_info(OutputInfo::none())
                       .n_steps(T::constant(NDArray::scalar<std::int64_t>(1)))
                       .name("wide"));
      });
      CAPTURE(msg);
      CHECK(msg.find("wide: sequence 0") != std::string::npos);
      CHECK(msg.find("span more rows than int64 holds") != std::string::npos);
      CHECK_THROWS_AS((void)scan([](const std::vector<Var>& a) { return StepResult{{a[0] + a[1]}}; },
                                 ScanArgs().sequences(SeqInfo(x, taps)).outputs_info(OutputInfo::none())),
                      ValueError);
    }
  }

  TEST_CASE("recurrent taps down to INT64_MIN or -INT64_MAX are a ValueError naming the output, not a compile error") {
    for (std::int64_t lo : {kMin, -kMax}) {
      CAPTURE(lo);
      Var init = T::dmatrix("init");
      const std::string msg = error_of([&] {
        (void)scan([](const std::vector<Var>& a) { return StepResult{{a[0] * 2.0}}; },
                   ScanArgs()
                       .outputs_info(OutputInfo(init, {lo}))
                       .n_steps(T::constant(NDArray::scalar<std::int64_t>(1)))
                       .name("deep"));
      });
      CAPTURE(msg);
      CHECK(msg.find("deep: output 0") != std::string::npos);
      CHECK(msg.find("span more rows than int64 holds") != std::string::npos);
    }
  }

  TEST_CASE("a Scan built directly with taps that overflow is refused by its constructor") {
    ScanInfo info;
    info.name = "direct";
    info.seq_taps = {{-(std::int64_t{1} << 40), kMax - (std::int64_t{1} << 39)}};
    info.n_map = 1;
    Var a = T::dvector("a"), b = T::dvector("b");
    const std::string msg = error_of([&] { OpPtr op(new Scan(info, {a, b}, {a + b})); });
    CAPTURE(msg);
    CHECK(msg.find("direct: sequence 0") != std::string::npos);
    CHECK(msg.find("span more rows than int64 holds") != std::string::npos);
  }

  TEST_CASE("extreme taps that fit compile and run: a sequence tap of INT64_MIN reads like tap 0") {
    struct Way {
      const char* linker;
      const char* mode;
    };
    for (const Way& w : {Way{"cpp", "fast_run"}, Way{"cpp", "fast_compile"}, Way{"py", "fast_run"}}) {
      const std::string way = std::string(w.linker) + " " + w.mode;
      CAPTURE(way);
      UseLinker l(w.linker);
      Var x = T::dmatrix("x");
      // Taps {INT64_MIN, INT64_MIN + 2}: step t reads rows t and t + 2.
      ScanResult r =
          scan([](const std::vector<Var>& a) { return StepResult{{a[0] - a[1]}}; },
               ScanArgs().sequences(SeqInfo(x, {kMin, kMin + 2})).outputs_info(OutputInfo::none()).name("far"));
      FunctionOptions o;
      o.mode = w.mode;
      const NDArray xv = matrix(8, 4, 1.0, 3);
      const NDArray got = function({In(x)}, {r.outputs[0]}, o)({xv})[0];
      REQUIRE(got.shape() == std::vector<std::int64_t>{6, 4});
      for (std::int64_t t = 0; t < 6; ++t)
        for (std::int64_t j = 0; j < 4; ++j)
          CHECK(got.at<double>({t, j}) == doctest::Approx(xv.at<double>({t, j}) - xv.at<double>({t + 2, j})));
    }
  }
}
