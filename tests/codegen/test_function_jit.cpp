// function() with the JIT linkers: the default linker, fast_compile, the
// OpWise linker and per-node profiles, THEANO_FLAGS keep_sources / log_compile
// / profile, trust_input, Function::copy from several threads, error messages
// with the user's variable names.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include "codegen/jit_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;

namespace {
Config with_flags(std::initializer_list<std::pair<const char*, const char*>> kv) {
  Config c = config();
  for (const auto& [k, v] : kv) c.flags[k] = v;
  return c;
}
}  // namespace

TEST_SUITE("function with the JIT") {
  TEST_CASE("every mode links with the cpp linker when codegen is linked in") {
    codegen::register_linkers();
    for (const char* mode : {"fast_run", "fast_compile", "o2", "o3", "stabilize", "unsafe", "unoptimized"}) {
      CAPTURE(mode);
      Var x = dvector("x");
      Function f = function({x}, {exp(x) * 2.0}, {.mode = mode});
      CHECK(f.mode().linker == "cpp");
      CHECK(allclose(f({test::vec({0, 1})})[0], test::vec({2, 2 * std::exp(1.0)})));
    }
  }

  TEST_CASE("the OpWise linker gives the same values and a per-node profile") {
    codegen::register_linkers();
    ConfigGuard guard(with_flags({{"linker", "opwise"}}));
    Var x = dmatrix("x");
    Var y = dvector("y");
    Var out = tanh(x * y) + exp(y);
    out->set_name("out");
    Function f = function({x, y}, {out}, {.mode = "unoptimized", .name = "opwise_demo", .profile = true});
    CHECK(f.mode().linker == "opwise");
    NDArray xv = test::vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
    NDArray yv = test::vec({0.1, 0.2, 0.3});
    for (int k = 0; k < 5; ++k) {
      NDArray r = f({xv, yv})[0];
      CHECK(r.at<double>({1, 2}) == doctest::Approx(std::tanh(6 * 0.3) + std::exp(0.3)));
    }
    const ProfileStats p = f.profile();
    CHECK(p.enabled);
    CHECK(p.calls == 5);
    CHECK(p.linker == "opwise");
    REQUIRE(p.build.nodes.size() == f.fgraph().toposort().size());
    for (const auto& n : p.build.nodes) CHECK(n.calls == 5);
    CHECK(p.build.compile_ms > 0);
    CHECK(p.build.source_bytes > 0);
    const std::string s = p.summary();
    CHECK(s.find("opwise_demo") != std::string::npos);
    CHECK(s.find("Compile time:") != std::string::npos);
    CHECK(s.find("computing 'out'") != std::string::npos);
    CHECK(s.find("Calls: 5") != std::string::npos);
  }

  TEST_CASE("profile off: compile breakdown only, calls not timed") {
    Var x = dvector("x");
    Function f = function({x}, {x + 1.0});
    f({test::vec({1})});
    const ProfileStats p = f.profile();
    CHECK_FALSE(p.enabled);
    CHECK(p.calls == 0);
    CHECK(p.build.compile_ms > 0);
    CHECK(p.summary().find("profiling is off") != std::string::npos);
  }

  TEST_CASE("THEANO_FLAGS keep_sources and log_compile") {
    ConfigGuard guard(with_flags({{"keep_sources", "True"}, {"log_compile", "1"}}));
    std::ostringstream captured;
    std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
    Var x = dvector("x");
    Function f;
    try {
      f = function({x}, {sqrt(x) + 3.0}, {.name = "kept"});
    } catch (...) {
      std::cerr.rdbuf(old);
      throw;
    }
    std::cerr.rdbuf(old);
    const std::string path = f.profile().build.source_path;
    REQUIRE_FALSE(path.empty());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("theano_entry") != std::string::npos);
    const std::string log = captured.str();
    CHECK(log.find("compiled function \"kept\"") != std::string::npos);
    CHECK(log.find("clang") != std::string::npos);
    CHECK(log.find(path) != std::string::npos);
    std::filesystem::remove(path);
  }

  TEST_CASE("THEANO_FLAGS cxxflags reach the compiler") {
    Var x = dvector("x");
    {
      // A macro the generated code does not use: compiles, same result.
      ConfigGuard guard(with_flags({{"cxxflags", "-DTHEANO_TEST_UNUSED=1 -fno-unroll-loops"}}));
      Function f = function({x}, {x * 2.0});
      CHECK(allclose(f({test::vec({1, 2})})[0], test::vec({2, 4})));
    }
    {
      // A flag the compiler rejects proves the flags are passed.
      ConfigGuard guard(with_flags({{"cxxflags", "-fthis-flag-does-not-exist"}}));
      CHECK_THROWS(function({x}, {x * 3.0}));
    }
  }

  TEST_CASE("THEANO_FLAGS codegen_threads: one or several threads give the same function, bad values are refused") {
    Var x = dvector("x"), y = dvector("y");
    // A graph of a few loops (thousands of IR instructions: split when allowed).
    Var out = exp(x) * y + tanh(x) - x * x / (1.0 + y);
    std::vector<Out> outs{out, tensor::sum(out * y), x * 3.0 + y, sqrt(abs(x)) * 2.0};
    std::vector<NDArray> want;
    for (const char* n : {"1", "2", "3"}) {
      CAPTURE(n);
      ConfigGuard guard(with_flags({{"codegen_threads", n}, {"compiledir", "off"}}));
      Function f = function({x, y}, outs);
      const auto got = f({test::vec({0.5, -1, 2}), test::vec({1, 2, 3})});
      if (want.empty()) want = got;
      for (std::size_t k = 0; k < got.size(); ++k) CHECK(allclose(got[k], want[k], 1e-15, 0));
    }
    for (const char* bad : {"-1", "two", "", "1000"}) {
      ConfigGuard guard(with_flags({{"codegen_threads", bad}}));
      CHECK_THROWS_WITH_AS(function({x}, {x + 2.0}), doctest::Contains("codegen_threads"), ValueError);
    }
  }

  TEST_CASE("a big graph compiles as several translation units on several threads, with the same results") {
    Var x = dmatrix("x"), y = dmatrix("y"), v = dvector("v");
    // Many loops that do not fuse into one (reductions over different axes,
    // broadcasts, several outputs): well over the split threshold.
    std::vector<Out> outs;
    Var a = tanh(x) * y + exp(-x * x);
    outs.push_back(tensor::sum(a, 0));
    outs.push_back(tensor::max(a * v, 1));
    outs.push_back(sqrt(abs(y - v)) + tensor::sum(y, 1, true));
    outs.push_back(tensor::sum(exp(y) / (1.0 + x * x)));
    outs.push_back(log1p(abs(x)) * tensor::mean(y, 0));
    outs.push_back(tensor::min(x - y * 2.0, 0) + v);
    NDArray xv = test::vec({0.5, -1, 2, 0.25, 3, -0.5}).reshape({2, 3});
    NDArray yv = test::vec({1, 2, 3, -1, 0.5, 4}).reshape({2, 3});
    NDArray vv = test::vec({0.1, -0.2, 0.3});
    std::vector<NDArray> want;
    for (const char* n : {"1", "2", "3"}) {
      CAPTURE(n);
      ConfigGuard guard(with_flags({{"codegen_threads", n}, {"compiledir", "off"}, {"keep_sources", "True"}}));
      Function f = function({x, y, v}, outs);
      const std::size_t units = f.profile().build.translation_units;
      CHECK(units == static_cast<std::size_t>(std::atoi(n)));
      // Cut into units, the entry is not optimized (it only calls the node
      // functions); one unit keeps it optimized.
      const std::string path = f.profile().build.source_path;
      REQUIRE(!path.empty());
      std::ifstream in(path);
      const std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      CHECK((src.find("extern \"C\" THEANO_UNOPTIMIZED int theano_entry(") != std::string::npos) == (units > 1));
      CHECK(src.find("int theano_entry(") != std::string::npos);
      std::filesystem::remove(path);
      const auto got = f({xv, yv, vv});
      if (want.empty()) want = got;
      for (std::size_t k = 0; k < got.size(); ++k) CHECK(array_equal(got[k], want[k]));
    }
  }

  TEST_CASE("THEANO_FLAGS device: cpu works, anything else is a clear error") {
    Var x = dvector("x");
    {
      ConfigGuard guard(with_flags({{"device", "cpu"}}));
      CHECK_NOTHROW(function({x}, {x + 1.0}));
    }
    ConfigGuard guard(with_flags({{"device", "cuda"}}));
    const std::string msg = test::error_of([&] { function({x}, {x + 1.0}); });
    CHECK(msg.find("device='cuda'") != std::string::npos);
    CHECK_THROWS_AS(function({x}, {x + 1.0}), ValueError);
  }

  TEST_CASE("trust_input skips filtering but never crashes on a wrong argument") {
    Var x = dvector("x");
    Function f = function({x}, {x * 3.0}, {.trust_input = true});
    CHECK(allclose(f({test::vec({1, 2})})[0], test::vec({3, 6})));
    // A float32 argument is not converted: the compiled code refuses it.
    CHECK_THROWS_AS(f({test::vec({1, 2}).astype(DType::Float32)}), TypeError);
    // Without trust_input it is converted.
    Function g = function({x}, {x * 3.0});
    CHECK(allclose(g({test::vec({1, 2}).astype(DType::Float32)})[0], test::vec({3, 6})));
  }

  TEST_CASE("functions compiled from several threads at once") {
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < 5; ++k) {
          Var x = dvector("x");
          const double c = t * 10 + k;
          Function f = function({x}, {tanh(x) * c + exp(x).sum()});
          const NDArray r = f({test::vec({0.0, 1.0})})[0];
          const double want = 0 * c + (1 + std::exp(1.0));
          ok[static_cast<std::size_t>(t)] += std::abs(r.at<double>({0}) - want) < 1e-12 ? 1 : 0;
        }
      });
    for (auto& th : threads) th.join();
    CHECK(ok == std::vector<int>(4, 5));
  }

  TEST_CASE("copies of a Function called from several threads") {
    Var x = dvector("x");
    Var acc = shared(test::vec({0}), "acc");
    Function f = function({x}, {x.sum()}, {.updates = {{acc, acc + x.sum()}}});
    std::vector<std::thread> threads;
    std::vector<double> totals(4, 0);
    std::vector<Function> copies;
    for (int t = 0; t < 4; ++t) copies.push_back(f.copy());
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < 100; ++k) copies[static_cast<std::size_t>(t)]({test::vec({1.0 * (t + 1)})});
        totals[static_cast<std::size_t>(t)] = copies[static_cast<std::size_t>(t)].shared_value(acc).at<double>({0});
      });
    for (auto& th : threads) th.join();
    CHECK(totals == std::vector<double>{100, 200, 300, 400});
    CHECK(get_value(acc).at<double>({0}) == 0);  // copies own their shared state
  }

  TEST_CASE("a run-time error names the node, the op, the user's variable and the shapes") {
    Var x = dvector("x");
    Var y = dvector("y");
    Var total = x + y;
    total->set_name("total");
    Function f = function({x, y}, {total * 2.0}, {.mode = "unoptimized"});
    const std::string msg = test::error_of([&] { f({test::vec({1, 2}), test::vec({1, 2, 3})}); });
    CHECK(msg.find("Elemwise{add") != std::string::npos);
    CHECK(msg.find("computing 'total' from 'x', 'y'") != std::string::npos);
    CHECK(msg.find("(2,), (3,)") != std::string::npos);
    CHECK_THROWS_AS(f({test::vec({1, 2}), test::vec({1, 2, 3})}), ShapeError);
  }
}

// The cycle test runs 2000 cycles (500 under AddressSanitizer, where LSan
// checks the leaks at exit anyway): at 10^4 it was the Release suite's long
// pole (258 s of one core), at 4000 still 223 s of CI's 60 minutes (and
// 1000 cycles 78 s under the sanitizers).
// THEANO_JIT_SOAK_CYCLES=N runs N cycles instead (README: the soak run). The
// bounds stay the same absolute amounts.
#if defined(THEANO_TESTS_SANITIZED)
constexpr int kJitDefaultCycles = 500, kJitWarmup = 125;
#else
constexpr int kJitDefaultCycles = 2000, kJitWarmup = 500;
#endif

static int jit_cycles() {
  const char* soak = std::getenv("THEANO_JIT_SOAK_CYCLES");
  if (!soak || !*soak) return kJitDefaultCycles;
  const int n = std::atoi(soak);
  REQUIRE_MESSAGE(n > kJitWarmup, "THEANO_JIT_SOAK_CYCLES must exceed the " << kJitWarmup << " warm-up cycles");
  return n;
}

TEST_SUITE("function with the JIT") {
  TEST_CASE("2000 functions compiled, called and destroyed (500 under ASan): memory does not grow") {
    const int kJitCycles = jit_cycles();
    // Each function has its own constant, so each is a distinct translation
    // unit with its own JITDylib, removed when the Function goes.
    Var x = dvector("x");
    auto cycle = [&](int i) {
      const double c = 1.0 + i * 1e-6;
      Function f = function({x}, {x * c + c}, {.mode = "fast_compile"});
      const NDArray r = f({test::vec({1.0, 2.0})})[0];
      return r.at<double>({1}) == 3 * c;
    };
    int good = 0;
    for (int i = 0; i < kJitWarmup; ++i) good += cycle(i);  // warm-up: allocator pools, caches
    const long long heap_before = theano_test::heap_in_use();
    const long long before = theano_test::rss_bytes();
    for (int i = kJitWarmup; i < kJitCycles; ++i) good += cycle(i);
    const long long growth = theano_test::rss_bytes() - before;
    const long long heap_growth = theano_test::heap_in_use() - heap_before;
    MESSAGE("Over the last " << kJitCycles - kJitWarmup << " of " << kJitCycles
                             << " compile/call/destroy cycles: live heap " << heap_growth / 1024 << " KiB, anonymous RSS "
                             << growth / 1024 << " KiB");
    CHECK(good == kJitCycles);
    CHECK(heap_growth < 1LL * 1024 * 1024);  // < 700 bytes a cycle over 1500 (Release)
    CHECK(growth < theano_test::rss_bound(16LL * 1024 * 1024));
  }
}

// Outside any namespace and not inlined: its name must show in the error.
__attribute__((noinline)) theano::Var build_bad_product(const theano::Var& x, const theano::Var& y) {
  theano::Var p = theano::tensor::tanh(x * y);
  p->set_name("bad_product");
  return p;
}

TEST_CASE("generated code: a run-time error names where the user created the failing value (traceback_limit)") {
  using namespace theano;
  Config c = config();
  c.traceback_limit = 4;
  ConfigGuard guard(c);
  Var x = tensor::dvector("x"), y = tensor::dvector("y");
  Var p = build_bad_product(x, y);
  Function f = function({x, y}, {p});  // the JIT (fused: one Composite node)
  const std::string e = test::error_of([&] { f({test::vec({1, 2}), test::vec({1, 2, 3})}); });
  CAPTURE(e);
  CHECK(e.find("node 0 (") == 0);
  CHECK(e.find("'bad_product' was created at:") != std::string::npos);
  CHECK(e.find("build_bad_product") != std::string::npos);
}
