// OpenBLAS opened on its first call (theano/runtime/blas_library.h): nothing
// opens it before a BLAS call, a thread count set before waits for it, the
// forwarders reach the library (CBLAS and LAPACK), and a library without the
// functions is refused with a message naming it and the missing function.
#include <doctest/doctest.h>

#include <theano/runtime/blas_library.h>
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/linalg_call.h>

#include <cblas.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "spawn_child.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using theano::runtime::kBlasLibrary;

bool mapped() {
  void* h = ::dlopen(kBlasLibrary, RTLD_NOLOAD | RTLD_LAZY);
  if (h) ::dlclose(h);
  return h != nullptr;
}

// The child cases: the parent sets kChildVar to what the child does.
constexpr const char* kChildVar = "THEANO_TEST_BLAS_LIBRARY_CHILD";
constexpr const char* kRefusedCase = "blas_library: a library without the BLAS functions is refused by name";
constexpr const char* kKeptCase = "blas_library: a process that sets OPENBLAS_CORETYPE keeps its choice";

/// Runs this binary's case `name` in a child with kChildVar=`what` and `env`
/// (replacing those names in this environment); its standard output.
std::string run_child(const std::string& what, const char* name, std::vector<std::string> env) {
  theano::test::TempDir dir("blas_library_child");
  env.push_back(std::string(kChildVar) + "=" + what);
  const fs::path out = dir.path / "out.txt";
  const pid_t pid = theano::test::spawn_child({"/proc/self/exe", std::string("-tc=") + name}, env, out);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  CAPTURE(text.str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return text.str();
}

}  // namespace

TEST_CASE("blas_library: OpenBLAS opens on the first call, with the thread count set before it") {
  if (theano::runtime::blas_loaded()) {
    MESSAGE("skipped: an earlier case of this process opened OpenBLAS (ctest runs each case alone)");
    return;
  }
  // This binary links no OpenBLAS: nothing has opened it yet.
  REQUIRE_FALSE(mapped());
  openblas_set_num_threads(1);
  CHECK(openblas_get_num_threads() == 1);  // the kept count, without opening the library
  CHECK_FALSE(theano::runtime::blas_loaded());
  CHECK_FALSE(mapped());

  const double x[] = {1, 2, 3}, y[] = {4, 5, -6};
  CHECK(cblas_ddot(3, x, 1, y, 1) == doctest::Approx(-4.0));
  CHECK(theano::runtime::blas_loaded());
  CHECK(mapped());
  CHECK(openblas_get_num_threads() == 1);  // set when the library opened

  // A LAPACK forwarder (hidden string-length arguments included): the LU of
  // [[2, 1], [4, 3]] (column-major {2, 4, 1, 3}) pivots row 2 first.
  double a[] = {2, 4, 1, 3};
  int n = 2, ipiv[2] = {0, 0}, info = -1;
  dgetrf_(&n, &n, a, &n, ipiv, &info);
  CHECK(info == 0);
  CHECK(ipiv[0] == 2);
  CHECK(a[0] == 4);                         // U[0][0]
  CHECK(a[1] == doctest::Approx(0.5));      // L[1][0]
  CHECK(a[3] == doctest::Approx(-0.5));     // U[1][1] = 1 - 0.5 * 3
  double b[] = {3, 7};  // solve [[2, 1], [4, 3]] z = (3, 7): z = (1, 1)
  int one = 1;
  dgetrs_("N", &n, &one, a, &n, ipiv, b, &n, &info, 1);
  CHECK(info == 0);
  CHECK(b[0] == doctest::Approx(1.0));
  CHECK(b[1] == doctest::Approx(1.0));
}

TEST_CASE("blas_library: every forwarder names a function of the library, once") {
  theano::runtime::load_blas();
  void* h = ::dlopen(kBlasLibrary, RTLD_NOLOAD | RTLD_LAZY);
  REQUIRE(h != nullptr);
  std::set<std::string> names;
  std::set<void*> addresses;
  for (const auto& f : theano::runtime::blas_functions()) {
    CAPTURE(f.name);
    CHECK(names.insert(f.name).second);
    CHECK(f.address != nullptr);
    CHECK(addresses.insert(f.address).second);
    CHECK(::dlsym(h, f.name) != nullptr);
  }
  ::dlclose(h);
  // CBLAS's gemm, gemv, ger and dot, 4 openblas_* and 15 LAPACK (and BLAS 3) routines, per type.
  CHECK(names.size() == 42);
  CHECK(names.count("cblas_dgemm") == 1);
  CHECK(names.count("dgesdd_") == 1);
}

TEST_CASE("blas_library: on a CPU with AVX2 and FMA, OpenBLAS does not run its Prescott kernels") {
  if (std::getenv("OPENBLAS_CORETYPE")) {
    MESSAGE("skipped: OPENBLAS_CORETYPE is set, and chooses the kernels");
    return;
  }
  theano::runtime::load_blas();
  const std::string core = openblas_get_corename();
  MESSAGE("OpenBLAS's kernels here: " << core);
  CHECK(std::getenv("OPENBLAS_CORETYPE") == nullptr);  // set for the reopening alone
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) CHECK(core != "Prescott");
  // The kernels compute: a 64x64 product against a plain loop.
  std::vector<double> a(64 * 64), b(64 * 64), c(64 * 64, 0.0);
  for (int i = 0; i < 64 * 64; ++i) {
    a[i] = std::sin(0.37 * i);
    b[i] = std::cos(0.11 * i);
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1.0, a.data(), 64, b.data(), 64, 0.0, c.data(),
              64);
  double worst = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      double ref = 0;
      for (int k = 0; k < 64; ++k) ref += a[i * 64 + k] * b[k * 64 + j];
      worst = std::max(worst, std::abs(ref - c[i * 64 + j]));
    }
  CHECK(worst < 1e-12);
}

TEST_CASE(kKeptCase) {
  if (const char* child = std::getenv(kChildVar); child && std::string(child) == "core") {
    theano::runtime::load_blas();
    std::printf("core %s\n", openblas_get_corename());
    return;
  }
  // The user's choice stands: a process with OPENBLAS_CORETYPE=Prescott keeps it.
  const std::string out = run_child("core", kKeptCase, {"OPENBLAS_CORETYPE=Prescott"});
  CHECK(out.find("core Prescott") != std::string::npos);
}

TEST_CASE(kRefusedCase) {
  if (const char* child = std::getenv(kChildVar); child && std::string(child) == "refused") {
    // The child: LD_LIBRARY_PATH makes libopenblas.so.0 a copy of zlib.
    try {
      theano::runtime::load_blas();
      std::printf("loaded\n");
    } catch (const theano::IOError& e) {
      std::printf("IOError: %s\n", e.what());
    }
    return;
  }
  // A stand-in library without BLAS: zlib, which this binary loads (libzip's).
  void* z = ::dlopen("libz.so.1", RTLD_NOLOAD | RTLD_LAZY);
  REQUIRE(z != nullptr);
  Dl_info info{};
  REQUIRE(::dladdr(::dlsym(z, "zlibVersion"), &info) != 0);
  ::dlclose(z);
  theano::test::TempDir dir("blas_library");
  fs::copy_file(info.dli_fname, dir.path / kBlasLibrary);
  const std::string out = run_child("refused", kRefusedCase, {"LD_LIBRARY_PATH=" + dir.path.string()});
  CHECK(out.find("IOError: the BLAS library libopenblas.so.0 has no function cblas_sgemm") != std::string::npos);
}
