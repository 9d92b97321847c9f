/// \file
/// NVRTC images in the compiledir (codegen/cuda_cache.h): keys (arch, options
/// and source each change them; the options' own arch does not), the
/// architecture chosen for a compute capability (CUBIN for a supported one,
/// PTX for the highest supported below a newer one, ValueError below the
/// oldest), cold miss then warm hit without NVRTC (also from a second cache
/// instance, as a new process would), a damaged cached CUBIN detected and
/// recompiled, the entry kinds in entries(), a failed compile caching nothing,
/// and two threads racing for one key compiling it once. Prints the cold and
/// warm times of a small elementwise kernel. Tests that need NVRTC say
/// "skipped" and return when this build has none.
#include <theano/cache/compile_cache.h>
#include <theano/codegen/cuda_cache.h>
#include <theano/codegen/errors.h>
#include <theano/codegen/nvrtc_compiler.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "stderr_capture.h"
#include "temp_dir.h"
#include "test_util.h"

using namespace theano::codegen;
using theano::cache::CompileCache;
using theano::test::slurp;
using theano::test::StderrCapture;
using theano::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// A typical fused elementwise kernel (the loop body of W1, docs/workloads.md).
const char* kElemwise = R"(extern "C" __global__ void fused(const double* x, const double* y, const double* z,
                                   double* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = exp(x[i]) * y[i] + tanh(z[i]) - x[i] * x[i] / (1 + y[i]);
}
)";

std::vector<int> archs() {
  std::vector<int> a = nvrtc_supported_archs();
  std::sort(a.begin(), a.end());
  return a;
}

bool skip_without_nvrtc() {
  if (nvrtc_available()) return false;
  MESSAGE("skipped: " << nvrtc_unavailable_reason());
  return true;
}

fs::path object_of(const CompileCache& c, const std::string& key) { return c.dir() / key.substr(0, 2) / (key + ".o"); }

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

TEST_SUITE("cuda compile cache") {
  TEST_CASE("cuda cache: keys: arch, options and source change them, the options' own arch does not") {
    NvrtcOptions o;
    const std::string k = cuda_cache_key(kElemwise, "sm_90", o);
    CHECK(k.size() == 40);
    CHECK(k.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(cuda_cache_key(kElemwise, "sm_90", o) == k);  // deterministic
    CHECK(cuda_cache_key(kElemwise, "sm_80", o) != k);
    CHECK(cuda_cache_key(kElemwise, "compute_90", o) != k);
    NvrtcOptions fast = o;
    fast.fast_math = true;
    CHECK(cuda_cache_key(kElemwise, "sm_90", fast) != k);
    NvrtcOptions dbg = o;
    dbg.debug = true;
    CHECK(cuda_cache_key(kElemwise, "sm_90", dbg) != k);
    NvrtcOptions extra = o;
    extra.extra = {"-lineinfo"};
    CHECK(cuda_cache_key(kElemwise, "sm_90", extra) != k);
    NvrtcOptions std14 = o;
    std14.std = "c++14";
    CHECK(cuda_cache_key(kElemwise, "sm_90", std14) != k);
    CHECK(cuda_cache_key(std::string(kElemwise) + " ", "sm_90", o) != k);
    NvrtcOptions other_arch = o;
    other_arch.arch = "compute_75";  // replaced by the arch argument
    CHECK(cuda_cache_key(kElemwise, "sm_90", other_arch) == k);
    CHECK(cuda_entry_kind("sm_90") == "cuda sm_90 cubin");
    CHECK(cuda_entry_kind("compute_121") == "cuda compute_121 ptx");
  }

  TEST_CASE("cuda cache: without NVRTC: the same clear Error as nvrtc_compile") {
    if (nvrtc_available()) {
      MESSAGE("NVRTC " << nvrtc_version() << " is available; nothing to check here");
      return;
    }
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    CHECK_THROWS_AS(compile_cuda_cached(kElemwise, 90, {}, &c), theano::Error);
    const std::string msg = theano::test::error_of([&] { compile_cuda_cached(kElemwise, 90, {}, &c); });
    CHECK(msg.find(nvrtc_unavailable_reason()) != std::string::npos);
    CHECK(c.entries().empty());
  }

  TEST_CASE("cuda cache: the arch for a compute capability: CUBIN, PTX for newer devices, ValueError for older") {
    if (skip_without_nvrtc()) return;
    const std::vector<int> a = archs();
    REQUIRE_FALSE(a.empty());
    CHECK(cuda_image_arch(90) == "sm_90");
    CHECK(cuda_image_arch(a.front()) == "sm_" + std::to_string(a.front()));
    CHECK(cuda_image_arch(990) == "compute_" + std::to_string(a.back()));
    if (std::find(a.begin(), a.end(), a.front() + 1) == a.end())  // e.g. 76: not an NVRTC arch
      CHECK(cuda_image_arch(a.front() + 1) == "compute_" + std::to_string(a.front()));
    CHECK_THROWS_AS(cuda_image_arch(a.front() - 1), theano::ValueError);
    CHECK_THROWS_AS(cuda_image_arch(0), theano::ValueError);
    CHECK_THROWS_AS(cuda_image_arch(-90), theano::ValueError);
    const std::string msg = theano::test::error_of([&] { cuda_image_arch(30); });
    CHECK(msg.find("3.0") != std::string::npos);
    CHECK(msg.find("sm_" + std::to_string(a.front())) != std::string::npos);
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    CHECK_THROWS_AS(compile_cuda_cached(kElemwise, 30, {}, &c), theano::ValueError);
    CHECK(c.entries().empty());
  }

  TEST_CASE("cuda cache: cold compile misses and compiles, warm hits with the same bytes and no NVRTC") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    const CudaImage cold = compile_cuda_cached(kElemwise, 90, {}, &c, "fused elementwise");
    CHECK_FALSE(cold.cache_hit);
    CHECK(cold.cubin);
    CHECK(cold.arch == "sm_90");
    CHECK(cold.key == cuda_cache_key(kElemwise, "sm_90", {}));
    REQUIRE(cold.bytes.size() > 16);
    CHECK(cold.bytes.compare(0, 4,
                             "\x7f"
                             "ELF") == 0);
    CHECK(cold.compile_ms > 0);
    CHECK(c.stats().misses == 1);
    CHECK(c.stats().compiles == 1);
    CHECK(c.stats().hits == 0);
    // Stored as the host objects are: object, source beside it, metadata.
    CHECK(slurp(object_of(c, cold.key)) == cold.bytes);
    CHECK(slurp(c.dir() / cold.key.substr(0, 2) / (cold.key + ".cpp")) == kElemwise);

    const CudaImage warm = compile_cuda_cached(kElemwise, 90, {}, &c, "fused elementwise");
    CHECK(warm.cache_hit);
    CHECK(warm.bytes == cold.bytes);
    CHECK(warm.cubin);
    CHECK(warm.arch == "sm_90");
    CHECK(warm.compile_ms == doctest::Approx(cold.compile_ms).epsilon(1e-3));  // the recorded time
    CHECK(c.stats().compiles == 1);                                            // NVRTC did not run again
    CHECK(c.stats().hits == 1);

    // A second instance on the same compiledir (a new process): a hit, no compile.
    CompileCache c2(d.path);
    const CudaImage again = compile_cuda_cached(kElemwise, 90, {}, &c2);
    CHECK(again.cache_hit);
    CHECK(again.bytes == cold.bytes);
    CHECK(c2.stats().compiles == 0);
    CHECK(c2.stats().hits == 1);
    CHECK(c2.stats().compile_ms_saved == doctest::Approx(cold.compile_ms).epsilon(1e-3));

    // Different arch, options and source: separate entries, each compiled.
    const CudaImage sm80 = compile_cuda_cached(kElemwise, 80, {}, &c);
    NvrtcOptions fast;
    fast.fast_math = true;
    const CudaImage fm = compile_cuda_cached(kElemwise, 90, fast, &c);
    const CudaImage other = compile_cuda_cached(std::string(kElemwise) + "// v2\n", 90, {}, &c);
    CHECK_FALSE(sm80.cache_hit);
    CHECK_FALSE(fm.cache_hit);
    CHECK_FALSE(other.cache_hit);
    CHECK(sm80.arch == "sm_80");
    CHECK(std::set<std::string>{cold.key, sm80.key, fm.key, other.key}.size() == 4);
    CHECK(c.stats().compiles == 4);
    CHECK(c.entries().size() == 4);

    // Without a cache: compiled each time, never a hit.
    const CudaImage uncached = compile_cuda_cached(kElemwise, 90, {}, nullptr);
    CHECK_FALSE(uncached.cache_hit);
    CHECK(uncached.key == cold.key);
    CHECK(uncached.bytes.compare(0, 4,
                                 "\x7f"
                                 "ELF") == 0);
  }

  TEST_CASE("cuda cache: a device newer than the toolkit gets PTX for the highest supported compute arch") {
    if (skip_without_nvrtc()) return;
    const int top = archs().back();
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    const CudaImage ptx = compile_cuda_cached(kElemwise, 990, {}, &c);
    CHECK_FALSE(ptx.cubin);
    CHECK(ptx.arch == "compute_" + std::to_string(top));
    CHECK(ptx.bytes.find(".entry fused") != std::string::npos);
    CHECK(ptx.bytes.find(".target sm_" + std::to_string(top)) != std::string::npos);
    REQUIRE_FALSE(ptx.bytes.empty());
    CHECK(ptx.bytes.back() != '\0');
    const CudaImage warm = compile_cuda_cached(kElemwise, 990, {}, &c);
    CHECK(warm.cache_hit);
    CHECK_FALSE(warm.cubin);
    CHECK(warm.bytes == ptx.bytes);
    // Another device that falls back to the same PTX shares the entry.
    CHECK(compile_cuda_cached(kElemwise, top + 1, {}, &c).cache_hit == (cuda_image_arch(top + 1) == ptx.arch));
  }

  TEST_CASE("cuda cache: entries() lists the CUDA kinds beside CPU entries") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    const CudaImage bin = compile_cuda_cached(kElemwise, 90, {}, &c, "fused elementwise");
    const CudaImage ptx = compile_cuda_cached(kElemwise, 990, {}, &c);
    const std::string cpu_key = "00cafe0000000000000000000000000000000000";
    c.get_or_produce(cpu_key, [] { return theano::cache::Entry{"host object", "// host source", 1.0, "cpu graph"}; });
    std::map<std::string, theano::cache::EntryInfo> by_key;
    for (const auto& e : c.entries()) by_key[e.key] = e;
    REQUIRE(by_key.size() == 3);
    CHECK(by_key[bin.key].kind == "cuda sm_90 cubin");
    CHECK(by_key[bin.key].origin == "fused elementwise");
    CHECK(by_key[bin.key].object_bytes == bin.bytes.size());
    CHECK(by_key[bin.key].compile_ms == doctest::Approx(bin.compile_ms).epsilon(1e-3));
    CHECK(by_key[ptx.key].kind == "cuda " + ptx.arch + " ptx");
    CHECK(by_key[ptx.key].origin.find("CUDA kernel") == 0);  // the default origin
    CHECK(by_key[cpu_key].kind == "cpu");
  }

  TEST_CASE("cuda cache: a damaged cached CUBIN is detected and compiled again") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    const CudaImage first = compile_cuda_cached(kElemwise, 90, {}, &c);
    const fs::path obj = object_of(c, first.key);
    for (int damage = 0; damage < 2; ++damage) {
      CAPTURE(damage);
      std::string bytes = slurp(obj);
      REQUIRE(bytes == first.bytes);
      if (damage == 0)
        bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x01);
      else
        bytes.resize(bytes.size() - 100);
      std::ofstream(obj, std::ios::binary | std::ios::trunc) << bytes;
      StderrCapture err(d.path / ("stderr" + std::to_string(damage)));
      const CudaImage again = compile_cuda_cached(kElemwise, 90, {}, &c);
      const std::string warning = err.text();
      CHECK_FALSE(again.cache_hit);
      CHECK(warning.find("damaged") != std::string::npos);
      CHECK(c.stats().corrupt == static_cast<std::uint64_t>(damage + 1));
      CHECK(c.stats().compiles == static_cast<std::uint64_t>(damage + 2));
      CHECK(again.bytes == first.bytes);  // NVRTC is deterministic
      CHECK(slurp(obj) == first.bytes);   // republished intact
      CHECK(compile_cuda_cached(kElemwise, 90, {}, &c).cache_hit);
    }
  }

  TEST_CASE("cuda cache: a CUDA source that does not compile throws CompileError and caches nothing") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    const std::string bad = "extern \"C\" __global__ void k(double* y) { y[0] = not_declared_here; }\n";
    CHECK_THROWS_AS(compile_cuda_cached(bad, 90, {}, &c), CompileError);
    CHECK(c.entries().empty());
    CHECK(c.stats().compiles == 0);
  }

  TEST_CASE("cuda cache: threads racing for one key compile it once") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    constexpr int kThreads = 4;
    std::vector<CudaImage> got(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { got[t] = compile_cuda_cached(kElemwise, 90, {}, &c); });
    for (auto& t : threads) t.join();
    CHECK(c.stats().compiles == 1);
    CHECK(c.stats().hits == kThreads - 1);
    int hits = 0;
    for (const CudaImage& g : got) {
      CHECK(g.bytes == got[0].bytes);
      hits += g.cache_hit;
    }
    CHECK(hits == kThreads - 1);
    CHECK(c.entries().size() == 1);
  }

  TEST_CASE("cuda cache: cold vs warm times of a small elementwise kernel") {
    if (skip_without_nvrtc()) return;
    TempDir d("theano-cuda-cache");
    CompileCache c(d.path);
    constexpr int kRounds = 5;
    for (const int cc : {90, 990}) {
      std::vector<double> cold, warm, fresh;
      for (int r = 0; r < kRounds; ++r) {
        const std::string src = std::string(kElemwise) + "// round " + std::to_string(r) + "\n";
        auto t0 = std::chrono::steady_clock::now();
        const CudaImage a = compile_cuda_cached(src, cc, {}, &c);
        cold.push_back(ms_since(t0));
        CHECK_FALSE(a.cache_hit);
        t0 = std::chrono::steady_clock::now();
        const CudaImage b = compile_cuda_cached(src, cc, {}, &c);
        warm.push_back(ms_since(t0));
        CHECK(b.cache_hit);
        CompileCache other(d.path);  // as a new process would open it
        t0 = std::chrono::steady_clock::now();
        const CudaImage e = compile_cuda_cached(src, cc, {}, &other);
        fresh.push_back(ms_since(t0));
        CHECK(e.cache_hit);
        CHECK(e.bytes == a.bytes);
      }
      MESSAGE("NVRTC " << nvrtc_version() << " " << cuda_entry_kind(cuda_image_arch(cc))
                       << ", elementwise kernel: cold " << median(cold) << " ms (median of " << kRounds << ", min "
                       << *std::min_element(cold.begin(), cold.end()) << ", max "
                       << *std::max_element(cold.begin(), cold.end()) << "), warm hit " << median(warm)
                       << " ms, warm hit from a new CompileCache " << median(fresh) << " ms");
      CHECK(median(warm) < median(cold));
    }
  }
}
