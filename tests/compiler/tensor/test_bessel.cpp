// jv, iv, ive, j0, j1, i0, i1, kv, kve (compiler/include/theano/tensor/math.h): gradients with respect to x
// by the recurrences (verify_grad against central differences of our own values, orders below 1
// included, where the recurrence goes through DLMF 10.6.2's v / x form), and the gradient with
// respect to the order, which is not implemented: evaluating it fails with an error naming the op.
// Accuracy of the values: tests/codegen/test_bessel_accuracy.cpp.
#include <doctest/doctest.h>

#include <string_view>
#include <vector>

#include "test_util.h"
#include "theano/gradient.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray values(const std::vector<double>& v) {
  NDArray a = NDArray::empty({static_cast<std::int64_t>(v.size())});
  for (std::size_t k = 0; k < v.size(); ++k) a.data_as<double>()[k] = v[k];
  return a;
}

}  // namespace

TEST_CASE("verify_grad: j0, j1, i0, i1 with respect to x, both signs") {
  const NDArray x = values({-7.5, -2.0, -0.3, 0.4, 1.7, 3.0, 9.0});
  for (const char* name : {"j0", "j1", "i0", "i1"}) {
    CAPTURE(name);
    testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {in[0]}); }, {x});
  }
}

TEST_CASE("verify_grad: jv, iv, ive, kv, kve with respect to x, for orders 0, 1/2, 1, 2.5 and 7") {
  // x = 40 (Hankel's region) and 0.3 only where the values stay moderate: verify_grad's differences of a
  // sum near I_0(40) ~ 1e16 or K_7(0.3) ~ 1e8 would lose the other elements' digits.
  const NDArray x = values({1.1, 2.5, 4.0, 9.0}), x40 = values({0.3, 1.1, 2.5, 4.0, 9.0, 40.0});
  for (double v : {0.0, 0.5, 1.0, 2.5, 7.0}) {
    CAPTURE(v);
    for (const char* name : {"jv", "iv", "ive", "kv", "kve"}) {
      CAPTURE(name);
      const std::string_view n(name);
      const bool moderate = n != "iv" && n != "kv" && n != "kve";
      testing::verify_grad([&](const std::vector<Var>& in) { return elemwise(name, {constant(NDArray::scalar(v)), in[0]}); },
                           {moderate ? x40 : x});
    }
  }
  // ive's sign(x) term: integer orders at negative x.
  const NDArray xn = values({-3.0, -0.7, 0.9, 2.0});
  testing::verify_grad([&](const std::vector<Var>& in) { return ive(2.0, in[0]) + ive(3.0, in[0]); }, {xn});
}

TEST_CASE("the gradient of jv, iv, ive, kv, kve with respect to the order is not implemented: the error names the op") {
  Var v = dvector("v"), x = dvector("x");
  const NDArray vv = values({1.5, 2.0}), xv = values({1.0, 2.0});
  for (const char* name : {"jv", "iv", "ive", "kv", "kve"}) {
    CAPTURE(name);
    Var out = elemwise(name, {v, x}).sum();
    // With respect to x alone the order's gradient is never built: it evaluates.
    CHECK(grad(out, x).eval({{v, vv}, {x, xv}}).size() == 2);
    const std::string msg = std::string(name) + ": the gradient with respect to the order v";
    CHECK_THROWS_WITH_AS(grad(out, v).eval({{v, vv}, {x, xv}}), doctest::Contains(msg.c_str()), AssertionError);
  }
}
