/// \file
/// JitLoader: compile + load + call of a generated-style TU, error codes through
/// the C ABI, OpenBLAS and libmvec resolution, module removal with the last handle,
/// link errors as LoadError, and a compile/load/destroy loop whose memory stays flat.
#include <theano/runtime/blas_library.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>

#include "codegen/jit_test_util.h"
#include "test_util.h"

#include <algorithm>
#include <cmath>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

using namespace theano::codegen;

namespace {
CompileOptions o0() {
  CompileOptions o;
  o.opt = OptLevel::O0;
  return o;
}
}  // namespace

TEST_CASE("JitLoader: compile, load and call an elementwise kernel") {
  for (OptLevel level : {OptLevel::O0, OptLevel::O2}) {
    CompileOptions o;
    o.opt = level;
    auto obj = ClangCompiler(o).compile(theano_test::elemwise_source());
    LoadedModule m = JitLoader::instance().load(obj.bytes, "elemwise");
    REQUIRE(m);
    CHECK(m.name().find("theano_elemwise_") == 0);
    auto entry = m.function<theano_test::ElemwiseEntry>("jit_entry");
    REQUIRE(static_cast<bool>(entry));

    constexpr int n = 1001;  // odd: exercises the vector loop's remainder
    std::vector<double> x(n), y(n), z(n, -1.0);
    for (int i = 0; i < n; ++i) {
      x[i] = 0.01 * i - 3.0;
      y[i] = 1.5 - 0.002 * i;
    }
    void* in[] = {x.data(), y.data()};
    void* out[] = {z.data()};
    char msg[64] = "untouched";
    REQUIRE(entry(in, out, n, msg, sizeof msg) == 0);
    for (int i = 0; i < n; ++i) CHECK(z[i] == doctest::Approx(theano_test::elemwise_reference(x[i], y[i])).epsilon(1e-14));

    // An error travels back as a code and a message, never as a crash.
    CHECK(entry(in, out, -1, msg, sizeof msg) == 3);
    CHECK(std::string(msg) == "jit_entry: negative size");
    char tiny[5];
    CHECK(entry(in, out, -1, tiny, sizeof tiny) == 3);
    CHECK(std::string(tiny) == "jit_");
  }
  CHECK(JitLoader::instance().target_triple().find("x86_64") == 0);
}

TEST_CASE("JitLoader: generated code calls OpenBLAS cblas_dgemm, through runtime's forwarder") {
  auto obj = ClangCompiler().compile(theano_test::gemm_source());
  LoadedModule m = JitLoader::instance().load(obj.bytes, "gemm");
  auto gemm = m.function<int (*)(const double*, const double*, double*, int, int, int)>("jit_gemm");
  const int M = 37, N = 29, K = 41;
  std::vector<double> a(M * K), b(K * N), c(M * N, 0.0);
  for (int i = 0; i < M * K; ++i) a[i] = std::sin(0.1 * i);
  for (int i = 0; i < K * N; ++i) b[i] = std::cos(0.07 * i);
  REQUIRE(gemm(a.data(), b.data(), c.data(), M, N, K) == 0);
  double max_err = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double ref = 0;
      for (int k = 0; k < K; ++k) ref += a[i * K + k] * b[k * N + j];
      max_err = std::max(max_err, std::abs(ref - c[i * N + j]));
    }
  CHECK(max_err < 1e-12);

  // The symbol bound to runtime's forwarder (theano/runtime/blas_library.h),
  // which opened OpenBLAS on the call.
  void* addr = m.function<void* (*)()>("jit_dgemm_address")();
  void* forwarder = nullptr;
  for (const auto& f : theano::runtime::blas_functions())
    if (std::string(f.name) == "cblas_dgemm") forwarder = f.address;
  CHECK(addr == forwarder);
  CHECK(theano::runtime::blas_loaded());
  CHECK(JitLoader::instance().runtime_library_errors().empty());
}

TEST_CASE("JitLoader: vectorized exp resolves libmvec and matches libm") {
  auto obj = ClangCompiler().compile(theano_test::exp_source());
  LoadedModule m = JitLoader::instance().load(obj.bytes, "exp");
  auto f = m.function<int (*)(const double*, double*, long long)>("jit_exp");
  constexpr int n = 1027;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = -20.0 + 40.0 * i / n;
  REQUIRE(f(x.data(), y.data(), n) == 0);
  for (int i = 0; i < n; ++i) CHECK(y[i] == doctest::Approx(std::exp(x[i])).epsilon(1e-14));
  // The vector variants resolve into glibc's libmvec through the loader.
  auto probe = ClangCompiler().compile(
      "extern \"C\" void _ZGVdN4v_exp(); extern \"C\" void _ZGVbN2v_exp();\n"
      "extern \"C\" void* mvec4() { return (void*)&_ZGVdN4v_exp; }\n"
      "extern \"C\" void* mvec2() { return (void*)&_ZGVbN2v_exp; }\n");
  LoadedModule pm = JitLoader::instance().load(probe.bytes, "mvec_probe");
  for (const char* fn : {"mvec4", "mvec2"}) {
    Dl_info info{};
    REQUIRE(::dladdr(pm.function<void* (*)()>(fn)(), &info) != 0);
    REQUIRE(info.dli_fname != nullptr);
    CHECK_MESSAGE(std::string(info.dli_fname).find("libmvec") != std::string::npos, info.dli_fname);
  }
}

TEST_CASE("JitLoader: the module goes away with its last handle") {
  auto& jit = JitLoader::instance();
  auto obj = ClangCompiler(o0()).compile(theano_test::elemwise_source());
  const std::size_t before = jit.live_modules();
  std::string name;
  {
    LoadedModule m = jit.load(obj.bytes, "scoped");
    name = m.name();
    CHECK(jit.live_modules() == before + 1);
    void* p = m.symbol("jit_entry");
    CHECK(jit.find_symbol(name, "jit_entry") == p);
    LoadedModule copy = m;
    CHECK(m.use_count() == 2);
  }
  CHECK(jit.live_modules() == before);
  CHECK(jit.find_symbol(name, "jit_entry") == nullptr);
  CHECK(jit.find_symbol("theano_no_such_module", "jit_entry") == nullptr);

  // Missing symbols and unresolved externals are LoadErrors, not crashes.
  LoadedModule m = jit.load(obj.bytes, "missing");
  CHECK_THROWS_AS(m.symbol("no_such_entry"), LoadError);
  CHECK(jit.find_symbol(m.name(), "no_such_entry") == nullptr);
  auto unresolved = ClangCompiler().compile(
      "extern \"C\" void theano_missing_fn_xyz(); extern \"C\" int jit_entry() { theano_missing_fn_xyz(); return 0; }");
  LoadedModule u = jit.load(unresolved.bytes, "unresolved");
  try {
    u.symbol("jit_entry");
    FAIL("expected LoadError");
  } catch (const LoadError& e) {
    CHECK_MESSAGE(std::string(e.what()).find("theano_missing_fn_xyz") != std::string::npos, e.what());
  }
  CHECK_THROWS_AS(jit.load("not an object file", "garbage"), LoadError);
  CHECK_THROWS_AS(LoadedModule().symbol("x"), theano::ValueError);
}

TEST_CASE("JitLoader: modules load and run from several threads") {
  constexpr int kThreads = 4;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 3; ++i) {
          double scale = 100.0 * t + i;
          auto obj = ClangCompiler(o0()).compile(theano_test::elemwise_source(scale));
          LoadedModule m = JitLoader::instance().load(obj.bytes, "thread");
          double x = 0.5, y = 0.25, z = 0;
          void* in[] = {&x, &y};
          void* out[] = {&z};
          char msg[8];
          if (m.function<theano_test::ElemwiseEntry>("jit_entry")(in, out, 1, msg, 8) != 0 ||
              std::abs(z - theano_test::elemwise_reference(x, y, scale)) > 1e-12)
            failures[t] = "wrong result for scale " + std::to_string(scale);
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& f : failures) CHECK_MESSAGE(f.empty(), f);
}

TEST_CASE("JitLoader: 300 compile + load + call + destroy cycles keep memory flat") {
  auto cycle = [](int i) {
    auto obj = ClangCompiler(o0()).compile(theano_test::elemwise_source(i));
    LoadedModule m = JitLoader::instance().load(obj.bytes, "loop");
    double x = 1.0, y = 2.0, z = 0;
    void* in[] = {&x, &y};
    void* out[] = {&z};
    char msg[8];
    return m.function<theano_test::ElemwiseEntry>("jit_entry")(in, out, 1, msg, 8) == 0 &&
           std::abs(z - theano_test::elemwise_reference(x, y, i)) < 1e-12;
  };
  int good = 0;
  for (int i = 0; i < 30; ++i) good += cycle(i);  // warm-up: allocator pools, caches
  const std::size_t live = JitLoader::instance().live_modules();
  const long long heap_before = theano_test::heap_in_use();
  const long long before = theano_test::rss_bytes();
  for (int i = 30; i < 330; ++i) good += cycle(i);
  const long long growth = theano_test::rss_bytes() - before;
  const long long heap_growth = theano_test::heap_in_use() - heap_before;
  MESSAGE("Over 300 cycles: live heap " << heap_growth / 1024 << " KiB, anonymous RSS " << growth / 1024 << " KiB");
  CHECK(good == 330);
  CHECK(JitLoader::instance().live_modules() == live);
  CHECK(heap_growth < 512LL * 1024);
  CHECK(growth < theano_test::rss_bound(40LL * 1024 * 1024));
}

TEST_CASE("export_shared_object: a PIC object becomes a loadable .so") {
  CompileOptions o;
  o.pic = true;
  auto obj = ClangCompiler(o).compile(theano_test::gemm_source());
  std::string path = "/tmp/theano-export-test-" + std::to_string(::getpid()) + ".so";
  export_shared_object(obj.bytes, path);
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE_MESSAGE(h != nullptr, ::dlerror());
  CHECK(::dlsym(h, "jit_gemm") != nullptr);
  ::dlclose(h);
  std::remove(path.c_str());
}

TEST_CASE("parallel code generation: a module split over two threads loads and runs as one") {
  CompileOptions o;
  o.codegen_threads = 2;
  auto obj = ClangCompiler(o).compile(theano_test::elemwise_source() + theano_test::gemm_source());
  const auto parts = unbundle_objects(obj.bytes);
  CHECK(parts.size() == 2);
  for (std::string_view p : parts) CHECK(p.substr(0, 4) == "\x7f" "ELF");
  LoadedModule m = JitLoader::instance().load(obj.bytes, "split");
  auto entry = m.function<theano_test::ElemwiseEntry>("jit_entry");
  auto gemm = m.function<int (*)(const double*, const double*, double*, int, int, int)>("jit_gemm");
  REQUIRE(static_cast<bool>(entry));
  REQUIRE(static_cast<bool>(gemm));
  std::vector<double> x{0.5, -1, 2}, y{1, 2, 3}, z(3);
  void* in[] = {x.data(), y.data()};
  void* out[] = {z.data()};
  char msg[64];
  REQUIRE(entry(in, out, 3, msg, sizeof msg) == 0);
  for (int i = 0; i < 3; ++i) CHECK(z[i] == doctest::Approx(theano_test::elemwise_reference(x[i], y[i])).epsilon(1e-14));
  std::vector<double> a{1, 2, 3, 4}, b{5, 6, 7, 8}, c(4);
  REQUIRE(gemm(a.data(), b.data(), c.data(), 2, 2, 2) == 0);
  CHECK(c == std::vector<double>{19, 22, 43, 50});
  // The same source on one thread is a plain ELF object.
  o.codegen_threads = 1;
  const auto one = ClangCompiler(o).compile(theano_test::elemwise_source() + theano_test::gemm_source());
  CHECK(unbundle_objects(one.bytes).size() == 1);
  CHECK(one.bytes.substr(0, 4) == "\x7f" "ELF");
  // Exported as one .so.
  std::string path = "/tmp/theano-export-split-" + std::to_string(::getpid()) + ".so";
  export_shared_object(obj.bytes, path);
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE_MESSAGE(h != nullptr, ::dlerror());
  CHECK(::dlsym(h, "jit_gemm") != nullptr);
  CHECK(::dlsym(h, "jit_entry") != nullptr);
  ::dlclose(h);
  std::remove(path.c_str());
}

TEST_CASE("object bundles: round trip, a damaged bundle is a LoadError") {
  const std::string b = bundle_objects({"first", std::string("sec\0nd", 6)});
  const auto parts = unbundle_objects(b);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0] == "first");
  CHECK(parts[1] == std::string_view("sec\0nd", 6));
  CHECK(bundle_objects({"only"}) == "only");
  CHECK_THROWS_AS(unbundle_objects(b.substr(0, b.size() - 1)), LoadError);
  CHECK_THROWS_AS(unbundle_objects(b.substr(0, 20)), LoadError);
  CHECK_THROWS_AS(JitLoader::instance().load(b.substr(0, b.size() - 2), "damaged"), LoadError);
  CHECK_THROWS_AS(JitLoader::instance().load(b, "not_objects"), LoadError);
}
