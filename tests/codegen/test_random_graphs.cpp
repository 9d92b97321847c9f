// The random-graph differential test (issue 15's CI slice of the fuzzer): the
// adversarial generator of random_graph_gen.h builds graphs over the op set
// (elementwise ops of every arity and kind with broadcasting and mixed dtypes,
// casts, DimShuffle, reductions, argmax, basic slices with negative steps,
// integer and advanced indexing, reshape / split / alloc / arange / eye with
// sizes near the int64 limits, join, dot, softmax, set/inc_subtensor, shape_i)
// on inputs with 0-size, 1-size and 2^62-size dimensions, compiles each with
// the cpp linker (generated code only) and compares it with the PerformLinker
// on contiguous, strided and negatively strided inputs: the same values, or
// the same error kind. Some graphs also go through function() in fast_run
// (inplace rewrites, mutable inputs) and some add their gradient. A failing
// graph is shrunk (steps removed while it still fails) and printed.
//
// 1,200 graphs by default (about 35 s in Release on 2 cores; 400 under
// AddressSanitizer); THEANO_TEST_RANDOM_GRAPHS=N runs N and
// THEANO_TEST_RANDOM_SEED=S changes the seed. bench/fuzz runs the same
// generator at scale in child processes (crashes caught).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include <theano/compile/function.h>
#include <theano/gradient.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <limits>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "codegen/random_graph_gen.h"

#include "sanitized.h"

namespace {

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

#ifdef THEANO_TESTS_SANITIZED
constexpr long kDefaultGraphs = 400;
#else
constexpr long kDefaultGraphs = 1200;
#endif

}  // namespace

TEST_SUITE("codegen random graphs") {
  TEST_CASE("random graphs over the op set: generated code agrees with perform") {
    using namespace theano::fuzz;
    const long n_graphs = env_or("THEANO_TEST_RANDOM_GRAPHS", kDefaultGraphs);
    const auto seed = static_cast<std::uint64_t>(env_or("THEANO_TEST_RANDOM_SEED", 20261122));
    int failures = 0;
    long g = 0;
    for (; g < n_graphs && failures < 3; ++g) {
      const Program p = random_program(seed, static_cast<std::uint64_t>(g));
      const std::uint64_t vs = value_seed(seed, static_cast<std::uint64_t>(g));
      const std::string why = check(p, vs);
      if (why.empty()) continue;
      ++failures;
      const Program small = shrink(p, vs);
      FAIL_CHECK("graph " << g << " (seed " << seed << ") fails: " << check(small, vs) << "\nsmallest failing graph ("
                          << small.steps.size() << " of " << p.steps.size() << " steps):\n"
                          << describe(small) << "re-run: build/release/bench/theano_fuzz --program '"
                          << serialize(small) << "' --value-seed " << vs);
    }
    MESSAGE(g << " random graphs compared (seed " << seed << ")");
  }

  TEST_CASE("a fuzz program survives its text form") {
    using namespace theano::fuzz;
    const Program p = random_program(7, 3);
    CHECK(serialize(deserialize(serialize(p))) == serialize(p));
  }
}

TEST_SUITE("codegen random graphs: regressions") {
  // Found by bench/fuzz (graph 530 of stream 20261122): eye(2^40, 0) looped
  // over all 2^40 rows, in perform and in generated code (a hang), and i + k
  // overflowed for k near the int64 limits (undefined behaviour in perform).
  TEST_CASE("eye visits only the rows its diagonal crosses") {
    using namespace theano;
    Var n = tensor::tensor(DType::Int64, {}, "n"), m = tensor::tensor(DType::Int64, {}, "m"),
        k = tensor::tensor(DType::Int64, {}, "k");
    Var e = tensor::eye(n, tensor::TensorLike(m), k, DType::Float64);
    const std::int64_t big = std::int64_t{1} << 40;
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    auto sc = [](std::int64_t v) { return NDArray::scalar<std::int64_t>(v); };
    const std::vector<std::vector<std::int64_t>> cases = {
        {big, 0, 0}, {big, 0, -3}, {0, big, 5}, {3, 4, kMax}, {3, 4, kMin}, {3, 4, -1},
        {4, 3, 2},   {5, 2, -1},   {10, 2, -1}, {3, 3, 3},    {3, 3, -3},  {1, 1, 0}};
    for (const auto& c : cases) {
      CAPTURE(c[0]);
      CAPTURE(c[1]);
      CAPTURE(c[2]);
      test::check_lowering({n, m, k}, {e}, {sc(c[0]), sc(c[1]), sc(c[2])});
    }
  }

  // Found by bench/fuzz (graph 171 of stream 20261122): the gradient of prod
  // holds and(eq(...), neq(...)) of bools; fast_run fuses it with float ops
  // into a Composite whose locals are doubles, and the C text `(a & b)` of
  // and/or/xor/invert did not compile on doubles ("invalid operands to binary
  // expression ('double' and 'double')"). Perform converts to int64 first;
  // the C expressions now do too.
  TEST_CASE("bitwise ops inside a float Composite compile (gradient of prod under fast_run)") {
    using namespace theano;
    for (DType dt : {DType::Float32, DType::Float64}) {
      CAPTURE(dtype_name(dt));
      Var x = tensor::tensor(dt, {std::nullopt}, "x");
      Var g = grad(tensor::prod(x), x);
      Function f = function({x}, {g}, {.mode = "fast_run"});
      const NDArray xv = NDArray::from_list<double>({2, 0, 3, -1}).astype(dt);
      CHECK(allclose(f({xv}).at(0), NDArray::from_list<double>({0, -6, 0, 0}).astype(dt), 1e-5, 1e-6));
    }
    // The ops themselves on bools, in a float Composite: y * ((a & b) | (a ^ b)).
    // (invert keeps its C text `~`: inside a double Composite it would be
    // bitwise on 1.0 -> -2, not logical, so it must not compile there; see
    // the Composite note in bench/README.md.)
    Var a = tensor::tensor(DType::Bool, {std::nullopt}, "a"), b = tensor::tensor(DType::Bool, {std::nullopt}, "b");
    Var y = tensor::tensor(DType::Float64, {std::nullopt}, "y");
    Var z = y * tensor::or_(tensor::and_(a, b), tensor::xor_(a, b));
    const NDArray av = NDArray::from_list<bool>({true, true, false, false}),
                  bv = NDArray::from_list<bool>({true, false, true, false}), yv = NDArray::from_list<double>({1, 2, 3, 4});
    // and: 1 0 0 0; xor: 0 1 1 0; or: 1 1 1 0.
    for (const char* mode : {"fast_run", "fast_compile"}) {
      CAPTURE(mode);
      Function f = function({a, b, y}, {z}, {.mode = mode});
      const NDArray got = f({av, bv, yv}).at(0);
      INFO("got " << got);
      CHECK(allclose(got, NDArray::from_list<double>({1, 2, 3, 0})));
    }
  }
}
