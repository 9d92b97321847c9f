// float32 computes in float32 (issue 18): elementwise ops whose values are all
// float32 compile into the prelude's float domain (namespace theano_s, the
// float libm functions), fused or not, and their accuracy is measured in
// float ULPs against the double result rounded to float. Graphs that mix in
// other dtypes keep the double domain.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "test_util.h"
#include "theano/tensor/nnet.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

// Distance in representable floats between a and b (0 when equal, both NaN, or equal infinities).
std::int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (a == b) return 0;
  if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
  auto key = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? static_cast<std::int64_t>(INT32_MIN) - i : static_cast<std::int64_t>(i);
  };
  const std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

struct Case {
  const char* name;
  std::function<Var(const Var&)> f;
  double (*ref)(double);
  double lo, hi;
  std::int64_t max_ulp;
};

std::string source_of(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  Function fn = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()});
  return codegen::CLinker::generate_source(fn.fgraph());
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("float32 elementwise ops compute in float, within a few ulp of the double result") {
    codegen::register_linkers();
    const std::vector<Case> cases = {
        {"exp", [](const Var& x) { return T::exp(x); }, [](double v) { return std::exp(v); }, -80, 80, 2},
        {"log", [](const Var& x) { return T::log(x); }, [](double v) { return std::log(v); }, 1e-30, 1e30, 2},
        {"log1p", [](const Var& x) { return T::log1p(x); }, [](double v) { return std::log1p(v); }, -0.99, 100, 2},
        {"expm1", [](const Var& x) { return T::expm1(x); }, [](double v) { return std::expm1(v); }, -20, 20, 2},
        {"tanh", [](const Var& x) { return T::tanh(x); }, [](double v) { return std::tanh(v); }, -12, 12, 4},
        {"sigmoid", [](const Var& x) { return T::sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -80,
         80, 4},
        {"softplus", [](const Var& x) { return T::softplus(x); }, [](double v) { return std::log1p(std::exp(v)); }, -80,
         80, 4},
        {"softsign", [](const Var& x) { return T::softsign(x); }, [](double v) { return v / (1 + std::fabs(v)); },
         -1e6, 1e6, 2},
        {"log1mexp", [](const Var& x) { return T::log1mexp(x); },
         [](double v) { return v > -0.6931471805599453 ? std::log(-std::expm1(v)) : std::log1p(-std::exp(v)); }, -80,
         -1e-6, 4},
        {"sqrt", [](const Var& x) { return T::sqrt(x); }, [](double v) { return std::sqrt(v); }, 0, 1e6, 1},
        {"sin", [](const Var& x) { return T::sin(x); }, [](double v) { return std::sin(v); }, -100, 100, 2},
        {"reciprocal", [](const Var& x) { return T::reciprocal(x); }, [](double v) { return 1 / v; }, 0.001, 1e6, 1},
        {"relu(x, 0.25)", [](const Var& x) { return T::nnet::relu(x, T::constant(NDArray::scalar(0.25f))); },
         [](double v) { return v > 0 ? v : 0.25 * v; }, -1e30, 1e30, 0},
        {"elu", [](const Var& x) { return T::nnet::elu(x, T::constant(NDArray::scalar(1.0f))); },
         [](double v) { return v > 0 ? v : std::expm1(v); }, -20, 20, 2},
        {"selu", [](const Var& x) { return T::nnet::selu(x); },
         [](double v) { return 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * std::expm1(v)); }, -20, 20, 3},
        // hard_sigmoid and ultra_fast_sigmoid: their low tails (outputs near 0) come from cancellation in
        // 0.2 x + 0.5 and 0.5 (1 - z), in float as in Theano, so ulps are measured above them.
        {"hard_sigmoid", [](const Var& x) { return T::nnet::hard_sigmoid(x); },
         [](double v) { return std::min(1.0, std::max(0.0, 0.2 * v + 0.5)); }, -2, 4, 2},
        {"ultra_fast_sigmoid", [](const Var& x) { return T::nnet::ultra_fast_sigmoid(x); },
         [](double v) {
           const double h = std::fabs(v) / 2;
           const double z = h < 1.7 ? 1.5 * h / (1 + h) : h < 3 ? 0.935409070603099 + 0.0458812946797165 * (h - 1.7)
                                                                : 0.99505475368673;
           return 0.5 * ((v >= 0 ? z : -z) + 1);
         },
         -2, 8, 2},
        {"sigmoid_binary_crossentropy(x, 0.25)",
         [](const Var& x) { return T::nnet::sigmoid_binary_crossentropy(x, T::constant(NDArray::scalar(0.25f))); },
         [](double v) { return std::log1p(std::exp(-std::fabs(v))) + v * ((v > 0 ? 1 : 0) - 0.25); }, -80, 80, 4},
    };
    const int n = 20001;
    for (const Case& c : cases) {
      const std::string op_name = c.name;
      CAPTURE(op_name);
      std::vector<float> xs(n);
      for (int k = 0; k < n; ++k) xs[static_cast<std::size_t>(k)] = static_cast<float>(c.lo + (c.hi - c.lo) * k / (n - 1));
      Var x = T::fvector("x");
      const Var y = c.f(x);
      CHECK(source_of({x}, {y}).find("namespace theano_s") != std::string::npos);
      NDArray out = function({x}, {y})({NDArray::from_vector<float>(xs, {n})})[0];
      REQUIRE(out.dtype() == DType::Float32);
      std::int64_t worst = 0;
      float worst_x = 0;
      for (int k = 0; k < n; ++k) {
        const float want = static_cast<float>(c.ref(static_cast<double>(xs[static_cast<std::size_t>(k)])));
        const std::int64_t d = ulp_distance(out.data_as<float>()[k], want);
        if (d > worst) {
          worst = d;
          worst_x = xs[static_cast<std::size_t>(k)];
        }
      }
      CAPTURE(worst_x);
      CAPTURE(worst);
      CHECK(worst <= c.max_ulp);
      MESSAGE(op_name << " float32: at most " << worst << " ulp over [" << c.lo << ", " << c.hi << "]");
    }
  }

  TEST_CASE("a fused float32 chain computes in float, mixed dtypes stay in double") {
    codegen::register_linkers();
    Var x = T::fvector("x"), y = T::fvector("y"), z = T::fvector("z");
    Var w1 = T::exp(x) * y + T::tanh(z) - x * x / (1.0f + y);
    const std::string src = source_of({x, y, z}, {w1});
    CHECK(src.find("float a0 = ") != std::string::npos);
    // One float64 input: the loop computes in double.
    Var d = T::dvector("d");
    const std::string mixed = source_of({x, d}, {T::exp(x) * d});
    CHECK(mixed.find("double a0 = ") != std::string::npos);
    // W1's chain against the double computation: float rounding only.
    const std::vector<float> a = {0.1f, -2.5f, 3.0f, 10.0f}, b = {0.5f, 0.25f, -0.75f, 2.0f}, e = {-1, 0, 1, 30};
    NDArray got = function({x, y, z}, {w1})({NDArray::from_vector<float>(a, {4}), NDArray::from_vector<float>(b, {4}),
                                            NDArray::from_vector<float>(e, {4})})[0];
    for (int k = 0; k < 4; ++k) {
      const double xa = a[static_cast<std::size_t>(k)], yb = b[static_cast<std::size_t>(k)], ze = e[static_cast<std::size_t>(k)];
      const double want = std::exp(xa) * yb + std::tanh(ze) - xa * xa / (1.0 + yb);
      CHECK(got.data_as<float>()[k] == doctest::Approx(want).epsilon(1e-5));
    }
  }
}
