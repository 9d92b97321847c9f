// The JIT with THEANO_FLAGS remote_cache against a real redis-server
// (cache/redis_server.h), in real processes (tools/cache_child.cpp): the first
// process on an empty compiledir compiles and publishes, a second one on
// another empty compiledir compiles nothing and computes the right result from
// the remote entry; another key is rejected (and a read-only tier publishes
// nothing); a key file others can read stops the process with an error naming
// the flag; no key at all costs one warning and no remote tier.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <theano/cache/remote_cache.h>
#include <theano/codegen/compiledir.h>

#include <random>

#include "cache/redis_server.h"
#include "stderr_capture.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using theano::test::RedisServer;
using theano::test::slurp;
using theano::test::TempDir;

namespace {

struct Child {
  int status = -1;
  std::string first, remote;  // the child's first line and its remote_* line
  std::string err;
};

/// Runs the cache child (`constant`) with THEANO_FLAGS=`flags`.
Child run_child(const std::string& flags, const std::string& constant, const fs::path& scratch) {
  std::vector<std::string> env_store{"THEANO_FLAGS=" + flags};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("THEANO_FLAGS=", 0) != 0) env_store.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& s : env_store) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string prog = THEANO_CACHE_CHILD, arg = constant;
  char* argv[] = {prog.data(), arg.data(), nullptr};
  const fs::path out = scratch / "child.out", err = scratch / "child.err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  REQUIRE(rc == 0);
  Child c;
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cache=", 0) == 0) c.first = line;
    if (line.rfind("remote_hits=", 0) == 0) c.remote = line;
  }
  c.err = slurp(err);
  return c;
}

fs::path key_file(const fs::path& dir, const std::string& secret, mode_t mode) {
  const fs::path f = dir / ("key-" + std::to_string(mode));
  std::ofstream(f) << secret << "\n";
  ::chmod(f.c_str(), mode);
  return f;
}

}  // namespace

TEST_SUITE("remote compile cache through the JIT") {
  TEST_CASE("a second process on an empty compiledir gets the remote entry: no compile, the right result") {
    RedisServer server;
    TempDir d;
    const fs::path key = key_file(d.path, "0123456789abcdef0123456789abcdef", 0600);
    const std::string remote = ",remote_cache=" + server.url() + ",remote_cache_key_file=" + key.string();
    const Child first = run_child("compiledir=" + (d.path / "a").string() + remote, "3", d.path);
    CHECK(first.status == 0);
    CHECK(first.first == "cache=miss compiles=1 hits=0 ok=1");
    CHECK(first.remote == "remote_hits=0 remote_misses=1 remote_rejected=0 remote_published=1 remote_errors=0");
    CHECK(server.command({"DBSIZE"}) == std::optional<std::string>("1"));

    const Child second = run_child("compiledir=" + (d.path / "b").string() + remote, "3", d.path);
    CHECK(second.status == 0);  // ok=1 too: the result was checked
    CHECK(second.first == "cache=hit compiles=0 hits=0 ok=1");
    CHECK(second.remote == "remote_hits=1 remote_misses=0 remote_rejected=0 remote_published=0 remote_errors=0");
    CHECK(second.err.empty());

    // Another fleet's key: rejected, compiled here; read-only: not replaced.
    const fs::path other = key_file(d.path, "another-fleet-secret-0123456789", 0400);
    const Child third = run_child("compiledir=" + (d.path / "c").string() + ",remote_cache=" + server.url() +
                                      ",remote_cache_mode=read,remote_cache_key_file=" + other.string(),
                                  "3", d.path);
    CHECK(third.status == 0);
    CHECK(third.first == "cache=miss compiles=1 hits=0 ok=1");
    CHECK(third.remote == "remote_hits=0 remote_misses=0 remote_rejected=1 remote_published=0 remote_errors=0");
    CHECK(third.err.find("bad HMAC") != std::string::npos);
  }

  TEST_CASE("a signed remote entry that cannot be loaded is evicted, compiled again and replaced, not fatal") {
    RedisServer server;
    TempDir d;
    const std::string secret = "0123456789abcdef0123456789abcdef";
    const fs::path key = key_file(d.path, secret, 0600);
    const std::string remote = ",remote_cache=" + server.url() + ",remote_cache_key_file=" + key.string();
    REQUIRE(run_child("compiledir=" + (d.path / "a").string() + remote, "3", d.path).status == 0);
    const std::optional<std::string> rkey = server.command({"RANDOMKEY"});  // the one entry
    REQUIRE(rkey.has_value());
    const std::string prefix = "theano-cpp:v1:";
    REQUIRE(rkey->rfind(prefix, 0) == 0);
    // Replace it by 5000 random bytes, correctly signed with the fleet's key.
    theano::cache::RemoteOptions o;
    o.url = theano::cache::parse_redis_url(server.url());
    o.hmac_key = secret;
    o.arch = theano::codegen::remote_cache_arch();
    std::string junk(5000, '\0');
    std::mt19937 rng(5000);
    for (char& ch : junk) ch = static_cast<char>(rng());
    const std::string before = *server.get(*rkey);
    theano::cache::RedisTier(o).publish(rkey->substr(prefix.size()), theano::cache::Entry{junk, "", 1, "junk"});
    const std::string planted = *server.get(*rkey);
    REQUIRE(planted != before);

    // Fetched, published locally, refused by the loader: was a LoadError here
    // and in every later process on this compiledir, with the tier on or off.
    const Child fetched = run_child("compiledir=" + (d.path / "b").string() + remote, "3", d.path);
    CHECK(fetched.status == 0);  // ok=1: the result was checked
    CHECK(fetched.first.find("ok=1") != std::string::npos);
    CHECK(fetched.err.find("passed its checks but cannot be loaded") != std::string::npos);
    CHECK(server.get(*rkey) != std::optional<std::string>(planted));  // the fresh compile replaced it
    const Child local = run_child("compiledir=" + (d.path / "b").string(), "3", d.path);
    CHECK(local.status == 0);
    CHECK(local.first.rfind("cache=hit compiles=0 ", 0) == 0);
    CHECK(local.first.find("ok=1") != std::string::npos);
    CHECK(local.err.empty());
  }

  TEST_CASE("a key file others can read is refused, no key means no remote tier (one warning)") {
    RedisServer server;
    TempDir d;
    const fs::path open_key = key_file(d.path, "0123456789abcdef0123456789abcdef", 0644);
    const Child refused = run_child("compiledir=" + (d.path / "a").string() + ",remote_cache=" + server.url() +
                                        ",remote_cache_key_file=" + open_key.string(),
                                    "3", d.path);
    CHECK(refused.status != 0);
    CHECK(refused.err.find("THEANO_FLAGS remote_cache_key_file") != std::string::npos);
    CHECK(refused.err.find("has mode 0644") != std::string::npos);

    const Child no_key = run_child("compiledir=" + (d.path / "b").string() + ",remote_cache=" + server.url(), "3", d.path);
    CHECK(no_key.status == 0);
    CHECK(no_key.first == "cache=miss compiles=1 hits=0 ok=1");
    CHECK(no_key.remote == "remote_hits=0 remote_misses=0 remote_rejected=0 remote_published=0 remote_errors=0");
    CHECK(theano::test::count_of(no_key.err, "no key to sign and check its entries") == 1);
    CHECK(server.command({"DBSIZE"}) == std::optional<std::string>("0"));

    const Child bad_url = run_child("compiledir=" + (d.path / "c").string() + ",remote_cache=redis://h:99999", "3", d.path);
    CHECK(bad_url.status != 0);
    CHECK(bad_url.err.find("THEANO_FLAGS remote_cache:") != std::string::npos);
  }
}
