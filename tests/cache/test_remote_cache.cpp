// The remote compile-cache tier against a real redis-server on 127.0.0.1
// (redis_server.h): a local miss fetched from Redis without producing, fresh
// compiles published (and not in read-only mode), two forked processes racing
// on one key, the server killed or stopped mid-test and full (one warning,
// bounded time, the entry still produced), and values that must be rejected:
// another HMAC key, a truncated or altered value, another architecture. Also
// the URL parser and the key file's checks.
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>
#include <theano/cache/remote_cache.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "cache/dribbling_server.h"
#include "cache/redis_server.h"
#include "stderr_capture.h"
#include "temp_dir.h"

using namespace theano::cache;
namespace fs = std::filesystem;
using theano::test::count_of;
using theano::test::DribblingServer;
using theano::test::RedisServer;
using theano::test::slurp;
using theano::test::StderrCapture;
using theano::test::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kKey1 = "0123456789abcdef-fleet-key-one";
const std::string kKey2 = "fedcba9876543210-fleet-key-two";
const std::string kPrefix = "theano-cpp:v1:";  // RemoteOptions::prefix

std::string key_of(int i) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%08x%032x", 0xbeef0000u + static_cast<unsigned>(i), 7919u * static_cast<unsigned>(i));
  return buf;
}

Entry entry_of(const std::string& key, std::size_t size = 0) {
  Entry e{"object bytes for " + key, "// source of " + key, 42.5, "remote test", "cpu"};
  if (size) e.object.resize(size, 'x');
  return e;
}

RemoteOptions options_for(const RedisServer& s, const std::string& hmac = kKey1, const std::string& arch = "test-arch") {
  RemoteOptions o;
  o.url = parse_redis_url(s.url());
  o.hmac_key = hmac;
  o.arch = arch;
  o.connect_timeout_ms = 500;
  o.io_timeout_ms = 1000;
  return o;
}

std::shared_ptr<RedisTier> tier(const RemoteOptions& o) { return std::make_shared<RedisTier>(o); }

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// get_or_produce that counts produce() calls.
struct Producer {
  int calls = 0;
  std::string get(CompileCache& c, const std::string& key, std::size_t size = 0, bool* hit = nullptr) {
    return c.get_or_produce(key, [&] {
      ++calls;
      return entry_of(key, size);
    }, hit);
  }
};

}  // namespace

TEST_SUITE("remote cache") {
  TEST_CASE("a local miss is fetched from Redis without producing, and lands in the local compiledir") {
    RedisServer server;
    TempDir a, b;
    const std::string key = key_of(1);
    {
      CompileCache ca(a.path / "cd");
      ca.set_remote(tier(options_for(server)));
      Producer p;
      CHECK(p.get(ca, key) == entry_of(key).object);
      CHECK(p.calls == 1);
      CHECK(ca.stats().remote_published == 1);
      CHECK(ca.stats().remote_misses == 1);
      CHECK(ca.stats().compiles == 1);
    }
    CompileCache cb(b.path / "cd");
    cb.set_remote(tier(options_for(server)));
    Producer p;
    bool hit = false;
    CHECK(p.get(cb, key, 0, &hit) == entry_of(key).object);
    CHECK(p.calls == 0);
    CHECK(hit);
    const CacheStats s = cb.stats();
    CHECK(s.remote);
    CHECK(s.remote_hits == 1);
    CHECK(s.compiles == 0);
    CHECK(s.remote_published == 0);  // nothing new to publish
    CHECK(s.compile_ms_saved == doctest::Approx(42.5));
    // Now a local entry, with the writer's metadata: another instance on the
    // same compiledir hits it without any remote tier.
    CompileCache local(b.path / "cd");
    CHECK(local.lookup(key) == entry_of(key).object);
    const auto entries = local.entries();
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].origin == "remote test");
    CHECK(entries[0].kind == "cpu");
  }

  TEST_CASE("a fresh compile is published to Redis, a read-only tier publishes nothing") {
    RedisServer server;
    TempDir a, b;
    CompileCache ca(a.path / "cd");
    ca.set_remote(tier(options_for(server)));
    Producer p;
    p.get(ca, key_of(2));
    const auto value = server.get(kPrefix + key_of(2));
    REQUIRE(value.has_value());
    CHECK(value->rfind("theano-cpp remote entry 1\n", 0) == 0);
    CHECK(value->find("object bytes for " + key_of(2)) != std::string::npos);
    CHECK(value->find("\narch=test-arch\n") != std::string::npos);

    RemoteOptions ro = options_for(server);
    ro.write = false;
    CompileCache cb(b.path / "cd");
    cb.set_remote(tier(ro));
    p.get(cb, key_of(3));
    CHECK(p.calls == 2);
    CHECK_FALSE(server.exists(kPrefix + key_of(3)));
    CHECK(cb.stats().remote_published == 0);
    // ... but it reads.
    Producer q;
    q.get(cb, key_of(2));
    CHECK(q.calls == 0);
    CHECK(cb.stats().remote_hits == 1);
  }

  TEST_CASE("two processes racing on one key with empty compiledirs: at most two compiles, both right") {
    RedisServer server;
    TempDir scratch;
    const std::string key = key_of(4);
    const fs::path produced = scratch.path / "produced";
    int go[2];
    REQUIRE(::pipe(go) == 0);
    pid_t kids[2];
    for (int k = 0; k < 2; ++k) {
      kids[k] = ::fork();
      REQUIRE(kids[k] >= 0);
      if (kids[k] == 0) {
        ::close(go[1]);
        char c;
        while (::read(go[0], &c, 1) < 0 && errno == EINTR) {
        }
        int rc = 1;
        try {
          CompileCache cache(scratch.path / ("cd" + std::to_string(k)));
          cache.set_remote(std::make_shared<RedisTier>(options_for(server)));
          const std::string got = cache.get_or_produce(key, [&] {
            const int fd = ::open(produced.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
            if (::write(fd, "p\n", 2) != 2) std::_Exit(3);
            ::close(fd);
            std::this_thread::sleep_for(std::chrono::milliseconds(150));  // widen the race
            return entry_of(key);
          });
          rc = got == entry_of(key).object && cache.lookup(key) == got ? 0 : 2;
        } catch (...) {
          rc = 4;
        }
        std::_Exit(rc);
      }
    }
    ::close(go[0]);
    ::close(go[1]);  // both start now
    for (pid_t kid : kids) {
      int status = 0;
      REQUIRE(::waitpid(kid, &status, 0) == kid);
      CHECK(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);
    }
    const int compiles = count_of(slurp(produced), "p\n");
    CHECK(compiles >= 1);
    CHECK(compiles <= 2);
    // What they left in Redis is a good entry.
    CompileCache third(scratch.path / "cd-third");
    third.set_remote(tier(options_for(server)));
    Producer p;
    CHECK(p.get(third, key) == entry_of(key).object);
    CHECK(p.calls == 0);
  }

  TEST_CASE("the server killed mid-test: one warning, bounded time, then no waiting during the back-off") {
    auto server = std::make_unique<RedisServer>();
    TempDir a;
    CompileCache c(a.path / "cd");
    c.set_remote(tier(options_for(*server)));
    Producer p;
    p.get(c, key_of(5));  // a successful round trip: connected
    REQUIRE(c.stats().remote_published == 1);
    server->kill();
    StderrCapture err(a.path / "stderr");
    auto t0 = Clock::now();
    CHECK(p.get(c, key_of(6)) == entry_of(key_of(6)).object);
    CHECK(seconds_since(t0) < 3.0);
    const std::uint64_t errors = c.stats().remote_errors;
    for (int i = 7; i < 12; ++i) CHECK(p.get(c, key_of(i)) == entry_of(key_of(i)).object);
    CHECK(c.stats().remote_errors == errors);  // back-off: the network is not touched
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(count_of(text, "the remote compile cache redis://127.0.0.1:") == 1);
    CHECK(text.find("cannot connect: Connection refused; compiling locally") != std::string::npos);
    CHECK(p.calls == 7);
    const CacheStats s = c.stats();
    CHECK(s.remote_errors >= 1);
    CHECK(s.remote_published == 1);
    CHECK(s.compiles == 7);
  }

  TEST_CASE("a stopped server (accepts, never answers) is bounded by the command timeout") {
    RedisServer server;
    TempDir a;
    RemoteOptions o = options_for(server);
    o.io_timeout_ms = 400;
    CompileCache c(a.path / "cd");
    c.set_remote(tier(o));
    Producer p;
    p.get(c, key_of(20));
    server.stop();
    StderrCapture err(a.path / "stderr");
    const auto t0 = Clock::now();
    CHECK(p.get(c, key_of(21)) == entry_of(key_of(21)).object);
    const double waited = seconds_since(t0);
    CHECK(waited >= 0.35);  // it did wait for the answer ...
    CHECK(waited < 2.5);    // ... for about one timeout (the publish is skipped: back-off)
    // A new connection to the stopped server is bounded too.
    CompileCache c2(a.path / "cd2");
    c2.set_remote(tier(o));
    const auto t1 = Clock::now();
    CHECK(p.get(c2, key_of(22)) == entry_of(key_of(22)).object);
    CHECK(seconds_since(t1) < 2.5);
    const std::string text = err.text();
    server.cont();
    CHECK(count_of(text, "theano-cpp warning") == 2);  // one per tier
    CHECK(text.find("no answer within 400 ms") != std::string::npos);
  }

  TEST_CASE("a full server (maxmemory, noeviction) refuses the write: one warning, the entry still returned") {
    RedisServer server(RedisServer::Options{"1mb", ""});
    TempDir a;
    CompileCache c(a.path / "cd");
    c.set_remote(tier(options_for(server)));
    Producer p;
    StderrCapture err(a.path / "stderr");
    CHECK(p.get(c, key_of(30), 3 << 20) == entry_of(key_of(30), 3 << 20).object);
    CHECK(p.get(c, key_of(31), 3 << 20) == entry_of(key_of(31), 3 << 20).object);  // writes paused: not tried
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find("OOM") != std::string::npos);
    CHECK_FALSE(server.exists(kPrefix + key_of(30)));
    const CacheStats s = c.stats();
    CHECK(s.remote_errors == 1);
    CHECK(s.remote_published == 0);
    CHECK(s.remote_misses == 2);  // reads still go on
    CHECK(p.calls == 2);
  }

  TEST_CASE("an entry signed with another key is rejected and compiled again") {
    RedisServer server;
    TempDir a, b;
    const std::string key = key_of(40);
    CompileCache ca(a.path / "cd");
    ca.set_remote(tier(options_for(server, kKey1)));
    Producer p;
    p.get(ca, key);
    CompileCache cb(b.path / "cd");
    auto t2 = tier(options_for(server, kKey2));
    cb.set_remote(t2);
    StderrCapture err(b.path / "stderr");
    Producer q;
    CHECK(q.get(cb, key) == entry_of(key).object);
    const std::string text = err.text();
    CHECK(q.calls == 1);
    CHECK(cb.stats().remote_rejected == 1);
    CHECK(t2->stats().rejected_by_reason["bad HMAC"] == 1);
    CHECK(text.find("bad HMAC: written with another key or altered") != std::string::npos);
    // The fresh compile replaced it, signed with key 2: now key 1 rejects it.
    CHECK(cb.stats().remote_published == 1);
    TempDir c;
    CompileCache cc(c.path / "cd");
    cc.set_remote(tier(options_for(server, kKey1)));
    StderrCapture err2(c.path / "stderr");
    p.get(cc, key);
    CHECK(p.calls == 2);
    CHECK(cc.stats().remote_rejected == 1);
  }

  TEST_CASE("a truncated or altered value is rejected, recompiled and republished") {
    RedisServer server;
    TempDir a, b, c;
    const std::string key = key_of(50);
    CompileCache ca(a.path / "cd");
    ca.set_remote(tier(options_for(server)));
    Producer p;
    p.get(ca, key, 4096);
    const std::string good = *server.get(kPrefix + key);
    std::string altered = good;
    SUBCASE("truncated to its first half") { server.set(kPrefix + key, good.substr(0, good.size() / 2)); }
    SUBCASE("one byte of the object changed") {
      altered[altered.size() - 100] ^= 1;
      server.set(kPrefix + key, altered);
    }
    SUBCASE("the CRC rewritten to match nothing") {
      const auto at = altered.find("object_crc32=") + 13;
      altered[at] = altered[at] == '1' ? '2' : '1';
      server.set(kPrefix + key, altered);
    }
    auto tb = tier(options_for(server));
    CompileCache cb(b.path / "cd");
    cb.set_remote(tb);
    StderrCapture err(b.path / "stderr");
    Producer q;
    CHECK(q.get(cb, key, 4096) == entry_of(key, 4096).object);
    const std::string text = err.text();
    CHECK(q.calls == 1);
    CHECK(cb.stats().remote_rejected == 1);
    CHECK(count_of(text, "rejected the remote compile cache entry") == 1);
    const auto reasons = tb->stats().rejected_by_reason;
    CHECK((reasons.count("truncated") || reasons.count("bad HMAC")));
    CHECK(cb.stats().remote_published == 1);  // the fresh compile replaced it
    const auto replaced = server.get(kPrefix + key);
    REQUIRE(replaced.has_value());
    CHECK(replaced->size() == good.size());
    CompileCache cc(c.path / "cd");
    cc.set_remote(tier(options_for(server)));
    Producer r;
    CHECK(r.get(cc, key, 4096) == entry_of(key, 4096).object);
    CHECK(r.calls == 0);
    CHECK(cc.stats().remote_hits == 1);
  }

  TEST_CASE("a signed entry built for another architecture is rejected") {
    RedisServer server;
    TempDir a, b;
    const std::string key = key_of(60);
    CompileCache ca(a.path / "cd");
    ca.set_remote(tier(options_for(server, kKey1, "aarch64-unknown-linux-gnu-neoverse-v2-clang19.1.7-abi3")));
    Producer p;
    p.get(ca, key);
    auto tb = tier(options_for(server, kKey1, "x86_64-pc-linux-gnu-znver4-clang19.1.7-abi3"));
    CompileCache cb(b.path / "cd");
    cb.set_remote(tb);
    StderrCapture err(b.path / "stderr");
    Producer q;
    q.get(cb, key);
    const std::string text = err.text();
    CHECK(q.calls == 1);
    CHECK(tb->stats().rejected_by_reason["foreign arch"] == 1);
    CHECK(text.find("foreign arch: built for aarch64-unknown-linux-gnu-neoverse-v2") != std::string::npos);
  }

  TEST_CASE("nothing listens: a look-up costs one warning and compiles") {
    TempDir a;
    RemoteOptions o;
    o.url = parse_redis_url("redis://127.0.0.1:1");
    o.hmac_key = kKey1;
    CompileCache c(a.path / "cd");
    c.set_remote(tier(o));
    Producer p;
    StderrCapture err(a.path / "stderr");
    const auto t0 = Clock::now();
    for (int i = 70; i < 74; ++i) p.get(c, key_of(i));
    CHECK(seconds_since(t0) < 2.0);
    const std::string text = err.text();
    CHECK(count_of(text, "theano-cpp warning") == 1);
    CHECK(text.find("redis://127.0.0.1:1/0: cannot connect: Connection refused") != std::string::npos);
    CHECK(p.calls == 4);
  }

  TEST_CASE("Redis URLs") {
    CHECK(parse_redis_url("redis://cache.example:7000/3").str() == "redis://cache.example:7000/3");
    CHECK(parse_redis_url("redis://10.0.0.5").port == 6379);
    CHECK(parse_redis_url("redis://10.0.0.5/").db == 0);
    CHECK(parse_redis_url("redis://[::1]:6380").host == "::1");
    for (const char* bad : {"http://x:1", "redis://", "redis://:6379", "redis://h:0", "redis://h:70000", "redis://h:x",
                            "redis://h/-1", "redis://user:pw@h", "rediss://h", "redis://h:1/db"})
      CHECK_THROWS_AS(parse_redis_url(bad), std::invalid_argument);
    try {
      parse_redis_url("redis://user:pw@h");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("remote_cache_password") != std::string::npos);
    }
  }

  TEST_CASE("the key file must be the user's own and readable by nobody else") {
    TempDir d;
    const fs::path f = d.path / "key";
    {
      std::ofstream(f) << "0123456789abcdef0123456789abcdef\n";
    }
    ::chmod(f.c_str(), 0600);
    CHECK(load_remote_key_file(f) == "0123456789abcdef0123456789abcdef");
    ::chmod(f.c_str(), 0644);
    try {
      load_remote_key_file(f);
      FAIL("a 0644 key file was accepted");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("has mode 0644") != std::string::npos);
    }
    ::chmod(f.c_str(), 0640);
    CHECK_THROWS_AS(load_remote_key_file(f), std::runtime_error);
    ::chmod(f.c_str(), 0600);
    fs::create_symlink(f, d.path / "link");
    CHECK_THROWS_AS(load_remote_key_file(d.path / "link"), std::runtime_error);
    CHECK_THROWS_AS(load_remote_key_file(d.path), std::runtime_error);  // a directory
    {
      std::ofstream(d.path / "short") << "tooshort\n";
    }
    ::chmod((d.path / "short").c_str(), 0600);
    CHECK_THROWS_AS(load_remote_key_file(d.path / "short"), std::runtime_error);
    RemoteOptions no_key;
    no_key.url = parse_redis_url("redis://127.0.0.1");
    CHECK_THROWS_AS(RedisTier{no_key}, std::invalid_argument);  // no key: no tier
  }

  TEST_CASE("a reply dribbled a byte at a time is bounded by one deadline for the whole command") {
    // 67 bytes, one per 250 ms: each read is quick, the reply takes 17 s. The
    // tier must give up after its 300 ms, not after 67 of them.
    DribblingServer server("$60\r\n" + std::string(60, 'x') + "\r\n", 1, std::chrono::milliseconds(250));
    TempDir a;
    RemoteOptions o;
    o.url = parse_redis_url(server.url());
    o.hmac_key = kKey1;
    o.arch = "test-arch";
    o.write = false;
    o.connect_timeout_ms = o.io_timeout_ms = 300;
    auto t = tier(o);
    CompileCache c(a.path / "cd");
    c.set_remote(t);
    StderrCapture err(a.path / "stderr");
    Producer p;
    const auto t0 = Clock::now();
    CHECK(p.get(c, key_of(60)) == entry_of(key_of(60)).object);
    const double waited = seconds_since(t0);
    CHECK(waited < 3.0);  // the deadline (0.3 s) plus generous slack; 17 s when each read had its own timeout
    CHECK(p.calls == 1);
    CHECK(t->stats().errors == 1);
    CHECK(server.sent() < 20);
    CHECK(err.text().find("no answer within 300 ms") != std::string::npos);
  }

  TEST_CASE("a reply announcing more than max_entry_bytes is refused from its length line, its body never read") {
    // The server announces 1.5 GB and sends 1000 bytes of it, then nothing.
    DribblingServer server("$1500000000\r\n" + std::string(1000, 'x'), 1013, std::chrono::milliseconds(0));
    TempDir a;
    RemoteOptions o;
    o.url = parse_redis_url(server.url());
    o.hmac_key = kKey1;
    o.arch = "test-arch";
    o.write = false;
    o.io_timeout_ms = 5000;  // when the length went unchecked, the GET waited this long for the rest
    auto t = tier(o);
    CompileCache c(a.path / "cd");
    c.set_remote(t);
    StderrCapture err(a.path / "stderr");
    Producer p;
    const auto t0 = Clock::now();
    CHECK(p.get(c, key_of(61)) == entry_of(key_of(61)).object);
    CHECK(seconds_since(t0) < 4.0);
    const RemoteStats s = t->stats();
    CHECK(s.rejected == 1);
    CHECK(s.rejected_by_reason.count("too large") == 1);
    CHECK(s.errors == 0);
    CHECK_FALSE(s.backing_off);  // a refused value is not a server failure
    CHECK(err.text().find("too large: 1500000000 bytes (at most 67108864)") != std::string::npos);
  }
}
