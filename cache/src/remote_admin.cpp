// Maintenance of the remote tier (`theano-cache remote stats|list|purge`, see
// remote_cache.h): walks the keys under the prefix with SCAN (never KEYS,
// which blocks the server), reads INFO memory, and UNLINKs (frees memory in
// the background). Every failure is a RemoteError with a message for people.
#include "theano/cache/remote_cache.h"

#include "redis_connection.h"
#include "remote_entry.h"

#include <cstdlib>
#include <sstream>

namespace theano::cache {

using namespace detail;

namespace {

void require_connected(const RedisConnection& conn) {
  if (!conn.ok()) throw RemoteError(conn.error());
}

Reply run_or_throw(RedisConnection& conn, const std::vector<std::string_view>& args) {
  Reply r = conn.command(args);
  if (!r) throw RemoteError(conn.error());
  if (r->type == REDIS_REPLY_ERROR) throw RemoteError(std::string(args.at(0)) + " refused: " + reply_error(r.get()));
  return r;
}

/// `prefix` as a SCAN MATCH pattern: glob characters escaped, then `*`.
std::string match_pattern(const std::string& prefix) {
  std::string p;
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') p += '\\';
    p += c;
  }
  return p + "*";
}

std::vector<std::string> scan_keys(RedisConnection& conn, const std::string& prefix) {
  std::vector<std::string> keys;
  const std::string pattern = match_pattern(prefix);
  std::string cursor = "0";
  do {
    Reply r = run_or_throw(conn, {"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
        r->element[1]->type != REDIS_REPLY_ARRAY)
      throw RemoteError("SCAN: unexpected reply");
    cursor.assign(r->element[0]->str, r->element[0]->len);
    const redisReply* batch = r->element[1];
    for (std::size_t i = 0; i < batch->elements; ++i)
      if (batch->element[i]->type == REDIS_REPLY_STRING) keys.emplace_back(batch->element[i]->str, batch->element[i]->len);
  } while (cursor != "0");
  return keys;
}

/// The `name:value` lines of an INFO reply.
std::string info_field(const std::string& info, const std::string& name) {
  std::istringstream in(info);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(name + ":", 0) == 0) return line.substr(name.size() + 1);
  }
  return "";
}

}  // namespace

RemoteServerInfo remote_server_info(const RemoteOptions& options) {
  RedisConnection conn(options);
  require_connected(conn);
  RemoteServerInfo info;
  for (const std::string& k : scan_keys(conn, options.prefix)) {
    Reply r = run_or_throw(conn, {"STRLEN", k});
    if (r->type != REDIS_REPLY_INTEGER) continue;  // removed meanwhile, or not a string
    ++info.entries;
    info.bytes += static_cast<std::uint64_t>(r->integer);
  }
  Reply mem = run_or_throw(conn, {"INFO", "memory"});
  Reply server = run_or_throw(conn, {"INFO", "server"});
  const std::string m(mem->type == REDIS_REPLY_STRING ? std::string(mem->str, mem->len) : "");
  const std::string s(server->type == REDIS_REPLY_STRING ? std::string(server->str, server->len) : "");
  info.used_memory = std::strtoull(info_field(m, "used_memory").c_str(), nullptr, 10);
  info.maxmemory = std::strtoull(info_field(m, "maxmemory").c_str(), nullptr, 10);
  info.maxmemory_policy = info_field(m, "maxmemory_policy");
  info.redis_version = info_field(s, "redis_version");
  return info;
}

std::vector<RemoteEntryInfo> remote_entries(const RemoteOptions& options) {
  RedisConnection conn(options);
  require_connected(conn);
  std::vector<RemoteEntryInfo> out;
  for (const std::string& k : scan_keys(conn, options.prefix)) {
    RemoteEntryInfo e;
    e.redis_key = k;
    e.key = k.substr(options.prefix.size());
    // A value larger than the tier accepts is listed, not read (the
    // connection refuses such a reply from its first line).
    Reply len = run_or_throw(conn, {"STRLEN", k});
    if (len->type == REDIS_REPLY_INTEGER && static_cast<std::uint64_t>(len->integer) > options.max_entry_bytes) {
      e.bytes = static_cast<std::uint64_t>(len->integer);
      e.hmac = "unchecked";
      e.problem = "too large: " + std::to_string(e.bytes) + " bytes (at most " +
                  std::to_string(options.max_entry_bytes) + ")";
      out.push_back(std::move(e));
      continue;
    }
    Reply r = run_or_throw(conn, {"GET", k});
    if (r->type != REDIS_REPLY_STRING) continue;  // removed meanwhile
    e.bytes = r->len;
    const RemoteValue v = inspect_remote_entry(std::string_view(r->str, r->len), e.key, options.arch, options.hmac_key);
    auto field = [&](const char* name) {
      auto it = v.header.find(name);
      return it == v.header.end() ? std::string() : it->second;
    };
    e.kind = field("kind");
    e.origin = field("origin");
    e.arch = field("arch");
    e.created = std::strtoll(field("created").c_str(), nullptr, 10);
    e.compile_ms = std::atof(field("compile_ms").c_str());
    e.hmac = options.hmac_key.empty() ? "unchecked" : v.hmac_ok ? "ok" : "bad";
    e.problem = v.problem;
    out.push_back(std::move(e));
  }
  return out;
}

std::uint64_t remote_purge(const RemoteOptions& options) {
  RedisConnection conn(options);
  require_connected(conn);
  const std::vector<std::string> keys = scan_keys(conn, options.prefix);
  std::uint64_t removed = 0;
  for (std::size_t i = 0; i < keys.size(); i += 500) {
    std::vector<std::string_view> args{"UNLINK"};
    for (std::size_t j = i; j < keys.size() && j < i + 500; ++j) args.emplace_back(keys[j]);
    Reply r = run_or_throw(conn, args);
    if (r->type == REDIS_REPLY_INTEGER) removed += static_cast<std::uint64_t>(r->integer);
  }
  return removed;
}

}  // namespace theano::cache
