// GpuArrayType, the device flag's context selection, and the GPU ops' typing,
// reference perform, shapes and gradients (gpu/type.h, gpu/context.h,
// gpu/ops.h). This suite links the compiler only: no GPU probe is
// registered, so device=cuda says the CUDA back end is not linked.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/gpu/context.h"
#include "theano/gpu/ops.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
using gpu::GpuArrayType;

TEST_SUITE("gpu types") {
  TEST_CASE("GpuArrayType: printing, interning, equality and is_super") {
    auto t = GpuArrayType::make(DType::Float32, {std::nullopt, 3}, "cuda0");
    CHECK(t->str() == "GpuArrayType<cuda0>(float32, (?, 3))");
    CHECK(t.get() == GpuArrayType::make(DType::Float32, {std::nullopt, 3}, "cuda0").get());
    CHECK(!t->equals(*GpuArrayType::make(DType::Float32, {std::nullopt, 3}, "emulated")));
    CHECK(!t->equals(*T::TensorType::make(DType::Float32, {std::nullopt, 3})));
    CHECK(t->host_type()->equals(*T::TensorType::make(DType::Float32, {std::nullopt, 3})));
    CHECK(GpuArrayType::make(DType::Float32, {std::nullopt, std::nullopt}, "cuda0")->is_super(*t));
    CHECK(!t->is_super(*GpuArrayType::make(DType::Float32, {std::nullopt, std::nullopt}, "cuda0")));
    CHECK(GpuArrayType::make(DType::Float64, {1}, "emulated")->str() == "GpuArrayType<emulated>(float64, (True,))");
  }

  TEST_CASE("GpuArrayType: bad contexts and dtypes without kernels are refused with the reason") {
    CHECK_THROWS_WITH_AS(GpuArrayType::make(DType::Float32, {}, "gpu0"), doctest::Contains("expected cuda<N>"),
                         ValueError);
    CHECK_THROWS_WITH_AS(GpuArrayType::make(DType::Complex128, {}, "cuda0"), doctest::Contains("complex128"),
                         TypeError);
    int index = 7;
    CHECK(gpu::parse_context("cuda12", &index));
    CHECK(index == 12);
    CHECK(gpu::parse_context("emulated", &index));
    CHECK(index == -1);
    for (const char* bad : {"cuda", "cuda01", "cudax", "cuda-1", "Cuda0", ""}) CHECK(!gpu::parse_context(bad));
  }

  TEST_CASE("device flag: cpu, emulated, and a clear error for cuda without the back end or an unknown value") {
    CHECK(!gpu::context_for_device(""));
    CHECK(!gpu::context_for_device("cpu"));
    CHECK(gpu::context_for_device("emulated") == std::optional<std::string>("emulated"));
    CHECK_THROWS_WITH_AS(
        gpu::context_for_device("cuda"),
        doctest::Contains("the GPU cuda0 cannot be used: the CUDA back end (theano_codegen) is not linked"),
        ValueError);
    CHECK_THROWS_WITH_AS(gpu::context_for_device("cuda2"), doctest::Contains("device='cuda2'"), ValueError);
    CHECK_THROWS_WITH_AS(gpu::context_for_device("tpu"), doctest::Contains("expected cpu, cuda, cuda<N>"), ValueError);
    CHECK(!gpu::context_for_device("auto"));  // falls back to the CPU, saying so once
  }

  TEST_CASE("transfers: types, reference perform, infer_shape and gradients") {
    Var x = T::dmatrix("x");
    Var g = gpu::gpu_from_host(x, "emulated");
    CHECK(g.type()->str() == "GpuArrayType<emulated>(float64, matrix)");
    Var h = gpu::host_from_gpu(g);
    CHECK(h.type()->equals(*x.type()));
    CHECK(gpu::as_host_from_gpu(h) == h.owner());
    CHECK(gpu::as_gpu_from_host(g) == g.owner());
    CHECK_THROWS_WITH_AS(gpu::host_from_gpu(x), doctest::Contains("must be a GPU array"), TypeError);
    CHECK_THROWS_WITH_AS(gpu::gpu_from_host(g, "emulated"), doctest::Contains("must be a host tensor"), TypeError);
    // The round trip is the identity, in value, shape and gradient.
    Function f = function({x}, {h * 2.0, T::shape(h)});
    const NDArray v = range({2, 3});
    const std::vector<NDArray> r = f({v});
    CHECK(r[0].at<double>({1, 2}) == 10.0);
    CHECK(r[1].at<std::int64_t>({1}) == 3);
    Var dx = grad(T::sum(h * h), x);
    Function df = function({x}, {dx});
    CHECK(df({v})[0].at<double>({1, 1}) == 8.0);
  }

  TEST_CASE("GpuElemwise: the host op's typing over GPU arrays of one context") {
    Var x = T::dvector("x"), m = T::dmatrix("m");
    Var gx = gpu::gpu_from_host(x, "emulated");
    Var gm = gpu::gpu_from_host(m, "emulated");
    auto host = IntrusivePtr<const T::Elemwise>(new T::Elemwise(T::scalar_op("add")));
    OpPtr op(new gpu::GpuElemwise(host));
    Var s = op->apply1({gx, gx});
    CHECK(s.type()->str() == "GpuArrayType<emulated>(float64, vector)");
    CHECK(op->name() == "GpuElemwise{add}");
    CHECK_THROWS_WITH_AS(op->apply1({gx, gm}), doctest::Contains("input 1 has 2 dimensions"), TypeError);
    CHECK_THROWS_WITH_AS(op->apply1({gx, x}), doctest::Contains("must be a GPU array"), TypeError);
    CHECK_THROWS_WITH_AS(op->apply1({gx, gpu::gpu_from_host(x, "cuda0")}),
                         doctest::Contains("input 1 lives on cuda0 but input 0 on emulated"), TypeError);
    // The generic wrapper (GpuOp, what the transfer rewrite builds) says both too.
    OpPtr wrapped(new gpu::GpuOp(host, {true, true}));
    CHECK_THROWS_WITH_AS(wrapped->apply1({gx, gpu::gpu_from_host(x, "cuda0")}),
                         doctest::Contains("input 0 lives on emulated but input 1 lives on cuda0"), TypeError);
    // Reference perform: the host op's.
    Function f = function({x}, {gpu::host_from_gpu(s)}, {.mode = "unoptimized"});
    CHECK(f({vec({1, 2})})[0].at<double>({1}) == 4.0);
  }
}
