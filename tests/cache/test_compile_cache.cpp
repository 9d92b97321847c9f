// CompileCache on real files and real processes: miss then hit across
// instances, damaged entries detected and replaced, an unusable compiledir
// degrading to no caching, cleanup by age and size, eight forked processes
// racing on one compiledir (each key produced once), a process killed in
// the middle of publishing (no partial entry visible), failed writes (a full
// or read-only filesystem, injected) and the automatic cleanup.
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/interprocess/sync/file_lock.hpp>

#include <functional>
#include <iomanip>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
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

std::string key_of(int i) {
  std::ostringstream os;
  os << std::hex << (0x1234abcd00000000ULL + static_cast<unsigned long long>(i) * 7919);
  return os.str() + "00ff00ff";
}

Entry entry_of(const std::string& key) { return Entry{"object bytes for " + key, "// source of " + key, 12.5, "test"}; }

/// Removes the write-fault hook at scope exit.
struct FaultHook {
  explicit FaultHook(std::function<int(const fs::path&)> h) { CompileCache::set_write_fault_hook(std::move(h)); }
  ~FaultHook() { CompileCache::set_write_fault_hook(nullptr); }
};

void age(const fs::path& p, std::chrono::hours h) {
  fs::last_write_time(p, fs::file_time_type::clock::now() - h);
}

}  // namespace

TEST_SUITE("compile cache") {
  TEST_CASE("a miss produces and publishes, another instance on the same directory hits") {
    TempDir d;
    const std::string key = key_of(1);
    int produced = 0;
    {
      CompileCache c(d.path);
      bool hit = true;
      CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }, &hit) == entry_of(key).object);
      CHECK_FALSE(hit);
      CHECK(c.stats().compiles == 1);
      CHECK(c.stats().misses == 1);
    }
    CHECK(fs::exists(d.path / key.substr(0, 2) / (key + ".o")));
    CHECK(slurp(d.path / key.substr(0, 2) / (key + ".cpp")) == entry_of(key).source);
    CompileCache c2(d.path);
    bool hit = false;
    CHECK(c2.get_or_produce(key, [&] { ++produced; return entry_of(key); }, &hit) == entry_of(key).object);
    CHECK(hit);
    CHECK(produced == 1);
    CHECK(c2.stats().hits == 1);
    CHECK(c2.stats().compile_ms_saved == doctest::Approx(12.5));
    const auto list = c2.entries();
    REQUIRE(list.size() == 1);
    CHECK(list[0].key == key);
    CHECK(list[0].origin == "test");
    CHECK(list[0].object_bytes == entry_of(key).object.size());
  }

  TEST_CASE("a truncated or bit-flipped object is detected, removed and produced again") {
    TempDir d;
    const std::string key = key_of(2);
    CompileCache c(d.path);
    c.get_or_produce(key, [&] { return entry_of(key); });
    const fs::path obj = d.path / key.substr(0, 2) / (key + ".o");
    for (int damage = 0; damage < 2; ++damage) {
      CAPTURE(damage);
      std::string bytes = slurp(obj);
      if (damage == 0) bytes.resize(bytes.size() / 2);
      else bytes[3] = static_cast<char>(bytes[3] ^ 0x10);
      std::ofstream(obj, std::ios::binary | std::ios::trunc) << bytes;
      int produced = 0;
      bool hit = true;
      CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }, &hit) == entry_of(key).object);
      CHECK_FALSE(hit);
      CHECK(produced == 1);
      CHECK(c.stats().corrupt == static_cast<std::uint64_t>(damage + 1));
      CHECK(slurp(obj) == entry_of(key).object);  // republished intact
    }
    // An object without its metadata (a foreign file) is not trusted either.
    fs::remove(d.path / key.substr(0, 2) / (key + ".meta"));
    CHECK_FALSE(c.lookup(key).has_value());
  }

  TEST_CASE("an unusable compiledir still gives the bytes, without caching") {
    TempDir d;
    const fs::path file = d.path / "not-a-directory";
    std::ofstream(file) << "x";
    CompileCache c(file / "compiledir");  // cannot be created: a file is in the way
    CHECK(c.stats().disabled);
    int produced = 0;
    for (int i = 0; i < 2; ++i)
      CHECK(c.get_or_produce(key_of(3), [&] { ++produced; return entry_of(key_of(3)); }) == entry_of(key_of(3)).object);
    CHECK(produced == 2);
    CHECK(c.entries().empty());
  }

  TEST_CASE("cleanup by size removes the least recently used, clear removes everything") {
    TempDir d;
    CompileCache c(d.path);
    for (int i = 0; i < 6; ++i) c.get_or_produce(key_of(10 + i), [&] { return entry_of(key_of(10 + i)); });
    // Age the first three entries by a day, oldest first.
    for (int i = 0; i < 3; ++i)
      fs::last_write_time(d.path / key_of(10 + i).substr(0, 2) / (key_of(10 + i) + ".o"),
                          fs::file_time_type::clock::now() - std::chrono::hours(24 * (4 - i)));
    CHECK(c.entries().size() == 6);
    CHECK(c.cleanup(2 * 24 * 3600, 0).entries == 2);  // older than two days: entries 0 and 1
    std::set<std::string> keys;
    for (const auto& e : c.entries()) keys.insert(e.key);
    CHECK(keys.count(key_of(10)) == 0);
    CHECK(keys.count(key_of(11)) == 0);
    CHECK(keys.count(key_of(12)) == 1);
    const std::uintmax_t one = c.entries()[0].total_bytes;
    CHECK(c.cleanup(-1, one * 2).entries == 2);  // keep the two most recently used
    keys.clear();
    for (const auto& e : c.entries()) keys.insert(e.key);
    CHECK(keys.size() == 2);
    CHECK(keys.count(key_of(12)) == 0);  // the oldest went first
    CHECK(c.clear() == 2);
    CHECK(c.entries().empty());
    CHECK(fs::exists(d.path / "locks"));
  }

  TEST_CASE("eight processes racing over 20 keys: each key produced exactly once, every process gets its bytes") {
    TempDir d;
    const fs::path log = d.path / "produced.log";
    std::vector<pid_t> kids;
    for (int p = 0; p < 8; ++p) {
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        int bad = 0;
        {
          CompileCache c(d.path / "cd");
          for (int k = 0; k < 20; ++k) {
            const int i = (k + p * 3) % 20;  // each process in its own order
            const std::string key = key_of(100 + i);
            const std::string got = c.get_or_produce(key, [&] {
              std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a compile takes a while
              std::ofstream(log, std::ios::app) << key << "\n";
              return entry_of(key);
            });
            bad += got != entry_of(key).object;
          }
        }
        ::_exit(bad == 0 ? 0 : 1);
      }
      kids.push_back(pid);
    }
    for (pid_t pid : kids) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    }
    std::istringstream lines(slurp(log));
    std::vector<std::string> produced;
    for (std::string l; std::getline(lines, l);) produced.push_back(l);
    CHECK(produced.size() == 20);
    CHECK(std::set<std::string>(produced.begin(), produced.end()).size() == 20);
  }

  TEST_CASE("a process killed while publishing leaves no visible entry, the next run works") {
    TempDir d;
    const std::string key = key_of(7);
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(ready[0]);
      CompileCache::set_before_publish_hook([&](const std::string&) {
        const char c = 'x';
        if (::write(ready[1], &c, 1) != 1) ::_exit(3);
        for (;;) ::pause();  // killed here, between the metadata and the object
      });
      CompileCache c(d.path);
      c.get_or_produce(key, [&] { return entry_of(key); });
      ::_exit(2);
    }
    ::close(ready[1]);
    char c = 0;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));
    CHECK_FALSE(fs::exists(d.path / key.substr(0, 2) / (key + ".o")));
    CompileCache again(d.path);
    CHECK_FALSE(again.lookup(key).has_value());
    bool hit = true;
    CHECK(again.get_or_produce(key, [&] { return entry_of(key); }, &hit) == entry_of(key).object);
    CHECK_FALSE(hit);  // its lock died with it: no wait, no stale lock
    CHECK(again.lookup(key).has_value());
  }

  TEST_CASE("parse_size and the default base directory") {
    CHECK(parse_size("1024") == 1024u);
    CHECK(parse_size("10k") == 10240u);
    CHECK(parse_size("500M") == 500ull << 20);
    CHECK(parse_size("2G") == 2ull << 30);
    CHECK(parse_size("2GB") == 2ull << 30);
    CHECK_FALSE(parse_size("x").has_value());
    CHECK_FALSE(parse_size("5Q").has_value());
    // stoull took these: "-1" as 16 EiB, a leading space or sign as nothing.
    CHECK_FALSE(parse_size("-1").has_value());
    CHECK_FALSE(parse_size("-1G").has_value());
    CHECK_FALSE(parse_size(" 5").has_value());
    CHECK_FALSE(parse_size("+5").has_value());
    CHECK_FALSE(default_base_compiledir().empty());
  }

  TEST_CASE("a full filesystem (injected ENOSPC): the bytes still come, one warning, no partial entry") {
    TempDir d;
    CompileCache c(d.path / "cd");
    c.get_or_produce(key_of(40), [&] { return entry_of(key_of(40)); });  // written before the disk filled up
    int writes = 0;
    FaultHook fault([&](const fs::path& f) {
      ++writes;
      return f.extension() == ".o" ? ENOSPC : 0;  // the source and metadata fit, the object does not
    });
    StderrCapture err(d.path / "stderr.txt");
    int produced = 0;
    for (int i = 0; i < 3; ++i) {
      const std::string key = key_of(41 + i);
      CHECK(c.get_or_produce(key, [&] { ++produced; return entry_of(key); }) == entry_of(key).object);
      CHECK_FALSE(fs::exists(d.path / "cd" / key.substr(0, 2) / (key + ".meta")));  // the partial entry went
      CHECK_FALSE(fs::exists(d.path / "cd" / key.substr(0, 2) / (key + ".cpp")));
    }
    CHECK(produced == 3);
    CHECK(writes == 3);  // after the first failure the process stops writing
    CHECK(c.stats().read_only);
    CHECK_FALSE(c.stats().disabled);
    bool hit = false;
    CHECK(c.get_or_produce(key_of(40), [&] { return entry_of(key_of(40)); }, &hit) == entry_of(key_of(40)).object);
    CHECK(hit);  // what was cached before still serves
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find("No space left on device") != std::string::npos);
    CHECK(c.entries().size() == 1);
  }

  TEST_CASE("a read-only compiledir serves its entries, writes nothing and warns once") {
    TempDir d;
    const fs::path cd = d.path / "cd";
    { CompileCache(cd).get_or_produce(key_of(50), [&] { return entry_of(key_of(50)); }); }
    StderrCapture err(d.path / "stderr.txt");
    int produced = 0;
    {
      // Root ignores permission bits, so the read-only filesystem is injected
      // (the JIT tests mount a real one where user namespaces allow).
      FaultHook fault([](const fs::path&) { return EROFS; });
      CompileCache c(cd);
      bool hit = false;
      CHECK(c.get_or_produce(key_of(50), [&] { ++produced; return entry_of(key_of(50)); }, &hit) ==
            entry_of(key_of(50)).object);
      CHECK(hit);
      for (int i = 0; i < 2; ++i)
        CHECK(c.get_or_produce(key_of(51), [&] { ++produced; return entry_of(key_of(51)); }) ==
              entry_of(key_of(51)).object);
      CHECK(produced == 2);
      CHECK(c.stats().read_only);
      CHECK(c.entries().size() == 1);
    }
    if (::geteuid() != 0) {
      // Without root the permission bits are real: the constructor sees them.
      fs::permissions(cd, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                      fs::perm_options::remove);
      CompileCache c(cd);
      CHECK(c.stats().read_only);
      bool hit = false;
      c.get_or_produce(key_of(50), [&] { return entry_of(key_of(50)); }, &hit);
      CHECK(hit);
      fs::permissions(cd, fs::perms::owner_write, fs::perm_options::add);
    }
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == (::geteuid() != 0 ? 2 : 1));  // one per cache instance
    CHECK(text.find("Read-only file system") != std::string::npos);
  }

  TEST_CASE("cleanup removes the leftovers of dead writers once they are an hour old, and only those") {
    TempDir d;
    CompileCache c(d.path);
    const std::string key = key_of(60);
    c.get_or_produce(key, [&] { return entry_of(key); });
    const fs::path shard = d.path / key.substr(0, 2);
    const std::string other = key_of(61);
    std::ofstream(shard / (key + ".o.tmp.999.1.2")) << "partial";
    std::ofstream(shard / (other + ".meta")) << "key=" << other << "\n";  // metadata without its object
    std::ofstream(shard / (other + ".cpp")) << "// source";
    std::ofstream(shard / (key_of(62) + ".cpp.tmp.1.2.3")) << "fresh";  // a live writer's temporary
    age(shard / (key + ".o.tmp.999.1.2"), std::chrono::hours(2));
    age(shard / (other + ".meta"), std::chrono::hours(2));
    age(shard / (other + ".cpp"), std::chrono::hours(2));
    const CleanupResult r = c.cleanup(-1, 0);
    CHECK(r.entries == 0);
    CHECK(r.leftovers == 3);
    CHECK(r.bytes > 0);
    CHECK(fs::exists(shard / (key_of(62) + ".cpp.tmp.1.2.3")));
    CHECK_FALSE(fs::exists(shard / (other + ".meta")));
    CHECK(c.lookup(key).has_value());  // the complete entry stays
  }

  TEST_CASE("the automatic cleanup runs once per interval, in one process at a time") {
    TempDir d;
    CompileCache c(d.path);
    for (int i = 0; i < 3; ++i) c.get_or_produce(key_of(70 + i), [&] { return entry_of(key_of(70 + i)); });
    age(d.path / key_of(70).substr(0, 2) / (key_of(70) + ".o"), std::chrono::hours(24 * 40));
    CleanupPolicy policy;  // 30 days, one run a day
    const auto first = c.maybe_cleanup(policy);
    REQUIRE(first.has_value());  // no stamp yet: due
    CHECK(first->entries == 1);
    CHECK(c.entries().size() == 2);
    CHECK(fs::exists(d.path / "last-cleanup"));
    age(d.path / key_of(71).substr(0, 2) / (key_of(71) + ".o"), std::chrono::hours(24 * 40));
    CHECK_FALSE(c.maybe_cleanup(policy).has_value());  // ran less than a day ago: one stat, nothing else
    CHECK(c.entries().size() == 2);
    age(d.path / "last-cleanup", std::chrono::hours(25));
    // Another process is cleaning right now: skip, without waiting.
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(ready[0]);
      boost::interprocess::file_lock l((d.path / "locks" / "cleanup.lock").c_str());
      l.lock();
      const char x = 'x';
      if (::write(ready[1], &x, 1) != 1) ::_exit(3);
      for (;;) ::pause();
    }
    ::close(ready[1]);
    char x = 0;
    REQUIRE(::read(ready[0], &x, 1) == 1);
    ::close(ready[0]);
    CHECK_FALSE(c.maybe_cleanup(policy).has_value());
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    const auto again = c.maybe_cleanup(policy);  // the lock died with its holder
    REQUIRE(again.has_value());
    CHECK(again->entries == 1);
    policy.interval_seconds = 0;
    policy.max_bytes = 1;  // everything is over a one-byte budget
    const auto all = c.maybe_cleanup(policy);
    REQUIRE(all.has_value());
    CHECK(all->entries == 1);
    CHECK(c.entries().empty());
  }
}
