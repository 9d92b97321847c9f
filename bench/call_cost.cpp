// What one call of a compiled function costs besides its loops (issue 39):
// W6's `x + 1` on a 0-d array, and W1's expression on three vectors of n
// elements (n = 16 by default: the call, not the arithmetic), each called
// `--calls` times after 1000 warm-up calls; prints ns per call.
//
// Under valgrind the timed loops are what callgrind counts, when this
// program was built where <valgrind/callgrind.h> exists (Debian
// valgrind): instructions per call = the total / --calls.
//
//   valgrind --tool=callgrind --instr-atstart=no build/release/bench/theano_call_cost --only w6 --calls 20000
//
// Usage: theano_call_cost [--only w6|w6t|vectors] [--calls N] [--n N]
#include <theano/theano.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

using namespace theano;
namespace T = theano::tensor;

namespace {

// Calls f(args) `calls` times (after 1000 warm-up calls); ns per call.
double time_calls(const Function& f, const std::vector<NDArray>& args, long calls) {
  for (int i = 0; i < 1000; ++i) f(args);
  CALLGRIND_START_INSTRUMENTATION;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) f(args);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CALLGRIND_STOP_INSTRUMENTATION;
  return s / static_cast<double>(calls) * 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  long calls = 1'000'000;
  std::int64_t n = 16;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "--only") && more) {
      only = argv[++i];
    } else if (!std::strcmp(argv[i], "--calls") && more) {
      calls = std::atol(argv[++i]);
    } else if (!std::strcmp(argv[i], "--n") && more) {
      n = std::atol(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--only w6|w6t|vectors] [--calls N] [--n N]\n", argv[0]);
      return 2;
    }
  }
  if (calls <= 0 || n <= 0) {
    std::fprintf(stderr, "%s: --calls and --n must be positive\n", argv[0]);
    return 2;
  }
  const DType d = DType::Float64;
  auto constant = [&](double v) { return T::constant(NDArray::full({}, v, d)); };
  for (const char* which : {"w6", "w6t"}) {
    if (!only.empty() && only != which) continue;
    Var x = T::scalar("x", d);
    FunctionOptions o;
    o.trust_input = std::strcmp(which, "w6t") == 0;
    Function f = function({x}, {x + constant(1)}, o);
    std::printf("%-8s x + 1, a 0-d float64 array%s: %.1f ns per call\n", which,
                o.trust_input ? " (trust_input)" : "", time_calls(f, {NDArray::full({}, 1.0, d)}, calls));
  }
  if (only.empty() || only == "vectors") {
    Var x = T::vector("x", d), y = T::vector("y", d), z = T::vector("z", d);
    Function f = function({x, y, z}, {T::exp(x) * y + T::tanh(z) - x * x / (constant(1) + y)});
    const NDArray v = NDArray::full({n}, 0.5, d);
    std::printf("vectors  exp(x)*y + tanh(z) - x*x/(1+y), three float64 vectors of %lld: %.1f ns per call\n",
                static_cast<long long>(n), time_calls(f, {v, v, v}, calls));
  }
  return 0;
}
