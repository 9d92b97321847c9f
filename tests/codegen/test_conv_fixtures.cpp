// Convolution and pooling against PyTorch-made fixtures
// (tests/data/conv/gen_conv.py): conv2d with stride, padding, dilation and
// groups and conv3d, with their gradients wrt the input and the filters (the
// gradient of sum(out * g)); max pooling and both average modes with padding.
// PyTorch's conv2d is a cross-correlation: filter_flip=False here. Each runs
// through the CorrMM rewrite twice: as generated code (linker cpp) and by
// perform (linker py).
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace nn = theano::tensor::nnet;

namespace {

NDArray load(const std::string& name) {
  return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/conv/" + name + ".npy");
}

void check_close(const NDArray& got, const NDArray& expected) {
  REQUIRE(got.shape() == expected.shape());
  CHECK_MESSAGE(allclose(got, expected, 1e-10, 1e-12), got.str() << "\nvs\n" << expected.str());
}

/// A float64 tensor of `rank` axes of unknown length.
Var dtensor(int rank, const std::string& name) {
  return theano::tensor::tensor(DType::Float64, StaticShape(static_cast<std::size_t>(rank), std::nullopt), name);
}

/// `outs` of `ins` at `args`, compiled (generated code) and by the reference linker (perform).
void check_both(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args,
                const std::vector<std::string>& expected) {
  for (const char* linker : {"cpp", "py"}) {
    CAPTURE(linker);
    Config c = config();
    c.flags["linker"] = linker;
    ConfigGuard guard(c);
    Function f = function(std::vector<In>(ins.begin(), ins.end()), std::vector<Out>(outs.begin(), outs.end()));
    const std::vector<NDArray> got = f(args);
    for (std::size_t k = 0; k < expected.size(); ++k) {
      CAPTURE(expected[k]);
      check_close(got[k], load(expected[k]));
    }
  }
}

void conv_case(const std::string& name, int rank, const nn::ConvOptions& opts) {
  const Var x = dtensor(rank, "x"), w = dtensor(rank, "w"), g = dtensor(rank, "g");
  const Var out = rank == 4 ? nn::conv2d(x, w, opts) : nn::conv3d(x, w, opts);
  const std::vector<Var> grads = grad(sum(out * g), {x, w});
  check_both({x, w, g}, {out, grads[0], grads[1]}, {load(name + "_x"), load(name + "_w"), load(name + "_g")},
             {name + "_out", name + "_gx", name + "_gw"});
}

}  // namespace

TEST_SUITE("conv fixtures") {
  TEST_CASE("conv2d with stride, padding, dilation and groups, and its gradients, match PyTorch") {
    conv_case("conv2d", 4,
              {.border_mode = nn::BorderMode({1, 2}),
               .subsample = {2, 1},
               .filter_flip = false,
               .filter_dilation = {1, 2},
               .num_groups = 2});
  }

  TEST_CASE("conv3d with stride and padding, and its gradients, match PyTorch") {
    conv_case("conv3d", 5, {.border_mode = nn::BorderMode(1), .subsample = {1, 2, 1}, .filter_flip = false});
  }

  TEST_CASE("pool_2d max and both average modes with padding match PyTorch") {
    const Var x = dtensor(4, "x");
    namespace S = theano::tensor::signal;
    const Var mx = S::pool_2d(x, {3, 2}, {.ignore_border = true, .stride = {2, 1}});
    const Var inc =
        S::pool_2d(x, {3, 3}, {.ignore_border = true, .stride = {2, 2}, .pad = {1, 1}, .mode = S::PoolMode::AverageIncPad});
    const Var exc =
        S::pool_2d(x, {3, 3}, {.ignore_border = true, .stride = {2, 2}, .pad = {1, 1}, .mode = S::PoolMode::AverageExcPad});
    check_both({x}, {mx, inc, exc}, {load("pool_x")}, {"pool_max", "pool_avg_inc", "pool_avg_exc"});
  }
}
