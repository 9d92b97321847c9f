// Lowering of the convolution ops (AbstractConv* as built, and CorrMM* as the
// rewrite makes them, with the flipped-filter view): generated code against
// perform over border modes, strides, dilation, flip, groups, 2d and 3d,
// float32 and float64, strided inputs (check_sets runs non-contiguous copies
// too) and 0-size batches, with the perform fallback off; the run-time
// errors of conv.h's rule from generated code.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/conv.h>
#include <theano/tensor/index.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "conv_test_util.h"
#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;
namespace nn = theano::tensor::nnet;

namespace {

struct Opt {
  nn::BorderMode border;
  std::vector<std::int64_t> stride, dil;
  bool flip;
  std::int64_t groups;
};

std::vector<Opt> options(int n) {
  const std::vector<std::int64_t> one(static_cast<std::size_t>(n), 1);
  std::vector<std::int64_t> two = one;
  two[0] = 2;
  return {{nn::BorderMode::valid(), one, one, true, 1},   {nn::BorderMode::full(), two, one, false, 2},
          {nn::BorderMode::half(), one, two, true, 2},    {nn::BorderMode(1), two, two, false, 1},
          {nn::BorderMode::half(), two, one, true, 1}};
}

// w[:, :, ::-1, ...]: the view the CorrMM rewrite puts on flipped filters.
Var flipped(const Var& w, int n) {
  std::vector<Index> idx{Index(all), Index(all)};
  for (int d = 0; d < n; ++d) idx.emplace_back(slice(none, none, -1));
  return subtensor(w, idx);
}

}  // namespace

TEST_SUITE("lower conv") {
  TEST_CASE("AbstractConv and CorrMM: generated code matches perform over the options, 2d and 3d") {
    std::mt19937_64 rng(7);
    for (int n : {2, 3}) {
      for (const DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(n);
        CAPTURE(dtype_name(dt));
        const std::vector<std::int64_t> xs = n == 2 ? std::vector<std::int64_t>{2, 4, 7, 6}
                                                    : std::vector<std::int64_t>{2, 4, 5, 4, 5};
        const Var x = any_tensor(dt, n + 2, "x");
        std::vector<Var> ins{x}, outs;
        std::vector<NDArray> vals{random_array(rng, xs, dt, -1, 1)};
        std::vector<NDArray> empty_batch{random_array(rng, {0, xs[1], xs[2], xs[3]}, dt, -1, 1)};
        if (n == 3) empty_batch[0] = random_array(rng, {0, 4, 5, 4, 5}, dt, -1, 1);
        for (const Opt& o : options(n)) {
          std::vector<std::int64_t> ws{4, 4 / o.groups, 3, 2};
          if (n == 3) ws = {4, 4 / o.groups, 2, 3, 2};
          std::vector<std::int64_t> ts{xs[0], ws[0]};
          for (int d = 0; d < n; ++d) {
            const auto du = static_cast<std::size_t>(d);
            ts.push_back(test::conv_out_size(o.border, xs[du + 2], ws[du + 2], o.stride[du], o.dil[du]));
          }
          const Var w = any_tensor(dt, n + 2, "W"), t = any_tensor(dt, n + 2, "top");
          ins.push_back(w);
          ins.push_back(t);
          vals.push_back(random_array(rng, ws, dt, -1, 1));
          vals.push_back(random_array(rng, ts, dt, -1, 1));
          std::vector<std::int64_t> ts0 = ts;
          ts0[0] = 0;
          empty_batch.push_back(vals[vals.size() - 2]);
          empty_batch.push_back(random_array(rng, ts0, dt, -1, 1));
          const nn::ConvOptions co{.border_mode = o.border, .subsample = o.stride, .filter_flip = o.flip,
                                   .filter_dilation = o.dil, .num_groups = o.groups};
          const Var xsp = shape(x), wsp = shape(w);
          if (n == 2) {
            outs.push_back(nn::conv2d(x, w, co));
            outs.push_back(nn::conv2d_grad_wrt_inputs(t, w, xsp, co));
            outs.push_back(nn::conv2d_grad_wrt_weights(x, t, wsp, co));
          } else {
            outs.push_back(nn::conv3d(x, w, co));
            outs.push_back(nn::conv3d_grad_wrt_inputs(t, w, xsp, co));
            outs.push_back(nn::conv3d_grad_wrt_weights(x, t, wsp, co));
          }
          // CorrMM as local_abstractconv_corrmm makes it: filters flipped by a view.
          auto corr = [&](nn::ConvDirection dir) {
            return OpPtr(new nn::CorrMM(dir, n, o.border, o.stride, o.dil, o.groups, {}, {}));
          };
          auto spatial = [&](const Var& s) { return subtensor(s, {Index(slice(2, none))}); };
          outs.push_back(corr(nn::ConvDirection::Forward)->apply1({x, o.flip ? flipped(w, n) : w}));
          outs.push_back(corr(nn::ConvDirection::GradInputs)->apply1({o.flip ? flipped(w, n) : w, t, spatial(xsp)}));
          const Var gw = corr(nn::ConvDirection::GradWeights)->apply1({x, t, spatial(wsp)});
          outs.push_back(o.flip ? flipped(gw, n) : gw);
        }
        check_sets(ins, outs, {vals, empty_batch}, Agreement{.rtol = dt == DType::Float32 ? 1e-4 : 1e-10, .atol32 = 1e-5});
      }
    }
  }

  TEST_CASE("conv from generated code: the images split across loop threads, partial weight gradients summed") {
    for (const char* threads : {"1", "3"}) {
      CAPTURE(threads);
      Config c = config();
      c.flags["threads"] = threads;
      ConfigGuard guard(c);
      std::mt19937_64 rng(11);
      const Var x = any_tensor(DType::Float64, 4, "x"), w = any_tensor(DType::Float64, 4, "W"),
                t = any_tensor(DType::Float64, 4, "top");
      std::vector<Var> outs;
      for (bool flip : {true, false}) {
        const nn::ConvOptions co{.border_mode = 1, .subsample = {2, 1}, .filter_flip = flip, .num_groups = 2};
        outs.push_back(nn::conv2d(x, w, co));
        outs.push_back(nn::conv2d_grad_wrt_inputs(t, w, shape(x), co));
        outs.push_back(nn::conv2d_grad_wrt_weights(x, t, shape(w), co));
      }
      // 13 images: parts of at least 4 on up to 3 threads; top is (13, 6, 4, 6).
      check_lowering({x, w, t}, outs,
                     {random_array(rng, {13, 4, 7, 6}, DType::Float64, -1, 1),
                      random_array(rng, {6, 2, 3, 3}, DType::Float64, -1, 1),
                      random_array(rng, {13, 6, 4, 6}, DType::Float64, -1, 1)},
                     Agreement{.rtol = 1e-10});
    }
  }

  TEST_CASE("conv from generated code: the algorithms run from the host's table, not compiled in the unit") {
    // runtime/kernels/host_kernels.h: the unit calls ctx->kernels; conv.h
    // instantiates no algorithm in generated code.
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const std::string S = dt == DType::Float64 ? "f64" : "f32";
      const Var x = any_tensor(dt, 4, "x"), w = any_tensor(dt, 4, "W"), t = any_tensor(dt, 4, "top");
      const nn::ConvOptions co{.filter_flip = true};
      auto fg = std::make_shared<FunctionGraph>(
          std::vector<Var>{x, w, t},
          std::vector<Var>{nn::conv2d(x, w, co), nn::conv2d_grad_wrt_inputs(t, w, shape(x), co),
                           nn::conv2d_grad_wrt_weights(x, t, shape(w), co)});
      const std::string src = codegen::CLinker::generate_source(*fg);
      for (const std::string call : {"->corr_fwd_" + S + "(", "->corr_grad_inputs_" + S + "(",
                                     "->corr_grad_weights_" + S + "(", "ctx->kernels->conv_pack_" + S + "("}) {
        CAPTURE(call);
        CHECK(src.find(call) != std::string::npos);
      }
      for (const std::string direct : {"theano_corr_fwd_" + S, "theano_corr_grad_weights_" + S,
                                       "theano_corr_grad_inputs_" + S, "theano_conv_pack_" + S}) {
        CAPTURE(direct);
        CHECK(src.find(direct) == std::string::npos);
      }
    }
  }

  TEST_CASE("conv from generated code: conv.h's errors with perform's words") {
    const Var x = any_tensor(DType::Float64, 4, "x"), w = any_tensor(DType::Float64, 4, "W"),
              t = any_tensor(DType::Float64, 4, "top");
    std::mt19937_64 rng(3);
    const NDArray a = random_array(rng, {2, 3, 5, 5}, DType::Float64, -1, 1);
    check_error<ValueError>({x, w}, {nn::conv2d(x, w)}, {a, random_array(rng, {4, 2, 3, 3}, DType::Float64, -1, 1)},
                            "AbstractConv2d", "the input's channels must equal the filters' channels (axis 1) times "
                                              "num_groups; input channels: 3");
    check_error<ValueError>({x, w}, {nn::conv2d(x, w, {.filter_dilation = {3, 1}})},
                            {a, random_array(rng, {4, 3, 3, 3}, DType::Float64, -1, 1)}, "AbstractConv2d",
                            "the (dilated) kernel is larger than the padded input (or empty) at spatial axis 0");
    check_error<ValueError>({x, w}, {nn::conv2d(x, w, {.num_groups = 2})},
                            {random_array(rng, {2, 4, 5, 5}, DType::Float64, -1, 1),
                             random_array(rng, {3, 2, 3, 3}, DType::Float64, -1, 1)},
                            "AbstractConv2d", "num_groups must divide the number of filters, got filters: 3");
    check_error<ValueError>({w, t, x}, {nn::conv2d_grad_wrt_inputs(t, w, shape(x))},
                            {random_array(rng, {4, 3, 3, 3}, DType::Float64, -1, 1),
                             random_array(rng, {2, 4, 3, 4}, DType::Float64, -1, 1), a},
                            "AbstractConv2d_gradInputs",
                            "the output gradient's shape differs from the convolution's output shape at axis 3");
    check_error<ValueError>(
        {x, w},
        {nn::conv2d(x, w, {.filter_shape = std::vector<std::optional<std::int64_t>>{4, 3, std::nullopt, 2}})},
        {a, random_array(rng, {4, 3, 3, 3}, DType::Float64, -1, 1)}, "AbstractConv2d",
        "a shape hint (input_shape / filter_shape) disagrees with the value at axis 3");
  }
}
