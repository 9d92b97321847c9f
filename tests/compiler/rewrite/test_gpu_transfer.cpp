// The GPU transfer rewrite (rewrite/gpu_transfer.cpp) as before/after graph
// text, on the host-emulated device (THEANO_FLAGS device=emulated), which
// needs no GPU and no codegen: the graphs run through the GPU ops' reference
// perform here (codegen's tests run the generated kernels).
#include <cmath>

#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "theano/gpu/ops.h"
#include "theano/tensor/pool.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Config with_device(const std::string& device) {
  Config c = config();
  c.flags["device"] = device;
  return c;
}

NDArray mat(std::vector<double> v, std::int64_t rows, std::int64_t cols) {
  return NDArray::from_vector<double>(v, {rows, cols});
}

std::int64_t count_type(const FunctionGraph& fg, std::string_view type) {
  std::int64_t n = 0;
  for (const Apply* node : fg.toposort()) n += node->op()->type_name() == type;
  return n;
}

}  // namespace

TEST_SUITE("gpu transfer rewrite") {
  TEST_CASE("gpu transfer: an elementwise program becomes copy in, compute on the GPU, copy out") {
    Var x = T::dvector("x"), y = T::dvector("y");
    std::vector<Out> outs = {(x + y) * 2.0, (x + y) * 3.0};
    ConfigGuard guard(with_device("emulated"));
    Function f = function({x, y}, outs, {.mode = "fast_run"});
    CHECK(
        debugprint(f) ==
        lines(
            {"HostFromGpu [id A] ''   3",
             " |GpuElemwise{Composite{mul(Constant{2.0}, *1 -> add(i0, i1)), mul(Constant{3.0}, *1)}}.0 [id B] ''   2",
             "   |GpuFromHost{emulated} [id C] ''   0", "   | |x [id D]", "   |GpuFromHost{emulated} [id E] ''   1",
             "     |y [id F]", "HostFromGpu [id G] ''   4",
             " |GpuElemwise{Composite{mul(Constant{2.0}, *1 -> add(i0, i1)), mul(Constant{3.0}, *1)}}.1 [id B] ''   "
             "2"}));
    const std::vector<NDArray> got = f({vec({0.5, -1, 2}), vec({0.25, 4, -3})});
    CHECK(close_enough(got[0], vec({1.5, 6, -2})));
    CHECK(close_enough(got[1], vec({2.25, 9, -3})));
  }

  TEST_CASE("gpu transfer: a node between two CPU-only ops stays on the CPU, unused seeds are cancelled") {
    // A join of mixed dtypes has no GPU form (its copy kernels convert
    // nothing): exp between two such joins stays on the CPU.
    Var a = T::dmatrix("a"), k = T::matrix("k", DType::Int32);
    ConfigGuard guard(with_device("emulated"));
    Function f = function({a, k}, {T::join(0, {T::exp(T::join(0, {a, k})), k})}, {.mode = "fast_run"});
    CAPTURE(debugprint(f));
    CHECK(count_type(f.fgraph(), "GpuElemwise") == 0);
    CHECK(count_type(f.fgraph(), "GpuFromHost") == 0);
    CHECK(count_type(f.fgraph(), "HostFromGpu") == 0);
    CHECK(count_type(f.fgraph(), "Elemwise") == 1);
  }

  TEST_CASE("gpu transfer: values cross both ways around a CPU op (exp on the GPU, a mixed join on the CPU, + on the GPU)") {
    Var x = T::dmatrix("x"), w = T::matrix("w", DType::Int32), b = T::drow("b");
    ConfigGuard guard(with_device("emulated"));
    Function f = function({x, w, b}, {T::join(0, {T::exp(x), w}) + b}, {.mode = "fast_run"});
    CAPTURE(debugprint(f));
    CHECK(count_type(f.fgraph(), "GpuElemwise") == 2);
    CHECK(count_type(f.fgraph(), "GpuFromHost") == 3);  // x, b, and join's result
    CHECK(count_type(f.fgraph(), "HostFromGpu") == 2);  // exp's result (for join) and the output
    CHECK(count_type(f.fgraph(), "Elemwise") == 0);
    const std::vector<NDArray> got =
        f({mat({0, 1, 2, 0}, 2, 2), mat({1, 0, 0, 1}, 2, 2).astype(DType::Int32), mat({1, -1}, 1, 2)});
    CHECK(close_enough(got[0], NDArray::from_vector<double>({2, std::exp(1.0) - 1, std::exp(2.0) + 1, 0, 2, -1, 1, 0},
                                                            {4, 2})));
  }

  TEST_CASE("gpu transfer: reductions, softmax and BLAS move with their GPU inputs (before/after graph text)") {
    Var x = T::dmatrix("x"), w = T::dmatrix("w");
    ConfigGuard guard(with_device("emulated"));
    Function f = function({x, w}, {T::sum(T::nnet::softmax(T::dot(x, w)), 1)}, {.mode = "fast_run"});
    CHECK(debugprint(f) == lines({"HostFromGpu [id A] ''   5", " |GpuSum{axes=(1,)} [id B] ''   4",
                                  "   |GpuSoftmax{1} [id C] ''   3", "     |GpuDot22 [id D] ''   2",
                                  "       |GpuFromHost{emulated} [id E] ''   0", "       | |x [id F]",
                                  "       |GpuFromHost{emulated} [id G] ''   1", "         |w [id H]"}));
    const NDArray got = f({mat({1, 2, 3, 4}, 2, 2), mat({1, 0, 0, 1}, 2, 2)})[0];
    CHECK(close_enough(got, NDArray::from_vector<double>({1, 1}, {2})));
  }

  TEST_CASE("gpu transfer: DimShuffle and Alloc move with their elementwise clients, Alloc's shape stays on the host") {
    Var m = T::dmatrix("m"), b = T::dvector("b");
    ConfigGuard guard(with_device("emulated"));
    Function f = function({m, b}, {T::alloc(b, {T::shape_i(m, 0), T::shape_i(m, 1)}) * T::exp(m) + b},
                          {.mode = "fast_run"});
    CHECK(debugprint(f) ==
          lines({"HostFromGpu [id A] ''   7",
                 " |GpuElemwise{Composite{add(mul(i0, exp(i1)), i2)}} [id B] ''   6",
                 "   |GpuAlloc [id C] ''   3",
                 "   | |GpuFromHost{emulated} [id D] ''   0",
                 "   | | |b [id E]",
                 "   | |Shape_i{0} [id F] ''   1",
                 "   | | |m [id G]",
                 "   | |Shape_i{1} [id H] ''   2",
                 "   |   |m [id G]",
                 "   |GpuFromHost{emulated} [id I] ''   4",
                 "   | |m [id G]",
                 "   |GpuDimShuffle{x,0} [id J] ''   5",
                 "     |GpuFromHost{emulated} [id D] ''   0"}));
  }

  TEST_CASE("gpu transfer: an elementwise node whose kernel parameters would pass CUDA's 4 KiB stays on the CPU") {
    const T::StaticShape shape(16, std::nullopt);  // 16 dimensions
    std::vector<Var> ins;
    for (int i = 0; i < 29; ++i) ins.push_back(T::tensor(DType::Float64, shape, "x" + std::to_string(i)));
    ConfigGuard guard(with_device("emulated"));
    FunctionGraph big(ins, {T::elemwise("add", ins)});
    rewrite::optimize(big, rewrite::mode_query("fast_run").including({"gpu"}));
    CHECK(count_type(big, "GpuElemwise") == 0);  // 1 + 16 + 30 * 17 = 527 > 512 parameters
    const std::vector<Var> few(ins.begin(), ins.begin() + 20);
    FunctionGraph small(few, {T::elemwise("add", few)});
    rewrite::optimize(small, rewrite::mode_query("fast_run").including({"gpu"}));
    CHECK(count_type(small, "GpuElemwise") == 1);  // 1 + 16 + 21 * 17 = 374
  }

  TEST_CASE("gpu transfer: nothing moves without a GPU device, and the stage is listed in the summary") {
    Var x = T::dvector("x");
    Function f = function({x}, {T::exp(x) * 2.0}, {.mode = "fast_run"});
    CHECK(count_type(f.fgraph(), "GpuElemwise") == 0);
    CHECK(rewrite::optdb().summary(rewrite::mode_query("fast_run").including({"gpu"})).find(" gpu_transfer [gpu]") !=
          std::string::npos);
    CHECK(rewrite::optdb().summary(rewrite::mode_query("fast_run")).find(" gpu_transfer [gpu]") == std::string::npos);
    // The pair cancellation runs in canonicalize whatever the device (a GPU
    // shared variable can be read by a function compiled for the CPU).
    CHECK(rewrite::optdb().summary(rewrite::mode_query("fast_run")).find("local_cut_gpu_transfers") !=
          std::string::npos);
  }
}

TEST_SUITE("gpu transfer rewrite: GPU array inputs") {
  TEST_CASE("gpu transfer: a GPU array input (a GPU shared variable) seeds the rewrite, and is never transferred") {
    Var w = gpu::GpuArrayType::make(DType::Float64, T::StaticShape(1), "emulated")->make_variable("w");
    Var x = T::dvector("x");
    Var out = T::exp(w) * x;  // a host op reads w through HostFromGpu (as_tensor_variable)
    CHECK(debugprint(out) == lines({"Elemwise{mul,no_inplace} [id A] ''", " |Elemwise{exp,no_inplace} [id B] ''",
                                    " | |HostFromGpu [id C] ''", " |   |w [id D]", " |x [id E]"}));
    {
      ConfigGuard guard(with_device("emulated"));
      Function f = function({w, x}, {out}, {.mode = "fast_run"});
      CHECK(debugprint(f) ==
            lines({"HostFromGpu [id A] ''   2", " |GpuElemwise{Composite{mul(exp(i0), i1)}} [id B] ''   1",
                   "   |w [id C]", "   |GpuFromHost{emulated} [id D] ''   0", "     |x [id E]"}));
      CHECK(close_enough(f({vec({0, 1}), vec({2, 3})})[0], vec({2, 3 * std::exp(1.0)})));
    }
    // Without a GPU device selected the graph stays on the CPU and reads w through its transfer.
    Function g = function({w, x}, {out}, {.mode = "fast_run"});
    CHECK(count_type(g.fgraph(), "GpuElemwise") == 0);
    CHECK(count_type(g.fgraph(), "HostFromGpu") == 1);
    CHECK(close_enough(g({vec({0, 1}), vec({2, 3})})[0], vec({2, 3 * std::exp(1.0)})));
  }

  TEST_CASE("gpu transfer: an update of a GPU variable computed on the host goes back through GpuFromHost") {
    Var w = gpu::GpuArrayType::make(DType::Float64, T::StaticShape(1), "emulated")->make_variable("w");
    Var host = T::dvector("h");
    // convert_variable in both directions: what updates and givens use.
    Var to_gpu = w.type()->convert_variable(host);
    REQUIRE(to_gpu);
    CHECK(to_gpu.type()->str() == "GpuArrayType<emulated>(float64, vector)");
    CHECK(gpu::as_gpu_from_host(to_gpu));
    Var to_host = host.type()->convert_variable(w);
    REQUIRE(to_host);
    CHECK(gpu::as_host_from_gpu(to_host));
    CHECK_FALSE(w.type()->convert_variable(T::fvector("f32")));  // dtypes differ: no conversion
    CHECK_FALSE(T::dmatrix("m").type()->convert_variable(w));
  }

  TEST_CASE("gpu transfer: local_cut_gpu_transfers cancels transfer pairs in canonicalize, so fusion sees through them") {
    Var w = gpu::GpuArrayType::make(DType::Float64, T::StaticShape(1), "emulated")->make_variable("w");
    // A value that went to the GPU and back between two host ops (as a GPU
    // variable's gradient terms do).
    Var out = gpu::gpu_from_host(T::exp(w), "emulated") * 2.0;
    CHECK(debugprint(out) == lines({"Elemwise{mul,no_inplace} [id A] ''", " |HostFromGpu [id B] ''",
                                    " | |GpuFromHost{emulated} [id C] ''", " |   |Elemwise{exp,no_inplace} [id D] ''",
                                    " |     |HostFromGpu [id E] ''", " |       |w [id F]",
                                    " |DimShuffle{x} [id G] ''", "   |TensorConstant{2.0} [id H]"}));
    // device=cpu: the pair is gone and exp and mul fuse into one loop.
    Function f = function({w}, {out}, {.mode = "fast_run"});
    CHECK(debugprint(f) == lines({"Elemwise{Composite{mul(Constant{2.0}, exp(i0))},inplace} [id A] ''   1",
                                  " |HostFromGpu [id B] ''   0", "   |w [id C]"}));
    CHECK(close_enough(f({vec({0, 1})})[0], vec({2, 2 * std::exp(1.0)})));
    // Excluded, the two loops stay apart around the round trip.
    Function g = function({w}, {out}, {.mode = "fast_run", .optimizer_excluding = {"local_cut_gpu_transfers"}});
    CHECK(count_type(g.fgraph(), "Elemwise") == 2);
    CHECK(count_type(g.fgraph(), "GpuFromHost") == 1);
    // With the GPU selected: one kernel reading w where it lives.
    ConfigGuard guard(with_device("emulated"));
    Function h = function({w}, {out}, {.mode = "fast_run"});
    CHECK(count_type(h.fgraph(), "GpuElemwise") == 1);
    CHECK(count_type(h.fgraph(), "GpuFromHost") == 0);
    CHECK(count_type(h.fgraph(), "HostFromGpu") == 1);
    CHECK(close_enough(h({vec({0, 1})})[0], vec({2, 2 * std::exp(1.0)})));
  }

  TEST_CASE("gpu transfer: a view of an input read only by CPU ops stays on the host (no round trip for x.T)") {
    Var x = T::dmatrix("x"), w = T::matrix("w", DType::Int32);
    ConfigGuard guard(with_device("emulated"));
    // x.T feeds only the CPU join (of mixed dtypes): moving it would send x up and x.T down.
    Function f = function({x, w}, {T::join(0, {x.T(), w})}, {.mode = "fast_run"});
    CHECK(debugprint(f) ==
          lines({"Join{0} [id A] ''   1", " |DimShuffle{1,0} [id B] ''   0", " | |x [id C]", " |w [id D]"}));
    CHECK(close_enough(f({mat({1, 2, 3, 4}, 2, 2), mat({1, 0, 0, 1}, 2, 2).astype(DType::Int32)})[0],
                       NDArray::from_vector<double>({1, 3, 2, 4, 1, 0, 0, 1}, {4, 2})));
    // A view with a GPU client still moves (it feeds the kernel where it is).
    Function g = function({x, w}, {T::join(0, {x.T(), w}), T::exp(x.T()) * 2.0}, {.mode = "fast_run"});
    CAPTURE(debugprint(g));
    CHECK(count_type(g.fgraph(), "GpuDimShuffle") == 1);
    CHECK(count_type(g.fgraph(), "GpuElemwise") == 1);
  }
  TEST_CASE("gpu transfer: pooling and its gradients move (float32 / float64) and an integer pool stays on the host") {
    Var x = T::tensor4("x", DType::Float32), i = T::tensor4("i", DType::Int32);
    ConfigGuard guard(with_device("emulated"));
    Var y = T::signal::pool_2d(x, {2, 2}, {.ignore_border = true});
    Var a = T::signal::pool_2d(x, {2, 2}, {.mode = T::signal::PoolMode::AverageExcPad});
    Function f = function({x, i}, {y, grad(T::sum(y * y) + T::sum(a), x), T::signal::pool_2d(i, {2, 2})},
                          {.mode = "fast_run"});
    CAPTURE(debugprint(f));
    CHECK(count_type(f.fgraph(), "GpuPool") == 2);
    CHECK(count_type(f.fgraph(), "GpuMaxPoolGrad") == 1);
    CHECK(count_type(f.fgraph(), "GpuAveragePoolGrad") == 1);
    CHECK(count_type(f.fgraph(), "Pool") == 1);  // the int32 one
    CHECK(count_type(f.fgraph(), "MaxPoolGrad") == 0);
  }
}
