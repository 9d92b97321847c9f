// The small conveniences of Theano's tensor API, written as a user writes
// them: plural makers (`a, b = T.dmatrices('a', 'b')`), `x.dtype`, `x.ndim`,
// `x.broadcastable`, `abs(x)` / `exp(x)` / `dot(a, b)` found by argument-
// dependent lookup next to `using namespace std;` (this file opens no theano
// namespace on purpose), Theano's type names (`TensorType(float64, scalar)`)
// and pprint (`gt(...)`), with the numbers Theano's tutorial prints.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "test_util.h"
#include "theano/printing.h"
#include "theano/theano.hpp"

using namespace std;  // NOLINT: the point of the ADL tests below
namespace T = theano::tensor;
using theano::NDArray;
using theano::Var;

namespace {

NDArray mat(const vector<vector<double>>& rows) {
  vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  return NDArray::from_vector<double>(flat, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())});
}

void check_mat(const NDArray& got, const vector<vector<double>>& want) {
  REQUIRE(got.shape() == vector<int64_t>{static_cast<int64_t>(want.size()), static_cast<int64_t>(want[0].size())});
  for (size_t i = 0; i < want.size(); ++i)
    for (size_t j = 0; j < want[i].size(); ++j)
      CHECK(got.at<double>({static_cast<int64_t>(i), static_cast<int64_t>(j)}) ==
            doctest::Approx(want[i][j]).epsilon(1e-8));
}

// Unqualified calls on a theano::Var resolve to the tensor functions...
static_assert(is_same_v<decltype(abs(declval<Var>())), Var>);
static_assert(is_same_v<decltype(exp(declval<Var>())), Var>);
static_assert(is_same_v<decltype(maximum(declval<Var>(), 0.0)), Var>);
static_assert(is_same_v<decltype(dot(declval<Var>(), declval<Var>())), Var>);
static_assert(is_same_v<decltype(sum(declval<Var>())), Var>);
// ... while plain numbers still reach std:: (no tensor overload joins in).
static_assert(is_same_v<decltype(abs(-1)), int>);
static_assert(is_same_v<decltype(abs(-1.5)), double>);
static_assert(is_same_v<decltype(exp(0.0)), double>);

}  // namespace

TEST_SUITE("tensor_tests") {
  TEST_CASE("plural makers: a, b = T.dmatrices('a', 'b') and its dtype, count and list forms") {
    auto [a, b] = T::dmatrices("a", "b");
    CHECK(a.name() == "a");
    CHECK(b.name() == "b");
    CHECK(a.type()->str() == "TensorType(float64, matrix)");
    CHECK(a.get() != b.get());
    auto [i, j, k] = T::iscalars("i", "j", string("k"));
    CHECK(k.name() == "k");
    CHECK(i.type()->str() == "TensorType(int32, scalar)");
    CHECK(T::lvectors("v")[0].type()->str() == "TensorType(int64, vector)");
    CHECK(T::frows("r")[0].type()->str() == "TensorType(float32, row)");
    CHECK(T::dcols("c")[0].type()->str() == "TensorType(float64, col)");
    CHECK(T::ltensor3s("t")[0].type()->str() == "TensorType(int64, 3D)");
    CHECK(T::ftensor4s("q")[0].type()->str() == "TensorType(float32, 4D)");
    // `T.fvectors(3)`: unnamed; a computed list of names.
    const vector<Var> ws = T::fvectors(3);
    REQUIRE(ws.size() == 3);
    CHECK(ws[0].name().empty());
    CHECK(ws[2].type()->str() == "TensorType(float32, vector)");
    const vector<Var> hs = T::imatrices(vector<string>{"h0", "h1"});
    REQUIRE(hs.size() == 2);
    CHECK(hs[1].name() == "h1");
    CHECK(hs[1].type()->str() == "TensorType(int32, matrix)");
    CHECK(T::dvectors(0).empty());
    CHECK_THROWS_WITH_AS(T::dvectors(-1), doctest::Contains("dvectors(-1): the count must be >= 0"),
                         theano::ValueError);
    // The floatX ones follow the flag.
    auto [s, m] = T::scalars("s", "m");
    CHECK(s.dtype() == theano::config().floatX);
    CHECK(T::matrices(2)[1].ndim() == 2);
    CHECK(T::tensor3s("u")[0].ndim() == 3);
  }

  TEST_CASE("the tutorial's logistic function: x = T.dmatrix('x') and s = 1 / (1 + T.exp(-x))") {
    Var x = T::dmatrix("x");
    Var s = 1 / (1 + exp(-x));
    theano::Function logistic = theano::function({x}, {s});
    check_mat(logistic({mat({{0, 1}, {-1, -2}})})[0], {{0.5, 0.73105858}, {0.26894142, 0.11920292}});
    // "s2 = (1 + T.tanh(x / 2)) / 2" gives the same numbers.
    Var s2 = (1 + tanh(x / 2)) / 2;
    theano::Function logistic2 = theano::function({x}, {s2});
    check_mat(logistic2({mat({{0, 1}, {-1, -2}})})[0], {{0.5, 0.73105858}, {0.26894142, 0.11920292}});
  }

  TEST_CASE("the tutorial's 'computing more than one thing at the same time'") {
    auto [a, b] = T::dmatrices("a", "b");
    Var diff = a - b;
    Var abs_diff = abs(diff);
    Var diff_squared = pow(diff, 2);
    theano::Function f = theano::function({a, b}, {diff, abs_diff, diff_squared});
    const vector<NDArray> r = f({mat({{1, 1}, {1, 1}}), mat({{0, 1}, {2, 3}})});
    REQUIRE(r.size() == 3);
    check_mat(r[0], {{1, 0}, {-1, -2}});
    check_mat(r[1], {{1, 0}, {1, 2}});
    check_mat(r[2], {{1, 0}, {1, 4}});
    // The same TU's plain numbers still go to std:: (using namespace std).
    CHECK(abs(-1) == 1);
    CHECK(abs(-1.5) == 1.5);
    CHECK(std::abs(-1.0) == 1.0);
    CHECK(sqrt(4.0) == 2.0);
  }

  TEST_CASE("unqualified tensor functions on Vars: sqrt, log, tanh, maximum, dot, sum, mean") {
    Var x = T::dvector("x");
    auto [m] = T::dmatrices("m");
    Var y = sum(maximum(log(sqrt(x)), 0.0)) + mean(tanh(dot(m, x)));
    theano::Function f = theano::function({x, m}, {y});
    const NDArray xv = NDArray::from_vector<double>({1.0, exp(4.0)}, {2});
    const NDArray mv = mat({{0.0, 0.0}, {0.0, 0.0}});
    CHECK(f({xv, mv})[0].item<double>() == doctest::Approx(2.0));
  }

  TEST_CASE("x.dtype(), x.ndim(), x.broadcastable() as Theano's x.dtype, x.ndim, x.broadcastable") {
    Var x = T::fmatrix("x");
    CHECK(x.dtype() == theano::DType::Float32);
    CHECK(x.ndim() == 2);
    CHECK(x.broadcastable() == vector<bool>{false, false});
    Var r = T::irow("r");
    CHECK(r.dtype() == theano::DType::Int32);
    CHECK(r.broadcastable() == vector<bool>{true, false});
    CHECK((x + r).dtype() == theano::DType::Float64);
    CHECK(T::lscalar().ndim() == 0);
    CHECK(T::lscalar().broadcastable().empty());
    // A variable of another type: a TypeError naming it.
    Var s = T::ScalarType::make(theano::DType::Float64)->make_variable("s");
    CHECK_THROWS_WITH_AS(s.dtype(), doctest::Contains("dtype(): s is not a tensor (type"), theano::TypeError);
    CHECK_THROWS_WITH_AS(s.ndim(), doctest::Contains("ndim(): s is not a tensor"), theano::TypeError);
    CHECK_THROWS_WITH_AS(s.broadcastable(), doctest::Contains("broadcastable(): s is not a tensor"),
                         theano::TypeError);
  }

  TEST_CASE("type names as Theano 1.0 prints them: x.type is TensorType(float64, scalar)") {
    Var x = T::dscalar("x");
    CHECK(x.type()->str() == "TensorType(float64, scalar)");
    CHECK(T::dvector().type()->str() == "TensorType(float64, vector)");
    CHECK(T::dmatrix().type()->str() == "TensorType(float64, matrix)");
    CHECK(T::drow().type()->str() == "TensorType(float64, row)");
    CHECK(T::dcol().type()->str() == "TensorType(float64, col)");
    CHECK(T::dtensor3().type()->str() == "TensorType(float64, 3D)");
    CHECK(T::tensor(theano::DType::Float64, {1, T::Dim(), T::Dim()})->type()->str() ==
          "TensorType(float64, (True, False, False))");
    CHECK(T::tensor(theano::DType::Int8, {1})->type()->str() == "TensorType(int8, (True,))");
    CHECK(T::tensor(theano::DType::Int8, {1, 1})->type()->str() == "TensorType(int8, (True, True))");
    // A known size other than 1 (which Theano's types cannot say) shows the static shape.
    CHECK(T::tensor(theano::DType::Float64, {3, T::Dim()})->type()->str() == "TensorType(float64, (3, ?))");
    CHECK(T::tensor(theano::DType::Float32, {T::Dim(2)})->type()->str() == "TensorType(float32, (2,))");
    // An unnamed variable prints as <its type>.
    CHECK(T::dvector().str() == "<TensorType(float64, vector)>");
  }

  TEST_CASE("pprint of the tutorial's logistic-regression prediction: gt(..., TensorConstant{0.5})") {
    Var x = T::dmatrix("x");
    Var w = theano::shared(NDArray::from_vector<double>({0.5, -0.5}, {2}), "w");
    Var b = theano::shared(NDArray::scalar(0.0), "b");
    Var p_1 = 1 / (1 + exp(-dot(x, w) - b));
    Var prediction = p_1 > 0.5;
    CHECK(theano::pprint(prediction) ==
          "gt((TensorConstant{1} / (TensorConstant{1} + exp(((-(x \\dot w)) - b)))), TensorConstant{0.5})");
    // Theano's other printers: functions by name, abs as |x|.
    auto [i, j] = T::imatrices("i", "j");
    CHECK(theano::pprint(T::and_(i, T::invert(j))) == "and_(i, invert(j))");
    CHECK(theano::pprint(i % j) == "mod(i, j)");
    CHECK(theano::pprint(T::le(i, j)) == "le(i, j)");
    CHECK(theano::pprint(abs(i - j)) == "|(i - j)|");
  }
}
