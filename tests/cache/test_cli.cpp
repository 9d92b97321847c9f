// The theano-cache CLI on a populated compiledir, as a real process: every
// command, --json output checked to be well-formed JSON and read back, --help,
// and the exit codes (0 ok, 1 error, 2 usage). `remote stats|list|purge`
// against a real redis-server (cache/redis_server.h).
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>
#include <theano/cache/remote_cache.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cache/redis_server.h"

extern char** environ;
namespace fs = std::filesystem;
using theano::cache::CompileCache;
using theano::cache::Entry;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result cli(std::vector<std::string> args) {
  static int n = 0;
  const fs::path base = fs::temp_directory_path() / ("theano-cli-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  std::string prog = THEANO_CACHE_CLI;
  std::vector<char*> argv{prog.data()};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  Result r;
  if (posix_spawn(&pid, prog.c_str(), &fa, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  posix_spawn_file_actions_destroy(&fa);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// A small JSON validator (RFC 8259 grammar, no extensions).
struct Json {
  const std::string& s;
  std::size_t p = 0;
  void ws() {
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  }
  bool lit(const char* t) {
    const std::size_t n = std::strlen(t);
    if (s.compare(p, n, t) != 0) return false;
    p += n;
    return true;
  }
  bool string() {
    if (p >= s.size() || s[p] != '"') return false;
    for (++p; p < s.size(); ++p) {
      if (s[p] == '\\') ++p;
      else if (s[p] == '"') return ++p, true;
      else if (static_cast<unsigned char>(s[p]) < 0x20) return false;
    }
    return false;
  }
  bool number() {
    const std::size_t b = p;
    if (p < s.size() && s[p] == '-') ++p;
    while (p < s.size() && (std::isdigit(static_cast<unsigned char>(s[p])) || s[p] == '.' || s[p] == 'e' ||
                            s[p] == 'E' || s[p] == '+' || s[p] == '-'))
      ++p;
    return p > b;
  }
  bool value() {
    ws();
    if (p >= s.size()) return false;
    const char c = s[p];
    bool ok;
    if (c == '{') {
      ++p;
      ws();
      if (p < s.size() && s[p] == '}') return ++p, true;
      do {
        ws();
        if (!string()) return false;
        ws();
        if (p >= s.size() || s[p++] != ':') return false;
        if (!value()) return false;
        ws();
      } while (p < s.size() && s[p] == ',' && ++p);
      ok = p < s.size() && s[p++] == '}';
    } else if (c == '[') {
      ++p;
      ws();
      if (p < s.size() && s[p] == ']') return ++p, true;
      do {
        if (!value()) return false;
        ws();
      } while (p < s.size() && s[p] == ',' && ++p);
      ok = p < s.size() && s[p++] == ']';
    } else if (c == '"') {
      ok = string();
    } else if (c == 't' || c == 'f' || c == 'n') {
      ok = lit("true") || lit("false") || lit("null");
    } else {
      ok = number();
    }
    return ok;
  }
  static bool valid(const std::string& text) {
    Json j{text};
    if (!j.value()) return false;
    j.ws();
    return j.p == text.size();
  }
};

long json_int(const std::string& text, const std::string& field) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\"" + field + "\": (-?[0-9]+)"))) return -1;
  return std::stol(m[1]);
}

struct Populated {
  fs::path base, dir;
  Populated() {
    base = fs::temp_directory_path() / ("theano-cli-base-" + std::to_string(::getpid()));
    fs::remove_all(base);
    dir = base / "compiledir_test";
    CompileCache c(dir);
    for (int i = 0; i < 5; ++i) {
      const std::string key = "abcdef0" + std::to_string(i) + "1234567890";
      c.get_or_produce(key, [&] { return Entry{std::string(1000 + i, 'o'), "// src \"quoted\"\n", 3.0 + i, "test " + std::to_string(i)}; });
    }
  }
  ~Populated() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
};

}  // namespace

TEST_SUITE("theano-cache CLI") {
  TEST_CASE("list, info, stats with and without --json") {
    Populated p;
    const std::string cd = p.dir.string();
    Result r = cli({"list", "--compiledir", cd});
    CHECK(r.code == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 5);
    CHECK(r.out.find("test 3") != std::string::npos);
    r = cli({"list", "--compiledir", cd, "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(std::count(r.out.begin(), r.out.end(), '{') == 5);
    r = cli({"info", "--compiledir", cd, "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "entries") == 5);
    CHECK(r.out.find("\"compiler\": \"clang=") != std::string::npos);
    r = cli({"stats", "--compiledir", cd, "--json"});
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "entries") == 5);
    CHECK(json_int(r.out, "bytes") > 5000);
    r = cli({"info", "--compiledir", cd});
    CHECK(r.out.find("entries: 5") != std::string::npos);
  }

  TEST_CASE("precompile writes the prelude's PCH at -O2 and -O0 into the compiledir's prelude entries") {
    const fs::path dir = fs::temp_directory_path() / ("theano-cli-precompile-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    Result r = cli({"precompile", "--compiledir", dir.string(), "--json"});
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "-O2") > 100000);
    CHECK(json_int(r.out, "-O0") > 100000);
    r = cli({"list", "--compiledir", (dir / "prelude").string()});
    CHECK(r.code == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);
    CHECK(r.out.find("pch") != std::string::npos);
    // Again: the same keys, nothing added.
    r = cli({"precompile", "--compiledir", dir.string()});
    CHECK(r.code == 0);
    CHECK(r.out.find("precompiled the prelude for -O2") != std::string::npos);
    r = cli({"list", "--compiledir", (dir / "prelude").string()});
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);
    fs::remove_all(dir);
  }

  TEST_CASE("list shows each entry's kind (cpu, or CUDA with its arch), stats and info count per kind") {
    Populated p;
    const std::string cd = p.dir.string();
    {
      CompileCache c(p.dir);
      for (const char* kind : {"cuda sm_90 cubin", "cuda compute_121 ptx"}) {
        const std::string key = std::string(kind).find("ptx") != std::string::npos
                                    ? "cafe000000000000000000000000000000000001"
                                    : "cafe000000000000000000000000000000000002";
        c.get_or_produce(key, [&] {
          Entry e{std::string(2000, 'c'), "extern \"C\" __global__ void k() {}\n", 100.0, "kernel k"};
          e.kind = kind;
          return e;
        });
      }
    }
    Result r = cli({"list", "--compiledir", cd});
    CHECK(r.code == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 7);
    CHECK(r.out.find("  cuda sm_90 cubin  kernel k\n") != std::string::npos);
    CHECK(r.out.find("  cuda compute_121 ptx  kernel k\n") != std::string::npos);
    CHECK(r.out.find("  cpu  test 3\n") != std::string::npos);
    r = cli({"list", "--compiledir", cd, "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(r.out.find("\"kind\": \"cuda sm_90 cubin\"") != std::string::npos);
    CHECK(r.out.find("\"kind\": \"cuda compute_121 ptx\"") != std::string::npos);
    CHECK(r.out.find("\"kind\": \"cpu\"") != std::string::npos);
    r = cli({"stats", "--compiledir", cd, "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "entries") == 7);
    CHECK(r.out.find("\"cpu\": {\"entries\": 5,") != std::string::npos);
    CHECK(r.out.find("\"cuda sm_90 cubin\": {\"entries\": 1,") != std::string::npos);
    r = cli({"stats", "--compiledir", cd});
    CHECK(r.out.find("  cuda compute_121 ptx: 1 entry, ") != std::string::npos);
    CHECK(r.out.find("  cpu: 5 entries, ") != std::string::npos);
    r = cli({"info", "--compiledir", cd, "--json"});
    CHECK(Json::valid(r.out));
    CHECK(r.out.find("\"nvrtc\": \"") != std::string::npos);
    r = cli({"info", "--compiledir", cd});
    CHECK(r.out.find("\nnvrtc: ") != std::string::npos);
  }

  TEST_CASE("cleanup and clear remove entries, the compiledir with no command") {
    Populated p;
    const std::string cd = p.dir.string();
    Result r = cli({"cleanup", "--compiledir", cd, "--max-size", "3k", "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "removed") >= 3);
    CHECK(json_int(r.out, "remaining") <= 2);
    r = cli({"clear", "--compiledir", cd});
    CHECK(r.code == 0);
    CHECK(CompileCache(p.dir).entries().empty());
    r = cli({"--compiledir", cd});
    CHECK(r.code == 0);
    CHECK(r.out == cd + "\n");
    r = cli({"--json", "--compiledir", cd});
    CHECK(Json::valid(r.out));
  }

  TEST_CASE("basecompiledir list and purge") {
    Populated p;
    ::setenv("THEANO_FLAGS", ("compiledir=off,base_compiledir=" + p.base.string()).c_str(), 1);
    Result r = cli({"basecompiledir", "list", "--json"});
    ::setenv("THEANO_FLAGS", "compiledir=off", 1);
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(r.out.find("compiledir_test") != std::string::npos);
    ::setenv("THEANO_FLAGS", ("compiledir=off,base_compiledir=" + p.base.string()).c_str(), 1);
    r = cli({"basecompiledir", "purge"});
    ::setenv("THEANO_FLAGS", "compiledir=off", 1);
    CHECK(r.code == 0);
    CHECK_FALSE(fs::exists(p.dir));
  }

  TEST_CASE("--help, usage errors (exit 2) and errors (exit 1)") {
    for (const char* cmd : {"list", "info", "stats", "clear", "cleanup", "basecompiledir"}) {
      CAPTURE(cmd);
      Result r = cli({cmd, "--help"});
      CHECK(r.code == 0);
      CHECK(r.out.find("usage: theano-cache") != std::string::npos);
    }
    CHECK(cli({"frobnicate"}).code == 2);
    CHECK(cli({"list", "--bogus"}).code == 2);
    CHECK(cli({"cleanup", "--max-size", "lots"}).code == 2);
    CHECK(cli({"cleanup", "--older-than", "-3"}).code == 2);
    CHECK(cli({"list", "--max-size", "1G"}).code == 2);
    CHECK(cli({"basecompiledir", "sideways"}).code == 2);
    const Result r = cli({"clear", "--compiledir", "/nonexistent/theano-cli-dir"});
    CHECK(r.code == 1);
    CHECK(r.err.find("no compiledir") != std::string::npos);
  }

  TEST_CASE("list, info and stats on a mistyped --compiledir exit 1 and create nothing") {
    const fs::path base = fs::temp_directory_path() / ("theano-cli-typo-" + std::to_string(::getpid()));
    fs::remove_all(base);
    const fs::path typo = base / "compiledr" / "oops";
    for (const char* cmd : {"list", "info", "stats", "clear", "cleanup"}) {
      for (bool json : {false, true}) {
        CAPTURE(cmd);
        CAPTURE(json);
        std::vector<std::string> args{cmd, "--compiledir", typo.string()};
        if (json) args.push_back("--json");
        const Result r = cli(args);
        CHECK(r.code == 1);
        CHECK(r.err.find("no compiledir at " + typo.string()) != std::string::npos);
        CHECK(r.err.find("nothing was created") != std::string::npos);
        CHECK_FALSE(fs::exists(base));  // not the directory, not its parents, no locks/
      }
    }
  }

  TEST_CASE("read commands on an existing compiledir write nothing, an untrusted one is refused (exit 1)") {
    Populated p;
    fs::remove_all(p.dir / "locks");
    CHECK(cli({"list", "--compiledir", p.dir.string()}).code == 0);
    CHECK(cli({"stats", "--compiledir", p.dir.string()}).code == 0);
    CHECK_FALSE(fs::exists(p.dir / "locks"));
    fs::permissions(p.dir, fs::perms::all);  // world-writable: anyone could have planted entries
    const Result r = cli({"list", "--compiledir", p.dir.string()});
    CHECK(r.code == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("writable by every user") != std::string::npos);
    CHECK(r.err.find("not trusted") != std::string::npos);
  }
}

namespace {

/// THEANO_FLAGS of the CLI processes started while alive (this process's own
/// configuration was read long ago); the previous value back after.
struct FlagsEnv {
  explicit FlagsEnv(const std::string& flags) {
    const char* old = std::getenv("THEANO_FLAGS");
    saved_ = old ? old : "compiledir=off";
    ::setenv("THEANO_FLAGS", flags.c_str(), 1);
  }
  ~FlagsEnv() { ::setenv("THEANO_FLAGS", saved_.c_str(), 1); }
  std::string saved_;
  FlagsEnv(const FlagsEnv&) = delete;
  FlagsEnv& operator=(const FlagsEnv&) = delete;
};

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

}  // namespace

TEST_SUITE("theano-cache remote CLI") {
  TEST_CASE("remote stats, list and purge against a real redis-server, with and without --json") {
    theano::test::RedisServer server;
    const std::string key = "0123456789abcdef-cli-test-key";
    theano::cache::RemoteOptions o;
    o.url = theano::cache::parse_redis_url(server.url());
    o.hmac_key = key;
    o.arch = "test-arch";
    {
      theano::cache::RedisTier tier(o);
      for (int i = 0; i < 3; ++i)
        tier.publish("abcdef0" + std::to_string(i) + "1234567890",
                     Entry{std::string(500 + i, 'o'), "// src", 2.0, "cli \"entry\" " + std::to_string(i)});
      REQUIRE(tier.stats().published == 3);
    }
    server.set(o.prefix + "abcdef091234567890", "not an entry");  // what someone else wrote there
    server.set("another-app:key", "not ours");                     // outside the prefix: never touched
    FlagsEnv env("compiledir=off,remote_cache=" + server.url() + ",remote_cache_key=" + key);
    Result r = cli({"remote", "stats", "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "entries") == 4);
    CHECK(json_int(r.out, "bytes") > 1500);
    CHECK(json_int(r.out, "used_memory") > 0);
    CHECK(r.out.find("\"reachable\": true") != std::string::npos);
    r = cli({"remote", "stats"});
    CHECK(r.code == 0);
    CHECK(r.out.find("entries: 4") != std::string::npos);
    r = cli({"remote", "list", "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(occurrences(r.out, "\"hmac\": \"ok\"") == 3);
    CHECK(occurrences(r.out, "\"hmac\": \"bad\"") == 1);
    CHECK(occurrences(r.out, "\"arch\": \"test-arch\"") == 3);
    CHECK(occurrences(r.out, "foreign arch") == 3);  // the CLI's arch is this build's, not test-arch
    CHECK(r.out.find("cli \\\"entry\\\" 1") != std::string::npos);
    r = cli({"remote", "list"});
    CHECK(r.code == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
    CHECK(occurrences(r.out, "hmac ok") == 3);
    {
      FlagsEnv no_key("compiledir=off");
      r = cli({"remote", "list", "--url", server.url(), "--json"});
      CHECK(r.code == 0);
      CHECK(occurrences(r.out, "\"hmac\": \"unchecked\"") == 4);
    }
    r = cli({"remote", "purge", "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(json_int(r.out, "purged") == 4);
    CHECK(server.exists("another-app:key"));
    r = cli({"remote", "stats", "--json"});
    CHECK(json_int(r.out, "entries") == 0);
    r = cli({"remote", "purge"});
    CHECK(r.out == "removed 0 entries from " + o.url.str() + "\n");
  }

  TEST_CASE("remote on an unreachable or stopped server exits 1 with a message, within the timeout") {
    FlagsEnv env("compiledir=off,remote_cache_timeout_ms=300");
    auto t0 = std::chrono::steady_clock::now();
    Result r = cli({"remote", "stats", "--url", "redis://127.0.0.1:1", "--json"});
    CHECK(r.code == 1);
    CHECK(r.err.find("cannot be used") != std::string::npos);
    CHECK(Json::valid(r.out));
    CHECK(r.out.find("\"reachable\": false") != std::string::npos);
    theano::test::RedisServer server;
    server.stop();
    t0 = std::chrono::steady_clock::now();
    r = cli({"remote", "list", "--url", server.url()});
    CHECK(r.code == 1);
    CHECK(r.err.find("no answer within 300 ms") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    server.cont();
    CHECK(cli({"remote", "stats", "--url", "http://example"}).code == 2);
    CHECK(cli({"remote", "frobnicate", "--url", server.url()}).code == 2);
    CHECK(cli({"remote", "stats", "--compiledir", "/tmp"}).code == 2);
    r = cli({"remote", "stats"});
    CHECK(r.code == 1);
    CHECK(r.err.find("no remote cache configured") != std::string::npos);
    FlagsEnv bad("compiledir=off,remote_cache=redis://127.0.0.1:1,remote_cache_mode=sometimes");
    r = cli({"remote", "stats"});
    CHECK(r.code == 1);
    CHECK(r.err.find("remote_cache_mode") != std::string::npos);
  }
}

TEST_SUITE("theano-cache flags CLI") {
  TEST_CASE("flags lists every THEANO_FLAGS key with its type, default, current value and doc") {
    FlagsEnv env("compiledir=off,threads=3,remote_cache_password=hunter2,NanGuardMode__big_is_error=false");
    Result r = cli({"flags"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("threads (int 0..64, default 0): '3'\n    loop threads of generated code") != std::string::npos);
    CHECK(r.out.find("compiledir (path|off, default none): 'off'\n") != std::string::npos);
    CHECK(r.out.find("floatX (float64|float32, default float64): not set\n") != std::string::npos);
    CHECK(r.out.find("NanGuardMode__big_is_error (bool, default true): 'false'\n") != std::string::npos);
    CHECK(r.out.find("remote_cache_password (secret, default none): '(set)'\n") != std::string::npos);
    CHECK(r.out.find("hunter2") == std::string::npos);  // a secret is never printed
    for (const char* name : {"cache_max_size", "cache_max_age_days", "base_compiledir", "gpu_preallocate", "mode",
                             "optimizer_including", "traceback_limit", "keep_sources", "remote_cache_key_file"}) {
      CAPTURE(name);
      CHECK(r.out.find(std::string("\n") + name + " (") != std::string::npos);
    }
    r = cli({"flags", "--json"});
    CHECK(r.code == 0);
    CHECK(Json::valid(r.out));
    CHECK(occurrences(r.out, "{\"name\": ") >= 30);
    CHECK(r.out.find("{\"name\": \"threads\", \"type\": \"int 0..64\", \"default\": \"0\", \"value\": \"3\", "
                     "\"doc\": ") != std::string::npos);
    CHECK(r.out.find("{\"name\": \"floatX\", \"type\": \"float64|float32\", \"default\": \"float64\", "
                     "\"value\": null") != std::string::npos);
    CHECK(r.out.find("\"alias_of\": \"nanguard_big_is_error\"") != std::string::npos);
    CHECK(r.out.find("hunter2") == std::string::npos);
    r = cli({"flags", "--help"});
    CHECK(r.code == 0);
    CHECK(r.out.find("usage: theano-cache flags [--json]") != std::string::npos);
    CHECK(cli({"flags", "--compiledir", "/tmp"}).code == 2);
  }

  TEST_CASE("a mistyped THEANO_FLAGS key costs one warning naming the flag meant, a bad value exits 1 naming it") {
    {
      FlagsEnv env("compildir=/tmp/x");
      Result r = cli({"flags"});
      CHECK(r.code == 0);
      CHECK(occurrences(r.err, "THEANO_FLAGS: unknown flag 'compildir' (did you mean 'compiledir'?)") == 1);
      CHECK(occurrences(r.err, "\n") == 1);
    }
    FlagsEnv env("compiledir=off,cache_max_age_days=-1");
    Result r = cli({"flags"});
    CHECK(r.code == 1);
    CHECK(r.err.find("THEANO_FLAGS cache_max_age_days: expected a number of days from 0 to 1e+06, or 'off', "
                     "got '-1'") != std::string::npos);
  }
}
