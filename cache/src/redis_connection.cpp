// A bounded hiredis connection (see redis_connection.h).
#include "redis_connection.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace theano::cache::detail {

namespace {

timeval to_timeval(int ms) {
  if (ms < 1) ms = 1;
  return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

/// Blocks SIGPIPE in this thread while alive and discards one raised meanwhile
/// (a write to a socket the server closed), leaving a SIGPIPE that was
/// already pending alone. The write itself then fails with EPIPE.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    was_pending_ = ::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pending;
      sigemptyset(&pending);
      if (::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (::sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{}, old_{};
  bool was_pending_ = false;
};

/// What went wrong on `ctx`, in words ("no answer within 2000 ms" for a timeout).
std::string context_error(const redisContext* ctx, int timeout_ms, int saved_errno) {
  if (ctx == nullptr) return "out of memory";
  std::string what = ctx->errstr[0] ? ctx->errstr : "unknown error";
  if (ctx->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINPROGRESS ||
                                   saved_errno == ETIMEDOUT))
    what = "no answer within " + std::to_string(timeout_ms) + " ms";
  if (ctx->err == REDIS_ERR_EOF) what = "the server closed the connection";
  return what;
}

}  // namespace

std::string reply_error(const redisReply* r) {
  if (r == nullptr) return "no reply";
  if (r->type == REDIS_REPLY_ERROR) return std::string(r->str, r->len);
  return "unexpected reply type " + std::to_string(r->type);
}

RedisConnection::RedisConnection(const RemoteOptions& options) {
  errno = 0;
  ctx_ = redisConnectWithTimeout(options.url.host.c_str(), options.url.port, to_timeval(options.connect_timeout_ms));
  const int saved = errno;
  if (ctx_ == nullptr || ctx_->err) {
    error_ = "cannot connect: " + context_error(ctx_, options.connect_timeout_ms, saved);
    return;
  }
  if (redisSetTimeout(ctx_, to_timeval(options.io_timeout_ms)) != REDIS_OK) {
    error_ = "cannot set a timeout on the connection";
    return;
  }
  // Timeouts of the commands below name the command timeout.
  auto handshake = [&](const std::vector<std::string_view>& args, const char* what) {
    Reply r = command(args);
    if (!r) return false;
    if (r->type == REDIS_REPLY_ERROR) {
      error_ = std::string(what) + " refused: " + reply_error(r.get());
      return false;
    }
    return true;
  };
  io_timeout_ms_ = options.io_timeout_ms;
  if (!options.password.empty() && !handshake({"AUTH", options.password}, "AUTH")) return;
  if (options.url.db != 0) {
    const std::string db = std::to_string(options.url.db);
    if (!handshake({"SELECT", db}, "SELECT")) return;
  }
}

RedisConnection::~RedisConnection() {
  if (ctx_) redisFree(ctx_);
}

Reply RedisConnection::command(const std::vector<std::string_view>& args) {
  closed_by_peer_ = false;
  if (ctx_ == nullptr || ctx_->err) {
    if (error_.empty()) error_ = "not connected";
    return nullptr;
  }
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  void* raw = nullptr;
  int saved = 0;
  {
    SigpipeGuard guard;
    errno = 0;
    raw = redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data());
    saved = errno;
  }
  Reply r(static_cast<redisReply*>(raw));
  if (!r) {
    closed_by_peer_ = ctx_->err == REDIS_ERR_EOF || (ctx_->err == REDIS_ERR_IO && (saved == ECONNRESET || saved == EPIPE));
    error_ = context_error(ctx_, io_timeout_ms_, saved);
  }
  return r;
}

}  // namespace theano::cache::detail
