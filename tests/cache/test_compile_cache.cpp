// CompileCache on real files and real processes: miss then hit across
// instances, damaged entries detected and replaced, an unusable compiledir
// degrading to no caching, cleanup by age and size, eight forked processes
// racing on one compiledir (each key produced once), and a process killed in
// the middle of publishing (no partial entry visible).
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace theano::cache;
namespace fs = std::filesystem;

namespace {

/// A fresh directory under $TMPDIR, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    path = fs::path(tmp && *tmp ? tmp : "/tmp") /
           ("theano-cache-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

std::string key_of(int i) {
  std::ostringstream os;
  os << std::hex << (0x1234abcd00000000ULL + static_cast<unsigned long long>(i) * 7919);
  return os.str() + "00ff00ff";
}

Entry entry_of(const std::string& key) { return Entry{"object bytes for " + key, "// source of " + key, 12.5, "test"}; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_SUITE("compile cache") {
  TEST_CASE("a miss produces and publishes; another instance on the same directory hits") {
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

  TEST_CASE("cleanup by size removes the least recently used; clear removes everything") {
    TempDir d;
    CompileCache c(d.path);
    for (int i = 0; i < 6; ++i) c.get_or_produce(key_of(10 + i), [&] { return entry_of(key_of(10 + i)); });
    // Age the first three entries by a day, oldest first.
    for (int i = 0; i < 3; ++i)
      fs::last_write_time(d.path / key_of(10 + i).substr(0, 2) / (key_of(10 + i) + ".o"),
                          fs::file_time_type::clock::now() - std::chrono::hours(24 * (4 - i)));
    CHECK(c.entries().size() == 6);
    CHECK(c.cleanup(2 * 24 * 3600, 0) == 2);  // older than two days: entries 0 and 1
    std::set<std::string> keys;
    for (const auto& e : c.entries()) keys.insert(e.key);
    CHECK(keys.count(key_of(10)) == 0);
    CHECK(keys.count(key_of(11)) == 0);
    CHECK(keys.count(key_of(12)) == 1);
    const std::uintmax_t one = c.entries()[0].total_bytes;
    CHECK(c.cleanup(-1, one * 2) == 2);  // keep the two most recently used
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

  TEST_CASE("a process killed while publishing leaves no visible entry; the next run works") {
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
    CHECK_FALSE(default_base_compiledir().empty());
  }
}
