// A bounded hiredis connection (see redis_connection.h).
#include "redis_connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace theano::cache::detail {

namespace {

using Clock = std::chrono::steady_clock;

timeval to_timeval(int ms) {
  if (ms < 1) ms = 1;
  return timeval{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>((ms % 1000) * 1000)};
}

/// What went wrong while connecting, in words ("no answer within 2000 ms" for a timeout).
std::string connect_error(const redisContext* ctx, int timeout_ms, int saved_errno) {
  if (ctx == nullptr) return "out of memory";
  std::string what = ctx->errstr[0] ? ctx->errstr : "unknown error";
  if (ctx->err == REDIS_ERR_IO && (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK || saved_errno == EINPROGRESS ||
                                   saved_errno == ETIMEDOUT))
    what = "no answer within " + std::to_string(timeout_ms) + " ms";
  if (ctx->err == REDIS_ERR_EOF) what = "the server closed the connection";
  return what;
}

struct ReaderFree {
  void operator()(redisReader* r) const { redisReaderFree(r); }
};

/// The bytes of a reply's header line that announce its size are at most this long ("$" + 20 digits + CRLF).
constexpr std::size_t kHeaderMax = 64;
/// Room for everything around the values of an aggregate reply (SCAN's array, INFO's text).
constexpr std::uint64_t kReplySlack = 1 << 16;

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
    error_ = "cannot connect: " + connect_error(ctx_, options.connect_timeout_ms, saved);
    return;
  }
  // Timeouts of the commands below name the command timeout.
  io_timeout_ms_ = std::max(options.io_timeout_ms, 1);
  max_bulk_bytes_ = options.max_entry_bytes;
  auto handshake = [&](const std::vector<std::string_view>& args, const char* what) {
    Reply r = command(args);
    if (!r) return false;
    if (r->type == REDIS_REPLY_ERROR) {
      error_ = std::string(what) + " refused: " + reply_error(r.get());
      return false;
    }
    return true;
  };
  if (!options.password.empty() && !handshake({"AUTH", options.password}, "AUTH")) return;
  if (options.url.db != 0) {
    const std::string db = std::to_string(options.url.db);
    if (!handshake({"SELECT", db}, "SELECT")) return;
  }
}

RedisConnection::~RedisConnection() {
  if (ctx_) redisFree(ctx_);
}

bool RedisConnection::wait_for(short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{ctx_->fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) {
      error_ = std::string("poll failed: ") + std::strerror(errno);
      return false;
    }
  }
  error_ = "no answer within " + std::to_string(io_timeout_ms_) + " ms";
  return false;
}

bool RedisConnection::send_all(const char* p, std::size_t n, Clock::time_point deadline) {
  while (n > 0) {
    // MSG_NOSIGNAL: a server that closed the socket is EPIPE here, never SIGPIPE.
    const ssize_t k = ::send(ctx_->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      p += k;
      n -= static_cast<std::size_t>(k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_for(POLLOUT, deadline)) return false;
      continue;
    }
    closed_by_peer_ = k < 0 && (errno == EPIPE || errno == ECONNRESET);
    error_ = closed_by_peer_ ? "the server closed the connection" : std::string("send failed: ") + std::strerror(errno);
    return false;
  }
  return true;
}

Reply RedisConnection::receive(Clock::time_point deadline) {
  std::unique_ptr<redisReader, ReaderFree> reader(redisReaderCreate());
  if (!reader) {
    error_ = "out of memory";
    return nullptr;
  }
  std::string head;  // the reply's first line, until its CRLF
  bool head_done = false;
  std::uint64_t received = 0;
  const std::uint64_t max_total = max_bulk_bytes_ + kReplySlack;
  char buf[1 << 16];
  for (;;) {
    void* raw = nullptr;
    if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK) {
      error_ = std::string("malformed reply: ") + reader->errstr;
      return nullptr;
    }
    if (raw != nullptr) return Reply(static_cast<redisReply*>(raw));
    if (!wait_for(POLLIN, deadline)) return nullptr;
    const ssize_t k = ::recv(ctx_->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (k < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (k <= 0) {
      closed_by_peer_ = k == 0 || errno == ECONNRESET;
      error_ = closed_by_peer_ ? "the server closed the connection" : std::string("recv failed: ") + std::strerror(errno);
      return nullptr;
    }
    if (!head_done) {
      head.append(buf, static_cast<std::size_t>(std::min<ssize_t>(k, kHeaderMax)));
      if (const auto crlf = head.find("\r\n"); crlf != std::string::npos || head.size() >= kHeaderMax) {
        head_done = true;
        // A bulk string announces its length: refuse it before buffering the body.
        std::uint64_t len = 0;
        if (crlf != std::string::npos && head[0] == '$' && head.size() > 1 && head[1] != '-') {
          const auto [end, ec] = std::from_chars(head.data() + 1, head.data() + crlf, len);
          if (ec == std::errc::result_out_of_range) len = UINT64_MAX;
          if (len > max_bulk_bytes_) {
            too_large_ = len;
            error_ = "a reply of " + std::to_string(len) + " bytes (at most " + std::to_string(max_bulk_bytes_) + ")";
            return nullptr;
          }
        }
      }
    }
    received += static_cast<std::uint64_t>(k);
    if (received > max_total) {
      too_large_ = received;
      error_ = "a reply of more than " + std::to_string(max_total) + " bytes";
      return nullptr;
    }
    if (redisReaderFeed(reader.get(), buf, static_cast<std::size_t>(k)) != REDIS_OK) {
      error_ = "out of memory";
      return nullptr;
    }
  }
}

Reply RedisConnection::command(const std::vector<std::string_view>& args) {
  closed_by_peer_ = false;
  too_large_ = 0;
  if (ctx_ == nullptr || ctx_->err || !error_.empty()) {
    if (error_.empty()) error_ = "not connected";
    return nullptr;
  }
  // One deadline for the whole command: sending it, and every byte of the reply.
  const auto deadline = Clock::now() + std::chrono::milliseconds(io_timeout_ms_);
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (std::string_view a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  char* cmd = nullptr;
  const int len = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), argv.data(), lens.data());
  if (len < 0) {
    error_ = "cannot format the command (out of memory)";
    return nullptr;
  }
  std::unique_ptr<char, void (*)(char*)> owned(cmd, &redisFreeCommand);
  if (!send_all(cmd, static_cast<std::size_t>(len), deadline)) return nullptr;
  return receive(deadline);
}

}  // namespace theano::cache::detail
