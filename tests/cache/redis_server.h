/// \file
/// RedisServer: a real redis-server (Debian's) on 127.0.0.1 for one test, so
/// the remote compile-cache tier is tested against the server it will meet,
/// never a mock: a free port (bind port 0, read it, close), no persistence,
/// its own directory; ready once PING answers (at most 5 s); killed and
/// reaped by the destructor. A test can kill it (SIGKILL), stop it (SIGSTOP:
/// it still accepts connections but answers nothing) and continue it, and
/// read or rewrite values with hiredis.
#pragma once

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.h"

extern char** environ;

namespace theano::test {

class RedisServer {
 public:
  struct Options {
    std::string maxmemory;  ///< e.g. "1mb" (with noeviction: a full server); empty: no limit
    std::string password;   ///< requirepass
  };

  RedisServer() : RedisServer(Options{}) {}
  explicit RedisServer(Options options) : options_(std::move(options)) {
    for (int attempt = 0; attempt < 3 && pid_ <= 0; ++attempt) start();
    REQUIRE_MESSAGE(pid_ > 0, "redis-server did not start (is Debian's redis-server installed? tools/dev/setup.sh "
                              "installs it); its log: " << log());
  }
  ~RedisServer() { kill(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }

  /// SIGKILL and reap (idempotent).
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  void stop() { ::kill(pid_, SIGSTOP); }
  void cont() { ::kill(pid_, SIGCONT); }

  /// One command through hiredis; the reply as text (a string, status,
  /// error or integer), nullopt for nil or no answer.
  std::optional<std::string> command(const std::vector<std::string>& args) const {
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, timeval{1, 0});
    if (c == nullptr || c->err) {
      if (c) redisFree(c);
      return std::nullopt;
    }
    redisSetTimeout(c, timeval{2, 0});
    if (!options_.password.empty()) {
      auto* auth = static_cast<redisReply*>(redisCommand(c, "AUTH %s", options_.password.c_str()));
      if (auth) freeReplyObject(auth);
    }
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) argv.push_back(a.data()), lens.push_back(a.size());
    auto* r = static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()));
    std::optional<std::string> out;
    if (r) {
      if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR)
        out = std::string(r->str, r->len);
      else if (r->type == REDIS_REPLY_INTEGER)
        out = std::to_string(r->integer);
      freeReplyObject(r);
    }
    redisFree(c);
    return out;
  }
  std::optional<std::string> get(const std::string& key) const { return command({"GET", key}); }
  void set(const std::string& key, const std::string& value) const {
    REQUIRE(command({"SET", key, value}) == std::optional<std::string>("OK"));
  }
  bool exists(const std::string& key) const { return command({"EXISTS", key}) == std::optional<std::string>("1"); }

 private:
  static int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = -1;
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    ::close(s);
    return port;
  }

  std::string log() const {
    std::ifstream in(dir_.path / "redis.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  void start() {
    port_ = free_port();
    if (port_ <= 0) return;
    std::vector<std::string> args{"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                  "--save", "", "--appendonly", "no", "--dir", dir_.path.string(),
                                  "--logfile", (dir_.path / "redis.log").string(), "--daemonize", "no"};
    if (!options_.maxmemory.empty())
      args.insert(args.end(), {"--maxmemory", options_.maxmemory, "--maxmemory-policy", "noeviction"});
    if (!options_.password.empty()) args.insert(args.end(), {"--requirepass", options_.password});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, "redis-server", &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return;
    pid_ = pid;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // exited (the port taken meanwhile?)
        pid_ = -1;
        return;
      }
      const auto pong = command({"PING"});
      if (pong && (*pong == "PONG" || pong->rfind("NOAUTH", 0) == 0)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill();
  }

  Options options_;
  TempDir dir_{"theano-redis"};
  pid_t pid_ = -1;
  int port_ = -1;
};

}  // namespace theano::test
