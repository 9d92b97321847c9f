// What the GPU linear algebra tests (test_cuda_linalg*.cpp) share: one graph
// compiled for the CPU and for the emulated device, to be run on several
// inputs (each compile costs about a second), and the comparison of the two
// functions' outputs.
#pragma once

#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/type.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_util.h"

namespace gpu_test {

/// A tensor variable of `dt`, `nd` axes of unknown length.
inline theano::Var any_la(theano::DType dt, int nd, const std::string& name) {
  return theano::tensor::tensor(dt, theano::tensor::StaticShape(static_cast<std::size_t>(nd), std::nullopt), name);
}

/// The message `f` throws on `args`, of type E ("(no error)" when it does not throw).
template <class E>
std::string error_of(theano::Function& f, const std::vector<theano::NDArray>& args) {
  try {
    f(args);
  } catch (const E& e) {
    return e.what();
  }
  return "(no error)";
}

/// `outs` over `ins` compiled for the CPU (first) and for the emulated device (second).
inline std::pair<theano::Function, theano::Function> cpu_and_gpu(const std::vector<theano::Var>& ins,
                                                                 const std::vector<theano::Var>& outs) {
  using namespace theano;
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  Function cpu = function(in, out, {.mode = "fast_run"});
  ConfigGuard guard(with_device("emulated"));
  Function gpu = function(in, out, {.mode = "fast_run"});
  return {std::move(cpu), std::move(gpu)};
}

/// Each op type in `types` left the host: no node of it, some of Gpu<type>.
inline void check_moved(const theano::Function& gpu, const std::vector<std::string>& types) {
  for (const std::string& type : types) {
    CAPTURE(type);
    CHECK(count_ops(gpu, type) == 0);
    CHECK(count_ops(gpu, "Gpu" + type) > 0);
  }
}

/// The outputs of `gpu` and `cpu` on `args` agree: shapes, and each element within `rtol` (close), for the
/// outputs k where `compare(k)` (all when it is empty; the shapes of all). Returns the GPU's outputs on the host.
inline std::vector<theano::NDArray> check_agree(theano::Function& cpu, theano::Function& gpu,
                                                const std::vector<theano::NDArray>& args, double rtol,
                                                const std::function<bool(std::size_t)>& compare = {}) {
  using namespace theano;
  const std::vector<NDArray> want = cpu(args), got = gpu(args);
  REQUIRE(got.size() == want.size());
  std::vector<NDArray> host;
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    REQUIRE(got[k].shape() == want[k].shape());
    host.push_back(got[k].to_host().astype(DType::Float64).copy());
    if (compare && !compare(k)) continue;
    const NDArray w = want[k].astype(DType::Float64).copy();
    std::int64_t bad = 0;
    for (std::int64_t e = 0; e < w.size(); ++e)
      bad += !close(w.data_as<double>()[e], host[k].data_as<double>()[e], rtol);
    CHECK(bad == 0);
  }
  return host;
}

}  // namespace gpu_test
