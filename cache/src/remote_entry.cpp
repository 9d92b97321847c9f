// The remote tier's value format and its checks (see remote_entry.h): OpenSSL's
// one-shot HMAC-SHA256, compared in constant time.
#include "remote_entry.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <map>
#include <charconv>
#include <climits>
#include <sstream>

namespace theano::cache::detail {

namespace {

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxFieldBytes = 4096;

/// HMAC-SHA256 of `data` keyed by `key` (32 bytes), or "" when OpenSSL fails.
std::string hmac_sha256(const std::string& key, std::string_view data) {
  if (key.size() > static_cast<std::size_t>(INT_MAX)) return "";
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), md, &len) == nullptr ||
      len != kHmacBytes)
    return "";
  return std::string(reinterpret_cast<const char*>(md), len);
}

/// One header line's value: newlines folded, long values cut.
std::string one_line(const std::string& s) {
  std::string r = s.substr(0, kMaxFieldBytes);
  for (char& c : r)
    if (c == '\n' || c == '\r') c = ' ';
  return r;
}

std::optional<std::uint64_t> parse_u64(const std::string& s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::string encode_remote_entry(const std::string& key, const Entry& e, const std::string& arch,
                                const std::string& hmac_key, std::int64_t created) {
  std::ostringstream h;
  h << kRemoteMagic << "\nkey=" << one_line(key) << "\nkind=" << one_line(e.kind.empty() ? "cpu" : e.kind)
    << "\narch=" << one_line(arch) << "\nobject_bytes=" << e.object.size() << "\nobject_crc32=" << crc32(e.object)
    << "\nsource_bytes=" << e.source.size() << "\ncompile_ms=" << e.compile_ms << "\ncreated=" << created
    << "\norigin=" << one_line(e.origin) << "\n\n";
  std::string value = h.str();
  value.reserve(value.size() + e.object.size() + e.source.size() + kHmacBytes);
  value += e.object;
  value += e.source;
  value += hmac_sha256(hmac_key, value);
  return value;
}

RemoteValue inspect_remote_entry(std::string_view value, const std::string& key, const std::string& arch,
                                 const std::string& hmac_key) {
  RemoteValue r;
  auto fail = [&](std::string why) {
    r.problem = std::move(why);
    return r;
  };
  // The header: magic line, fields, an empty line; bounded.
  const std::string_view head = value.substr(0, std::min(value.size(), kMaxHeaderBytes));
  const std::size_t end = head.find("\n\n");
  const std::string_view first = head.substr(0, head.find('\n'));
  if (first != kRemoteMagic) {
    if (kRemoteMagic.starts_with(value))
      return fail("truncated: " + std::to_string(value.size()) + " bytes, not even a header");
    if (first.starts_with("theano-cpp remote entry "))
      return fail("another format version: " + std::string(first.substr(0, 64)));
    return fail("malformed: no theano-cpp remote entry header");
  }
  if (end == std::string_view::npos)
    return fail(value.size() < kMaxHeaderBytes ? "truncated: " + std::to_string(value.size()) + " bytes, the header does not end"
                                               : "malformed: the header does not end");
  std::map<std::string, std::string> fields;
  std::size_t pos = head.find('\n') + 1;
  while (pos < end + 1) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view line = head.substr(pos, nl - pos);
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) return fail("malformed: a header line without a name=value");
    fields.emplace(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    pos = nl + 1;
  }
  r.header = fields;  // for listings; believed only once the HMAC verifies
  const std::size_t header_bytes = end + 2;
  const auto object_bytes = parse_u64(fields["object_bytes"]);
  const auto source_bytes = parse_u64(fields["source_bytes"]);
  if (!object_bytes || !source_bytes) return fail("malformed: no object_bytes / source_bytes");
  // header + object + source + HMAC, with checked arithmetic (the sizes are
  // not believed yet).
  std::uint64_t want = 0;
  if (__builtin_add_overflow(static_cast<std::uint64_t>(header_bytes), *object_bytes, &want) ||
      __builtin_add_overflow(want, *source_bytes, &want) || __builtin_add_overflow(want, kHmacBytes, &want))
    return fail("malformed: sizes overflow");
  if (value.size() < want)
    return fail("truncated: " + std::to_string(value.size()) + " bytes of " + std::to_string(want));
  if (value.size() > want)
    return fail("malformed: " + std::to_string(value.size() - want) + " bytes after the entry");
  const std::string_view signed_part = value.substr(0, value.size() - kHmacBytes);
  if (!hmac_key.empty()) {
    r.hmac_checked = true;
    const std::string mac = hmac_sha256(hmac_key, signed_part);
    r.hmac_ok = mac.size() == kHmacBytes &&
                CRYPTO_memcmp(mac.data(), value.data() + signed_part.size(), kHmacBytes) == 0;
    if (!r.hmac_ok) return fail("bad HMAC: written with another key or altered");
  }
  r.object = value.substr(header_bytes, static_cast<std::size_t>(*object_bytes));
  r.source = value.substr(header_bytes + static_cast<std::size_t>(*object_bytes), static_cast<std::size_t>(*source_bytes));
  if (!key.empty() && r.header["key"] != key) return fail("foreign key: written for " + r.header["key"].substr(0, 64));
  if (!arch.empty() && r.header["arch"] != arch)
    return fail("foreign arch: built for " + r.header["arch"].substr(0, 200) + ", this process is " + arch);
  if (r.header["object_crc32"] != std::to_string(crc32(std::string(r.object))))
    return fail("bad CRC: the object does not match its checksum");
  return r;
}

std::string problem_reason(const std::string& problem) {
  const std::size_t colon = problem.find(':');
  return colon == std::string::npos ? problem : problem.substr(0, colon);
}

}  // namespace theano::cache::detail
