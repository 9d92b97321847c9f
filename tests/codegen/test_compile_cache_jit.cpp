// The JIT with the compiledir: keys (stable across working directories,
// different for other flags), a hit skipping the compiler in the same
// process, and reuse across real processes (a second process compiles
// nothing), with THEANO_FLAGS compiledir / base_compiledir, the automatic
// cleanup's flags, and real full and read-only filesystems (a tmpfs and a
// read-only bind mount in a user namespace, where the kernel allows one).
#include <doctest/doctest.h>

#include <theano/codegen/compiledir.h>
#include <theano/config.h>
#include <theano/theano.hpp>

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../codegen/src/compile/clang_driver.h"
#include "compiledir_test_util.h"
#include "stderr_capture.h"
#include "test_util.h"
#include "spawn_child.h"
#include "temp_dir.h"

extern char** environ;

using namespace theano;
using namespace theano::tensor;
namespace fs = std::filesystem;
using theano::test::TempDir;
using theano::test::with_compiledir;

namespace {

/// Starts the child with THEANO_FLAGS=compiledir=<dir>; its stdout goes to `out`.
pid_t spawn_child(const fs::path& dir, const fs::path& out, const std::string& constant, const std::string& count) {
  return theano::test::spawn_child({THEANO_CACHE_CHILD, constant, count}, {"THEANO_FLAGS=compiledir=" + dir.string()},
                                   out);
}

/// Waits for the child; returns its stdout line.
std::string finish_child(pid_t pid, const fs::path& out) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Runs `argv` with THEANO_FLAGS=compiledir=<dir>; returns (exit status,
/// stdout, stderr).
struct Ran {
  int status = -1;
  std::string out, err;
};
Ran run_argv(const fs::path& dir, std::vector<std::string> args, const fs::path& scratch) {
  const std::string flags = "THEANO_FLAGS=compiledir=" + dir.string();
  std::vector<std::string> env_store{flags};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("THEANO_FLAGS=", 0) != 0) env_store.emplace_back(*e);
  std::vector<char*> envp, argv;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const fs::path out = scratch / "run.out", err = scratch / "run.err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Ran r;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return r;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

/// Whether `unshare -rm` may mount here (a user namespace with its own mounts).
bool can_mount_in_user_namespace(const fs::path& scratch) {
  const fs::path m = scratch / "probe";
  fs::create_directories(m);
  return run_argv(scratch, {"unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", m.string()}, scratch)
             .status == 0;
}

std::string run_child(const fs::path& dir, const std::string& constant, const std::string& count = "1") {
  const fs::path out = dir.parent_path() / (dir.filename().string() + ".out");
  return finish_child(spawn_child(dir, out, constant, count), out);
}

}  // namespace

TEST_SUITE("compile cache with the JIT") {
  TEST_CASE("the key: same source and flags give the same key in any working directory, other flags another") {
    const std::string src = "extern \"C\" int f() { return 1; }\n";
    codegen::CompileOptions o;
    const std::string k1 = codegen::cache_key(o, src);
    CHECK(k1.size() == 40);
    const fs::path cwd = fs::current_path();
    fs::current_path(fs::temp_directory_path());
    const std::string k2 = codegen::cache_key(o, src);
    fs::current_path(cwd);
    CHECK(k1 == k2);
    codegen::CompileOptions o2 = o;
    o2.cxxflags.push_back("-DX=1");
    CHECK(codegen::cache_key(o2, src) != k1);
    codegen::CompileOptions o3 = o;
    o3.opt = codegen::OptLevel::O0;
    CHECK(codegen::cache_key(o3, src) != k1);
    CHECK(codegen::cache_key(o, src + " ") != k1);
  }

  TEST_CASE("local keys: every byte of a long field counts, and no framing of fields hashes like another") {
    // A field over 1 KiB is framed as its own digest (compiledir.h).
    std::string big(5000, 'a');
    const std::string k = codegen::local_hash_fields({"x", big});
    CHECK(k.size() == 32);
    CHECK(codegen::local_hash_fields({"x", big}) == k);
    for (std::size_t at : {std::size_t{0}, std::size_t{1024}, std::size_t{4999}}) {
      std::string other = big;
      other[at] = 'b';
      CHECK(codegen::local_hash_fields({"x", other}) != k);
    }
    CHECK(codegen::local_hash_fields({"x", big + "a"}) != k);
    CHECK(codegen::local_hash_fields({"x", big, ""}) != k);
    CHECK(codegen::local_hash_fields({"xa", big.substr(1)}) != k);
    // At the threshold and just over it, and short fields split differently.
    const std::string edge(1024, 'c');
    CHECK(codegen::local_hash_fields({edge}) != codegen::local_hash_fields({edge + "c"}));
    CHECK(codegen::local_hash_fields({"ab", "c"}) != codegen::local_hash_fields({"a", "bc"}));
  }

  TEST_CASE("a second compile of the same graph is a cache hit and skips the compiler") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    Var x = dvector("x");
    std::string key;
    {
      Function f = function({x}, {sqrt(x) * 3.0 + 1.0});
      CHECK(f.profile().build.cache == "miss");
      CHECK(f.profile().build.compile_ms > 0);
      key = f.profile().build.cache_key;
    }  // f's module is unloaded: g loads the shared library linked from its object
    const auto before = codegen::compile_cache_stats();
    const auto libraries_before = codegen::current_library_cache()->stats();
    Function g = function({x}, {sqrt(x) * 3.0 + 1.0});
    const ProfileStats p = g.profile();
    CHECK(p.build.cache == "hit");
    CHECK(p.build.compile_ms == 0);
    CHECK(p.build.cache_key == key);
    CHECK(p.build.shared_library);
    CHECK(codegen::current_library_cache()->stats().hits == libraries_before.hits + 1);
    CHECK(codegen::compile_cache_stats().hits == before.hits);  // the object is not read
    CHECK(allclose(g({test::vec({4, 9})})[0], test::vec({7, 10})));
    // While g lives, an equal function shares its loaded module: no read.
    Function h = function({x}, {sqrt(x) * 3.0 + 1.0});
    CHECK(h.profile().build.cache == "hit");
    CHECK(codegen::current_library_cache()->stats().hits == libraries_before.hits + 1);
    CHECK(codegen::compile_cache_stats().hits == before.hits);
    CHECK(allclose(h({test::vec({16})})[0], test::vec({13})));
    CHECK(p.summary().find("Compile cache: hit") != std::string::npos);
    CHECK(p.summary().find("Compile cache, this process: ") != std::string::npos);
    CHECK(codegen::compile_cache_report().find(" written, ") != std::string::npos);
    CHECK(codegen::current_cache()->entries().size() == 1);
  }

  TEST_CASE("compiledir=off and base_compiledir") {
    TempDir d;
    Var x = dvector("x");
    {
      Config c = config();
      c.flags["compiledir"] = "off";
      ConfigGuard guard(c);
      CHECK(codegen::current_cache() == nullptr);
      CHECK(function({x}, {x + 5.0}).profile().build.cache == "off");
    }
    Config c = config();
    c.flags.erase("compiledir");
    c.flags["base_compiledir"] = d.path.string();
    ConfigGuard guard(c);
    const fs::path dir = codegen::current_compiledir();
    CHECK(dir.parent_path() == d.path);
    CHECK(dir.filename().string().rfind("compiledir_", 0) == 0);
    CHECK(dir.filename().string().find("-abi" + std::to_string(codegen::kRuntimeAbiVersion)) != std::string::npos);
    CHECK(function({x}, {x + 6.0}).profile().build.cache == "miss");
    CHECK(fs::exists(dir / "locks"));
  }

  TEST_CASE("reuse across processes: the second process compiles nothing") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const std::string first = run_child(cd, "1.5");
    CHECK(first == "cache=miss compiles=1 hits=0 ok=1");
    // The second finds its function record and the shared library linked
    // from the object (compiledir.h kLibrariesDir): it never reads the object.
    const std::string second = run_child(cd, "1.5");
    CHECK(second == "cache=hit compiles=0 hits=0 ok=1");
    const std::string other = run_child(cd, "2.5");  // another constant: another entry
    CHECK(other == "cache=miss compiles=1 hits=0 ok=1");
  }

  TEST_CASE("a process started on another core finds the function record of one started on the first") {
    // The host's identity in every key comes from the CPUID leaves glibc
    // read at start-up (clang_driver.h, x86_cpuid_fingerprint), which
    // include the starting core's APIC id: masked, or a process started
    // elsewhere would miss every record and object.
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(::sched_getaffinity(0, sizeof set, &set) == 0);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    if (cpus.size() < 2) {
      MESSAGE("skipped: this process may run on one core only");
      return;
    }
    TempDir d;
    const fs::path cd = d.path / "cd";
    auto on_core = [&](int cpu) {
      const Ran r = run_argv(cd, {"taskset", "-c", std::to_string(cpu), THEANO_CACHE_CHILD, "3.5"}, d.path);
      REQUIRE_MESSAGE(r.status == 0, r.err);
      return r.out;
    };
    CHECK(on_core(cpus[0]).find("cache=miss compiles=1") != std::string::npos);
    const std::string second = on_core(cpus[1]);
    CHECK(second.find("cache=hit compiles=0") != std::string::npos);
    CHECK(second.find("record=1") != std::string::npos);
    if (!codegen::detail::x86_cpuid_fingerprint().empty())
      CHECK(codegen::compiler_identity().find("features=x86-cpuid:") != std::string::npos);
  }

  TEST_CASE("the first process links a shared library, the next loads it with no JIT session at all") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const fs::path out = d.path / "child.out";
    auto second_line = [&](const std::string& constant) {
      REQUIRE(finish_child(spawn_child(cd, out, constant, "1"), out).find("ok=1") != std::string::npos);
      std::ifstream in(out);
      std::string line;
      std::getline(in, line);
      std::getline(in, line);
      return line;
    };
    CHECK(second_line("1.5") == "record=0 shared_library=1 jit=0");
    CHECK(second_line("1.5") == "record=1 shared_library=1 jit=0");
    CHECK(theano::cache::CompileCache(cd / codegen::kLibrariesDir).entries().size() == 1);
  }

  TEST_CASE("eight processes racing on an empty compiledir over 20 functions: each compiled exactly once") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    std::vector<std::pair<pid_t, fs::path>> kids;
    for (int p = 0; p < 8; ++p) {
      const fs::path out = d.path / ("child" + std::to_string(p) + ".out");
      // Constants 1..20 for every child, each starting at another function.
      kids.emplace_back(spawn_child(cd, out, std::to_string(1 + p), "20"), out);
    }
    std::uint64_t compiles = 0, hits = 0;
    for (auto& [pid, out] : kids) {
      const std::string line = finish_child(pid, out);
      CAPTURE(line);
      CHECK(line.find("ok=1") != std::string::npos);
      unsigned long long c = 0, h = 0;
      REQUIRE(std::sscanf(line.c_str() + line.find("compiles="), "compiles=%llu hits=%llu", &c, &h) == 2);
      compiles += c;
      hits += h;
    }
    // Child p compiles the constants c0 + ((k + c0) % 20), c0 = p + 1: 1..27
    // in all; the distinct functions are the distinct constants.
    std::set<int> distinct;
    for (int p = 0; p < 8; ++p)
      for (int k = 0; k < 20; ++k) distinct.insert(1 + p + ((k + 1 + p) % 20));
    CHECK(compiles == distinct.size());
    // Every other function was an object hit, unless its process found the
    // function record and the library (then it never reads the object).
    CHECK(compiles + hits <= 8 * 20);
    CHECK(theano::cache::CompileCache(cd).entries().size() == distinct.size());
  }

  TEST_CASE("the automatic cleanup's flags: defaults, values, and a clear error for a malformed one") {
    TempDir d;
    Config c = config();
    c.flags["compiledir"] = (d.path / "cd").string();
    c.flags.erase("cache_max_age_days");
    c.flags.erase("cache_max_size");
    {
      ConfigGuard guard(c);
      const auto p = codegen::auto_cleanup_policy();
      CHECK(p.max_age_seconds == 30 * 86400);
      CHECK(p.max_bytes == std::uintmax_t{2} << 30);
    }
    c.flags["cache_max_age_days"] = "0.5";
    c.flags["cache_max_size"] = "500M";
    {
      ConfigGuard guard(c);
      const auto p = codegen::auto_cleanup_policy();
      CHECK(p.max_age_seconds == 43200);
      CHECK(p.max_bytes == std::uintmax_t{500} << 20);
    }
    c.flags["cache_max_age_days"] = "off";
    c.flags["cache_max_size"] = "off";
    {
      ConfigGuard guard(c);
      const auto p = codegen::auto_cleanup_policy();
      CHECK(p.max_age_seconds < 0);
      CHECK(p.max_bytes == 0);
    }
    c.flags["cache_max_size"] = "lots";
    c.flags["compiledir"] = (d.path / "cd2").string();  // a compiledir this process has not opened
    {
      ConfigGuard guard(c);
      Var x = dvector("x");
      CHECK_THROWS_WITH_AS(function({x}, {x * 7.0}), doctest::Contains("cache_max_size"), ValueError);
    }
    c.flags["cache_max_size"] = "1G";
    c.flags["compiledir"] = (d.path / "cd3").string();
    {
      ConfigGuard guard(c);
      Var x = dvector("x");
      CHECK(function({x}, {x * 7.0}).profile().build.cache == "miss");
      CHECK(fs::exists(d.path / "cd3" / "last-cleanup"));  // a new compiledir gets its first cleanup stamp
    }
  }

  TEST_CASE("the automatic cleanup's flags: out-of-range values are refused, naming the flag and the range") {
    TempDir d;
    Config c = config();
    c.flags["compiledir"] = (d.path / "cd").string();
    for (const char* bad : {"1e300", "-1", "nan", "inf", "2e6"}) {
      c.flags["cache_max_age_days"] = bad;
      ConfigGuard guard(c);
      CHECK_THROWS_WITH_AS(codegen::auto_cleanup_policy(),
                           doctest::Contains("cache_max_age_days: expected a number of days from 0 to 1e+06, or 'off'"),
                           ValueError);
    }
    c.flags["cache_max_age_days"] = "1000000";
    {
      ConfigGuard guard(c);
      CHECK(codegen::auto_cleanup_policy().max_age_seconds == std::int64_t{86400} * 1000000);
    }
    c.flags.erase("cache_max_age_days");
    for (const char* bad : {"-1", "-5G", " 1G"}) {
      c.flags["cache_max_size"] = bad;
      ConfigGuard guard(c);
      CHECK_THROWS_WITH_AS(codegen::auto_cleanup_policy(), doctest::Contains("cache_max_size: expected a size like 500M"),
                           ValueError);
    }
  }

  TEST_CASE("an entry that passes the checks but cannot be loaded is evicted with one warning and compiled again") {
    TempDir d;
    Var x = dvector("x");
    std::string key;
    {
      ConfigGuard guard(with_compiledir(d.path / "learn"));
      key = function({x}, {x * 5.0 + 2.0}).profile().build.cache_key;
    }
    // 5000 random bytes, stored as a well-formed entry (right size, right CRC) under that key.
    std::string junk(5000, '\0');
    std::mt19937 rng(33);
    for (char& ch : junk) ch = static_cast<char>(rng());
    {
      cache::CompileCache planted(d.path / "cd");
      planted.get_or_produce(key, [&] { return cache::Entry{junk, "", 1, "junk"}; });
      REQUIRE(planted.lookup(key) == junk);
    }
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    test::StderrCapture err(d.path / "stderr");
    {
      Function f = function({x}, {x * 5.0 + 2.0});  // was: LoadError, here and in every later function()
      CHECK(f.profile().build.cache == "miss");
      CHECK(allclose(f({test::vec({1, 2})})[0], test::vec({7, 12})));
    }
    const std::string text = err.text();
    CHECK(test::count_of(text, "passed its checks but cannot be loaded") == 1);
    CHECK(codegen::current_cache()->stats().unloadable == 1);
    CHECK(codegen::current_cache()->lookup(key) != junk);  // republished fresh
    Function g = function({x}, {x * 5.0 + 2.0});  // f is gone: loaded from the compiledir again
    CHECK(g.profile().build.cache == "hit");
    CHECK(allclose(g({test::vec({3})})[0], test::vec({17})));
  }

  TEST_CASE("a real full filesystem and a real read-only compiledir: functions work, one warning each") {
    TempDir d;
    if (!can_mount_in_user_namespace(d.path)) {
      MESSAGE("skipped: this kernel or container does not allow mounts in a user namespace (unshare -rm); "
              "the injected ENOSPC/EROFS cases in cache_tests cover the same code paths");
      return;
    }
    const std::string child = THEANO_CACHE_CHILD;
    // A 48 KiB tmpfs: the lock files fit (they are empty), the first object does not.
    // mode=0700: a fresh tmpfs is 1777, and the cache refuses a world-writable compiledir.
    const fs::path full = d.path / "full";
    fs::create_directories(full);
    Ran r = run_argv(full,
                     {"unshare", "-rm", "sh", "-c",
                      "mount -t tmpfs -o size=48k,mode=0700 tmpfs \"$1\" && exec \"$2\" 1.5 3", "sh", full.string(),
                      child},
                     d.path);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("compiles=3 hits=0 ok=1") != std::string::npos);
    CHECK(count_of(r.err, "theano-cpp warning") == 1);
    CHECK(r.err.find("No space left on device") != std::string::npos);

    // Read-only: populate, then bind-mount the compiledir read-only over itself.
    const fs::path ro = d.path / "ro";
    r = run_argv(ro, {child, "1.5", "3"}, d.path);
    CHECK(r.out.find("compiles=3 hits=0 ok=1") != std::string::npos);
    r = run_argv(ro,
                 {"unshare", "-rm", "sh", "-c",
                  "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && exec \"$2\" 1.5 4", "sh",
                  ro.string(), child},
                 d.path);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("compiles=1 hits=3 ok=1") != std::string::npos);  // the old entries serve; one new compile
    CHECK(count_of(r.err, "theano-cpp warning") == 1);
    CHECK(r.err.find("Read-only file system") != std::string::npos);
  }
}
