// The Redis tier behind a compiledir (see remote_cache.h): the URL, the key
// file, and RedisTier's fetch / publish with one warning and a back-off on
// failure. The value format is remote_entry.cpp, the connection
// redis_connection.cpp, the maintenance calls remote_admin.cpp.
#include "theano/cache/remote_cache.h"

#include "cache_internal.h"
#include "redis_connection.h"
#include "remote_entry.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace theano::cache {

using namespace detail;

namespace {

std::optional<long> parse_int(std::string_view s) {
  long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string RedisUrl::str() const {
  const bool v6 = host.find(':') != std::string::npos;
  return "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + std::to_string(db);
}

RedisUrl parse_redis_url(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("'" + text + "' is not a Redis URL: " + why +
                                 " (expected redis://host[:port][/db], e.g. redis://10.0.0.5:6379/0)");
  };
  const std::string scheme = "redis://";
  if (text.rfind("rediss://", 0) == 0)
    throw bad("TLS (rediss://) is not supported; reach the server through a tunnel or a private network");
  if (text.rfind(scheme, 0) != 0) throw bad("it does not start with redis://");
  std::string rest = text.substr(scheme.size());
  if (rest.find('@') != std::string::npos)
    throw bad("credentials in the URL are not accepted; set THEANO_FLAGS remote_cache_password instead");
  RedisUrl url;
  std::string db;
  if (const auto slash = rest.find('/'); slash != std::string::npos) {
    db = rest.substr(slash + 1);
    rest.resize(slash);
    if (!db.empty()) {
      const auto v = parse_int(db);
      if (!v || *v < 0 || *v > 1000000) throw bad("the database '" + db + "' is not a number >= 0");
      url.db = static_cast<int>(*v);
    }
  }
  std::string port;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6]:port
    const auto close = rest.find(']');
    if (close == std::string::npos) throw bad("an unclosed [ in the host");
    url.host = rest.substr(1, close - 1);
    const std::string after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') throw bad("unexpected text after the host");
      port = after.substr(1);
      if (port.empty()) throw bad("an empty port");
    }
  } else {
    const auto colon = rest.find(':');
    url.host = rest.substr(0, colon);
    if (colon != std::string::npos) {
      port = rest.substr(colon + 1);
      if (port.empty()) throw bad("an empty port");
    }
  }
  if (url.host.empty()) throw bad("no host");
  for (char c : url.host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':'))
      throw bad("the host has a character '" + std::string(1, c) + "' no host name has");
  if (!port.empty()) {
    const auto v = parse_int(port);
    if (!v || *v < 1 || *v > 65535) throw bad("the port '" + port + "' is not a number from 1 to 65535");
    url.port = static_cast<int>(*v);
  }
  return url;
}

void check_remote_key(const std::string& key) {
  if (key.size() < 16)
    throw std::invalid_argument("the remote cache key has " + std::to_string(key.size()) +
                                " bytes; use at least 16 random bytes (e.g. `openssl rand -hex 32`)");
}

std::string load_remote_key_file(const std::filesystem::path& path) {
  const std::string where = "the remote cache key file " + path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw std::runtime_error(where + " cannot be opened: " + std::strerror(e) +
                             (e == ELOOP ? " (a symbolic link: give the file itself)" : ""));
  }
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0) why = std::string("cannot be examined: ") + std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) why = "is not a regular file";
  else if (st.st_uid != ::geteuid())
    why = "is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " + std::to_string(::geteuid()) + ")";
  else if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    why = std::string("has mode ") + mode + ": others may read the key (chmod 600 " + path.string() + ")";
  } else if (st.st_size > 65536) {
    why = "is larger than 64 KiB: not a key file";
  }
  std::string key;
  if (why.empty()) {
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::read(fd, buf, sizeof buf)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::string("cannot be read: ") + std::strerror(errno);
        break;
      }
      key.append(buf, static_cast<std::size_t>(n));
      if (key.size() > 65536) {
        why = "is larger than 64 KiB: not a key file";
        break;
      }
    }
  }
  ::close(fd);
  if (!why.empty()) {
    OPENSSL_cleanse(key.data(), key.size());
    throw std::runtime_error(where + " " + why +
                             "; it must be a regular file of yours that only you can read (mode 0600 or 0400)");
  }
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
  try {
    check_remote_key(key);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
  return key;
}

class RedisTier::Connection : public detail::RedisConnection {
 public:
  explicit Connection(const RemoteOptions& o) : RedisConnection(o), pid(::getpid()) {}
  const pid_t pid;  // a child after fork() opens its own
};

RedisTier::RedisTier(RemoteOptions options) : options_(std::move(options)) {
  if (options_.hmac_key.empty())
    throw std::invalid_argument("a remote cache tier needs a key to sign and check its entries with");
}

RedisTier::~RedisTier() { OPENSSL_cleanse(options_.hmac_key.data(), options_.hmac_key.size()); }

RemoteStats RedisTier::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  RemoteStats s = stats_;
  s.backing_off = Clock::now() < down_until_;
  return s;
}

void RedisTier::fail(std::string why, bool writes_only) {
  const auto until = Clock::now() + std::chrono::milliseconds(options_.backoff_ms);
  count([&](RemoteStats& s) {
    ++s.errors;
    (writes_only ? writes_down_until_ : down_until_) = until;
  });
  if (!writes_only) conn_.reset();
  if (warned_) return;
  warned_ = true;
  std::cerr << "theano-cpp warning: the remote compile cache " << describe() << ": " << why
            << "; compiling locally (the remote cache " << (writes_only ? "is not written" : "is not used") << " for "
            << options_.backoff_ms / 1000.0 << " s; no further warnings about it in this process)\n";
}

void RedisTier::reject(const std::string& key, const std::string& problem) {
  const std::string reason = problem_reason(problem);
  count([&](RemoteStats& s) {
    ++s.rejected;
    ++s.rejected_by_reason[reason];
  });
  if (!warned_reasons_.insert(reason).second) return;
  std::cerr << "theano-cpp warning: rejected the remote compile cache entry " << key << " from " << describe() << ": "
            << problem << "; it is not loaded (compiled here instead"
            << (options_.write ? ", and the fresh entry replaces it" : "") << ")"
            << (reason == "bad HMAC" ? ". Check that remote_cache_key / remote_cache_key_file is the fleet's key" : "")
            << "\n";
}

bool RedisTier::available(bool for_write) {
  const auto now = Clock::now();
  if (now < down_until_ || (for_write && now < writes_down_until_)) return false;
  if (conn_ && conn_->pid != ::getpid()) conn_.reset();  // inherited through fork()
  if (!conn_ || !conn_->ok()) {
    conn_ = std::make_unique<Connection>(options_);
    if (!conn_->ok()) {
      fail(conn_->error(), false);
      return false;
    }
  }
  return true;
}

namespace {
/// Runs `args` on `conn`; a connection the server closed since its last use
/// (a restarted server) is reopened once. nullptr: failed (`why` says how).
template <class Conn>
Reply run_command(std::unique_ptr<Conn>& conn, const RemoteOptions& options, const std::vector<std::string_view>& args,
                  std::string& why) {
  Reply r = conn->command(args);
  if (!r && conn->closed_by_peer()) {
    conn = std::make_unique<Conn>(options);
    if (conn->ok()) r = conn->command(args);
  }
  if (!r) why = conn->error();
  return r;
}
}  // namespace

std::optional<Entry> RedisTier::fetch(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto miss = [&] {
    count([](RemoteStats& s) { ++s.misses; });
    return std::nullopt;
  };
  if (!available(false)) return miss();
  const std::string rkey = options_.prefix + key;
  std::string why;
  Reply r = run_command(conn_, options_, {"GET", rkey}, why);
  if (!r && conn_ && conn_->too_large()) {  // refused from its length, its body never read
    const std::uint64_t announced = conn_->too_large();
    conn_.reset();  // the rest of the reply is still on the socket
    reject(key, "too large: " + std::to_string(announced) + " bytes (at most " +
                    std::to_string(options_.max_entry_bytes) + ")");
    return std::nullopt;
  }
  if (!r || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_NIL)) {
    fail(r ? "GET failed: " + reply_error(r.get()) : why, false);
    return miss();
  }
  if (r->type == REDIS_REPLY_NIL) return miss();
  if (r->len > options_.max_entry_bytes) {
    reject(key, "too large: " + std::to_string(r->len) + " bytes (at most " +
                    std::to_string(options_.max_entry_bytes) + ")");
    return std::nullopt;
  }
  RemoteValue v = inspect_remote_entry(std::string_view(r->str, r->len), key, options_.arch, options_.hmac_key);
  if (!v.problem.empty()) {
    reject(key, v.problem);
    return std::nullopt;
  }
  Entry e;
  e.object.assign(v.object);
  e.source.assign(v.source);
  e.kind = v.header["kind"];
  e.origin = v.header["origin"];
  e.compile_ms = std::atof(v.header["compile_ms"].c_str());
  count([&](RemoteStats& s) {
    ++s.hits;
    s.bytes_read += r->len;
  });
  return e;
}

void RedisTier::publish(const std::string& key, const Entry& e) {
  if (!options_.write) return;
  const std::string value = encode_remote_entry(key, e, options_.arch, options_.hmac_key, now_seconds());
  std::lock_guard<std::mutex> lock(mu_);
  if (value.size() > options_.max_entry_bytes || !available(true)) {
    count([](RemoteStats& s) { ++s.skipped; });
    return;
  }
  std::string why;
  Reply r = run_command(conn_, options_, {"SET", options_.prefix + key, value}, why);
  if (!r) {
    fail(why, false);
    return;
  }
  if (r->type == REDIS_REPLY_ERROR) {  // e.g. OOM: maxmemory reached with noeviction
    fail("the server refused to store an entry (" + reply_error(r.get()) + ")", true);
    return;
  }
  count([&](RemoteStats& s) {
    ++s.published;
    s.bytes_written += value.size();
  });
}

}  // namespace theano::cache
