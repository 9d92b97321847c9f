// RandomFunction's row distributions on the GPU (categorical, multinomial,
// permutation; docs/random.md): one thread a row runs the row kernels perform
// runs, so through the host-emulated device every row is perform's bit for
// bit (batched, broadcast rows, float32 / float64 weights, 0-size samples);
// a bad row is perform's ValueError, word for word, naming the GPU node; the
// unit compiles with NVRTC where it is installed. Test names contain "cuda".
#include <doctest/doctest.h>
#include <theano/config.h>
#include <theano/tensor/random.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <random>
#include <string>

#include "gpu_test_util.h"
#include "test_util.h"
#include "use_linker.h"

using namespace theano;
using namespace theano::tensor;

namespace {

using Dims = std::vector<std::int64_t>;

Var state_var() { return tensor::tensor(DType::UInt64, {std::nullopt}, "state"); }

NDArray state(std::uint64_t seed, std::uint64_t counter) {
  return NDArray::from_vector(std::vector<std::uint64_t>{seed, counter}, {2});
}

/// Values uniform on [lo, hi) of `shape`, in `dtype` (integers truncated).
NDArray uniform_array(std::mt19937_64& rng, Dims shape, DType dtype, double lo, double hi) {
  NDArray a = NDArray::empty(std::move(shape), DType::Float64);
  std::uniform_real_distribution<double> u(lo, hi);
  for (std::int64_t k = 0; k < a.size(); ++k) a.data_as<double>()[k] = std::trunc(u(rng) * 1e6) / 1e6;
  if (!is_float(dtype))
    for (std::int64_t k = 0; k < a.size(); ++k) a.data_as<double>()[k] = std::trunc(a.data_as<double>()[k]);
  return a.astype(dtype);
}

/// The functions of `outs` over `ins`: perform's (linker py) and the emulated device's.
/// (Without the streams' default updates: both read the same states.)
std::pair<Function, Function> perform_and_gpu(const std::vector<Var>& ins, const std::vector<Var>& outs,
                                              const std::string& device = "emulated") {
  std::vector<In> in(ins.begin(), ins.end());
  std::vector<Out> out(outs.begin(), outs.end());
  const FunctionOptions o{.mode = "fast_run", .no_default_updates = true};
  Function ref = [&] {
    test::UseLinker py("py");
    return function(in, out, o);
  }();
  ConfigGuard guard(gpu_test::with_device(device));
  return {ref, function(in, out, o)};
}

/// `gpu` gives `ref`'s outputs on `args`, bit for bit.
void same_outputs(Function& ref, Function& gpu, const std::vector<NDArray>& args) {
  const std::vector<NDArray> want = ref(args), got = gpu(args);
  REQUIRE(got.size() == want.size());
  for (std::size_t o = 0; o < got.size(); ++o) {
    CAPTURE(o);
    const NDArray g = got[o].to_host();
    REQUIRE(g.dtype() == want[o].dtype());
    REQUIRE(g.shape() == want[o].shape());
    CHECK(array_equal(g, want[o]));
  }
}

/// The error's own text: after the node's label, before what the linker adds
/// (perform's "\nApply node ...", generated code's "; input shapes: ...").
std::string after_label(const std::string& m) {
  const std::size_t c = m.find(": ", m.find('}'));
  std::string r = c == std::string::npos ? m : m.substr(c + 2);
  r = r.substr(0, r.find('\n'));
  return r.substr(0, r.find("; input shapes"));
}

}  // namespace

TEST_SUITE("cuda random rows (emulated device)") {
  TEST_CASE("cuda emulated: categorical, multinomial and permutation rows are perform's bit for bit") {
    std::mt19937_64 rng(37);
    Var st = state_var();
    Var p64 = tensor::tensor(DType::Float64, {std::nullopt, std::nullopt}, "p64");
    Var p32 = tensor::tensor(DType::Float32, {std::nullopt, std::nullopt, std::nullopt}, "p32");
    Var n = tensor::tensor(DType::Int32, {std::nullopt}, "n");
    Var x = tensor::tensor(DType::Float32, {std::nullopt, std::nullopt}, "x");
    std::vector<Var> outs;
    auto add = [&](std::pair<Var, Var> r) {
      outs.push_back(r.second);
      outs.push_back(r.first);
    };
    using D = Distribution;
    // Batched and broadcast rows (p's rows: 3 or 1 against the size), a
    // 0-size batch, float32 / int64 samples.
    add(random_function(D::Categorical, st, RandomSize(Dims{5, 3}), {p64}, DType::Int64));
    add(random_function(D::Categorical, st, RandomSize(), {p64}, DType::Float32));
    add(random_function(D::Categorical, st, RandomSize(Dims{2, 4, 3}), {p32}, DType::Int64));
    add(random_function(D::Categorical, st, RandomSize(Dims{0, 3}), {p64}, DType::Int64));
    add(random_function(D::Multinomial, st, RandomSize(Dims{5, 3}), {n, p64}, DType::Int64));
    add(random_function(D::Multinomial, st, RandomSize(), {n, p64}, DType::Float32));
    add(random_function(D::Multinomial, st, RandomSize(Dims{4, 3}), {700, p32}, DType::Float64));
    add(random_function(D::Multinomial, st, RandomSize(), {n, x}, DType::Int64));  // k = 0 rows too
    add(random_function(D::Permutation, st, RandomSize(Dims{6, 3}), {x}, DType::Int64));
    add(random_function(D::Permutation, st, RandomSize(), {x}, DType::Int64));
    add(random_function(D::Permutation, st, RandomSize(Dims{0, 3}), {x}, DType::Int64));
    const std::vector<Var> ins{st, p64, p32, n, x};
    auto [ref, gpu] = perform_and_gpu(ins, outs);
    CHECK(gpu_test::count_ops(gpu, "GpuRandomFunction") == 11);
    // (The transfer moves a draw whose data comes from or goes to the GPU:
    // shuffle's permutation here; choice's draws read host Asserts and stay.)
    CAPTURE(debugprint(gpu));
    CHECK(gpu_test::count_ops(gpu, "GpuRandomFunction") >= 1);
    for (const NDArray& sv : {state(12345, 0), state(0xDEADBEEFCAFEF00DULL, 0x1FFFFFFFFULL)})
      for (std::int64_t rows : {3, 1})
        for (std::int64_t k : {7, 1, 0}) {
          CAPTURE(rows);
          CAPTURE(k);
          const std::vector<NDArray> args{sv, uniform_array(rng, {rows, 6}, DType::Float64, 0, 2),
                                          uniform_array(rng, {4, rows, 5}, DType::Float32, 0, 1),
                                          uniform_array(rng, {rows}, DType::Int32, 0, 60),
                                          uniform_array(rng, {rows, k}, DType::Float32, 0.01, 1)};
          same_outputs(ref, gpu, args);
        }
    gpu_test::check_nvrtc(gpu);
  }

  TEST_CASE("cuda emulated: a bad row is perform's ValueError word for word, naming the GPU node") {
    const double nan = std::nan("");
    Var st = state_var();
    Var p = tensor::tensor(DType::Float64, {std::nullopt, std::nullopt}, "p");
    Var q = tensor::tensor(DType::Float32, {std::nullopt, std::nullopt}, "q");
    Var n = tensor::tensor(DType::Int64, {std::nullopt}, "n");
    auto [ns0, c] = random_function(Distribution::Categorical, st, RandomSize(Dims{3, 2}), {p}, DType::Int64);
    auto [ns1, m] = random_function(Distribution::Multinomial, st, RandomSize(Dims{3}), {n, q}, DType::Int64);
    auto [ref_c, gpu_c] = perform_and_gpu({st, p}, {c});
    auto [ref_m, gpu_m] = perform_and_gpu({st, n, q}, {m});
    auto matrix = [](std::vector<double> v, std::int64_t rows, DType dt) {
      return NDArray::from_vector(v, {rows, static_cast<std::int64_t>(v.size()) / rows}).astype(dt);
    };
    const NDArray s0 = state(1, 2);
    // Each case: perform's message (after its label) is the GPU's, and it says `what`.
    auto same = [](Function& ref, Function& gpu, const std::vector<NDArray>& args, const std::string& what) {
      const std::string want = test::error_of([&] { ref(args); }), got = test::error_of([&] { gpu(args); });
      CAPTURE(want);
      CAPTURE(got);
      CHECK(want.find(what) != std::string::npos);
      CHECK(after_label(got) == after_label(want));
      CHECK(got.find("GpuRandomFunction{") < got.find(": "));  // the GPU node's label
    };
    // Sample element 1 of size (3, 2) reads p's row 1: the first bad one (3 and 5 are bad too).
    same(ref_c, gpu_c, {s0, matrix({1, 2, 3, 4, 5, -0.5}, 2, DType::Float64)},
         "p[1][2] = -0.5 must be >= 0 and finite");
    same(ref_c, gpu_c, {s0, matrix({1, 2, 3, 0, 0, 0}, 2, DType::Float64)},
         "p[1] = 0 (the sum of the row) must be > 0 and finite");
    same(ref_c, gpu_c, {s0, matrix({1, 2, 1e308, 1e308}, 1, DType::Float64)},
         "p[0] = inf (the sum of the row) must be > 0 and finite");
    // multinomial: n's rule before the row's, the first bad row first.
    same(ref_m, gpu_m, {s0, NDArray::from_vector<std::int64_t>({2, 3, -4}, {3}), matrix({1, 2, 3}, 1, DType::Float32)},
         "n[2] = -4 must be in [0, 2^53]");
    same(ref_m, gpu_m,
         {s0, NDArray::from_vector<std::int64_t>({2, 3, -4}, {3}),
          matrix({1, 2, 3, 1, nan, 1, 1, 1, 1}, 3, DType::Float32)},
         "p[1][1] = nan must be >= 0 and finite");
    same(ref_m, gpu_m,
         {s0, NDArray::from_vector<std::int64_t>({-1, 3, 4}, {3}),
          matrix({nan, 2, 3, 1, 1, 1, 1, 1, 1}, 3, DType::Float32)},
         "n[0] = -1 must be in [0, 2^53]");
  }

  TEST_CASE("cuda emulated: choice, permutation and shuffle in a GPU function: perform's picks and choice's p named") {
    RandomStream rs(3);
    Var x = tensor::tensor(DType::Float64, {std::nullopt, std::nullopt}, "x");
    Var p = tensor::tensor(DType::Float64, {std::nullopt}, "p");
    const NDArray a = NDArray::from_vector<double>({1, 2, 3, 4, 5}, {5});
    const std::vector<Var> outs = {rs.choice({2, 3}, a, true, p), rs.choice({5}, 9, false), rs.choice({3}, a, false, p),
                                   rs.permutation(7), rs.shuffle(x)};
    auto [ref, gpu] = perform_and_gpu({x, p}, outs);
    // (The transfer moves a draw whose data comes from or goes to the GPU:
    // shuffle's permutation here; choice's draws read host Asserts and stay.)
    CAPTURE(debugprint(gpu));
    CHECK(gpu_test::count_ops(gpu, "GpuRandomFunction") >= 1);
    const NDArray X = NDArray::from_vector<double>({0, 1, 2, 3, 4, 5}, {3, 2});
    same_outputs(ref, gpu, {X, NDArray::from_vector<double>({0.1, 0.2, 0.3, 0.15, 0.25}, {5})});
    // A bad weight: categorical's message (with and without replacement), perform's text.
    const std::vector<NDArray> bad{X, NDArray::from_vector<double>({0.1, -0.2, 0.3, 0.15, 0.25}, {5})};
    const std::string want = test::error_of([&] { ref(bad); }), got = test::error_of([&] { gpu(bad); });
    CAPTURE(want);
    CAPTURE(got);
    CHECK(want.find("RandomFunction{categorical}: p[0][1] = -0.2 must be >= 0 and finite") != std::string::npos);
    CHECK(after_label(got) == after_label(want));
  }
}

TEST_SUITE("cuda on a real GPU") {
  TEST_CASE("cuda gpu: categorical, multinomial and permutation rows on cuda0 (skipped without a usable GPU)") {
    if (gpu_test::no_usable_gpu()) return;
    // docs/random.md: categorical (sums, a product, comparisons; FMA
    // contraction off on both sides) and permutation (integers) call no libm
    // function, so they equal perform's draws exactly; multinomial's
    // binomials use CUDA's log / exp, which may differ in the last ulp and
    // flip a rare draw: every row valid, all but a few equal perform's.
    std::mt19937_64 rng(41);
    Var st = state_var();
    Var p = tensor::tensor(DType::Float64, {std::nullopt, std::nullopt}, "p");
    Var n = tensor::tensor(DType::Int32, {std::nullopt}, "n");
    Var x = tensor::tensor(DType::Float32, {std::nullopt, std::nullopt}, "x");
    using D = Distribution;
    const Var cat = random_function(D::Categorical, st, RandomSize(Dims{400, 50}), {p}, DType::Int64).second;
    const Var mult = random_function(D::Multinomial, st, RandomSize(Dims{400, 50}), {n, p}, DType::Int64).second;
    const Var perm = random_function(D::Permutation, st, RandomSize(Dims{400, 50}), {x}, DType::Int64).second;
    auto [ref, gpu] = perform_and_gpu({st, p, n, x}, {cat, mult, perm}, "cuda");
    CHECK(gpu_test::count_ops(gpu, "GpuRandomFunction") == 3);
    const std::vector<NDArray> args{state(2024, 0), uniform_array(rng, {50, 6}, DType::Float64, 0, 2),
                                    uniform_array(rng, {50}, DType::Int32, 0, 60),
                                    uniform_array(rng, {50, 9}, DType::Float32, 0, 1)};
    const std::vector<NDArray> want = ref(args), got_dev = gpu(args);
    REQUIRE(got_dev.size() == 3);
    std::vector<NDArray> got;
    for (const NDArray& g : got_dev) got.push_back(g.to_host());
    CHECK(array_equal(got[0], want[0]));
    CHECK(array_equal(got[2], want[2]));
    const NDArray nh = args[2];
    std::int64_t differ = 0;
    for (std::int64_t r = 0; r < 400 * 50; ++r) {  // each row of 6 counts sums to its n
      std::int64_t sum = 0, same = 1;
      for (std::int64_t j = 0; j < 6; ++j) {
        sum += got[1].data_as<std::int64_t>()[r * 6 + j];
        same &= got[1].data_as<std::int64_t>()[r * 6 + j] == want[1].data_as<std::int64_t>()[r * 6 + j];
      }
      CHECK(sum == nh.data_as<std::int32_t>()[r % 50]);
      differ += !same;
    }
    MESSAGE("multinomial rows that differ from perform's: " << differ << " of 20000");
    CHECK(differ <= 20);  // 0.1%
  }
}
