// The theano-cache CLI on a populated compiledir, as a real process: every
// command, --json output checked to be well-formed JSON and read back, --help,
// and the exit codes (0 ok, 1 error, 2 usage).
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

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
