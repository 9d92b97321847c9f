// The nnet rewrites added with the optimizer: the softmax gradient of a
// one-hot crossentropy in its stable form, and softmax shared with a
// log_softmax of the same input.
#include <doctest/doctest.h>

#include <cmath>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

namespace {

int count_type(const FunctionGraph& fg, std::string_view type_name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->type_name() == type_name ? 1 : 0;
  return n;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_softmax_crossentropy_grad: the gradient never divides by an underflowed softmax") {
    Var x = T::dmatrix("x");
    Var t = T::vector("t", DType::Int64);
    Var loss = T::sum(N::crossentropy_categorical_1hot(N::softmax(x), t));
    Var gx = grad(loss, x);
    Function f = function({x, t}, {gx});
    CHECK(count_type(f.fgraph(), "CrossentropyCategorical1HotGrad") == 0);
    CHECK(f.rewrite_stats().applied("local_softmax_crossentropy_grad") == 1);
    // Row 0: softmax(0, 1000) underflows to 0 at the label: the naive gradient is NaN.
    NDArray xv = NDArray::empty({2, 2}, DType::Float64);
    double* p = xv.data_as<double>();
    p[0] = 0;
    p[1] = 1000;
    p[2] = 0.5;
    p[3] = -0.5;
    NDArray tv = NDArray::empty({2}, DType::Int64);
    tv.data_as<std::int64_t>()[0] = 0;
    tv.data_as<std::int64_t>()[1] = 1;
    const NDArray g = f({xv, tv})[0];
    const double s1 = 1 / (1 + std::exp(-1.0));  // softmax of (0.5, -0.5) at 0
    NDArray want = NDArray::empty({2, 2}, DType::Float64);
    double* w = want.data_as<double>();
    w[0] = -1;  // softmax - onehot
    w[1] = 1;
    w[2] = s1;
    w[3] = (1 - s1) - 1;
    CHECK(close_enough(g, want));
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const NDArray naive = function({x, t}, {gx}, raw)({xv, tv})[0];
    CHECK(std::isnan(naive.data_as<double>()[0]));  // what the rewrite avoids
    // Where nothing underflows, it agrees with the reference.
    p[1] = 0.25;
    CHECK(close_enough(f({xv, tv})[0], function({x, t}, {gx}, raw)({xv, tv})[0]));
  }

  TEST_CASE("local_softmax_from_log_softmax: softmax(x) next to log_softmax(x) normalizes once") {
    Var x = T::dmatrix("x");
    Function f = function({x}, {N::softmax(x), N::log_softmax(x)});
    CHECK(count_type(f.fgraph(), "Softmax") == 0);
    CHECK(count_type(f.fgraph(), "LogSoftmax") == 1);
    const NDArray xv = range({2, 3});
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const auto want = function({x}, {N::softmax(x), N::log_softmax(x)}, raw)({xv});
    const auto got = f({xv});
    CHECK(close_enough(got[0], want[0]));
    CHECK(close_enough(got[1], want[1]));
    // A softmax over another axis is left alone.
    Function g = function({x}, {N::softmax(x, 0), N::log_softmax(x, 1)});
    CHECK(count_type(g.fgraph(), "Softmax") == 1);
  }
}
