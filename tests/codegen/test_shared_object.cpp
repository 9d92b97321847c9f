/// \file
/// The compiledir's shared libraries (codegen/src/load/shared_object.h): objects
/// linked by lld in-process, dlopen'ed from their checked compiledir file or a
/// sealed memfd, really unloaded
/// with their last handle; refusals are LoadErrors naming what failed; and a
/// function whose cached library cannot be loaded still runs, through ORC.
#include <theano/cache/compile_cache.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/jit_loader.h>
#include <theano/config.h>
#include <theano/runtime/blas_library.h>
#include <theano/theano.hpp>

#include "../../codegen/src/load/shared_object.h"
#include "codegen/jit_test_util.h"
#include "temp_dir.h"
#include "test_util.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

using namespace theano;
using namespace theano::codegen;
namespace fs = std::filesystem;

namespace {

/// Whether /proc/self/maps has a mapping whose path contains `needle`.
bool mapped(const std::string& needle) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

std::size_t mapping_count() {
  std::ifstream maps("/proc/self/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(maps, line);) ++n;
  return n;
}

bool runs_right(const LoadedModule& m, double scale) {
  double x = 1.5, y = -2.0, z = 0;
  void* in[] = {&x, &y};
  void* out[] = {&z};
  char msg[8];
  return m.function<theano_test::ElemwiseEntry>("jit_entry")(in, out, 1, msg, 8) == 0 &&
         std::abs(z - theano_test::elemwise_reference(x, y, scale)) < 1e-12;
}

/// A fresh compiledir in a temporary directory, the process's for the scope
/// (functions then load their code as shared libraries).
struct TempCompiledir {
  static Config with(const fs::path& dir) {
    Config c = config();
    c.flags["compiledir"] = dir.string();
    return c;
  }
  test::TempDir tmp;
  const fs::path dir = tmp.path / "cd";
  ConfigGuard guard{with(dir)};
};

/// The compiledir key of the shared library of `build()`'s function, which is
/// compiled, linked, published and loaded (from a memfd), then dropped.
std::string compile_and_drop(const std::function<Function()>& build) {
  Function f = build();
  CHECK(f.profile().build.shared_library);
  return codegen::detail::shared_object_key(f.profile().build.cache_key);
}

}  // namespace

TEST_SUITE("shared libraries") {
  TEST_CASE("link_shared_object: an object runs as a dlopen'ed library, unloaded with its last handle") {
    const CompiledObject obj = ClangCompiler().compile(theano_test::elemwise_source(3.0));
    const std::string lib = codegen::detail::link_shared_object(obj.bytes);
    REQUIRE(lib.size() > 64);
    CHECK(lib.compare(0, 4, "\x7f" "ELF") == 0);
    CHECK(static_cast<unsigned char>(lib[16]) == 3);  // e_type ET_DYN: a shared object

    const std::size_t live = JitLoader::instance().live_modules();
    std::string name;
    {
      LoadedModule m = JitLoader::instance().load_shared_object(lib, "solib", "");
      REQUIRE(m);
      CHECK(m.is_shared_library());
      name = m.name();
      CHECK(name.find("theano_solib_") == 0);
      CHECK(mapped("/memfd:" + name));
      CHECK(JitLoader::instance().live_modules() == live + 1);
      CHECK(runs_right(m, 3.0));
      const std::string msg = test::error_of([&] { (void)m.symbol("no_such_symbol"); });
      CHECK(msg.find(name) != std::string::npos);
      CHECK(msg.find("no_such_symbol") != std::string::npos);
      CHECK_THROWS_AS((void)m.symbol("no_such_symbol"), LoadError);
    }
    // dlclose really unmapped it: no STB_GNU_UNIQUE symbol pinned it.
    CHECK(JitLoader::instance().live_modules() == live);
    CHECK_FALSE(mapped("/memfd:" + name));
  }

  TEST_CASE("load_shared_object: a verified file is dlopen'ed itself, one dlopen refuses falls back to the bytes") {
    const CompiledObject obj = ClangCompiler().compile(theano_test::elemwise_source(2.5));
    const std::string lib = codegen::detail::link_shared_object(obj.bytes);
    test::TempDir d;
    auto open_file = [&](const char* file, const std::string& bytes) {
      std::ofstream(d.path / file, std::ios::binary) << bytes;
      const int fd = ::open((d.path / file).c_str(), O_RDONLY | O_CLOEXEC);
      REQUIRE(fd >= 0);
      return fd;
    };
    const std::size_t live = JitLoader::instance().live_modules();
    {
      const int fd = open_file("lib.so", lib);
      LoadedModule m = JitLoader::instance().load_shared_object(lib, "direct", "", fd);
      ::close(fd);  // the module keeps its own mapping
      CHECK(m.is_shared_library());
      CHECK(runs_right(m, 2.5));
      CHECK(mapped((d.path / "lib.so").string()));  // the file itself, no memfd copy
      CHECK_FALSE(mapped("/memfd:" + m.name()));
    }
    CHECK(JitLoader::instance().live_modules() == live);
    CHECK_FALSE(mapped((d.path / "lib.so").string()));  // unloaded with its handle
    {
      // The same file again while it is loaded: glibc would hand back the
      // first module under a second name, so the second comes from a memfd.
      const int fd1 = open_file("lib.so", lib);
      std::optional<LoadedModule> first = JitLoader::instance().load_shared_object(lib, "first", "", fd1);
      LoadedModule second = JitLoader::instance().load_shared_object(lib, "second", "", fd1);
      ::close(fd1);
      CHECK(mapped("/memfd:" + second.name()));
      first.reset();
      // Other code under the first one's name, while the second lives.
      const std::string other = codegen::detail::link_shared_object(
          ClangCompiler().compile(theano_test::elemwise_source(6.5)).bytes);
      const int fd2 = open_file("other.so", other);
      LoadedModule third = JitLoader::instance().load_shared_object(other, "third", "", fd2);
      ::close(fd2);
      CHECK(runs_right(third, 6.5));
      CHECK(runs_right(second, 2.5));
    }
    // A descriptor whose file dlopen refuses: the bytes, from a sealed memfd.
    const int fd = open_file("not-elf.so", "not a shared library");
    LoadedModule m = JitLoader::instance().load_shared_object(lib, "fallback", "", fd);
    ::close(fd);
    CHECK(runs_right(m, 2.5));
    CHECK(mapped("/memfd:" + m.name()));
  }

  TEST_CASE("load_shared_object: one module per key while a handle lives, an unresolved symbol is a LoadError") {
    const CompiledObject obj = ClangCompiler().compile(theano_test::elemwise_source(4.0));
    const std::string lib = codegen::detail::link_shared_object(obj.bytes);
    LoadedModule a = JitLoader::instance().load_shared_object(lib, "solib", "key-of-a-test");
    LoadedModule b = JitLoader::instance().load_shared_object(lib, "solib", "key-of-a-test");
    CHECK(a.name() == b.name());
    CHECK(a.use_count() == 2);  // the loader's own entry is weak
    CHECK(runs_right(b, 4.0));
    // Other code while these live: its own module (each memfd is closed after
    // dlopen, so the next one reuses its number: the names must not clash).
    for (double scale : {7.0, 8.0, 9.0}) {
      const std::string other = codegen::detail::link_shared_object(
          ClangCompiler().compile(theano_test::elemwise_source(scale)).bytes);
      LoadedModule c = JitLoader::instance().load_shared_object(other, "solib", "");
      CHECK(c.name() != a.name());
      CHECK(runs_right(c, scale));
      CHECK(runs_right(a, 4.0));
    }

    // lld leaves undefined symbols to the loader; RTLD_NOW refuses them, by name.
    const CompiledObject missing = ClangCompiler().compile(
        "extern \"C\" double theano_test_nowhere_defined(double);\n"
        "extern \"C\" double call_it(double x) { return theano_test_nowhere_defined(x); }\n");
    const std::string bad = codegen::detail::link_shared_object(missing.bytes);
    const std::string msg = test::error_of([&] { (void)JitLoader::instance().load_shared_object(bad, "bad", ""); });
    CHECK(msg.find("theano_test_nowhere_defined") != std::string::npos);
    CHECK(msg.find("theano_bad_") != std::string::npos);
    CHECK_THROWS_AS((void)JitLoader::instance().load_shared_object(bad, "bad", ""), LoadError);
  }

  TEST_CASE("load_shared_object: the program links libmvec, and a library's vector calls resolve in it") {
    // libmvec is a load-time dependency of theano_codegen (codegen/CMakeLists.txt):
    // loaded before any function, so no warm start pays its dlopen.
    CHECK(::dlopen("libmvec.so.1", RTLD_NOLOAD | RTLD_LAZY) != nullptr);
    CHECK(mapped("libmvec"));
    // No vector math: the library loads and runs.
    const std::string plain =
        codegen::detail::link_shared_object(ClangCompiler().compile(theano_test::elemwise_source(5.0)).bytes);
    REQUIRE(plain.find("_ZGV") == std::string::npos);
    LoadedModule a = JitLoader::instance().load_shared_object(plain, "plain", "");
    CHECK(runs_right(a, 5.0));
    // A loop of exp the optimizer vectorizes through libmvec: the library's
    // vector calls resolve there.
    const CompiledObject vec = ClangCompiler().compile(
        "extern \"C\" double exp(double);\n"
        "extern \"C\" void vexp(double* __restrict o, const double* __restrict a, long n) {\n"
        "  for (long i = 0; i < n; ++i) o[i] = exp(a[i]);\n"
        "}\n");
    const std::string lib = codegen::detail::link_shared_object(vec.bytes);
    REQUIRE(lib.find("_ZGV") != std::string::npos);
    LoadedModule b = JitLoader::instance().load_shared_object(lib, "vexp", "");
    std::vector<double> in(37), out(37);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = -3.0 + 0.17 * static_cast<double>(i);
    const auto fn = b.function<void (*)(double*, const double*, long)>("vexp");
    fn(out.data(), in.data(), static_cast<long>(in.size()));
    for (std::size_t i = 0; i < in.size(); ++i) CHECK(out[i] == doctest::Approx(std::exp(in[i])).epsilon(1e-14));
  }

  TEST_CASE("load_shared_object: OpenBLAS is opened only for a library that names one of its functions") {
    // Each ctest case is its own process; this binary does not link OpenBLAS.
    if (theano::runtime::blas_loaded() || mapped("libopenblas")) {
      MESSAGE("skipped: OpenBLAS is already open in this process");
      return;
    }
    const std::string plain =
        codegen::detail::link_shared_object(ClangCompiler().compile(theano_test::elemwise_source(7.0)).bytes);
    LoadedModule a = JitLoader::instance().load_shared_object(plain, "plain", "");
    CHECK(runs_right(a, 7.0));
    CHECK_FALSE(mapped("libopenblas"));
    // cblas_dgemm undefined: the first dlopen fails, OpenBLAS is opened
    // RTLD_GLOBAL, and the second binds the library's own function.
    const std::string gemm =
        codegen::detail::link_shared_object(ClangCompiler().compile(theano_test::gemm_source()).bytes);
    LoadedModule b = JitLoader::instance().load_shared_object(gemm, "gemm", "");
    CHECK(mapped("libopenblas"));
    const double x[] = {1, 2, 3, 4}, y[] = {5, 6, 7, 8};
    double z[4] = {};
    REQUIRE(b.function<int (*)(const double*, const double*, double*, int, int, int)>("jit_gemm")(x, y, z, 2, 2, 2) ==
            0);
    CHECK(z[0] == 19);
    CHECK(z[1] == 22);
    CHECK(z[2] == 43);
    CHECK(z[3] == 50);
    Dl_info info{};
    REQUIRE(::dladdr(b.function<void* (*)()>("jit_dgemm_address")(), &info) != 0);
    REQUIRE(info.dli_fname != nullptr);
    CHECK_MESSAGE(std::string(info.dli_fname).find("openblas") != std::string::npos, info.dli_fname);
  }

  TEST_CASE("function(): a function without BLAS never opens OpenBLAS, a product opens it on its first call") {
    if (theano::runtime::blas_loaded() || mapped("libopenblas")) {
      MESSAGE("skipped: OpenBLAS is already open in this process");
      return;
    }
    const TempCompiledir compiledir;  // the functions load as shared libraries
    Var x = tensor::dmatrix("x");
    Function f = function({x}, {tensor::tanh(x) * 2.0});
    const NDArray a = NDArray::from_vector<double>({0.5, -1, 2, 0}, {2, 2});
    CHECK(f({a})[0].data_as<double>()[0] == doctest::Approx(2 * std::tanh(0.5)));
    CHECK(f.profile().build.shared_library);
    CHECK_FALSE(mapped("libopenblas"));
    Function g = function({x}, {tensor::dot(x, x)});
    CHECK(g.profile().build.shared_library);
    CHECK_FALSE(mapped("libopenblas"));  // compiled and loaded, not yet called
    const NDArray p = g({a})[0];
    CHECK(p.data_as<double>()[0] == doctest::Approx(0.5 * 0.5 + -1 * 2));
    CHECK(p.data_as<double>()[3] == doctest::Approx(-1 * 2 + 0 * 0));
    CHECK(mapped("libopenblas"));
  }

  TEST_CASE("link_shared_object: bytes that are no object are a LoadError with lld's message") {
    const std::string msg =
        test::error_of([] { (void)codegen::detail::link_shared_object("this is not an ELF object"); });
    CHECK(msg.find("lld failed") != std::string::npos);
    CHECK_THROWS_AS((void)codegen::detail::link_shared_object("this is not an ELF object"), LoadError);
    // lld is usable afterwards.
    const CompiledObject obj = ClangCompiler().compile(theano_test::elemwise_source(5.0));
    CHECK_FALSE(codegen::detail::link_shared_object(obj.bytes).empty());
  }

  TEST_CASE("shared libraries: 300 link + load + call + unload cycles keep memory and mappings flat") {
    const CompiledObject obj = ClangCompiler().compile(theano_test::elemwise_source(6.0));
    auto cycle = [&] {
      const std::string lib = codegen::detail::link_shared_object(obj.bytes);
      const LoadedModule m = JitLoader::instance().load_shared_object(lib, "cyc", "");
      return runs_right(m, 6.0);
    };
    int good = 0;
    for (int i = 0; i < 30; ++i) good += cycle();  // warm-up
    const long long heap_before = theano_test::heap_in_use();
    const long long before = theano_test::rss_bytes();
    const std::size_t maps_before = mapping_count();
    for (int i = 0; i < 300; ++i) good += cycle();
    const long long growth = theano_test::rss_bytes() - before;
    const long long heap_growth = theano_test::heap_in_use() - heap_before;
    MESSAGE("Over 300 cycles: live heap " << heap_growth / 1024 << " KiB, anonymous RSS " << growth / 1024 << " KiB");
    CHECK(good == 330);
    CHECK(mapping_count() <= maps_before + 4);
    CHECK(heap_growth < 512LL * 1024);
    CHECK(growth < theano_test::rss_bound(8LL * 1024 * 1024));
  }

  TEST_CASE("a function found in the compiledir maps its library's file there, not a copy") {
    const TempCompiledir compiledir;
    const fs::path& dir = compiledir.dir;
    Var x = tensor::dvector("x");
    auto build = [&] { return function({x}, {tensor::sin(x) * 1.5 - 0.5}); };
    const std::string so_key = compile_and_drop(build);  // loaded from a memfd
    const fs::path file = dir / kLibrariesDir / so_key.substr(0, 2) / (so_key + ".o");
    REQUIRE(fs::exists(file));
    CHECK_FALSE(mapped(file.string()));
    Function g = build();
    CHECK(g.profile().build.cache == "hit");
    CHECK(g.profile().build.shared_library);
    CHECK(mapped(file.string()));
    const NDArray r = g({test::vec({0.0, 1.0})})[0];
    CHECK(r.at<double>({0}) == doctest::Approx(-0.5));
    CHECK(r.at<double>({1}) == doctest::Approx(1.5 * std::sin(1.0) - 0.5));
  }

  TEST_CASE("a cached shared library that cannot be loaded: the function still runs, through ORC") {
    const TempCompiledir compiledir;
    const fs::path& dir = compiledir.dir;
    Var x = tensor::dvector("x");
    auto build = [&] { return function({x}, {tensor::exp(x) * 3.0 + 0.25}); };
    // Replace the library entry with bytes that pass the cache's checks (its
    // own CRC) but that dlopen refuses.
    const std::string so_key = compile_and_drop(build);
    for (const char* ext : {".o", ".meta"}) {
      const fs::path p = dir / kLibrariesDir / so_key.substr(0, 2) / (so_key + ext);
      REQUIRE(fs::exists(p));
      fs::remove(p);
    }
    {
      cache::CompileCache writer(dir / kLibrariesDir);
      writer.get_or_produce(so_key, [] {
        cache::Entry e{"\x7f" "ELF but not really a shared library", "", 0, "a test's damaged library"};
        e.kind = codegen::detail::kSharedObjectKind;
        return e;
      });
    }
    Function g = build();
    CHECK_FALSE(g.profile().build.shared_library);
    CHECK(g.profile().build.cache == "hit");
    const NDArray r = g({test::vec({0.0, 1.0})})[0];
    CHECK(r.at<double>({0}) == doctest::Approx(3.25));
    CHECK(r.at<double>({1}) == doctest::Approx(3 * std::exp(1.0) + 0.25));
  }
}
