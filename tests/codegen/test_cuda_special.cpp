// The special functions of the scalar table (special_math.h) on the CUDA
// back end through the host-emulated device: the generated CUDA unit (the
// CUDA prelude embeds special_math.h) against the CPU back end, in float64
// and float32, inputs across each function's domain; and the unit compiles
// with NVRTC for sm_80 and sm_90 where NVRTC is present.
#include <doctest/doctest.h>

#include <theano/codegen/nvrtc_compiler.h>
#include <theano/compile/function.h>
#include <theano/tensor/special.h>
#include <theano/tensor/type.h>

#include <random>
#include <vector>

#include "gpu_test_util.h"

using namespace theano;
using namespace theano::tensor;

namespace {

NDArray uniform(std::mt19937_64& rng, std::int64_t n, double lo, double hi, DType dt) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& e : v) e = u(rng);
  return NDArray::from_vector(v, {n}).astype(dt);
}

}  // namespace

TEST_SUITE("cuda special functions (emulated device)") {
  TEST_CASE("cuda emulated: special functions A (erfinv ... ndtri) agree with the CPU in float64 and float32, and compile with NVRTC") {
    std::mt19937_64 rng(37);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var u = vector("u", dt), q = vector("q", dt), r = vector("r", dt), s = vector("s", dt);
      const std::vector<Var> outs{erfinv(u),    erfcinv(q),         erfcx(r),          logit(s / 60.0), xlogx(s),
                                  xlogy0(u, s), xlog1py(r, s),      log1pexp(r),       gamma(r),        tri_gamma(r),
                                  polygamma(3, r), betaln(s, q),    ndtr(r),           log_ndtr(r),     ndtri(q * 0.5)};
      const std::int64_t n = 1025;
      const std::vector<NDArray> args{uniform(rng, n, -1, 1, dt), uniform(rng, n, 0, 2, dt), uniform(rng, n, -9, 30, dt),
                                      uniform(rng, n, 0, 50, dt)};
      Function gpu = gpu_test::check_on_gpu({u, q, r, s}, outs, args, {"Elemwise"}, dt == DType::Float32 ? 1e-6 : 1e-13);
      gpu_test::check_nvrtc(gpu);
    }
  }
}
