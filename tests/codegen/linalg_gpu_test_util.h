// What the GPU linear algebra tests (test_cuda_linalg*.cpp) share: one graph
// compiled for the CPU and for the emulated device, to be run on several
// inputs (each compile costs about a second), and the comparison of the two
// functions' outputs.
#pragma once

#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/type.h>

#include <cmath>
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

/// `outs` over `ins` compiled for the CPU (first) and for the op tests' device (second; the emulated one
/// unless THEANO_TEST_GPU_DEVICE names another).
inline std::pair<theano::Function, theano::Function> cpu_and_gpu(const std::vector<theano::Var>& ins,
                                                                 const std::vector<theano::Var>& outs) {
  using namespace theano;
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  Function cpu = function(in, out, {.mode = "fast_run"});
  ConfigGuard guard(with_device(op_test_device()));
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
    std::int64_t bad = 0, first = -1;
    for (std::int64_t e = 0; e < w.size(); ++e)
      if (!close(w.data_as<double>()[e], host[k].data_as<double>()[e], rtol)) {
        ++bad;
        if (first < 0) first = e;
      }
    if (bad > 0) {
      CAPTURE(first);
      CAPTURE(w.data_as<double>()[first]);
      CAPTURE(host[k].data_as<double>()[first]);
      CHECK(bad == 0);
    }
  }
  return host;
}

/// As check_agree (all outputs), but with NaN and +-inf alike: where a zero pivot makes a triangular solve
/// divide by zero, a real GPU's cuBLAS, which orders the operations otherwise, may give inf where LAPACK
/// gives NaN. The finite elements agree within `rtol`, and each non-finite one is non-finite on both.
inline void check_agree_nonfinite_alike(theano::Function& cpu, theano::Function& gpu,
                                        const std::vector<theano::NDArray>& args, double rtol) {
  using namespace theano;
  const std::vector<NDArray> want = cpu(args), got = gpu(args);
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    REQUIRE(got[k].shape() == want[k].shape());
    const NDArray w = want[k].astype(DType::Float64).copy(), g = got[k].to_host().astype(DType::Float64).copy();
    std::int64_t bad = 0;
    for (std::int64_t e = 0; e < w.size(); ++e) {
      const double a = w.data_as<double>()[e], b = g.data_as<double>()[e];
      bad += std::isfinite(a) != std::isfinite(b) || (std::isfinite(a) && !close(a, b, rtol));
    }
    CHECK(bad == 0);
  }
}

/// `got` equals `want` (both (..., n, m), float64 on the host; copied C-contiguous here) within `rtol` once each
/// column of `got`
/// has the sign that agrees with `want`'s column: eigenvectors and singular vectors are defined up to
/// sign, and cuSOLVER may choose the other one than LAPACK (docs/linalg.md, "Limits").
inline void check_agree_up_to_column_signs(const theano::NDArray& want, const theano::NDArray& got, double rtol) {
  using namespace theano;
  REQUIRE(want.shape() == got.shape());
  REQUIRE(want.ndim() >= 2);
  const std::int64_t n = want.shape()[want.ndim() - 2], m = want.shape()[want.ndim() - 1];
  const std::int64_t batch = n * m == 0 ? 0 : want.size() / (n * m);
  const NDArray w = want.copy(), g = got.copy();
  const double* a = w.data_as<double>();
  const double* b = g.data_as<double>();
  std::int64_t bad = 0;
  for (std::int64_t t = 0; t < batch; ++t)
    for (std::int64_t j = 0; j < m; ++j) {
      double dot = 0;
      for (std::int64_t i = 0; i < n; ++i) dot += a[t * n * m + i * m + j] * b[t * n * m + i * m + j];
      const double sign = dot < 0 ? -1.0 : 1.0;
      for (std::int64_t i = 0; i < n; ++i)
        bad += !close(a[t * n * m + i * m + j], sign * b[t * n * m + i * m + j], rtol);
    }
  CHECK(bad == 0);
}

}  // namespace gpu_test
