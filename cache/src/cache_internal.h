// Helpers shared by the CompileCache sources (compile_cache.cpp: look-up and
// publishing; cache_maintenance.cpp: listing, cleanup, defaults), all defined
// in entry_files.cpp. Not installed.
#pragma once

#include "theano/cache/dir_security.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>

namespace theano::cache::detail {

std::mutex& hook_mutex();
std::function<void(const std::string&)>& publish_hook();
std::function<int(const std::filesystem::path&)>& fault_hook();

std::int64_t now_seconds();
/// The mtime of `p` in seconds since the epoch (0 and `ec` set on failure).
std::int64_t mtime_seconds(const std::filesystem::path& p, std::error_code& ec);

/// Reads a whole regular file without following a symlink, whoever owns it
/// (listing only: what is loaded goes through read_trusted); nullopt when it
/// cannot be read.
std::optional<std::string> read_listing_file(const std::filesystem::path& p);

/// Writes `bytes` to a private temporary beside `path` (O_EXCL, O_NOFOLLOW,
/// the policy's file mode and group) and renames it into place (no fsync:
/// a torn entry fails its CRC and is produced again; compile_cache.h).
/// Returns 0, or the errno of the failure (nothing is visible then).
int write_atomic(const std::filesystem::path& path, const std::string& bytes, const TrustPolicy& policy);

std::map<std::string, std::string> parse_meta(const std::string& text);
bool valid_key(const std::string& key);

}  // namespace theano::cache::detail
