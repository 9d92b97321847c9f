// The compile cache must not run other people's code, end to end through
// function() and real processes (issue 15): an object planted in a compiledir
// (a valid entry: right size, right CRC, the code of another graph) changes
// x+1 into x while the compiledir is trusted — the attack — and is not loaded
// once the compiledir is world-writable or owned by another uid: function()
// computes x+1 and one warning names the directory. Kept and failed sources
// go to the uid-private directory, never a shared predictable /tmp path; the
// compiledir_group flag.
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>
#include <theano/cache/dir_security.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/errors.h>
#include <theano/config.h>
#include <theano/theano.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../../codegen/src/load/shared_object.h"
#include "compiledir_test_util.h"
#include "stderr_capture.h"
#include "temp_dir.h"
#include "test_util.h"

extern char** environ;

using namespace theano;
using namespace theano::tensor;
namespace fs = std::filesystem;
using theano::test::TempDir;
using theano::test::with_compiledir;
using theano::test::count_of;
using theano::test::slurp;
using theano::test::StderrCapture;

namespace {

constexpr uid_t kOtherUid = 65534;

void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

fs::path entry_file(const fs::path& dir, const std::string& key, const char* ext) {
  return dir / key.substr(0, 2) / (key + ext);
}

/// The one entry key of a compiledir holding one entry.
std::string only_key(const fs::path& dir) {
  std::vector<std::string> keys;
  for (const auto& shard : fs::directory_iterator(dir)) {
    if (!shard.is_directory() || shard.path().filename().string().size() != 2) continue;
    for (const auto& f : fs::directory_iterator(shard.path()))
      if (f.path().extension() == ".o") keys.push_back(f.path().stem().string());
  }
  REQUIRE(keys.size() == 1);
  return keys[0];
}

/// Makes `victim`'s entry in `dir` a valid entry holding `attacker`'s object
/// (from `from`): the object replaced, its metadata's size and CRC updated to
/// match. This is what someone who can write the compiledir can do.
void plant_entry(const fs::path& dir, const std::string& victim, const fs::path& from, const std::string& attacker) {
  const std::string object = slurp(entry_file(from, attacker, ".o"));
  REQUIRE_FALSE(object.empty());
  std::istringstream meta(slurp(entry_file(dir, victim, ".meta")));
  std::string out;
  for (std::string line; std::getline(meta, line);) {
    if (line.rfind("object_bytes=", 0) == 0) line = "object_bytes=" + std::to_string(object.size());
    if (line.rfind("object_crc32=", 0) == 0) line = "object_crc32=" + std::to_string(cache::crc32(object));
    out += line + "\n";
  }
  spit(entry_file(dir, victim, ".o"), object);
  spit(entry_file(dir, victim, ".meta"), out);
  REQUIRE(cache::CompileCache(dir, cache::CacheOptions{64, std::nullopt, fs::path(), false}).lookup(victim) ==
          object);  // a valid entry: only ownership and modes can tell
}

/// plant_entry for the object and for the shared library linked from it
/// (which is what a new process loads).
void plant_object(const fs::path& dir, const std::string& victim, const fs::path& from, const std::string& attacker) {
  plant_entry(dir, victim, from, attacker);
  plant_entry(dir / codegen::kLibrariesDir, codegen::detail::shared_object_key(victim),
              from / codegen::kLibrariesDir, codegen::detail::shared_object_key(attacker));
}

struct Ran {
  int status = -1;
  std::string out, err;
};

/// Runs the cache child (compiles W1's graph with constant `c`, checks the
/// result) with THEANO_FLAGS=compiledir=<dir> and TMPDIR=<tmp>.
Ran run_child(const fs::path& dir, const fs::path& tmp, const std::string& c) {
  std::vector<std::string> env_store{"THEANO_FLAGS=compiledir=" + dir.string(), "TMPDIR=" + tmp.string()};
  for (char** e = environ; *e; ++e) {
    const std::string s(*e);
    if (s.rfind("THEANO_FLAGS=", 0) != 0 && s.rfind("TMPDIR=", 0) != 0) env_store.push_back(s);
  }
  std::vector<char*> envp;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string prog = THEANO_CACHE_CHILD, arg = c;
  char* argv[] = {prog.data(), arg.data(), nullptr};
  const fs::path out = tmp / "child.out", err = tmp / "child.err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  Ran r;
  const int rc = posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

struct EnvGuard {
  std::string name;
  std::optional<std::string> saved;
  EnvGuard(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) saved = v;
    ::setenv(name.c_str(), value, 1);
  }
  ~EnvGuard() {
    if (saved) ::setenv(name.c_str(), saved->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_SUITE("compile cache security with the JIT") {
  TEST_CASE("a planted object (valid CRC) in a world-writable compiledir is not loaded: x+1 stays x+1") {
    TempDir d;
    const fs::path cd = d.path / "cd", other = d.path / "other";
    Var x = dvector("x");
    std::string plus_one, identity;
    {
      ConfigGuard guard(with_compiledir(other));
      identity = function({x}, {abs(x)}).profile().build.cache_key;  // x, for the positive inputs below
    }
    ConfigGuard guard(with_compiledir(cd));
    plus_one = function({x}, {x + 1.0}).profile().build.cache_key;
    REQUIRE_FALSE(plus_one.empty());
    REQUIRE_FALSE(identity.empty());
    REQUIRE(plus_one != identity);
    plant_object(cd, plus_one, other, identity);
    // The attack, while the compiledir is trusted (ours, 0700): the entry is
    // valid, so it is loaded, and x+1 computes x. Only who can write the
    // directory protects a process.
    {
      Function hit = function({x}, {x + 1.0});
      CHECK(hit.profile().build.cache == "hit");
      CHECK(allclose(hit({test::vec({1, 2})})[0], test::vec({1, 2})));
    }
    // The same entry in a directory anyone can write: refused.
    fs::permissions(cd, fs::perms::all);
    StderrCapture err(d.path / "stderr.txt");
    Function f = function({x}, {x + 1.0});
    Function g = function({x}, {x + 1.0});
    const std::string text = err.text();
    CHECK(f.profile().build.cache == "miss");
    CHECK(allclose(f({test::vec({1, 2})})[0], test::vec({2, 3})));
    CHECK(allclose(g({test::vec({1, 2})})[0], test::vec({2, 3})));
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find(fs::canonical(cd).string()) != std::string::npos);
    CHECK(text.find("writable by every user") != std::string::npos);
    CHECK(codegen::compile_cache_stats().refused >= 1);
  }

  TEST_CASE("a new process does not load a planted object from a compiledir owned by another uid or world-writable") {
    TempDir d;
    const fs::path cd = d.path / "cd", other = d.path / "other";
    // 1.5 and 2.5 compile to different objects with the same entry points.
    REQUIRE(run_child(cd, d.path, "1.5").status == 0);
    REQUIRE(run_child(other, d.path, "2.5").status == 0);
    plant_object(cd, only_key(cd), other, only_key(other));
    // The attack works on a trusted compiledir: the child computes the wrong thing.
    Ran attacked = run_child(cd, d.path, "1.5");
    CHECK(attacked.out.find("cache=hit") != std::string::npos);
    CHECK(attacked.out.find("ok=0") != std::string::npos);
    for (const char* how : {"world-writable", "owned by another uid"}) {
      CAPTURE(how);
      if (std::string(how) == "world-writable") {
        fs::permissions(cd, fs::perms::all);
      } else {
        if (::geteuid() != 0) {
          MESSAGE("skipped the other-uid case: chown needs root");
          continue;
        }
        fs::permissions(cd, fs::perms::owner_all, fs::perm_options::replace);
        REQUIRE(::chown(cd.c_str(), kOtherUid, kOtherUid) == 0);
      }
      const Ran r = run_child(cd, d.path, "1.5");
      CAPTURE(r.out);
      CAPTURE(r.err);
      CHECK(r.status == 0);
      CHECK(r.out.find("ok=1") != std::string::npos);
      CHECK(r.out.find("cache=miss") != std::string::npos);
      CHECK(count_of(r.err, "theano-cpp warning") == 1);
      CHECK(r.err.find("refusing the compiledir " + cd.string()) != std::string::npos);
      // Cached in the uid-private fallback under TMPDIR instead, which the next run hits.
      const fs::path fallback = d.path / ("theano-cpp-" + std::to_string(::geteuid())) / "fallback-compiledir";
      CHECK(r.err.find(fallback.string()) != std::string::npos);
      const Ran again = run_child(cd, d.path, "1.5");
      CHECK(again.out.find("cache=hit") != std::string::npos);
      CHECK(again.out.find("ok=1") != std::string::npos);
      fs::remove_all(fallback);
    }
  }

  TEST_CASE("kept and failed sources go to the uid-private directory, never through a planted /tmp path") {
    TempDir d;
    EnvGuard tmpdir("TMPDIR", d.path.c_str());
    // The old predictable paths, planted: symlinks to a victim's directory.
    const fs::path victim = d.path / "victim";
    fs::create_directories(victim);
    fs::create_directory_symlink(victim, d.path / "theano-cpp-sources");
    fs::create_directory_symlink(victim, d.path / "theano-cpp-failed");
    // And the private directory's predictable name taken by someone else.
    const fs::path predictable = d.path / ("theano-cpp-" + std::to_string(::geteuid()));
    fs::create_directory_symlink(victim, predictable);
    StderrCapture err(d.path / "stderr.txt");
    const std::string src = "// kept source\nint f() { return 1; }\n";
    const fs::path kept = codegen::keep_source(src, ".cpp", "theano-cpp-sources");
    const fs::path failed = codegen::keep_failed_source(src + "// failed\n", ".cu");
    err.text();
    for (const fs::path& p : {kept, failed}) {
      CAPTURE(p);
      REQUIRE_FALSE(p.empty());
      CHECK(slurp(p).rfind(src, 0) == 0);
      struct stat st {}, dst {}, root {};
      REQUIRE(::lstat(p.c_str(), &st) == 0);
      CHECK(S_ISREG(st.st_mode));
      CHECK((st.st_mode & 077) == 0);
      REQUIRE(::lstat(p.parent_path().c_str(), &dst) == 0);
      CHECK(dst.st_uid == ::geteuid());
      CHECK((dst.st_mode & 07777) == 0700);
      REQUIRE(::lstat(p.parent_path().parent_path().c_str(), &root) == 0);
      CHECK(S_ISDIR(root.st_mode));
      CHECK(root.st_uid == ::geteuid());
      CHECK((root.st_mode & 07777) == 0700);
      CHECK(p.parent_path().parent_path() != predictable);
      CHECK(p.string().find(victim.string()) == std::string::npos);
    }
    CHECK(fs::is_empty(victim));
    // Through function() with keep_sources.
    Config c = config();
    c.flags["keep_sources"] = "True";
    ConfigGuard guard(c);
    Var x = dvector("x");
    const std::string path = function({x}, {x * 7.0}).profile().build.source_path;
    REQUIRE_FALSE(path.empty());
    CHECK(fs::path(path).parent_path().parent_path() == cache::private_dir());
    CHECK(fs::is_empty(victim));
  }

  TEST_CASE("THEANO_FLAGS compiledir_group: a team cache, and an unknown group is a ValueError naming the flag") {
    TempDir d;
    Config c = with_compiledir(d.path / "team");
    c.flags["compiledir_group"] = "no-such-group-theano";
    {
      ConfigGuard guard(c);
      CHECK_THROWS_WITH_AS(codegen::current_cache(), doctest::Contains("compiledir_group"), ValueError);
      CHECK_FALSE(fs::exists(d.path / "team"));
    }
    const auto group = cache::group_id(::geteuid() == 0 ? "nogroup" : std::to_string(::getegid()));
    if (!group) {
      MESSAGE("skipped: no group to share a cache with");
      return;
    }
    c.flags["compiledir_group"] = std::to_string(*group);
    ConfigGuard guard(c);
    CHECK(codegen::compile_cache_options().group == group);
    Var x = dvector("x");
    CHECK(allclose(function({x}, {x + 4.0})({test::vec({1})})[0], test::vec({5})));
    struct stat st {};
    REQUIRE(::stat((d.path / "team").c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 02770);
    CHECK(st.st_gid == *group);
    CHECK_FALSE(codegen::compile_cache_stats().fallback);
  }
}
