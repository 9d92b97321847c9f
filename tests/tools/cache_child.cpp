// A child process for the compile-cache tests: compiles W1's graph (plus a
// constant given on the command line) with the compiledir of THEANO_FLAGS,
// runs it, and prints "cache=<hit|miss|off> compiles=<n> hits=<n> ok=<0|1>",
// then "record=<0|1> shared_library=<0|1> jit=<0|1>" for the last function:
// whether it came from a function record, whether its code was dlopen'ed as
// the compiledir's shared library, and whether this process created an ORC
// session at all, then "remote_hits=<n> remote_misses=<n> remote_rejected=<n>
// remote_published=<n> remote_errors=<n>" (THEANO_FLAGS remote_cache).
// With a second argument N it compiles N such functions, with the constants
// c, c+1, ..., c+N-1 in an order rotated by the constant (racing processes
// start on different functions), and reports the last one's cache status.
// Usage: theano_cache_child <constant> [N]
#include <theano/codegen/compiledir.h>
#include <theano/codegen/jit_loader.h>
#include <theano/theano.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace theano;
using namespace theano::tensor;

int main(int argc, char** argv) {
  const double c0 = argc > 1 ? std::atof(argv[1]) : 1.0;
  const int n = argc > 2 ? std::atoi(argv[2]) : 1;
  bool ok = true;
  std::string last_cache;
  bool record = false, shared_library = false;
  for (int k = 0; k < n; ++k) {
    const double c = c0 + ((k + static_cast<int>(c0)) % n);
    Var x = dvector("x"), y = dvector("y"), z = dvector("z");
    Var out = exp(x) * y + tanh(z) - x * x / (c + y);
    Function f = function({x, y, z}, {out});
    const NDArray r = f({NDArray::full({3}, 0.5), NDArray::full({3}, 0.25), NDArray::full({3}, -1.0)})[0];
    const double want = std::exp(0.5) * 0.25 + std::tanh(-1.0) - 0.25 / (c + 0.25);
    ok = ok && std::abs(r.at<double>({2}) - want) < 1e-12;
    last_cache = f.profile().build.cache;
    record = f.profile().build.function_record;
    shared_library = f.profile().build.shared_library;
  }
  const auto st = codegen::compile_cache_stats();
  std::printf("cache=%s compiles=%llu hits=%llu ok=%d\n", last_cache.c_str(),
              static_cast<unsigned long long>(st.compiles), static_cast<unsigned long long>(st.hits), ok ? 1 : 0);
  std::printf("record=%d shared_library=%d jit=%d\n", record ? 1 : 0, shared_library ? 1 : 0,
              codegen::JitLoader::instance().jit_creation_ms() > 0 ? 1 : 0);
  std::printf("remote_hits=%llu remote_misses=%llu remote_rejected=%llu remote_published=%llu remote_errors=%llu\n",
              static_cast<unsigned long long>(st.remote_hits), static_cast<unsigned long long>(st.remote_misses),
              static_cast<unsigned long long>(st.remote_rejected),
              static_cast<unsigned long long>(st.remote_published),
              static_cast<unsigned long long>(st.remote_errors));
  return ok ? 0 : 1;
}
