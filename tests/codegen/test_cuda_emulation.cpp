// The host-emulated CUDA device (theano/codegen/cuda_emulation.h) on
// hand-written kernels that use what elementwise kernels do not: __shared__
// memory, __syncthreads barriers (the block's threads run as fibers) and
// atomics. Each source also compiles with NVRTC for sm_80 and sm_90: the
// emulation runs the same text the GPU would. Names contain "cuda" so that
// `ctest -R cuda` selects them.
#include <doctest/doctest.h>

#include <theano/codegen/cuda_emulation.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/runtime/error.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::codegen;

namespace {

// Every thread writes its slot of a shared array; after a barrier each reads
// its neighbour's slot (which, run one thread after another without the
// barrier, would not be written yet); then a tree reduction over the block
// with a barrier per level, and one atomicAdd per block into the total.
constexpr const char* kSource = R"(typedef long int64_t;
struct theano_params_4 { int64_t v[4]; };
extern "C" __global__ void neighbours(const theano_params_4 p) {
  __shared__ int64_t slot[1024];
  int64_t* out = (int64_t*)p.v[1];
  const unsigned t = threadIdx.x;
  slot[t] = (int64_t)blockIdx.x * 10000 + t;
  __syncthreads();
  out[(int64_t)blockIdx.x * blockDim.x + t] = slot[(t + 1) % blockDim.x];
}
extern "C" __global__ void block_sum(const theano_params_4 p) {
  __shared__ double partial[1024];
  const int64_t n = p.v[0];
  const double* x = (const double*)p.v[2];
  double* total = (double*)p.v[3];
  const unsigned t = threadIdx.x;
  double s = 0;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + t; k < n; k += (int64_t)gridDim.x * blockDim.x) s += x[k];
  partial[t] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, partial[0]);
}
)";

const std::vector<EmulatedKernelInfo> kKernels = {{"neighbours", 4, true}, {"block_sum", 4, true}};

}  // namespace

TEST_SUITE("cuda emulation") {
  TEST_CASE("cuda emulation: __syncthreads separates phases, __shared__ is per block, atomicAdd adds") {
    EmulatedKernels k(kSource, kKernels, CompileOptions{}, nullptr, "test");
    CHECK(k.barriers());
    for (unsigned block : {1u, 32u, 33u, 256u}) {
      CAPTURE(block);
      const unsigned grid = 3;
      std::vector<std::int64_t> out(grid * block, -1);
      const std::int64_t p1[4] = {0, reinterpret_cast<std::int64_t>(out.data()), 0, 0};
      k.launch(0, grid, block, p1);
      for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) CHECK(out[b * block + t] == b * 10000 + (t + 1) % block);
      if (block & (block - 1)) continue;  // the tree reduction assumes a power-of-two block (as on a GPU)
      for (std::int64_t n : {0, 1, 31, 1025, 100000}) {
        CAPTURE(n);
        std::vector<double> x(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 97) - 40.0;
        double total = 0;
        const std::int64_t p2[4] = {n, 0, reinterpret_cast<std::int64_t>(x.data()),
                                    reinterpret_cast<std::int64_t>(&total)};
        k.launch(1, grid, block, p2);
        CHECK(total == std::accumulate(x.begin(), x.end(), 0.0));
      }
    }
  }

  TEST_CASE("cuda emulation: a bad launch shape is a ValueError") {
    EmulatedKernels k(kSource, kKernels, CompileOptions{}, nullptr, "test");
    const std::int64_t p[4] = {0, 0, 0, 0};
    CHECK_THROWS_AS(k.launch(1, 1, 2048, p), ValueError);
    CHECK_THROWS_AS(k.launch(1, 0, 32, p), ValueError);
  }

  TEST_CASE("cuda emulation: the same barrier source compiles with NVRTC for sm_80 and sm_90") {
    if (!nvrtc_available()) {
      MESSAGE("skipped: " << nvrtc_unavailable_reason());
      return;
    }
    for (const char* arch : {"sm_80", "sm_90"}) {
      CAPTURE(arch);
      NvrtcOptions o;
      o.arch = arch;
      const NvrtcResult r = nvrtc_compile(kSource, o, "barriers.cu");
      CHECK(!r.cubin.empty());
      CHECK(r.ptx.find("bar.sync") != std::string::npos);
      CHECK(r.ptx.find("atom.global.add.f64") != std::string::npos);
    }
  }
}
