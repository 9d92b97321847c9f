/// \file
/// A second compile-cache tier shared by a fleet of machines, on Redis (as
/// sccache and Bazel's remote cache do): on a local miss the key is fetched
/// from Redis before compiling, and a fresh compile is published to Redis
/// after the local publish (CompileCache::set_remote).
///
/// Why this shape:
/// * CompileCache sees only `RemoteTier` (fetch verified entries, publish);
///   what Redis is, and the wire, stay here (hiredis, a maintained client,
///   not a hand-written protocol).
/// * A remote entry is machine code that will run in the user's process, so
///   nothing is accepted unless it is authenticated: every value carries an
///   HMAC-SHA256 over all its bytes, keyed by a secret the user configures
///   (THEANO_FLAGS `remote_cache_key`, or `remote_cache_key_file`: a file
///   only its owner can read). Whoever holds that key and can reach the Redis
///   server can make every process of the fleet run their code; protect both
///   (bind, requirepass / ACL, firewall; the key file 0600). Without a key the
///   tier is not used at all.
/// * The value carries the integrity data of a local entry (sizes, CRC-32 of
///   the object, kind, origin, compile time, creation time) plus the key it
///   was written for and the architecture string of its writer (target
///   triple, CPU, compiler version, runtime ABI). A value that is malformed,
///   truncated, signed with another key, written for another key or built for
///   another architecture is rejected (one warning per reason per process)
///   and the caller compiles normally; in read-write mode the fresh compile
///   then overwrites it.
/// * Redis down, slow, stopped or full never hangs a compile and never
///   throws into it: every connect and command is bounded by a timeout (a
///   command's whole exchange, however slowly the reply trickles in), the
///   first failure costs one warning, and for a back-off period (30 s) the
///   tier answers "miss" without touching the network; then it reconnects.
///   A refused write (a full server: maxmemory with noeviction) pauses only
///   the writes.
/// Thread-safe (one connection under one mutex; the counters under another,
/// so reading them never waits for the network).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "theano/cache/compile_cache.h"

namespace theano::cache {

/// Where the Redis server is: `redis://host[:port][/db]`.
struct RedisUrl {
  std::string host;
  int port = 6379;
  int db = 0;
  /// "redis://host:port/db".
  std::string str() const;
};

/// Parses `redis://host[:port][/db]` (port 1..65535, db >= 0; IPv6 hosts in
/// brackets). Throws std::invalid_argument saying what is wrong.
RedisUrl parse_redis_url(const std::string& text);

/// How a RedisTier connects, signs and checks.
struct RemoteOptions {
  RedisUrl url;
  bool write = true;            ///< read-write (publish fresh compiles) or read-only
  std::string hmac_key;         ///< the secret entries are signed with (required: empty means no tier)
  std::string arch;             ///< this process's architecture string; entries of another are rejected
  std::string password;         ///< AUTH password (empty: none)
  int connect_timeout_ms = 500;
  int io_timeout_ms = 2000;     ///< each command, sent and its whole reply received (one deadline)
  int backoff_ms = 30000;       ///< after a failure: no network for this long
  std::string prefix = "theano-cpp:v1:";  ///< Redis key = prefix + cache key
  /// Larger entries are neither published nor accepted; a larger reply is
  /// refused from its length line, before its body is read.
  std::uintmax_t max_entry_bytes = std::uintmax_t{64} << 20;
};

/// Counters of one remote tier in this process. Every fetch is exactly one of
/// a hit, a miss or a rejection.
struct RemoteStats {
  std::uint64_t hits = 0;       ///< verified entries returned
  std::uint64_t misses = 0;     ///< absent, or not asked (back-off, error)
  std::uint64_t rejected = 0;   ///< values found but refused (HMAC, key, arch, size, CRC)
  std::uint64_t published = 0;  ///< entries written
  std::uint64_t skipped = 0;    ///< publishes not attempted (back-off, writes paused, too large)
  std::uint64_t errors = 0;     ///< failed connects, commands and refused writes
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::map<std::string, std::uint64_t> rejected_by_reason;
  bool backing_off = false;     ///< the network is not used right now
};

/// What CompileCache needs of a second tier.
class RemoteTier {
 public:
  virtual ~RemoteTier() = default;
  /// The entry stored for `key`, only when it verifies; nullopt otherwise.
  /// Never throws, never blocks longer than its timeouts.
  virtual std::optional<Entry> fetch(const std::string& key) = 0;
  /// Stores `e` under `key` (when writes() is true). Never throws.
  virtual void publish(const std::string& key, const Entry& e) = 0;
  virtual bool writes() const = 0;
  virtual RemoteStats stats() const = 0;
  /// For reports: "redis://host:port/db".
  virtual std::string describe() const = 0;
};

/// The Redis tier (hiredis). Connects on first use.
class RedisTier final : public RemoteTier {
 public:
  /// Throws std::invalid_argument when `options.hmac_key` is empty.
  explicit RedisTier(RemoteOptions options);
  ~RedisTier() override;
  RedisTier(const RedisTier&) = delete;
  RedisTier& operator=(const RedisTier&) = delete;

  std::optional<Entry> fetch(const std::string& key) override;
  void publish(const std::string& key, const Entry& e) override;
  bool writes() const override { return options_.write; }
  RemoteStats stats() const override;
  std::string describe() const override { return options_.url.str(); }

 private:
  class Connection;
  using Clock = std::chrono::steady_clock;
  bool available(bool for_write);  // under mu_
  void fail(std::string why, bool writes_only);  // under mu_: counts, warns once, backs off (a copy: conn_ may go)
  void reject(const std::string& key, const std::string& reason);  // under mu_

  template <class F>
  void count(F&& f) {  // updates stats_ under stats_mu_
    std::lock_guard<std::mutex> lock(stats_mu_);
    f(stats_);
  }

  RemoteOptions options_;
  std::mutex mu_;  // the connection and the network: held across a command
  std::unique_ptr<Connection> conn_;
  Clock::time_point down_until_{};         // under mu_ and stats_mu_
  Clock::time_point writes_down_until_{};  // under mu_
  bool warned_ = false;                    // under mu_
  std::set<std::string> warned_reasons_;   // under mu_
  mutable std::mutex stats_mu_;  // stats_ only: stats() never waits for the network
  RemoteStats stats_;
};

/// A Redis failure in the maintenance calls below (unreachable, timeout, an
/// error reply), with a message for people.
struct RemoteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The remote tier as the server sees it (`theano-cache remote stats`).
struct RemoteServerInfo {
  std::uint64_t entries = 0;  ///< keys under the prefix
  std::uint64_t bytes = 0;    ///< their values' total size
  std::uint64_t used_memory = 0;
  std::uint64_t maxmemory = 0;  ///< 0: no limit
  std::string maxmemory_policy;
  std::string redis_version;
};

/// One value under the prefix (`theano-cache remote list`). Its header is
/// parsed without trusting it: `hmac` says whether it verifies.
struct RemoteEntryInfo {
  std::string redis_key;
  std::string key;  ///< the cache key (redis_key without the prefix)
  std::uint64_t bytes = 0;
  std::string kind, origin, arch;
  std::int64_t created = 0;
  double compile_ms = 0;
  /// "ok" (signed with our key, for this key), "bad" (another key, altered,
  /// truncated, malformed) or "unchecked" (no key configured).
  std::string hmac;
  std::string problem;  ///< why it would be rejected here ("" when it would be accepted)
};

/// Counts the entries under the prefix (SCAN + STRLEN) and reads INFO memory.
/// Throws RemoteError.
RemoteServerInfo remote_server_info(const RemoteOptions& options);
/// Every value under the prefix, read and checked (as fetch would: HMAC when
/// `options.hmac_key` is set, key, arch, sizes, CRC). Throws RemoteError.
std::vector<RemoteEntryInfo> remote_entries(const RemoteOptions& options);
/// UNLINKs every key under the prefix; returns how many. Throws RemoteError.
std::uint64_t remote_purge(const RemoteOptions& options);

/// The secret in `path`, trailing whitespace removed: a regular file (opened
/// with O_NOFOLLOW) owned by the effective uid with no group or other
/// permission bits, holding at least 16 bytes. Throws std::runtime_error
/// saying what is wrong and how to fix it.
std::string load_remote_key_file(const std::filesystem::path& path);

/// Checks a key given directly (at least 16 bytes); throws std::invalid_argument.
void check_remote_key(const std::string& key);

}  // namespace theano::cache
