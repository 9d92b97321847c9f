// Batch normalization and the activations in compiled functions: the graph of
// bn.h through fusion and the generated C++ against the reference linker, and
// on the emulated GPU (every part moved there) against the CPU, with a relu
// after it and the gradients, as a network's block uses them.
#include <doctest/doctest.h>
#include <theano/compile/function.h>
#include <theano/gradient.h>
#include <theano/tensor/bn.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <vector>

#include "gpu_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
namespace bn = theano::tensor::nnet::bn;
namespace nn = theano::tensor::nnet;
using namespace gpu_test;

namespace {

struct Block {
  std::vector<Var> ins, outs;
};

// relu(batch_normalization_train(x)) with running averages, and the gradients of a loss through it.
Block block(DType dt, const bn::BnAxes& axes, int ndim) {
  const Var x = tensor::tensor(dt, StaticShape(static_cast<std::size_t>(ndim)), "x");
  const Var g = tensor::tensor(dt, {std::nullopt}, "g"), b = tensor::tensor(dt, {std::nullopt}, "b");
  const Var rm = tensor::tensor(dt, {std::nullopt}, "rm"), rv = tensor::tensor(dt, {std::nullopt}, "rv");
  const auto r = bn::batch_normalization_train(x, g, b, axes, 1e-4, 0.1, rm, rv);
  const Var y = nn::relu(r.out, constant(NDArray::scalar(0.1).astype(dt)));  // 0.1 itself would be float64
  const Var loss = sum(nn::sigmoid_binary_crossentropy(y, 0.5) + nn::elu(y) * nn::hard_sigmoid(y));
  const std::vector<Var> grads = grad(loss, std::vector<Var>{x, g, b});
  return {{x, g, b, rm, rv},
          {y, r.mean, r.invstd, r.new_running_mean, r.new_running_var, grads[0], grads[1], grads[2]}};
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("batch normalization with activations and gradients: generated code matches the reference linker") {
    codegen::register_linkers();
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Block blk = block(dt, "spatial", 4);
      const std::vector<NDArray> args{random_array({3, 4, 5, 2}, dt, 1), random_array({4}, dt, 2),
                                      random_array({4}, dt, 3), random_array({4}, dt, 4), random_array({4}, dt, 5)};
      std::vector<In> in(blk.ins.begin(), blk.ins.end());
      std::vector<Out> out(blk.outs.begin(), blk.outs.end());
      std::vector<NDArray> want;
      {
        Config c = config();
        c.flags["linker"] = "py";
        ConfigGuard guard(c);
        want = function(in, out, {.mode = "fast_compile"})(args);
      }
      const std::vector<NDArray> got = function(in, out, {.mode = "fast_run"})(args);
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        CAPTURE(k);
        REQUIRE(got[k].dtype() == dt);
        CHECK(allclose(got[k], want[k], dt == DType::Float64 ? 1e-10 : 1e-4, dt == DType::Float64 ? 1e-12 : 1e-5));
      }
    }
  }
}

TEST_SUITE("cuda") {
  TEST_CASE("cuda emulated: batch normalization, activations and their gradients run on the GPU as on the CPU") {
    for (const auto& [axes, ndim] : std::vector<std::pair<bn::BnAxes, int>>{{"spatial", 4}, {bn::BnAxes{0}, 2}}) {
      CAPTURE(ndim);
      const Block blk = block(DType::Float64, axes, ndim);
      const std::vector<std::int64_t> shape =
          ndim == 4 ? std::vector<std::int64_t>{3, 4, 5, 2} : std::vector<std::int64_t>{7, 4};
      const Function f = check_on_gpu(blk.ins, blk.outs,
                                      {random_array(shape, DType::Float64, 1), random_array({4}, DType::Float64, 2),
                                       random_array({4}, DType::Float64, 3), random_array({4}, DType::Float64, 4),
                                       random_array({4}, DType::Float64, 5)},
                                      {"Elemwise"}, 1e-10);
      CHECK(count_ops(f, "GpuElemwise") > 0);
    }
  }
}
