// The CUDA back end on elementwise graphs (issue 16), through the
// host-emulated device (THEANO_FLAGS device=emulated): the GPU transfer
// rewrite moves the graph to the GPU, the generated CUDA translation unit
// is compiled for the CPU behind the emulation shim and its kernels run
// block by block, thread by thread: the generated kernels themselves, never
// a perform fallback. Every result is compared with the CPU back end over
// odd sizes (0, 1, 31, 33, 1025), broadcast and strided inputs. Test names
// contain "cuda" so that `ctest -R cuda` selects them.
#include <doctest/doctest.h>
#include <theano/cache/compile_cache.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/cuda_cache.h>
#include <theano/codegen/gpu_memory.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/gpu/context.h>
#include <theano/gpu/ops.h>
#include <theano/printing.h>
#include <theano/gradient.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/index.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_util.h"
#include "temp_dir.h"

using namespace theano;
using namespace theano::tensor;
using gpu_test::count_ops;
using gpu_test::random_array;
using gpu_test::with_device;

namespace {

/// `outs` over `ins` compiled on the emulated GPU agree with the CPU back end,
/// with at least `expect_kernels_at_least` GpuElemwise nodes and no host Elemwise.
void check_on_gpu(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<NDArray>& args,
                  std::int64_t expect_kernels_at_least = 1, const std::string& device = "emulated") {
  gpu_test::CpuAndGpu c = gpu_test::compile_cpu_and_gpu(ins, outs, args, device);
  CAPTURE(debugprint(c.gpu));
  CHECK(count_ops(c.gpu, "GpuElemwise") >= expect_kernels_at_least);
  CHECK(count_ops(c.gpu, "Elemwise") == 0);
  // A real GPU's NVRTC contracts a * b + c into one fma (--fmad, its default) where the host rounds
  // twice: a float32 result may differ in its last bits there (4 ulps at most, checked).
  const double rtol32 = device != "emulated" ? 4 * 1.1920928955078125e-07 : 1e-12;
  gpu_test::check_outputs_agree(c.want, c.gpu(args), 1e-12, rtol32, 0);
}

}  // namespace

TEST_SUITE("cuda elemwise (emulated device)") {
  TEST_CASE("cuda emulated: a fused elementwise graph at odd sizes") {
    Var x = vector("x"), y = vector("y");
    Var out = exp(x) * y + tanh(x - y) * 2.0;
    for (std::int64_t n : {0, 1, 31, 33, 1025, 300000}) {
      CAPTURE(n);
      check_on_gpu({x, y}, {out}, {random_array({n}, DType::Float64, 1), random_array({n}, DType::Float64, 2)});
    }
  }

  TEST_CASE("cuda emulated: the elementwise workloads W1 and W5 (../shared/workloads.md), one kernel each") {
    Var x = vector("x"), y = vector("y"), z = vector("z");
    const std::vector<NDArray> w1 = {random_array({1000}, DType::Float64, 101),
                                     random_array({1000}, DType::Float64, 102),
                                     random_array({1000}, DType::Float64, 103)};
    check_on_gpu({x, y, z}, {exp(x) * y + tanh(z) - x * x / (1.0 + y)}, w1);
    check_on_gpu({x, y}, {(x + y) * 2.0, (x + y) * 3.0}, {w1[0], w1[1]});
    for (DType d : {DType::Float32, DType::Float64}) {
      Var a = vector("a", d), b = vector("b", d), c = vector("c", d);
      ConfigGuard guard(with_device(gpu_test::op_test_device()));
      Function f1 = function({a, b, c}, {exp(a) * b + tanh(c) - a * a / (1.0 + b)});
      Function f5 = function({a, b}, {(a + b) * 2.0, (a + b) * 3.0});
      CHECK(count_ops(f1, "GpuElemwise") == 1);
      CHECK(count_ops(f5, "GpuElemwise") == 1);
    }
  }

  TEST_CASE("cuda emulated: broadcast patterns and strided inputs") {
    Var m = matrix("m"), r = row("r"), c = col("c");
    Var out = m * r + c;
    for (auto [rows, cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 5}, {1, 33}, {31, 1}, {0, 4}}) {
      CAPTURE(rows);
      CAPTURE(cols);
      check_on_gpu({m, r, c}, {out},
                   {random_array({rows, cols}, DType::Float64, 3), random_array({1, cols}, DType::Float64, 4),
                    random_array({rows, 1}, DType::Float64, 5)});
    }
    // A transposed (non-contiguous) argument.
    NDArray big = random_array({6, 4}, DType::Float64, 6);
    check_on_gpu({m, r, c}, {out},
                 {big.transpose(), random_array({1, 6}, DType::Float64, 7), random_array({4, 1}, DType::Float64, 8)});
  }

  TEST_CASE("cuda emulated: float32, integers that wrap, and multi-output fusion") {
    Var f = vector("f", DType::Float32), g = vector("g", DType::Float32);
    check_on_gpu({f, g}, {sqrt(abs(f)) * g + 1.5f},
                 {random_array({33}, DType::Float32, 9), random_array({33}, DType::Float32, 10)});
    Var k = vector("k", DType::Int64), j = vector("j", DType::Int32);
    NDArray kv = NDArray::from_vector<std::int64_t>({std::int64_t{1} << 62, -5, 7, 9'000'000'000'000'000'000}, {4});
    NDArray jv = NDArray::from_vector<std::int32_t>({-2147483647 - 1, 3, -4, 5}, {4});
    check_on_gpu({k, j}, {(k + k) * cast(j, DType::Int64), int_div(abs(j), 4)}, {kv, jv});
    Var x = vector("x"), y = vector("y");
    Var s = x + y;
    check_on_gpu({x, y}, {s * 2.0, s * 3.0},
                 {random_array({1025}, DType::Float64, 11), random_array({1025}, DType::Float64, 12)});
  }

  TEST_CASE("cuda emulated: DimShuffle views and Alloc on the GPU, a transposed result is gathered before download") {
    Var m = matrix("m"), b = vector("b"), x = vector("x");
    const NDArray mv = random_array({31, 33}, DType::Float64, 21), bv = random_array({33}, DType::Float64, 22);
    check_on_gpu({m, b}, {exp(m) + b}, {mv, bv});  // b broadcast through DimShuffle{x,0}
    check_on_gpu({m, b}, {(exp(m) + b).T()}, {mv, bv});
    check_on_gpu({m}, {(m * 2.0).T() + 1.0, exp(m).T()}, {mv});
    check_on_gpu({m, b}, {tensor::alloc(b, {shape_i(m, 0), shape_i(m, 1)}) * m}, {mv, bv});
    check_on_gpu({x}, {tensor::alloc(x, {std::int64_t{3}, shape_i(x, 0)}) + 1.0},
                 {random_array({1025}, DType::Float64, 23)});
    ConfigGuard guard(with_device(gpu_test::op_test_device()));
    Function f = function({m, b}, {(exp(m) + b).T()});
    CHECK(count_ops(f, "GpuDimShuffle") >= 2);
    Function g = function({x}, {tensor::alloc(x, {std::int64_t{3}, shape_i(x, 0)}) + 1.0});
    CAPTURE(debugprint(g));
    CHECK(count_ops(g, "GpuAlloc") == 1);
  }

  TEST_CASE("cuda emulated: Subtensor and Reshape on the GPU, as views or through a copy kernel") {
    Var m = matrix("m"), k = scalar("k", DType::Int64);
    const NDArray mv = random_array({31, 33}, DType::Float64, 31);
    check_on_gpu({m}, {exp(m)[{tensor::slice(1, tensor::none), tensor::slice(tensor::none, tensor::none, 2)}] + 1.0},
                 {mv});
    check_on_gpu({m}, {(exp(m)[{tensor::slice(tensor::none, tensor::none, -3)}] * 2.0).T()}, {mv});
    check_on_gpu({m, k}, {exp(m)[{k}] + 1.0}, {mv, NDArray::scalar<std::int64_t>(-2)});
    check_on_gpu({m}, {exp(m).reshape({33, 31}) + 1.0}, {mv});  // a view
    check_on_gpu({m}, {exp(m).T().reshape({-1}) * 3.0}, {mv});  // not a view: a copy kernel
    check_on_gpu({m}, {exp(m).T().reshape({3, 11, 31}) + 0.5}, {mv});
    ConfigGuard guard(with_device(gpu_test::op_test_device()));
    Function f = function({m}, {exp(m).T().reshape({-1}) * 3.0});
    CAPTURE(debugprint(f));
    CHECK(count_ops(f, "GpuReshape") == 1);
    Function g = function({m, k}, {exp(m)[{k}] + 1.0});
    CHECK(count_ops(g, "GpuSubtensor") == 1);
    // An index out of range is the IndexError the CPU gives, naming the node.
    try {
      g({mv, NDArray::scalar<std::int64_t>(31)});
      FAIL("expected an IndexError");
    } catch (const IndexError& e) {
      CHECK(std::string(e.what()).find("GpuSubtensor") != std::string::npos);
    }
  }

  TEST_CASE("cuda emulated: DebugMode and NanGuardMode check the GPU nodes (outputs downloaded after each node)") {
    Var x = vector("x"), y = vector("y");
    Var out = exp(x) * y + tanh(x - y);
    ConfigGuard guard(with_device(gpu_test::op_test_device()));
    Function f = function({x, y}, {out}, {.mode = "DebugMode"});
    CHECK(count_ops(f, "GpuElemwise") == 1);
    const NDArray xv = random_array({33}, DType::Float64, 41), yv = random_array({33}, DType::Float64, 42);
    const NDArray got = f({xv, yv})[0];
    Function cpu = [&] {
      ConfigGuard back(with_device("cpu"));
      return function({x, y}, {out});
    }();
    const NDArray want = cpu({xv, yv})[0];
    for (std::int64_t e = 0; e < 33; ++e)
      CHECK(std::fabs(got.data_as<double>()[e] - want.data_as<double>()[e]) <= 1e-12);
    Function g = function({x}, {log(x) * 2.0}, {.mode = "NanGuardMode"});
    CHECK(count_ops(g, "GpuElemwise") == 1);
    const NDArray negative = NDArray::from_vector<double>({1.0, -1.0}, {2});
    try {
      g({negative});
      FAIL("expected NanGuardMode to stop at the NaN");
    } catch (const Error& e) {
      const std::string msg = e.what();
      CAPTURE(msg);
      CHECK(msg.find("NaN") != std::string::npos);
      CHECK(msg.find("GpuElemwise") != std::string::npos);
    }
  }

  TEST_CASE("cuda emulated: repeated calls reuse GPU memory, calls from several threads agree") {
    Var x = vector("x"), y = vector("y");
    ConfigGuard guard(with_device(gpu_test::op_test_device()));
    Function f = function({x, y}, {exp(x) * y + 1.0, x - y});
    const NDArray xv = random_array({1025}, DType::Float64, 51), yv = random_array({1025}, DType::Float64, 52);
    const std::vector<NDArray> first = f({xv, yv});
    const std::string context = gpu_test::op_test_device() == "cuda" ? "cuda0" : gpu_test::op_test_device();
    REQUIRE(codegen::gpu_memory_stats(context).has_value());
    const DeviceAllocatorStats before = *codegen::gpu_memory_stats(context);
    for (int k = 0; k < 50; ++k) f({xv, yv});
    const DeviceAllocatorStats after = *codegen::gpu_memory_stats(context);
    // No cuMemAlloc per call, nothing leaked; GPU intermediates live in the
    // memory plan's slots, kept between calls (no allocator request at all).
    CHECK(after.raw_allocs == before.raw_allocs);
    CHECK(after.bytes_in_use == before.bytes_in_use);
    CHECK(after.requests == before.requests);
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 20; ++k) {
          const std::vector<NDArray> got = f({xv, yv});
          for (std::size_t o = 0; o < got.size(); ++o)
            for (std::int64_t e = 0; e < got[o].size(); ++e)
              if (got[o].data_as<double>()[e] != first[o].data_as<double>()[e]) ++mismatches;
        }
      });
    for (std::thread& t : threads) t.join();
    CHECK(mismatches.load() == 0);
  }

  TEST_CASE("cuda emulated: a shape mismatch is a ShapeError naming the node") {
    Var x = vector("x"), y = vector("y");
    ConfigGuard guard(with_device(gpu_test::op_test_device()));
    Function f = function({x, y}, {exp(x) + y});
    CHECK(count_ops(f, "GpuElemwise") == 1);
    try {
      f({random_array({3}, DType::Float64, 1), random_array({4}, DType::Float64, 2)});
      FAIL("expected a ShapeError");
    } catch (const ShapeError& e) {
      const std::string msg = e.what();
      CAPTURE(msg);
      CHECK(msg.find("GpuElemwise") != std::string::npos);
      CHECK(msg.find("(3,), (4,)") != std::string::npos);
    }
  }

  TEST_CASE("cuda emulated: the CUDA unit is cached in the compiledir beside the host object") {
    test::TempDir d;
    Config c = with_device(gpu_test::op_test_device());
    c.flags["compiledir"] = (d.path / "cd").string();
    ConfigGuard guard(c);
    Var x = vector("x"), y = vector("y");
    Function f = function({x, y}, {exp(x) * y + 1.0});
    // The GPU code: the emulated device's host object, or a real GPU's image ("cubin sm_90", its cache entry
    // "cuda sm_90 cubin").
    const std::string& built = f.profile().build.gpu;
    CAPTURE(built);
    const std::string gpu_code = built.substr(0, built.find(", cache"));
    std::string kind = "cuda emulated (host object)";
    if (gpu_test::on_real_gpu()) {
      REQUIRE((gpu_code.rfind("cubin sm_", 0) == 0 || gpu_code.rfind("ptx compute_", 0) == 0));
      const std::size_t space = gpu_code.find(' ');
      kind = "cuda " + gpu_code.substr(space + 1) + " " + gpu_code.substr(0, space);
    } else {
      CHECK(gpu_code == "emulated (host object)");
    }
    CHECK(f.profile().build.cache == "miss");
    CHECK(built.rfind(gpu_code + ", cache miss, ", 0) == 0);
    Function g = function({x, y}, {exp(x) * y + 1.0});
    CHECK(g.profile().build.cache == "hit");
    CHECK(g.profile().build.gpu.rfind(gpu_code + ", cache hit, ", 0) == 0);
    CHECK(g.profile().build.compile_ms == 0);
    CHECK(g.profile().summary().find("  GPU code: " + gpu_code + ", cache hit") != std::string::npos);
    std::vector<std::string> kinds;
    for (const cache::EntryInfo& e : codegen::current_cache()->entries()) kinds.push_back(e.kind);
    std::sort(kinds.begin(), kinds.end());
    CHECK(kinds == std::vector<std::string>{"cpu", kind});
    const NDArray xv = random_array({33}, DType::Float64, 1), yv = random_array({33}, DType::Float64, 2);
    const NDArray a = f({xv, yv})[0], b = g({xv, yv})[0];
    for (std::int64_t e = 0; e < 33; ++e) CHECK(a.data_as<double>()[e] == b.data_as<double>()[e]);
  }

  TEST_CASE("cuda: device=cuda without a usable GPU is a clear error naming why") {
    if (gpu::context_unusable_reason("cuda0").empty()) {
      MESSAGE("a GPU is usable here: nothing to refuse");
      return;
    }
    Var x = vector("x");
    ConfigGuard guard(with_device("cuda"));
    try {
      function({x}, {exp(x)});
      FAIL("expected a ValueError");
    } catch (const ValueError& e) {
      const std::string msg = e.what();
      CAPTURE(msg);
      CHECK(msg.find("device='cuda'") != std::string::npos);
      CHECK(msg.find("cannot be used: ") != std::string::npos);
    }
  }
}

TEST_SUITE("cuda kernels compile with NVRTC") {
  TEST_CASE("cuda nvrtc: the kernels of the GPU tests' graphs compile for sm_80 and sm_90 and run emulated") {
    if (!codegen::nvrtc_available()) {
      MESSAGE("skipped: " << codegen::nvrtc_unavailable_reason());
      return;
    }
    Var x = vector("x"), y = vector("y"), m = matrix("m"), r = row("r"), c = col("c");
    Var f = vector("f", DType::Float32), k = vector("k", DType::Int64), j = vector("j", DType::Int32);
    Var b = vector("b", DType::Bool), u = vector("u", DType::UInt8);
    struct Case {
      std::vector<Var> ins, outs;
    };
    const std::vector<Case> cases = {
        {{x, y}, {exp(x) * y + tanh(x - y) * 2.0}},
        {{m, r, c}, {m * r + c}},
        {{f}, {sqrt(abs(f)) * f + 1.5f}},
        {{k, j}, {(k + k) * cast(j, DType::Int64), int_div(abs(j), 4)}},
        {{x, y}, {(x + y) * 2.0, (x + y) * 3.0}},
        // Every scalar helper family of the prelude: int64 nodes inside a
        // double loop, floor division and modulo, comparisons, casts to
        // narrow integers and bool, sigmoid / softplus / erf / pow.
        {{x, k}, {cast(int_div(k, 3) % 5 + k, DType::Float64) * x}},
        {{x, b, u}, {switch_(b, sigmoid(x), softplus(x)) + cast(u, DType::Float64)}},
        {{x}, {cast(x * 1e3, DType::Int8), cast(x, DType::Bool), pow(abs(x), 0.5) + erf(x) + floor(x)}},
        // Infinite and NaN constants inside a Composite (the prelude's THEANO_INF / THEANO_NAN).
        {{x}, {maximum(x, -std::numeric_limits<double>::infinity()) + minimum(x, std::nan("")) * 2.0}},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(i);
      // The same kernels run on the emulated device and agree with the CPU.
      std::vector<NDArray> args;
      for (const Var& v : cases[i].ins) {
        std::vector<std::int64_t> shape;
        for (const Dim& d : tensor_type(v)->shape()) shape.push_back(d ? *d : 33);
        args.push_back(random_array(shape, tensor_type(v)->dtype(), static_cast<unsigned>(args.size() + 7 * i)));
      }
      check_on_gpu(cases[i].ins, cases[i].outs, args);
      ConfigGuard guard(with_device(gpu_test::op_test_device()));
      std::vector<In> in(cases[i].ins.begin(), cases[i].ins.end());
      std::vector<Out> out(cases[i].outs.begin(), cases[i].outs.end());
      Function fn = function(in, out, {.mode = "fast_run"});
      const std::string source = codegen::CLinker::generate_cuda_source(fn.fgraph());
      REQUIRE(!source.empty());
      for (const char* arch : {"sm_80", "sm_90"}) {
        CAPTURE(arch);
        codegen::NvrtcOptions o;
        o.arch = arch;
        const codegen::NvrtcResult res = codegen::nvrtc_compile(source, o, "theano_test.cu");
        CHECK(!res.cubin.empty());
        CHECK(res.ptx.find(".entry node") != std::string::npos);
      }
    }
  }
}

TEST_SUITE("cuda scalar table") {
  TEST_CASE("cuda nvrtc: every scalar op of the table compiles for sm_90 and runs emulated as on the CPU") {
    // Per input dtype, one function with an output per op that takes it:
    // one CUDA unit (one NVRTC compile) holds every op's kernel.
    for (DType d : {DType::Float64, DType::Int64, DType::Bool}) {
      CAPTURE(dtype_name(d));
      std::vector<Var> ins;
      std::vector<NDArray> args;
      for (int i = 0; i < 3; ++i) {
        ins.push_back(vector("v" + std::to_string(i), d));
        args.push_back(random_array({33}, d, static_cast<unsigned>(i + 1)));
      }
      std::vector<Var> outs;
      for (const ScalarOpInfo& row : scalar_op_table()) {
        if (row.c_expr.empty() || row.name == "identity") continue;
        const int arity = row.arity < 0 ? 2 : row.arity;
        try {
          outs.push_back(elemwise(row.name, std::vector<Var>(ins.begin(), ins.begin() + arity)));
        } catch (const Error&) {  // the op does not take this dtype
        }
      }
      CAPTURE(outs.size());
      CHECK(outs.size() > 20);
      check_on_gpu(ins, outs, args);
      if (!codegen::nvrtc_available()) continue;
      ConfigGuard guard(with_device(gpu_test::op_test_device()));
      Function f = function(std::vector<In>(ins.begin(), ins.end()), std::vector<Out>(outs.begin(), outs.end()),
                            {.on_unused_input = OnUnusedInput::Ignore});
      const std::string source = codegen::CLinker::generate_cuda_source(f.fgraph());
      codegen::NvrtcOptions o;
      o.arch = "sm_90";
      CHECK(!codegen::nvrtc_compile(source, o, "theano_table.cu").cubin.empty());
    }
  }
}

TEST_SUITE("cuda timings") {
  TEST_CASE("cuda timings (informational): NVRTC cold and warm compiles of W1's, W5's and W3's CUDA units") {
    if (!codegen::nvrtc_available()) {
      MESSAGE("skipped: " << codegen::nvrtc_unavailable_reason());
      return;
    }
    Var x = vector("x"), y = vector("y"), z = vector("z");
    struct Unit {
      const char* name;
      std::vector<Var> ins, outs;
    };
    // W3's training step (the MLP: two products, tanh, softmax, the cross-entropy, their gradients).
    Var X = matrix("X", DType::Float32), t = vector("t", DType::Int64);
    Var W1 = matrix("W1", DType::Float32), b1 = vector("b1", DType::Float32);
    Var W2 = matrix("W2", DType::Float32), b2 = vector("b2", DType::Float32);
    Var loss = mean(nnet::crossentropy_categorical_1hot(nnet::softmax(dot(tanh(dot(X, W1) + b1), W2) + b2), t));
    std::vector<Var> w3_outs = grad(loss, std::vector<Var>{W1, b1, W2, b2});
    w3_outs.insert(w3_outs.begin(), loss);
    const std::vector<Unit> units = {{"W1", {x, y, z}, {exp(x) * y + tanh(z) - x * x / (1.0 + y)}},
                                     {"W5", {x, y}, {(x + y) * 2.0, (x + y) * 3.0}},
                                     {"W3 step", {X, t, W1, b1, W2, b2}, w3_outs}};
    for (const Unit& u : units) {
      std::string source;
      {
        ConfigGuard guard(with_device(gpu_test::op_test_device()));
        Function f =
            function(std::vector<In>(u.ins.begin(), u.ins.end()), std::vector<Out>(u.outs.begin(), u.outs.end()));
        source = codegen::CLinker::generate_cuda_source(f.fgraph());
      }
      for (int cc : {80, 90}) {
        std::vector<double> cold, warm;
        for (int rep = 0; rep < 3; ++rep) {
          test::TempDir d;
          cache::CompileCache cache(d.path / "cd");
          auto t0 = std::chrono::steady_clock::now();
          const codegen::CudaImage a = codegen::compile_cuda_cached(source, cc, {}, &cache, u.name);
          auto t1 = std::chrono::steady_clock::now();
          const codegen::CudaImage b = codegen::compile_cuda_cached(source, cc, {}, &cache, u.name);
          auto t2 = std::chrono::steady_clock::now();
          CHECK(!a.cache_hit);
          CHECK(b.cache_hit);
          CHECK(a.bytes == b.bytes);
          cold.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
          warm.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
        }
        const double first = cold.front();  // W1's sm_80: the process's first NVRTC compile, its start-up included
        std::sort(cold.begin(), cold.end());
        std::sort(warm.begin(), warm.end());
        MESSAGE(std::string(u.name) << " CUDA unit (" << source.size() << " bytes), sm_" << cc << " cubin: cold "
                                    << cold[1] << " ms (the first " << first << " ms), warm (cache hit) " << warm[1]
                                    << " ms (medians of 3)");
      }
    }
  }
}

TEST_SUITE("cuda on a real GPU") {
  TEST_CASE("cuda gpu: elementwise graphs on cuda0 agree with the CPU (skipped without a usable GPU)") {
    if (gpu_test::no_usable_gpu()) return;
    Var x = vector("x"), y = vector("y"), z = vector("z");
    for (std::int64_t n : {0, 1, 31, 33, 1025, 1000000}) {
      CAPTURE(n);
      const std::vector<NDArray> a = {random_array({n}, DType::Float64, 101), random_array({n}, DType::Float64, 102),
                                      random_array({n}, DType::Float64, 103)};
      check_on_gpu({x, y, z}, {exp(x) * y + tanh(z) - x * x / (1.0 + y)}, a, 1, "cuda");
      check_on_gpu({x, y}, {(x + y) * 2.0, (x + y) * 3.0}, {a[0], a[1]}, 1, "cuda");
    }
    Var m = matrix("m"), r = row("r"), c = col("c");
    check_on_gpu({m, r, c}, {m * r + c},
                 {random_array({31, 33}, DType::Float64, 3), random_array({1, 33}, DType::Float64, 4),
                  random_array({31, 1}, DType::Float64, 5)},
                 1, "cuda");
    Var f = vector("f", DType::Float32), k = vector("k", DType::Int64), j = vector("j", DType::Int32);
    check_on_gpu({f}, {sqrt(abs(f)) * f + 1.5f}, {random_array({1025}, DType::Float32, 9)}, 1, "cuda");
    check_on_gpu({k, j}, {(k + k) * cast(j, DType::Int64), int_div(abs(j), 4)},
                 {random_array({33}, DType::Int64, 1), random_array({33}, DType::Int32, 2)}, 1, "cuda");
  }
}
