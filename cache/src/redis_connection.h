// One hiredis connection with bounded waits, for the remote tier and the
// maintenance calls (remote_cache.h). Not installed.
//
// Why a wrapper: every connect and command must be bounded, and a command by
// one deadline for all of it, not per socket read (a server dribbling its
// reply a byte at a time must not hold a compile for longer than
// io_timeout_ms); a reply's size is refused from its first line, before the
// body is buffered (a hostile or broken server must not make us allocate
// gigabytes); a write to a socket the server closed must not kill the process
// with SIGPIPE; replies must always be freed. hiredis connects, formats
// commands and parses replies; the socket I/O is ours (poll with the time
// left, non-blocking send and recv).
#pragma once

#include "theano/cache/remote_cache.h"

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace theano::cache::detail {

struct ReplyFree {
  void operator()(redisReply* r) const {
    if (r) freeReplyObject(r);
  }
};
using Reply = std::unique_ptr<redisReply, ReplyFree>;

class RedisConnection {
 public:
  /// Connects to `options.url` (TCP, connect timeout), sets the command
  /// timeouts, sends AUTH (when a password is set) and SELECT (db != 0). On
  /// failure ok() is false and error() says why (without the URL: callers
  /// name the server).
  explicit RedisConnection(const RemoteOptions& options);
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  bool ok() const { return ctx_ != nullptr && error_.empty(); }
  const std::string& error() const { return error_; }

  /// Runs one command. nullptr on a connection failure (timeout, reset,
  /// closed): the connection is then unusable and error() says why. An
  /// error reply is returned as a reply (type REDIS_REPLY_ERROR).
  Reply command(const std::vector<std::string_view>& args);

  /// Whether the last failure was the server closing the connection (worth
  /// one reconnect: a restarted server), rather than a timeout.
  bool closed_by_peer() const { return closed_by_peer_; }
  /// When the last command failed because its reply was larger than
  /// options.max_entry_bytes: the size the reply announced (0 otherwise).
  std::uint64_t too_large() const { return too_large_; }

 private:
  bool send_all(const char* p, std::size_t n, std::chrono::steady_clock::time_point deadline);
  Reply receive(std::chrono::steady_clock::time_point deadline);
  /// Waits until the socket is ready for `events` or the deadline passes;
  /// false (error_ set) on a timeout or a poll error.
  bool wait_for(short events, std::chrono::steady_clock::time_point deadline);

  redisContext* ctx_ = nullptr;
  std::string error_;
  int io_timeout_ms_ = 0;
  std::uint64_t max_bulk_bytes_ = 0;
  bool closed_by_peer_ = false;
  std::uint64_t too_large_ = 0;
};

/// The text of an error reply, or a description of an unexpected reply type.
std::string reply_error(const redisReply* r);

}  // namespace theano::cache::detail
