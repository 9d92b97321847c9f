// The value a remote tier stores for one cache key (see remote_cache.h), and
// how it is checked before anything in it is used. Not installed.
//
//   theano-cpp remote entry 1\n          the magic and format version
//   key=<cache key>\n                    what it was written for
//   kind=<Entry::kind>\n
//   arch=<writer's architecture>\n
//   object_bytes=<n>\n  object_crc32=<crc>\n  source_bytes=<m>\n
//   compile_ms=<ms>\n  created=<s>\n  origin=<one line>\n
//   \n                                   end of the header
//   <object bytes><source bytes>
//   <HMAC-SHA256 (32 bytes) of everything above, keyed by the user's secret>
//
// The header is parsed before the HMAC is checked only to find where the
// bytes end (sizes, with checked arithmetic), so a truncated value is named
// as such; nothing else in it is believed until the HMAC verifies.
#pragma once

#include "theano/cache/compile_cache.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace theano::cache::detail {

inline constexpr std::string_view kRemoteMagic = "theano-cpp remote entry 1";
inline constexpr std::size_t kHmacBytes = 32;

/// The value for `e` under `key`, signed with `hmac_key`.
std::string encode_remote_entry(const std::string& key, const Entry& e, const std::string& arch,
                                const std::string& hmac_key, std::int64_t created);

/// What one value holds, as far as it could be read.
struct RemoteValue {
  std::map<std::string, std::string> header;  ///< empty when the header could not be parsed
  std::string_view object, source;            ///< views into the value (valid while it lives)
  bool hmac_checked = false;                  ///< a key was given
  bool hmac_ok = false;
  /// Why it is not acceptable ("" when it is): the first failed check of
  /// malformed header, size, HMAC, key, arch, CRC.
  std::string problem;
};

/// Parses and checks `value` as fetched for `key`: the header's shape and
/// sizes, then the HMAC with `hmac_key` (skipped when empty: then only
/// listing, never loading), then that it was written for `key` and `arch`,
/// then the object's size and CRC. `key` or `arch` empty: not checked.
RemoteValue inspect_remote_entry(std::string_view value, const std::string& key, const std::string& arch,
                                 const std::string& hmac_key);

/// The short reason of a problem, for counters ("bad HMAC", "truncated", ...).
std::string problem_reason(const std::string& problem);

}  // namespace theano::cache::detail
