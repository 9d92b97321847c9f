// One hiredis connection with bounded waits, for the remote tier and the
// maintenance calls (remote_cache.h). Not installed.
//
// Why a wrapper: every connect and command must be bounded (connect timeout,
// SO_RCVTIMEO / SO_SNDTIMEO through redisSetTimeout), a write to a socket the
// server closed must not kill the process with SIGPIPE (hiredis 0.14 uses
// write(2)), and replies must always be freed.
#pragma once

#include "theano/cache/remote_cache.h"

#include <hiredis/hiredis.h>

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

 private:
  redisContext* ctx_ = nullptr;
  std::string error_;
  int io_timeout_ms_ = 0;
  bool closed_by_peer_ = false;
};

/// The text of an error reply, or a description of an unexpected reply type.
std::string reply_error(const redisReply* r);

}  // namespace theano::cache::detail
