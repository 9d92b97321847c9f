// CorrMM / Corr3dMM and their gradients on the GPU (the host-emulated device):
// conv2d / conv3d and conv*_grad_wrt_* over border modes, strides, dilation,
// filter_flip and groups, float64 and float32, are rewritten to CorrMM, moved
// to the GPU by the transfer rewrite (CorrMM::gpu_form) and agree with the
// CPU back end and with perform (the abstract ops' reference), also for an
// empty batch; the CUDA unit compiles under NVRTC where it is present. Test
// names contain "cuda".
#include <doctest/doctest.h>
#include <theano/compile/linker.h>
#include <theano/config.h>
#include <theano/tensor/conv.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <string>
#include <vector>

#include "conv_test_util.h"
#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::check_nvrtc;
using gpu_test::check_on_gpu;
using gpu_test::random_array;
namespace nn = theano::tensor::nnet;

TEST_SUITE("cuda conv (emulated device)") {
  TEST_CASE("cuda emulated: CorrMM and its gradients over the options, 2d and 3d, against perform") {
    for (int n : {2, 3}) {
      for (const DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(n);
        CAPTURE(dtype_name(dt));
        const std::vector<std::int64_t> one(static_cast<std::size_t>(n), 1);
        std::vector<std::int64_t> two = one;
        two[0] = 2;
        struct Opt {
          nn::BorderMode border;
          std::vector<std::int64_t> stride, dil;
          bool flip;
          std::int64_t groups;
        };
        const std::vector<Opt> opts{{nn::BorderMode::valid(), one, one, true, 1},
                                    {nn::BorderMode::full(), two, one, false, 2},
                                    {nn::BorderMode::half(), one, two, true, 2},
                                    {nn::BorderMode(1), two, two, false, 1}};
        const std::vector<std::int64_t> xs = n == 2 ? std::vector<std::int64_t>{2, 4, 7, 6}
                                                    : std::vector<std::int64_t>{2, 4, 5, 4, 5};
        const Var x = tensor::tensor(dt, StaticShape(xs.size()), "x");
        std::vector<Var> ins{x}, outs;
        std::vector<NDArray> vals{random_array(xs, dt, 1)};
        std::vector<std::int64_t> xs0 = xs;
        xs0[0] = 0;
        std::vector<NDArray> empty{random_array(xs0, dt, 1)};
        unsigned seed = 2;
        for (const Opt& o : opts) {
          std::vector<std::int64_t> ws{4, 4 / o.groups, 3, 2};
          if (n == 3) ws = {4, 4 / o.groups, 2, 3, 2};
          std::vector<std::int64_t> ts{xs[0], ws[0]};
          for (int d = 0; d < n; ++d) {
            const auto du = static_cast<std::size_t>(d);
            ts.push_back(test::conv_out_size(o.border, xs[du + 2], ws[du + 2], o.stride[du], o.dil[du]));
          }
          const Var w = tensor::tensor(dt, StaticShape(ws.size()), "W"), t = tensor::tensor(dt, StaticShape(ts.size()), "top");
          ins.push_back(w);
          ins.push_back(t);
          vals.push_back(random_array(ws, dt, seed++));
          vals.push_back(random_array(ts, dt, seed++));
          ts[0] = 0;
          empty.push_back(vals[vals.size() - 2]);
          empty.push_back(random_array(ts, dt, seed++));
          const nn::ConvOptions co{.border_mode = o.border, .subsample = o.stride, .filter_flip = o.flip,
                                   .filter_dilation = o.dil, .num_groups = o.groups};
          if (n == 2) {
            outs.push_back(nn::conv2d(x, w, co));
            outs.push_back(nn::conv2d_grad_wrt_inputs(t, w, shape(x), co));
            outs.push_back(nn::conv2d_grad_wrt_weights(x, t, shape(w), co));
          } else {
            outs.push_back(nn::conv3d(x, w, co));
            outs.push_back(nn::conv3d_grad_wrt_inputs(t, w, shape(x), co));
            outs.push_back(nn::conv3d_grad_wrt_weights(x, t, shape(w), co));
          }
        }
        const std::string c = n == 2 ? "CorrMM" : "Corr3dMM";
        const double rtol = dt == DType::Float32 ? 1e-4 : 1e-12;
        Function gpu = check_on_gpu(ins, outs, vals, {c, c + "_gradInputs", c + "_gradWeights"}, rtol);
        if (dt == DType::Float32) check_nvrtc(gpu);
        // Against perform (the abstract ops' reference), and an empty batch.
        auto fg = std::make_shared<FunctionGraph>(ins, outs);
        const std::unique_ptr<Thunk> perform = make_perform_linker()->make_thunk(fg);
        for (const auto* set : {&vals, &empty}) {
          std::vector<NDArray> want(outs.size());
          perform->run(*set, want);
          const std::vector<NDArray> got = gpu(*set);
          for (std::size_t k = 0; k < outs.size(); ++k) {
            CAPTURE(k);
            REQUIRE(got[k].shape() == want[k].shape());
            CHECK(allclose(got[k].to_host(), want[k], rtol, rtol * 1e-1, true));
          }
        }
      }
    }
  }
}
