// The compile cache must not run other people's code (issue 15), on real
// files, real permissions and real processes: compiledirs created 0700 and
// entries 0600; a planted entry (valid CRC) in a world-writable compiledir, in
// one owned by another uid, behind a symlink or in a foreign entry file is not
// loaded (one warning, then a private fallback or a recompile); the
// predictable /tmp fallback taken by someone else first is not used; a team
// cache (group); a damaged entry removed only under the stripe lock; the lock
// directory removed under a running process.
//
// The tests run as root here: root passes every access() check, so the cache
// checks ownership and modes with stat, and these tests chown to uid 65534 to
// make "another user". Where chown is not permitted they skip with a MESSAGE.
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>
#include <theano/cache/dir_security.h>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/interprocess/sync/file_lock.hpp>

#include <algorithm>
#include <iomanip>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
#include "stderr_capture.h"
#include "temp_dir.h"

using namespace theano::cache;
namespace fs = std::filesystem;
using theano::test::TempDir;
using theano::test::count_of;
using theano::test::slurp;
using theano::test::StderrCapture;

namespace {

constexpr uid_t kOtherUid = 65534;  // "nobody"

std::string key_of(int i) {
  std::ostringstream os;
  os << std::hex << (0x5678abcd00000000ULL + static_cast<unsigned long long>(i) * 7919);
  return os.str() + "00ff00ff";
}

Entry entry_of(const std::string& key) { return Entry{"object bytes for " + key, "// source of " + key, 1.5, "test"}; }
Entry planted_of(const std::string& key) { return Entry{"PLANTED code for " + key, "// evil", 1.0, "planted"}; }

fs::path entry_file(const fs::path& dir, const std::string& key, const char* ext) {
  return dir / key.substr(0, 2) / (key + ext);
}

struct stat stat_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::lstat(p.c_str(), &st) == 0);
  return st;
}

mode_t mode_of(const fs::path& p) { return stat_of(p).st_mode & 07777; }

/// A compiledir at `dir` holding a *valid* entry (right size and CRC) whose
/// object is the attacker's bytes: what a neighbour can plant in a directory
/// they can write.
void plant(const fs::path& dir, const std::string& key) {
  CompileCache(dir, CacheOptions{64, std::nullopt, fs::path(), true}).get_or_produce(key, [&] { return planted_of(key); });
  REQUIRE(slurp(entry_file(dir, key, ".o")) == planted_of(key).object);
}

/// chown -R `path` to `uid`; false where not permitted (not root).
bool chown_tree(const fs::path& path, uid_t uid, gid_t gid = static_cast<gid_t>(-1)) {
  if (::lchown(path.c_str(), uid, gid) != 0) return false;
  if (fs::is_directory(fs::symlink_status(path)))
    for (const auto& e : fs::recursive_directory_iterator(path))
      if (::lchown(e.path().c_str(), uid, gid) != 0) return false;
  return true;
}

/// A group this process may give files to (root: any; else a supplementary
/// group), other than its own primary group; nullopt when there is none.
std::optional<gid_t> some_other_group() {
  if (::geteuid() == 0) {
    for (const char* name : {"nogroup", "users", "daemon", "bin"})
      if (auto g = group_id(name); g && *g != ::getegid()) return g;
    return std::nullopt;
  }
  std::vector<gid_t> groups(static_cast<std::size_t>(std::max(0, ::getgroups(0, nullptr))));
  const int n = ::getgroups(static_cast<int>(groups.size()), groups.data());
  for (int i = 0; i < n; ++i)
    if (groups[static_cast<std::size_t>(i)] != ::getegid()) return groups[static_cast<std::size_t>(i)];
  return std::nullopt;
}

/// Sets an environment variable for the scope.
struct EnvGuard {
  std::string name;
  std::optional<std::string> saved;
  EnvGuard(std::string n, const char* value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) saved = v;
    if (value) ::setenv(name.c_str(), value, 1);
    else ::unsetenv(name.c_str());
  }
  ~EnvGuard() {
    if (saved) ::setenv(name.c_str(), saved->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

std::string stripe_lock_of(const std::string& key) {
  char name[24];
  std::snprintf(name, sizeof name, "%02lx.lock", std::stoul(key.substr(0, 6), nullptr, 16) % 64);
  return name;
}

}  // namespace

TEST_SUITE("compile cache security") {
  TEST_CASE("compiledirs, shards and lock directories are created 0700, entries 0600") {
    TempDir d;
    const fs::path cd = d.path / "base" / "cd";  // the base is created too
    CompileCache c(cd);
    const std::string key = key_of(1);
    c.get_or_produce(key, [&] { return entry_of(key); });
    CHECK(mode_of(d.path / "base") == 0700);
    CHECK(mode_of(cd) == 0700);
    CHECK(mode_of(cd / "locks") == 0700);
    CHECK(mode_of(cd / key.substr(0, 2)) == 0700);
    for (const char* ext : {".o", ".meta", ".cpp"}) {
      CAPTURE(ext);
      CHECK(mode_of(entry_file(cd, key, ext)) == 0600);
      CHECK(stat_of(entry_file(cd, key, ext)).st_uid == ::geteuid());
    }
    CHECK((mode_of(cd / "locks" / stripe_lock_of(key)) & 077) == 0);
  }

  TEST_CASE("a planted entry in a world-writable compiledir is not loaded: one warning, the private fallback") {
    TempDir d;
    const fs::path cd = d.path / "shared", fb = d.path / "fallback";
    const std::string key = key_of(2);
    plant(cd, key);
    fs::permissions(cd, fs::perms::all);  // 0777: anyone could have put it there
    StderrCapture err(d.path / "stderr.txt");
    CompileCache c(cd, CacheOptions{64, std::nullopt, fb, true});
    int produced = 0;
    bool hit = true;
    CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }, &hit) == entry_of(key).object);
    CHECK_FALSE(hit);
    CHECK(produced == 1);
    CHECK_FALSE(c.lookup(key) == planted_of(key).object);
    CHECK(c.stats().fallback);
    CHECK(c.dir() == fs::canonical(fb));
    CHECK(c.requested_dir() == cd);
    CHECK(mode_of(fb) == 0700);
    CHECK(slurp(entry_file(fb, key, ".o")) == entry_of(key).object);  // cached privately
    CHECK(slurp(entry_file(cd, key, ".o")) == planted_of(key).object);  // the shared one is left alone
    // A second look-up hits the fallback, with no second warning.
    hit = false;
    CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }, &hit) == entry_of(key).object);
    CHECK(hit);
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find(cd.string()) != std::string::npos);
    CHECK(text.find("writable by every user") != std::string::npos);
    // No fallback configured: run without a cache.
    CompileCache none(cd, CacheOptions{64, std::nullopt, fs::path(), true});
    CHECK(none.stats().disabled);
    CHECK_FALSE(none.lookup(key).has_value());
  }

  TEST_CASE("a compiledir owned by another uid is refused, and so is one whose parent another uid owns") {
    if (::geteuid() != 0) {
      MESSAGE("skipped: making a directory owned by another uid needs root (chown)");
      return;
    }
    TempDir d;
    const fs::path cd = d.path / "theirs";
    const std::string key = key_of(3);
    plant(cd, key);
    REQUIRE(chown_tree(cd, kOtherUid));
    {
      StderrCapture err(d.path / "stderr.txt");
      CompileCache c(cd, CacheOptions{64, std::nullopt, d.path / "fb", true});
      CHECK(c.stats().fallback);
      CHECK_FALSE(c.lookup(key).has_value());
      CHECK(c.get_or_produce(key, [&] { return entry_of(key); }) == entry_of(key).object);
      const std::string text = err.text();
      CHECK(count_of(text, "theano-cpp warning") == 1);
      CHECK(text.find("owned by uid 65534") != std::string::npos);
    }
    // Our own compiledir inside a directory someone else owns (the
    // predictable /tmp/theano-cpp-<uid> created first by a neighbour): they
    // can rename ours away and put theirs in its place.
    const fs::path above = d.path / "theano-cpp-planted";
    fs::create_directories(above);
    const fs::path ours = above / "compiledir_x";
    plant(ours, key);
    REQUIRE(::chown(above.c_str(), kOtherUid, kOtherUid) == 0);
    StderrCapture err(d.path / "stderr2.txt");
    CompileCache c(ours, CacheOptions{64, std::nullopt, d.path / "fb2", true});
    CHECK(c.stats().fallback);
    CHECK(c.get_or_produce(key, [&] { return entry_of(key); }) == entry_of(key).object);
    CHECK(err.text().find("the directory above it, " + above.string()) != std::string::npos);
  }

  TEST_CASE("an inner cache opened on its checked parent: its own directory is still checked") {
    // CacheOptions::parent_checked (the records' and libraries' caches):
    // no second walk of the directories above, but the directory itself
    // must be ours, not writable by others and not a symbolic link.
    TempDir d;
    const fs::path parent = d.path / "cd";
    CompileCache objects(parent, CacheOptions{});
    REQUIRE_FALSE(objects.stats().fallback);
    REQUIRE(objects.trusted_now());
    CacheOptions inner_options;
    inner_options.fallback = fs::path();  // refused: no cache, never elsewhere
    inner_options.parent_checked = true;
    const std::string key = key_of(21);
    {
      CompileCache records(objects.dir() / "records", inner_options);
      CHECK_FALSE(records.stats().fallback);
      CHECK(records.dir() == objects.dir() / "records");
      CHECK(mode_of(records.dir()) == 0700);
      CHECK(records.get_or_produce(key, [&] { return entry_of(key); }) == entry_of(key).object);
      CHECK(records.lookup(key) == entry_of(key).object);
    }
    // A symbolic link in its place (to a directory of ours) is refused.
    const fs::path elsewhere = d.path / "elsewhere";
    fs::create_directories(elsewhere);
    fs::permissions(elsewhere, fs::perms::owner_all, fs::perm_options::replace);
    fs::create_directory_symlink(elsewhere, objects.dir() / "linked");
    {
      StderrCapture err(d.path / "stderr.txt");
      CompileCache linked(objects.dir() / "linked", inner_options);
      CHECK(linked.stats().fallback);
      CHECK_FALSE(linked.lookup(key).has_value());
      CHECK(err.text().find("symbolic link") != std::string::npos);
    }
    // One writable by every user is refused.
    fs::create_directories(objects.dir() / "open");
    fs::permissions(objects.dir() / "open", fs::perms::all, fs::perm_options::replace);
    {
      StderrCapture err(d.path / "stderr2.txt");
      CompileCache open(objects.dir() / "open", inner_options);
      CHECK(open.stats().fallback);
      CHECK(err.text().find("writable by every user") != std::string::npos);
    }
    // One owned by another uid is refused (root only: chown).
    if (::geteuid() == 0) {
      fs::create_directories(objects.dir() / "theirs");
      REQUIRE(::chown((objects.dir() / "theirs").c_str(), kOtherUid, kOtherUid) == 0);
      StderrCapture err(d.path / "stderr3.txt");
      CompileCache theirs(objects.dir() / "theirs", inner_options);
      CHECK(theirs.stats().fallback);
      CHECK(err.text().find("owned by uid 65534") != std::string::npos);
    }
  }

  TEST_CASE("a symlinked entry or shard is not followed: refused with one warning, compiled again, replaced") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const std::string key = key_of(4), key2 = "9abcdef012345678900ff00ff";  // another shard
    CompileCache c(cd);
    c.get_or_produce(key, [&] { return entry_of(key); });
    // A valid planted entry elsewhere, linked into place: the object is a
    // symlink (the metadata is genuine).
    plant(d.path / "elsewhere", key);
    const fs::path obj = entry_file(cd, key, ".o");
    fs::remove(obj);
    fs::create_symlink(entry_file(d.path / "elsewhere", key, ".o"), obj);
    fs::copy_file(entry_file(d.path / "elsewhere", key, ".meta"), entry_file(cd, key, ".meta"),
                  fs::copy_options::overwrite_existing);
    StderrCapture err(d.path / "stderr.txt");
    CHECK_FALSE(c.lookup(key).has_value());
    CHECK_FALSE(c.lookup(key).has_value());
    bool hit = true;
    CHECK(c.get_or_produce(key, [&] { return entry_of(key); }, &hit) == entry_of(key).object);
    CHECK_FALSE(hit);
    CHECK_FALSE(fs::is_symlink(obj));  // the republish replaced the link, not its target
    CHECK(slurp(entry_file(d.path / "elsewhere", key, ".o")) == planted_of(key).object);
    CHECK(c.lookup(key) == entry_of(key).object);
    // A shard directory that is a symlink to someone else's directory.
    REQUIRE(key2.substr(0, 2) != key.substr(0, 2));
    plant(d.path / "elsewhere", key2);
    fs::create_directory_symlink(d.path / "elsewhere" / key2.substr(0, 2), cd / key2.substr(0, 2));
    CHECK_FALSE(c.lookup(key2).has_value());
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 2);  // one per refused path
    CHECK(count_of(text, "symbolic link") == 2);
    CHECK(c.stats().refused >= 3);
  }

  TEST_CASE("lookup_mapped: lookup's checks, on a mapping of the checked file whose descriptor it keeps") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    CompileCache c(cd);
    const std::string key = key_of(7);
    c.get_or_produce(key, [&] { return entry_of(key); });
    std::shared_ptr<const MappedFile> m = c.lookup_mapped(key);
    REQUIRE(m != nullptr);
    CHECK(m->bytes() == entry_of(key).object);
    struct stat by_fd {};
    REQUIRE(::fstat(m->fd(), &by_fd) == 0);
    CHECK(by_fd.st_ino == stat_of(entry_file(cd, key, ".o")).st_ino);
    CHECK(c.stats().hits == 1);
    // Both outlive the entry's removal (a cleanup in another process).
    fs::remove(entry_file(cd, key, ".o"));
    CHECK(m->bytes() == entry_of(key).object);
    CHECK(::fstat(m->fd(), &by_fd) == 0);
    CHECK(c.lookup_mapped(key) == nullptr);  // absent now
    // An empty object maps to no bytes.
    const std::string empty = key_of(8);
    c.get_or_produce(empty, [&] { return Entry{"", "", 0, "test"}; });
    REQUIRE(c.lookup_mapped(empty) != nullptr);
    CHECK(c.lookup_mapped(empty)->bytes().empty());

    StderrCapture err(d.path / "stderr.txt");
    // Writable by others: refused.
    const std::string open = key_of(9);
    c.get_or_produce(open, [&] { return entry_of(open); });
    fs::permissions(entry_file(cd, open, ".o"), fs::perms::others_write, fs::perm_options::add);
    CHECK(c.lookup_mapped(open) == nullptr);
    // A symbolic link to a valid planted object: not followed.
    const std::string linked = key_of(10);
    c.get_or_produce(linked, [&] { return entry_of(linked); });
    plant(d.path / "elsewhere", linked);
    fs::remove(entry_file(cd, linked, ".o"));
    fs::create_symlink(entry_file(d.path / "elsewhere", linked, ".o"), entry_file(cd, linked, ".o"));
    fs::copy_file(entry_file(d.path / "elsewhere", linked, ".meta"), entry_file(cd, linked, ".meta"),
                  fs::copy_options::overwrite_existing);
    CHECK(c.lookup_mapped(linked) == nullptr);
    // Damaged (its bytes changed, the size kept): removed, a miss.
    const std::string damaged = key_of(11);
    c.get_or_produce(damaged, [&] { return entry_of(damaged); });
    std::string bytes = entry_of(damaged).object;
    bytes[3] ^= 1;
    std::ofstream(entry_file(cd, damaged, ".o"), std::ios::binary | std::ios::trunc) << bytes;
    CHECK(c.lookup_mapped(damaged) == nullptr);
    CHECK_FALSE(fs::exists(entry_file(cd, damaged, ".o")));
    const std::string text = err.text();
    CHECK(text.find("writable by every user") != std::string::npos);
    CHECK(text.find("symbolic link") != std::string::npos);
    CHECK(text.find("is damaged") != std::string::npos);
    CHECK(c.stats().hits == 3);
    CHECK(c.stats().corrupt == 1);
  }

  TEST_CASE("an entry file writable by others or owned by another uid is refused and compiled again") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const std::string key = key_of(5);
    CompileCache c(cd);
    c.get_or_produce(key, [&] { return entry_of(key); });
    StderrCapture err(d.path / "stderr.txt");
    fs::permissions(entry_file(cd, key, ".o"), fs::perms::others_write, fs::perm_options::add);
    CHECK_FALSE(c.lookup(key).has_value());
    int produced = 0;
    CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }) == entry_of(key).object);
    CHECK(produced == 1);
    CHECK(mode_of(entry_file(cd, key, ".o")) == 0600);  // republished privately
    CHECK(c.lookup(key).has_value());
    fs::permissions(entry_file(cd, key, ".meta"), fs::perms::group_write, fs::perm_options::add);
    CHECK_FALSE(c.lookup(key).has_value());  // the metadata counts too
    std::string text = err.text();
    CHECK(text.find("writable by every user") != std::string::npos);
    CHECK(text.find("writable by the group") != std::string::npos);
    if (::geteuid() != 0) {
      MESSAGE("skipped the foreign-owner part: chown needs root");
      return;
    }
    const std::string key2 = key_of(6);
    c.get_or_produce(key2, [&] { return entry_of(key2); });
    REQUIRE(::chown(entry_file(cd, key2, ".o").c_str(), kOtherUid, kOtherUid) == 0);
    StderrCapture err2(d.path / "stderr2.txt");
    CHECK_FALSE(c.lookup(key2).has_value());
    CHECK(err2.text().find("owned by uid 65534") != std::string::npos);
  }

  TEST_CASE("a compiledir that becomes world-writable after it was opened is not read any more") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const std::string key = key_of(7);
    CompileCache c(cd);
    c.get_or_produce(key, [&] { return entry_of(key); });
    CHECK(c.lookup(key).has_value());
    fs::permissions(cd, fs::perms::all);
    StderrCapture err(d.path / "stderr.txt");
    CHECK_FALSE(c.lookup(key).has_value());
    int produced = 0;
    CHECK(c.get_or_produce(key_of(8), [&] { ++produced; return entry_of(key_of(8)); }) == entry_of(key_of(8)).object);
    CHECK(produced == 1);
    CHECK(c.stats().disabled);
    CHECK_FALSE(fs::exists(entry_file(cd, key_of(8), ".o")));  // nothing written there either
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find(cd.string()) != std::string::npos);
  }

  TEST_CASE("the predictable temporary directory taken by someone else first is not used") {
    TempDir d;
    EnvGuard tmpdir("TMPDIR", d.path.c_str());
    EnvGuard home("HOME", nullptr);
    EnvGuard xdg("XDG_CACHE_HOME", nullptr);
    const fs::path predictable = d.path / ("theano-cpp-" + std::to_string(::geteuid()));
    // Free: it is the default base and the private directory (created 0700).
    CHECK(default_base_compiledir() == predictable);
    CHECK_FALSE(fs::exists(predictable));  // asking for the default creates nothing
    CHECK(private_dir() == predictable);
    CHECK(mode_of(predictable) == 0700);
    fs::remove(predictable);
    // Taken first: a world-writable directory (and, as root, owned by another uid).
    fs::create_directory(predictable);
    fs::permissions(predictable, fs::perms::all);
    if (::geteuid() == 0) REQUIRE(::chown(predictable.c_str(), kOtherUid, kOtherUid) == 0);
    StderrCapture err(d.path / "stderr.txt");
    const fs::path base = default_base_compiledir();
    const fs::path mine = private_dir();
    CHECK(base != predictable);
    CHECK(mine == base);
    CHECK(mine.parent_path() == d.path);
    CHECK(stat_of(mine).st_uid == ::geteuid());
    CHECK(mode_of(mine) == 0700);
    CHECK(private_dir() == mine);  // the same one for the rest of the process
    CHECK(private_fallback_compiledir() == mine / "fallback-compiledir");
    // A symlink there is not followed either.
    fs::remove(predictable);
    fs::create_directory(d.path / "victim");
    fs::create_directory_symlink(d.path / "victim", predictable);
    CHECK(private_dir() != predictable);
    CHECK(fs::is_empty(d.path / "victim"));
    CHECK(err.text().find(predictable.string()) != std::string::npos);
  }

  TEST_CASE("a team cache (compiledir_group): 02770 group-owned directories, 0640 entries, teammates' entries load") {
    const auto group = some_other_group();
    if (!group) {
      MESSAGE("skipped: no group other than the primary one to share a cache with");
      return;
    }
    TempDir d;
    const fs::path cd = d.path / "team";
    const CacheOptions team{64, group, d.path / "fb", true};
    const std::string key = key_of(9);
    {
      CompileCache c(cd, team);
      CHECK_FALSE(c.stats().fallback);
      c.get_or_produce(key, [&] { return entry_of(key); });
    }
    CHECK(mode_of(cd) == 02770);
    CHECK(stat_of(cd).st_gid == *group);
    CHECK(mode_of(cd / key.substr(0, 2)) == 02770);
    CHECK(stat_of(entry_file(cd, key, ".o")).st_gid == *group);
    CHECK(mode_of(entry_file(cd, key, ".o")) == 0640);
    CHECK((mode_of(cd) & S_IWOTH) == 0);
    // A group-writable compiledir is fine for the team, refused when private.
    {
      CompileCache c(cd, team);
      CHECK(c.lookup(key) == entry_of(key).object);
      CompileCache mine(cd, CacheOptions{64, std::nullopt, fs::path(), true});
      CHECK(mine.stats().fallback);
      CHECK_FALSE(mine.lookup(key).has_value());
    }
    if (::geteuid() == 0) {
      // A teammate's entry (another uid, the team's group) loads; a world-writable one does not.
      REQUIRE(chown_tree(cd, kOtherUid, *group));
      CompileCache c(cd, team);
      CHECK_FALSE(c.stats().fallback);
      CHECK(c.lookup(key) == entry_of(key).object);
      fs::permissions(entry_file(cd, key, ".o"), fs::perms::others_write, fs::perm_options::add);
      CHECK_FALSE(c.lookup(key).has_value());
      fs::permissions(cd, fs::perms::others_write, fs::perm_options::add);
      CompileCache world(cd, team);
      CHECK(world.stats().fallback);
    } else {
      MESSAGE("skipped the teammate-owner part: chown to another uid needs root");
    }
  }

  TEST_CASE("a damaged entry is removed only under the stripe lock: a concurrent republish survives") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    const std::string key = key_of(10);
    CompileCache c(cd);
    c.get_or_produce(key, [&] { return entry_of(key); });
    const fs::path obj = entry_file(cd, key, ".o");
    std::string bytes = slurp(obj);
    bytes[2] = static_cast<char>(bytes[2] ^ 1);
    std::ofstream(obj, std::ios::binary | std::ios::trunc) << bytes;  // damaged
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // Another process holds the key's stripe while it republishes the key.
      ::close(ready[0]);
      boost::interprocess::file_lock l((cd / "locks" / stripe_lock_of(key)).c_str());
      l.lock();
      const char x = 'x';
      if (::write(ready[1], &x, 1) != 1) ::_exit(3);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the parent's look-up is waiting now
      CompileCache mine(cd);
      mine.get_or_produce(key, [&] { return entry_of(key); });  // same process: the stripe is ours
      ::_exit(mine.lookup(key) == entry_of(key).object ? 0 : 4);
    }
    ::close(ready[1]);
    char x = 0;
    REQUIRE(::read(ready[0], &x, 1) == 1);
    ::close(ready[0]);
    // Sees the damage, waits for the stripe, looks again: the republished entry.
    CHECK(c.lookup(key) == entry_of(key).object);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(slurp(obj) == entry_of(key).object);  // and it is still there
    CHECK(c.lookup(key) == entry_of(key).object);
  }

  TEST_CASE("removing the compiledir or locks/ under a running process: the next publish recreates them and still excludes") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    CompileCache c(cd);
    const std::string k1 = key_of(11), k2 = key_of(12), k3 = key_of(13);
    REQUIRE(stripe_lock_of(k1) == stripe_lock_of(k2));
    c.get_or_produce(k1, [&] { return entry_of(k1); });  // opens k1's stripe lock file
    for (int round = 0; round < 2; ++round) {
      CAPTURE(round);
      const std::string key = round == 0 ? k2 : k3;
      if (round == 0) fs::remove_all(cd / "locks");  // a cleanup of the lock directory
      else fs::remove_all(cd);                       // basecompiledir purge
      int excluded = -1;
      CHECK(c.get_or_produce(key, [&] {
        // While we hold the stripe, another process must not get it.
        const pid_t pid = ::fork();
        if (pid == 0) {
          try {
            boost::interprocess::file_lock l((cd / "locks" / stripe_lock_of(key)).c_str());
            ::_exit(l.try_lock() ? 1 : 0);
          } catch (...) {
            ::_exit(2);  // no lock file at the path: nothing to exclude anyone with
          }
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        excluded = WIFEXITED(status) ? WEXITSTATUS(status) : -2;
        return entry_of(key);
      }) == entry_of(key).object);
      CHECK(excluded == 0);
      CHECK_FALSE(c.stats().read_only);
      CHECK_FALSE(c.stats().disabled);
      CHECK(fs::exists(entry_file(cd, key, ".o")));
      CHECK(mode_of(cd / "locks") == 0700);
      CHECK(c.lookup(key) == entry_of(key).object);
    }
  }
}
