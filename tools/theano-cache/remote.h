// `theano-cache remote stats|list|purge`: the Redis tier behind the
// compiledir (cache/remote_cache.h), configured by the same THEANO_FLAGS as
// the JIT (remote_cache, remote_cache_key / remote_cache_key_file,
// remote_cache_password, remote_cache_timeout_ms) or --url.
#pragma once

#include <optional>
#include <string>

namespace theano::cli {

inline constexpr const char* kRemoteHelp =
    "usage: theano-cache remote stats|list|purge [--url redis://host[:port][/db]] [--json]\n"
    "the Redis tier shared by a fleet (THEANO_FLAGS remote_cache=redis://..., or --url):\n"
    "stats: entries and bytes under the prefix theano-cpp:v1:, the server's used and maximum memory;\n"
    "list: one line per entry: key, size, created, kind, hmac (ok: signed with our key; bad: another key,\n"
    "altered or truncated; unchecked: no key configured), origin, and why it would be rejected here;\n"
    "purge: remove every entry under the prefix.\n"
    "the key comes from THEANO_FLAGS remote_cache_key or remote_cache_key_file; exit 1 when the server\n"
    "cannot be reached (within remote_cache_timeout_ms)\n";

/// Runs `remote <sub>`; returns the exit code. Throws Usage.
int run_remote(const std::string& sub, const std::optional<std::string>& url, bool json);

}  // namespace theano::cli
