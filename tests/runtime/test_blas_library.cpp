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
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using theano::runtime::kBlasLibrary;

bool mapped() {
  void* h = ::dlopen(kBlasLibrary, RTLD_NOLOAD | RTLD_LAZY);
  if (h) ::dlclose(h);
  return h != nullptr;
}

// The child of the last case: set in its environment by the parent.
constexpr const char* kChildVar = "THEANO_TEST_BLAS_LIBRARY_CHILD";
constexpr const char* kRefusedCase = "blas_library: a library without the BLAS functions is refused by name";

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
  // CBLAS's gemm, gemv, ger and dot, 4 openblas_* and 12 LAPACK routines, per type.
  CHECK(names.size() == 36);
  CHECK(names.count("cblas_dgemm") == 1);
  CHECK(names.count("dgesdd_") == 1);
}

TEST_CASE(kRefusedCase) {
  if (const char* child = std::getenv(kChildVar); child && *child) {
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

  std::vector<std::string> env_store{std::string(kChildVar) + "=1", "LD_LIBRARY_PATH=" + dir.path.string()};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0) env_store.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string prog = "/proc/self/exe", filter = std::string("-tc=") + kRefusedCase;
  char* argv[] = {prog.data(), filter.data(), nullptr};
  const fs::path out = dir.path / "out.txt";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  CAPTURE(text.str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(text.str().find("IOError: the BLAS library libopenblas.so.0 has no function cblas_sgemm") !=
        std::string::npos);
}
