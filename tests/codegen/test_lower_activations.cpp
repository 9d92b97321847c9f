// The nnet activation rows in generated code (fused, double and float
// domains) against perform at extreme inputs: +-inf, +-1e300 (float32:
// +-1e30), NaN, 0, and the kinks. The values themselves are checked against
// references in tests/compiler/tensor/test_activations.cpp.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "test_util.h"
#include "theano/tensor/nnet.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace nn = theano::tensor::nnet;
using theano::codegen::CLinker;

TEST_SUITE("c_linker") {
  TEST_CASE("activations: generated code and perform agree at extreme inputs, float64 and float32") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const double big = dt == DType::Float64 ? 1e300 : 1e30;
      const std::vector<double> xs{0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.4, -6.0, 1e4, -1e4, big, -big, inf, -inf, nan};
      const std::vector<double> ts{0.0, 1.0, 0.5, 0.0, 1.0, 0.0, 0.3, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.5};
      const auto n = static_cast<std::int64_t>(xs.size());
      Var x = tensor::tensor(dt, {std::nullopt}, "x"), t = tensor::tensor(dt, {std::nullopt}, "t");
      Var a = tensor::tensor(dt, {}, "a");
      const std::vector<Var> outs{nn::relu(x),
                                  nn::relu(x, a),
                                  nn::elu(x),
                                  nn::elu(x, a),
                                  nn::selu(x),
                                  nn::hard_sigmoid(x),
                                  nn::ultra_fast_sigmoid(x),
                                  nn::sigmoid_binary_crossentropy(x, t),
                                  nn::relu(x) * nn::hard_sigmoid(x) + nn::selu(t)};  // fused with each other
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, t, a}, outs);
      const std::vector<NDArray> in{NDArray::from_vector(xs, {n}).astype(dt), NDArray::from_vector(ts, {n}).astype(dt),
                                    NDArray::scalar(0.3).astype(dt)};
      CLinker linker;
      linker.allow_perform_fallback(false);
      auto cpp = linker.make_thunk(fg);
      auto ref = make_perform_linker()->make_thunk(fg);
      std::vector<NDArray> got(outs.size()), want(outs.size());
      cpp->run(in, got);
      ref->run(in, want);
      for (std::size_t o = 0; o < outs.size(); ++o) {
        CAPTURE(o);
        REQUIRE(got[o].dtype() == dt);
        const NDArray g = got[o].astype(DType::Float64), w = want[o].astype(DType::Float64);
        for (std::int64_t i = 0; i < n; ++i) {
          CAPTURE(xs[static_cast<std::size_t>(i)]);
          const double gv = g.data_as<double>()[i], wv = w.data_as<double>()[i];
          if (std::isnan(wv))
            CHECK(std::isnan(gv));
          else if (std::isinf(wv) || wv == 0)
            CHECK(gv == wv);
          else
            CHECK(gv == doctest::Approx(wv).epsilon(dt == DType::Float64 ? 1e-14 : 1e-6));
        }
      }
    }
  }
}
