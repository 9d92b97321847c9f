// nnet activations and sigmoid_binary_crossentropy (scalar-table rows):
// values against references written here (a grid and extreme inputs: +-inf,
// +-1e300, NaN), output dtypes, Theano's gradients at the kinks, verify_grad
// on both inputs of the binary rows (alpha broadcasting) and infer_shape.
// Generated code against perform at the same extremes: tests/codegen/test_lower_activations.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "test_util.h"
#include "theano/tensor/nnet.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace nn = theano::tensor::nnet;

namespace {

const double kInf = std::numeric_limits<double>::infinity(), kNan = std::numeric_limits<double>::quiet_NaN();

// References, written from the definitions (Theano's nnet).
double relu_ref(double x, double a) { return x > 0 ? x : (a == 0 && !std::isnan(x) ? 0.0 : a * x); }
double elu_ref(double x, double a) { return x > 0 ? x : a * std::expm1(x); }
double selu_ref(double x) { return 1.0507009873554804934193349852946 * elu_ref(x, 1.6732632423543772848170429916717); }
double hard_sigmoid_ref(double x) { return std::isnan(x) ? x : std::min(1.0, std::max(0.0, 0.2 * x + 0.5)); }
double ultra_fast_sigmoid_ref(double x) {
  if (std::isnan(x)) return x;
  const double h = std::fabs(x) / 2;
  double z = 0.99505475368673;
  if (h < 1.7)
    z = 1.5 * h / (1 + h);
  else if (h < 3)
    z = 0.935409070603099 + 0.0458812946797165 * (h - 1.7);
  return 0.5 * ((x >= 0 ? z : -z) + 1);
}
// The textbook form, accurate for moderate |x| only.
double bce_ref(double x, double t) {
  const double s = 1 / (1 + std::exp(-x));
  return -(t * std::log(s) + (1 - t) * std::log(1 - s));
}

NDArray vec_of(const std::vector<double>& v) { return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())}); }

std::vector<double> grid(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * (i + 0.5) / n);
  return v;
}

void check_values(const NDArray& got, const std::vector<double>& want, double rtol = 1e-13) {
  REQUIRE(got.size() == static_cast<std::int64_t>(want.size()));
  const NDArray g = got.astype(DType::Float64);
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CAPTURE(want[i]);
    const double v = g.data_as<double>()[i];
    if (std::isnan(want[i]))
      CHECK(std::isnan(v));
    else if (std::isinf(want[i]) || want[i] == 0)
      CHECK(v == want[i]);
    else
      CHECK(v == doctest::Approx(want[i]).epsilon(rtol));
  }
}

}  // namespace

TEST_CASE("relu, elu and selu match their definitions, also at +-kInf, +-1e300 and NaN") {
  const Var x = dvector("x");
  std::vector<double> xs = grid(-6, 6, 40);
  xs.insert(xs.end(), {0.0, -0.0, 1e300, -1e300, kInf, -kInf, kNan, 1e-300, -1e-300});
  auto apply = [&](auto f) {
    std::vector<double> r;
    for (double v : xs) r.push_back(f(v));
    return r;
  };
  check_values(nn::relu(x).eval({{x, vec_of(xs)}}), apply([](double v) { return relu_ref(v, 0); }));
  check_values(nn::relu(x, 0.25).eval({{x, vec_of(xs)}}), apply([](double v) { return relu_ref(v, 0.25); }));
  check_values(nn::elu(x).eval({{x, vec_of(xs)}}), apply([](double v) { return elu_ref(v, 1); }));
  check_values(nn::elu(x, 0.5).eval({{x, vec_of(xs)}}), apply([](double v) { return elu_ref(v, 0.5); }));
  check_values(nn::selu(x).eval({{x, vec_of(xs)}}), apply(selu_ref));
  // The extremes spelled out: relu(-inf) is 0 (not 0 * -inf), elu(-inf) is -alpha, selu(-inf) is -scale * alpha.
  check_values(nn::relu(x).eval({{x, vec_of({-kInf, kInf, -1e300, kNan})}}), {0, kInf, 0, kNan});
  check_values(nn::elu(x, 2).eval({{x, vec_of({-kInf, kInf, -1e300, kNan})}}), {-2, kInf, -2, kNan});
  check_values(nn::selu(x).eval({{x, vec_of({-kInf, 1e300})}}),
               {-1.0507009873554804934 * 1.6732632423543772848, 1.0507009873554804934 * 1e300});
  // alpha as a tensor, broadcasting along the rows.
  const Var m = dmatrix("m"), a = drow("a");
  const NDArray mv = NDArray::from_vector<double>({-1, 2, -3, 4, -5, -6}, {2, 3});
  const NDArray av = NDArray::from_vector<double>({0.1, 0.2, 0.3}, {1, 3});
  check_values(nn::relu(m, a).eval({{m, mv}, {a, av}}), {-0.1, 2, -0.9, 4, -1.0, -1.8});
  check_values(nn::elu(m, a).eval({{m, mv}, {a, av}}),
               {0.1 * std::expm1(-1), 2, 0.3 * std::expm1(-3), 4, 0.2 * std::expm1(-5), 0.3 * std::expm1(-6)});
}

TEST_CASE("hard_sigmoid and ultra_fast_sigmoid are Theano's approximations of sigmoid") {
  const Var x = dvector("x");
  std::vector<double> xs = grid(-9, 9, 90);
  xs.insert(xs.end(), {0.0, -2.5, 2.5, 3.4, -3.4, 6.0, -6.0, 1e300, -1e300, kInf, -kInf, kNan});
  std::vector<double> hs, us;
  for (double v : xs) {
    hs.push_back(hard_sigmoid_ref(v));
    us.push_back(ultra_fast_sigmoid_ref(v));
  }
  check_values(nn::hard_sigmoid(x).eval({{x, vec_of(xs)}}), hs);
  const NDArray u = nn::ultra_fast_sigmoid(x).eval({{x, vec_of(xs)}});
  check_values(u, us);
  check_values(nn::hard_sigmoid(x).eval({{x, vec_of({-kInf, kInf, 0, kNan})}}), {0, 1, 0.5, kNan});
  // Theano's constant tail: 0.5 (1 +- 0.99505475368673) beyond |x| = 6.
  check_values(nn::ultra_fast_sigmoid(x).eval({{x, vec_of({-kInf, kInf, 0, kNan})}}),
               {0.5 * (1 - 0.99505475368673), 0.5 * (1 + 0.99505475368673), 0.5, kNan});
  // Within 0.03 of sigmoid (at most 0.028, near |x| = 2).
  for (std::size_t i = 0; i < 90; ++i) CHECK(std::fabs(u.data_as<double>()[i] - 1 / (1 + std::exp(-xs[i]))) < 0.03);
}

TEST_CASE("sigmoid_binary_crossentropy equals the textbook form and never overflows") {
  const Var x = dvector("x"), t = dvector("t");
  std::vector<double> xs, ts, want;
  for (double xv : grid(-10, 10, 25))
    for (double tv : {0.0, 0.3, 1.0}) {
      xs.push_back(xv);
      ts.push_back(tv);
      want.push_back(bce_ref(xv, tv));
    }
  const Var l = nn::sigmoid_binary_crossentropy(x, t);
  check_values(l.eval({{x, vec_of(xs)}, {t, vec_of(ts)}}), want, 1e-9);
  // Where the textbook form overflows: |x| = 1e4 and beyond, the loss is |x| or 0 (its exact value).
  check_values(l.eval({{x, vec_of({1e4, 1e4, -1e4, -1e4, 1e300, kInf, kInf, -kInf, -kInf, kInf, kNan, 1.0})},
                       {t, vec_of({1, 0, 1, 0, 0.5, 1, 0, 0, 1, 0.5, 1, kNan})}}),
               {0, 1e4, 1e4, 0, 0.5e300, 0, kInf, 0, kInf, kInf, kNan, kNan});
  // The binary_crossentropy of the sigmoid agrees where both are finite.
  const NDArray xv = vec_of({-3, -0.5, 0.25, 2}), tv = vec_of({0.9, 0.1, 0.5, 0});
  CHECK(allclose(l.eval({{x, xv}, {t, tv}}), nn::binary_crossentropy(nn::sigmoid(x), t).eval({{x, xv}, {t, tv}}), 1e-12,
                 1e-14));
}

TEST_CASE("activation dtypes: float32 stays float32, integers give float64") {
  const Var f = fvector("f"), i = ivector("i");
  CHECK(dtype_name(nn::relu(f).dtype()) == "float32");
  CHECK(dtype_name(nn::relu(i).dtype()) == "float64");
  CHECK(dtype_name(nn::elu(f).dtype()) == "float32");
  CHECK(dtype_name(nn::selu(f).dtype()) == "float32");
  CHECK(dtype_name(nn::hard_sigmoid(i).dtype()) == "float64");
  CHECK(dtype_name(nn::ultra_fast_sigmoid(f).dtype()) == "float32");
  CHECK(dtype_name(nn::sigmoid_binary_crossentropy(f, fvector("t")).dtype()) == "float32");
  // Gradients keep float32.
  for (const Var& y : {nn::relu(f), nn::relu(f, 0.1), nn::elu(f), nn::selu(f), nn::hard_sigmoid(f),
                       nn::ultra_fast_sigmoid(f), nn::sigmoid_binary_crossentropy(f, 0.5)})
    CHECK(dtype_name(grad(sum(y), f).dtype()) == "float32");
  // float32 extremes: 1e30 and -1e30 do not overflow (relu, hard_sigmoid, the loss).
  const NDArray fv = vec_of({1e30, -1e30, -3e38}).astype(DType::Float32);
  check_values(nn::relu(f).eval({{f, fv}}), {static_cast<double>(1e30f), 0, 0});
  check_values(nn::hard_sigmoid(f).eval({{f, fv}}), {1, 0, 0});
  const Var ft = fvector("t");
  check_values(nn::sigmoid_binary_crossentropy(f, ft).eval({{f, fv}, {ft, vec_of({0, 1, 0}).astype(DType::Float32)}}),
               {static_cast<double>(1e30f), static_cast<double>(1e30f), 0});
}

TEST_CASE("activation gradients: Theano's choices at the kinks") {
  const Var x = dvector("x");
  const NDArray zero = vec_of({0.0});
  auto g_at = [&](const Var& y, const NDArray& v) { return grad(sum(y), x).eval({{x, v}}).data_as<double>()[0]; };
  CHECK(g_at(nn::relu(x), zero) == 0.5);
  CHECK(g_at(nn::relu(x, 0.2), zero) == doctest::Approx(0.6));
  CHECK(g_at(nn::relu(x, 0.2), vec_of({-1.0})) == doctest::Approx(0.2));
  CHECK(g_at(nn::relu(x), vec_of({-kInf})) == 0);
  CHECK(g_at(nn::elu(x, 0.7), zero) == doctest::Approx(0.7));  // switch(x > 0, ...) takes alpha exp(0)
  CHECK(g_at(nn::selu(x), zero) == doctest::Approx(1.0507009873554804934 * 1.6732632423543772848));
  CHECK(g_at(nn::hard_sigmoid(x), vec_of({2.5})) == doctest::Approx(0.2));  // clip's gradient: closed interval
  CHECK(g_at(nn::hard_sigmoid(x), vec_of({2.6})) == 0);
  CHECK(g_at(nn::ultra_fast_sigmoid(x), zero) == 0.375);
  CHECK(g_at(nn::ultra_fast_sigmoid(x), vec_of({7.0})) == 0);
  // alpha's gradient is min(x, 0): 0 at x = 0.
  const Var a = dscalar("a");
  const NDArray ga = grad(sum(nn::relu(x, a)), a).eval({{x, vec_of({0.0, -2.0, 3.0})}, {a, NDArray::scalar(0.1)}});
  CHECK(ga.data_as<double>()[0] == -2.0);
  // The loss's gradient stays finite at huge logits: sigmoid(x) - t and -x.
  const Var t = dvector("t");
  const Var l = sum(nn::sigmoid_binary_crossentropy(x, t));
  const auto gs = grad(l, std::vector<Var>{x, t});
  const NDArray xv = vec_of({1e4, -1e4, 0}), tv = vec_of({0, 0, 1});
  check_values(gs[0].eval({{x, xv}, {t, tv}}), {1, 0, -0.5});
  check_values(gs[1].eval({{x, xv}, {t, tv}}), {-1e4, 1e4, 0});
}

TEST_CASE("verify_grad: activations, both inputs of relu, elu and the loss") {
  const NDArray xs = NDArray::from_vector<double>({-2.1, -0.7, 0.4, 1.3, -1.9, 2.2}, {2, 3});
  const NDArray alpha_row = NDArray::from_vector<double>({0.1, 0.6, 1.4}, {1, 3});
  auto two = [](Var (*f)(const TensorLike&, const TensorLike&)) {
    return [f](const std::vector<Var>& in) { return f(in[0], in[1]); };
  };
  testing::verify_grad(two(nn::relu), {xs, alpha_row});
  testing::verify_grad(two(nn::elu), {xs, alpha_row});
  testing::verify_grad(two(nn::sigmoid_binary_crossentropy), {xs, NDArray::from_vector<double>({0, 0.3, 1}, {1, 3})});
  testing::verify_grad([](const std::vector<Var>& in) { return nn::selu(in[0]); }, {xs});
  testing::verify_grad([](const std::vector<Var>& in) { return nn::hard_sigmoid(in[0]); }, {xs});
  // ultra_fast_sigmoid on each of its three pieces (kinks at |x| = 3.4 and 6).
  testing::verify_grad([](const std::vector<Var>& in) { return nn::ultra_fast_sigmoid(in[0]); },
                       {NDArray::from_vector<double>({-2.1, -0.7, 0.4, 4.0, -5.0, 7.5}, {2, 3})});
}

TEST_CASE("activations: infer_shape with a broadcasting alpha") {
  const Var m = dmatrix("m"), a = drow("a");
  testing::check_infer_shape({m, a}, {nn::relu(m, a), nn::elu(m, a), nn::sigmoid_binary_crossentropy(m, a)},
                             {NDArray::ones({4, 3}), NDArray::ones({1, 3})});
}
