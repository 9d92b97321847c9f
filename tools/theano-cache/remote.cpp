// theano-cache remote stats|list|purge (see remote.h).
#include "remote.h"

#include <theano/cache/remote_cache.h>
#include <theano/codegen/compiledir.h>

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include "cli_format.h"

namespace theano::cli {

using cache::RemoteEntryInfo;

int run_remote(const std::string& sub, const std::optional<std::string>& url, bool json) {
  if (sub != "stats" && sub != "list" && sub != "purge") throw Usage{"remote takes stats, list or purge"};
  const std::string where = url ? *url : codegen::remote_cache_url();
  if (where.empty()) {
    std::cerr << "theano-cache: no remote cache configured: give --url redis://host:port or set THEANO_FLAGS "
                 "remote_cache=redis://host:port\n";
    return 1;
  }
  if (url) {
    try {
      cache::parse_redis_url(*url);
    } catch (const std::invalid_argument& e) {
      throw Usage{std::string("--url: ") + e.what()};
    }
  }
  const cache::RemoteOptions options = codegen::remote_cache_options(where);  // ValueError naming a flag
  const std::string server = options.url.str();
  try {
    if (sub == "stats") {
      const cache::RemoteServerInfo info = cache::remote_server_info(options);
      if (json) {
        std::cout << "{\"url\": " << json_string(server) << ", \"prefix\": " << json_string(options.prefix)
                  << ", \"reachable\": true, \"entries\": " << info.entries << ", \"bytes\": " << info.bytes
                  << ", \"used_memory\": " << info.used_memory << ", \"maxmemory\": " << info.maxmemory
                  << ", \"maxmemory_policy\": " << json_string(info.maxmemory_policy)
                  << ", \"redis_version\": " << json_string(info.redis_version) << "}\n";
      } else {
        std::cout << "remote cache: " << server << " (prefix " << options.prefix << ")\nredis: "
                  << info.redis_version << "\nentries: " << info.entries << "\nsize: " << human(info.bytes) << " ("
                  << info.bytes << " bytes)\nserver memory: " << human(info.used_memory) << " used, "
                  << (info.maxmemory ? human(info.maxmemory) + " at most (" + info.maxmemory_policy + ")"
                                     : std::string("no limit"))
                  << "\n";
      }
      return 0;
    }
    if (sub == "list") {
      std::vector<RemoteEntryInfo> entries = cache::remote_entries(options);
      std::sort(entries.begin(), entries.end(),
                [](const RemoteEntryInfo& a, const RemoteEntryInfo& b) { return a.key < b.key; });
      if (json) {
        std::cout << "[";
        for (std::size_t i = 0; i < entries.size(); ++i) {
          const RemoteEntryInfo& e = entries[i];
          std::cout << (i ? ",\n " : "") << "{\"key\": " << json_string(e.key) << ", \"bytes\": " << e.bytes
                    << ", \"created\": " << e.created << ", \"compile_ms\": " << e.compile_ms
                    << ", \"kind\": " << json_string(e.kind) << ", \"arch\": " << json_string(e.arch)
                    << ", \"origin\": " << json_string(e.origin) << ", \"hmac\": " << json_string(e.hmac)
                    << ", \"problem\": " << json_string(e.problem) << "}";
        }
        std::cout << "]\n";
      } else {
        for (const RemoteEntryInfo& e : entries)
          std::cout << e.key << "  " << human(e.bytes) << "  created " << iso_time(e.created) << "  " << e.kind
                    << "  hmac " << e.hmac << "  " << e.origin << (e.problem.empty() ? "" : "  [" + e.problem + "]")
                    << "\n";
      }
      return 0;
    }
    const std::uint64_t removed = cache::remote_purge(options);
    if (json) std::cout << "{\"url\": " << json_string(server) << ", \"purged\": " << removed << "}\n";
    else std::cout << "removed " << removed << " entr" << (removed == 1 ? "y" : "ies") << " from " << server << "\n";
    return 0;
  } catch (const cache::RemoteError& e) {
    if (json && sub == "stats")
      std::cout << "{\"url\": " << json_string(server) << ", \"prefix\": " << json_string(options.prefix)
                << ", \"reachable\": false, \"error\": " << json_string(e.what()) << "}\n";
    std::cerr << "theano-cache: the remote cache " << server << " cannot be used: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace theano::cli
