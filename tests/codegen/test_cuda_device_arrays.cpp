// Device arrays as values users hold (issue 16): NDArrays on a GPU, moved
// with to() / to_host(); shared variables whose value lives on the GPU
// (THEANO_FLAGS device=...), read and updated there by compiled functions;
// DLPack kDLCUDA in and out. Run on the host-emulated GPU, whose memory is
// host memory that only its kernels and the back end's copies touch, so the
// same guards hold as on a real GPU: host access to a device array is an
// error, never a read of a device address. Names contain "cuda" so that
// `ctest -R cuda` selects them.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/gpu_memory.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/config.h>
#include <theano/gpu/context.h>
#include <theano/gpu/ops.h>
#include <theano/gpu/type.h>
#include <theano/gradient.h>
#include <theano/printing.h>
#include <theano/runtime/dlpack.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

const Device kEmu = Device::emulated();

Config with_flags(std::vector<std::pair<std::string, std::string>> flags) {
  Config c = config();
  for (auto& [k, v] : flags) c.flags[k] = v;
  return c;
}

NDArray random_array(std::vector<std::int64_t> shape, DType d, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> u(0.0, 1.0);
  NDArray a = NDArray::empty(std::move(shape), DType::Float64);
  double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < a.size(); ++k) p[k] = u(rng);
  return a.astype(d);
}

bool is_gpu_var(const Var& v) { return gpu::gpu_type(v) != nullptr; }

std::int64_t count_ops(const Function& f, std::string_view type) {
  std::int64_t n = 0;
  for (const Apply* node : f.fgraph().toposort()) n += node->op()->type_name() == type;
  return n;
}

/// A tensor another library exported: device memory we never read (the
/// address is made up), counted deletes.
struct ForeignTensor {
  static inline int deletes = 0;
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape;
  static DLManagedTensor* make(DLDeviceType type, int id, std::uintptr_t address, DType dtype,
                               std::vector<std::int64_t> shape) {
    auto* f = new ForeignTensor;
    f->shape = std::move(shape);
    DLTensor& t = f->managed.dl_tensor;
    t.data = reinterpret_cast<void*>(address);
    t.device = DLDevice{type, id};
    t.ndim = static_cast<int>(f->shape.size());
    t.dtype = to_dlpack_dtype(dtype);
    t.shape = f->shape.data();
    f->managed.manager_ctx = f;
    f->managed.deleter = [](DLManagedTensor* m) {
      ++deletes;
      delete static_cast<ForeignTensor*>(m->manager_ctx);
    };
    return &f->managed;
  }
};

constexpr std::int64_t kTrainSteps = 12;

struct TrainRun {
  std::vector<float> costs;
  NDArray w, b;
};

/// Logistic-style regression for `steps` steps with THEANO_FLAGS device and
/// linker: dot stays on the CPU, the elementwise work around it (sigmoid, the
/// loss, the gradient's elementwise parts and the parameter updates) moves to
/// the GPU, and the parameters are float32 shared variables (on the GPU unless
/// device=cpu).
TrainRun train_run(const std::string& device, const std::string& linker, const std::string& mode, std::int64_t steps) {
  const std::int64_t n = 67, k = 9;
  const NDArray X = random_array({n, k}, DType::Float32, 3);
  const NDArray y = random_array({n}, DType::Float32, 4);
  const NDArray w0 = random_array({k}, DType::Float32, 5);
  ConfigGuard guard(with_flags({{"device", device}, {"linker", linker}}));
  const std::optional<std::string> context = gpu::selected_context();
  Device dev;
  if (context) Device::parse(*context, &dev);
  Var w = shared(w0, "w"), b = shared(NDArray::scalar(0.25f), "b");
  CHECK(is_gpu_var(w) == context.has_value());
  Var x = fmatrix("x"), t = fvector("t");
  Var p = sigmoid(dot(x, w) + b);
  Var cost = mean(sqr(p - t)) + 0.0078125 * sum(sqr(w));  // w read twice: its gradient terms add up
  std::vector<Var> g = grad(cost, {w, b});
  Function f = function({x, t}, {cost}, {.updates = {{w, w - 0.5 * g[0]}, {b, b - 0.5 * g[1]}}, .mode = mode});
  CAPTURE(debugprint(f));
  if (context && linker == "cpp" && mode == "fast_run") {
    // The shared variables are graph inputs on the GPU and their updates are
    // computed there: no value of w crosses to the host and back.
    const FunctionGraph& fg = f.fgraph();
    const std::size_t nin = fg.inputs().size();
    CHECK(is_gpu_var(fg.inputs()[nin - 2]));
    CHECK(is_gpu_var(fg.inputs()[nin - 1]));
    for (std::size_t o = 1; o < fg.outputs().size(); ++o) {
      REQUIRE(is_gpu_var(fg.outputs()[o]));
      REQUIRE(fg.outputs()[o].owner());
      CHECK(fg.outputs()[o].owner()->op()->type_name() == "GpuElemwise");
    }
    for (const Apply* node : fg.toposort())
      if (gpu::as_gpu_from_host(node->output(0))) CHECK_FALSE(gpu::as_host_from_gpu(node->input(0)));
    CHECK(count_ops(f, "GpuElemwise") >= 2);
    // The same CUDA unit compiles with NVRTC for the architectures CI checks
    // (the emulated run below executes it; a real GPU would load the CUBIN).
    if (codegen::nvrtc_available()) {
      const std::string source = codegen::CLinker::generate_cuda_source(fg);
      REQUIRE(!source.empty());
      for (const char* arch : {"sm_80", "sm_90"}) {
        CAPTURE(arch);
        codegen::NvrtcOptions o;
        o.arch = arch;
        CHECK(!codegen::nvrtc_compile(source, o, "gpu_training.cu").cubin.empty());
      }
    }
  }
  TrainRun r;
  std::optional<DeviceAllocatorStats> after_first;
  for (std::int64_t s = 0; s < steps; ++s) {
    r.costs.push_back(f({X, y})[0].item<float>());
    if (context) {
      CHECK(get_value(w, true, true).device() == dev);  // still on the GPU after the update
      CHECK(get_value(b, true, true).device() == dev);
      if (s == 0) after_first = codegen::gpu_memory_stats(*context);
    }
  }
  if (after_first && linker == "cpp")  // later steps reuse the allocator's blocks
    CHECK(codegen::gpu_memory_stats(*context)->raw_allocs == after_first->raw_allocs);
  r.w = get_value(w);
  r.b = get_value(b);
  CHECK(r.w.on_host());
  return r;
}

void same_training(const TrainRun& r, const TrainRun& cpu) {
  for (std::size_t s = 0; s < r.costs.size(); ++s) {
    CAPTURE(s);
    CHECK(r.costs[s] == doctest::Approx(cpu.costs[s]).epsilon(1e-5));
  }
  if (r.costs.size() == cpu.costs.size()) {
    CHECK(allclose(r.w, cpu.w, 1e-4, 1e-6));
    CHECK(allclose(r.b, cpu.b, 1e-4, 1e-6));
  }
}

}  // namespace

TEST_SUITE("cuda device arrays (emulated device)") {
  TEST_CASE("cuda device arrays: to() and to_host() round trip at odd sizes, views download their own elements") {
    codegen::register_linkers();
    for (std::int64_t n : {0, 1, 31, 33, 1025}) {
      CAPTURE(n);
      const NDArray h = random_array({n, 3}, DType::Float32, static_cast<unsigned>(n));
      const NDArray d = h.to(kEmu);
      CHECK(d.device() == kEmu);
      CHECK_FALSE(d.on_host());
      CHECK(d.shape() == h.shape());
      CHECK(d.is_c_contiguous());
      CHECK_FALSE(d.shares_buffer(h));
      const NDArray back = d.to_host();
      CHECK(back.on_host());
      CHECK(array_equal(back, h));
      // Views are metadata: they stay on the device and download as the host view would.
      if (n > 2) {
        CHECK(array_equal(d.transpose().to_host(), h.transpose()));
        CHECK(array_equal(d.slice(0, std::nullopt, std::nullopt, -2).to_host(),
                          h.slice(0, std::nullopt, std::nullopt, -2)));
        CHECK(array_equal(d.index(1, 2).to_host(), h.index(1, 2)));
        CHECK(d.slice(0, 1, 3).device() == kEmu);
      }
      // copy() copies on the device; contiguous() compacts a strided view there.
      const NDArray c = d.copy();
      CHECK(c.device() == kEmu);
      CHECK_FALSE(c.shares_buffer(d));
      CHECK(array_equal(c.to_host(), h));
      const NDArray t = d.transpose().contiguous();
      CHECK(t.device() == kEmu);
      CHECK(t.is_c_contiguous());
      CHECK(array_equal(t.to_host(), h.transpose()));
      CHECK(d.to(kEmu).shares_buffer(d));  // already there: the array itself
    }
  }

  TEST_CASE("cuda device arrays: host access to a device array is a ValueError naming the device") {
    codegen::register_linkers();
    NDArray d = NDArray::from_list({1.0f, 2.0f, 3.0f}).to(kEmu);
    auto names_device = [](const std::string& what) {
      return what.find("emulated") != std::string::npos && what.find("to_host()") != std::string::npos;
    };
    try {
      (void)d.data();
      FAIL("data() of a device array must throw");
    } catch (const ValueError& e) {
      CHECK(names_device(e.what()));
    }
    CHECK_THROWS_AS((void)d.data_as<float>(), ValueError);
    CHECK_THROWS_AS((void)d.at<float>({0}), ValueError);
    CHECK_THROWS_AS((void)d.index(0, 0).item<float>(), ValueError);
    CHECK_THROWS_AS(d.fill(1.0), ValueError);
    CHECK_THROWS_AS(d.assign(NDArray::scalar(1.0f)), ValueError);
    CHECK_THROWS_AS((void)d.astype(DType::Float64), ValueError);
    CHECK_THROWS_AS((void)array_equal(d, d), ValueError);
    CHECK_THROWS_AS((void)allclose(d, d), ValueError);
    // What does not touch elements works, and printing says where it lives.
    CHECK(d.str() == "array(shape=(3,), dtype=float32, device='emulated')");
    CHECK(d.astype(DType::Float32).device() == kEmu);
    CHECK(d.reshape({3, 1}).shape() == std::vector<std::int64_t>{3, 1});
  }

  TEST_CASE("cuda device arrays: an empty device array and device arrays made with empty()") {
    codegen::register_linkers();
    const NDArray e = NDArray::empty({0, 5}, DType::Float64, kEmu);
    CHECK(e.device() == kEmu);
    CHECK(e.to_host().shape() == std::vector<std::int64_t>{0, 5});
    const auto before = *codegen::gpu_memory_stats("emulated");
    {
      const NDArray big = NDArray::empty({1000}, DType::Float64, kEmu);
      CHECK(codegen::gpu_memory_stats("emulated")->bytes_in_use >= before.bytes_in_use + 8000);
    }
    CHECK(codegen::gpu_memory_stats("emulated")->bytes_in_use == before.bytes_in_use);  // back to the pool
  }

  TEST_CASE("cuda device arrays: DLPack keeps GPU values on the GPU (kDLCUDA, and kDLExtDev for the emulated device)") {
    codegen::register_linkers();
    // The emulated device's arrays round-trip through our own export.
    const NDArray h = random_array({4, 3}, DType::Float32, 7);
    const NDArray d = h.to(kEmu);
    DLManagedTensor* m = to_dlpack(d.transpose());
    CHECK(m->dl_tensor.device.device_type == kDLExtDev);
    CHECK(m->dl_tensor.data == d.address());
    const NDArray back = from_dlpack(m);
    CHECK(back.device() == kEmu);
    CHECK(back.shares_buffer(d));
    CHECK(array_equal(back.to_host(), h.transpose()));

    // Another library's extension-device tensor is refused (its deleter still runs once).
    ForeignTensor::deletes = 0;
    CHECK_THROWS_AS(from_dlpack(ForeignTensor::make(kDLExtDev, 0, 0x1000, DType::Float32, {2})), ValueError);
    CHECK(ForeignTensor::deletes == 1);

    // A CUDA tensor from another library: wrapped, never read on the host,
    // exported back as kDLCUDA at the same address (no device touched).
    ForeignTensor::deletes = 0;
    DLManagedTensor* cu = ForeignTensor::make(kDLCUDA, 1, 0x7f0000000000, DType::Float64, {2, 3});
    cu->dl_tensor.byte_offset = 16;
    {
      const NDArray g = from_dlpack(cu);
      CHECK(g.device() == Device::cuda(1));
      CHECK(g.device().str() == "cuda1");
      CHECK(g.address() == reinterpret_cast<void*>(0x7f0000000010));
      CHECK_THROWS_AS((void)g.data(), ValueError);
      CHECK_THROWS_AS((void)g.at<double>({0, 0}), ValueError);
      DLManagedTensor* again = to_dlpack(g.transpose());
      CHECK(again->dl_tensor.device.device_type == kDLCUDA);
      CHECK(again->dl_tensor.device.device_id == 1);
      CHECK(again->dl_tensor.data == reinterpret_cast<void*>(0x7f0000000010));
      CHECK(again->dl_tensor.strides[0] == 1);
      CHECK(again->dl_tensor.strides[1] == 3);
      again->deleter(again);
      CHECK(ForeignTensor::deletes == 0);  // g still holds it
    }
    CHECK(ForeignTensor::deletes == 1);
  }

  TEST_CASE("cuda shared variables: float32 values live on the selected GPU, get_value and set_value") {
    codegen::register_linkers();
    ConfigGuard guard(with_flags({{"device", "emulated"}}));
    const NDArray w0 = random_array({5, 3}, DType::Float32, 1);
    Var w = shared(w0, "w");
    REQUIRE(is_gpu_var(w));
    CHECK(w.type()->str() == "GpuArrayType<emulated>(float32, matrix)");
    // Other dtypes stay on the host unless asked.
    CHECK_FALSE(is_gpu_var(shared(NDArray::zeros({2}), "f64")));
    CHECK(is_gpu_var(shared_on("emulated", NDArray::zeros({2}), "f64_gpu")));
    CHECK_FALSE(is_gpu_var(shared_on("cpu", w0, "host")));

    // get_value: a fresh host copy, unless the internal (device) array is asked for.
    const NDArray got = get_value(w);
    CHECK(got.on_host());
    CHECK(array_equal(got, w0));
    CHECK_FALSE(got.shares_buffer(w0));
    const NDArray internal = get_value(w, /*borrow=*/true, /*return_internal_type=*/true);
    CHECK(internal.device() == kEmu);
    CHECK(get_value(w, true, true).shares_buffer(internal));
    CHECK_FALSE(get_value(w, false, true).shares_buffer(internal));

    // set_value: a host value is uploaded; a device array is copied unless borrowed.
    const NDArray w1 = random_array({2, 2}, DType::Float32, 2);
    set_value(w, w1);
    CHECK(get_value(w, true, true).device() == kEmu);
    CHECK(array_equal(get_value(w), w1));
    const NDArray dev = w0.to(kEmu);
    set_value(w, dev, /*borrow=*/true);
    CHECK(get_value(w, true, true).shares_buffer(dev));
    set_value(w, dev);
    CHECK_FALSE(get_value(w, true, true).shares_buffer(dev));
    // A float64 host value converts as for a host variable (allow_downcast), a
    // device array of another dtype does not.
    CHECK_THROWS_AS(set_value(w, NDArray::zeros({2, 2}).to(kEmu)), TypeError);
    CHECK_THROWS_AS(set_value(w, NDArray::zeros({2})), TypeError);  // rank
    // A host variable refuses a device value, naming what to do.
    Var h = shared(NDArray::zeros({2}), "h");
    try {
      set_value(h, NDArray::zeros({2}).to(kEmu));
      FAIL("a device value for a host shared variable must throw");
    } catch (const TypeError& e) {
      CHECK(std::string(e.what()).find("to_host()") != std::string::npos);
    }
    // An unknown target is a clear error.
    CHECK_THROWS_AS(shared_on("gpu7", w0, "x"), ValueError);
  }

  TEST_CASE("cuda shared variables: a training loop keeps its parameters on the GPU and matches the CPU") {
    codegen::register_linkers();
    const TrainRun cpu = train_run("cpu", "cpp", "fast_run", kTrainSteps);
    CHECK(cpu.costs.back() < cpu.costs.front());
    SUBCASE("cpp linker") { same_training(train_run("emulated", "cpp", "fast_run", kTrainSteps), cpu); }
    SUBCASE("py linker: perform on downloaded values, the updates uploaded back") {
      same_training(train_run("emulated", "py", "fast_run", 3), cpu);
    }
    SUBCASE("DebugMode checks the GPU nodes against perform") {
      same_training(train_run("emulated", "cpp", "DebugMode", 2), cpu);
    }
  }

  TEST_CASE("cuda shared variables: a GPU shared variable as an output, in givens, copies of functions, device=cpu") {
    codegen::register_linkers();
    const NDArray v0 = NDArray::from_list({1.0f, -2.0f, 3.0f});
    Var v = shared_on("emulated", v0, "v");
    {
      // device=cpu: the variable stays on its GPU; host ops read it through HostFromGpu.
      Function f = function({}, {exp(v) * 2.0});
      const NDArray out = f({})[0];
      CHECK(out.on_host());
      CHECK(out.at<float>({1}) == doctest::Approx(2 * std::exp(-2.0f)));
    }
    ConfigGuard guard(with_flags({{"device", "emulated"}}));
    // The variable itself as an output: its device array (a copy, as for host outputs).
    Function same = function({}, {Out(v)});
    const NDArray out = same({})[0];
    CHECK(out.device() == kEmu);
    CHECK_FALSE(out.shares_buffer(get_value(v, true, true)));
    CHECK(array_equal(out.to_host(), v0));
    // givens: a host expression replaces a GPU variable (moved there by GpuFromHost).
    Var x = fvector("x");
    Function g = function({x}, {v * 3.0}, {.givens = {{v, x + 1.0}}});
    CHECK(array_equal(g({NDArray::from_list({0.0f, 1.0f, 2.0f})})[0], NDArray::from_list({3.0f, 6.0f, 9.0f})));
    // An update; a copy that shares nothing keeps its own value on the device.
    Function inc = function({}, {}, {.updates = {{v, v + 1.0}}});
    Function inc2 = inc.copy(/*share_memory=*/false);
    inc({});
    CHECK(array_equal(get_value(v), NDArray::from_list({2.0f, -1.0f, 4.0f})));
    inc2({});
    inc2({});
    CHECK(array_equal(get_value(v), NDArray::from_list({2.0f, -1.0f, 4.0f})));
    CHECK(inc2.shared_value(v).device() == kEmu);
    CHECK(array_equal(inc2.shared_value(v).to_host(), NDArray::from_list({3.0f, 0.0f, 5.0f})));
    // An explicit GPU input takes a device array as it is, a host array
    // uploaded for the call, a strided device view compacted first.
    Var gx = gpu::GpuArrayType::make(DType::Float32, StaticShape(1), "emulated")->make_variable("gx");
    Function k = function({gx}, {exp(gx) * 2.0});
    const NDArray hv = NDArray::from_list({0.0f, 1.0f, -1.0f, 2.0f});
    const NDArray want = k({hv})[0];
    CHECK(want.on_host());
    CHECK(want.at<float>({1}) == doctest::Approx(2 * std::exp(1.0f)));
    CHECK(array_equal(k({hv.to(kEmu)})[0], want));
    CHECK(array_equal(k({hv.to(kEmu).slice(0, std::nullopt, std::nullopt, 2)})[0],
                      want.slice(0, std::nullopt, std::nullopt, 2)));
    try {
      k({NDArray::from_list({1.0, 2.0}).to(kEmu)});  // float64 on the GPU for a float32 input
      FAIL("a device array of another dtype must be refused");
    } catch (const TypeError& e) {
      CHECK(std::string(e.what()).find("gx") != std::string::npos);
    }
    // A device array passed for a host input is refused with a clear error.
    Function h = function({x}, {x * 2.0});
    CHECK_THROWS_AS(h({NDArray::from_list({1.0f}).to(kEmu)}), TypeError);
  }

  TEST_CASE("cuda gpu: device arrays and GPU shared variables on cuda0 (skipped without a usable GPU)") {
    codegen::register_linkers();
    const std::string why = gpu::context_unusable_reason("cuda0");
    if (!why.empty()) {
      MESSAGE("skipped: no usable GPU: " << why);
      // Where no GPU is usable, moving a value there says why.
      CHECK_THROWS_AS(shared_on("cuda0", NDArray::zeros({2}, DType::Float32), "w"), ValueError);
      CHECK_THROWS_AS((void)NDArray::zeros({2}).to(Device::cuda(0)), ValueError);
      return;
    }
    const Device cu = Device::cuda(0);
    for (std::int64_t n : {0, 1, 33, 1025, 1000000}) {
      CAPTURE(n);
      const NDArray h = random_array({n, 2}, DType::Float64, 9);
      const NDArray d = h.to(cu);
      CHECK(d.device() == cu);
      CHECK(array_equal(d.to_host(), h));
      CHECK(array_equal(d.transpose().contiguous().to_host(), h.transpose()));
      CHECK(array_equal(d.copy().to_host(), h));
      DLManagedTensor* m = to_dlpack(d);
      CHECK(m->dl_tensor.device.device_type == kDLCUDA);
      CHECK(array_equal(from_dlpack(m).to_host(), h));
    }
    const TrainRun cpu = train_run("cpu", "cpp", "fast_run", kTrainSteps);
    same_training(train_run("cuda", "cpp", "fast_run", kTrainSteps), cpu);
  }
}
