// CompileCache maintenance: listing, clearing, cleanup by age and size, the
// automatic cleanup, and the defaults (see compile_cache.h).
#include "theano/cache/compile_cache.h"
#include "theano/cache/remote_cache.h"

#include "cache_internal.h"


#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <limits>

namespace theano::cache {
namespace fs = std::filesystem;
using namespace detail;

namespace {

/// The shard directories of `dir`: two-character real directories (a symlink
/// is skipped, so a cleanup never walks into someone else's directory).
std::vector<fs::path> shards(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator shard(dir, ec), end; !ec && shard != end; shard.increment(ec)) {
    std::error_code e2;
    if (shard->is_symlink(e2) || !shard->is_directory(e2)) continue;
    if (shard->path().filename().string().size() == 2) out.push_back(shard->path());
  }
  return out;
}

}  // namespace

CacheStats CompileCache::local_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

CacheStats CompileCache::stats() const {
  std::shared_ptr<RemoteTier> remote;
  CacheStats s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    s = stats_;
    remote = remote_;
  }
  if (remote) {  // RemoteTier::stats() never waits for the network
    const RemoteStats r = remote->stats();
    s.remote = true;
    s.remote_hits = r.hits;
    s.remote_misses = r.misses;
    s.remote_rejected = r.rejected;
    s.remote_published = r.published;
    s.remote_errors = r.errors;
  }
  return s;
}

std::vector<EntryInfo> CompileCache::entries() const {
  std::vector<EntryInfo> out;
  if (local_stats().disabled) return out;
  for (const fs::path& shard : shards(dir_)) {
    std::error_code ec2;
    for (fs::directory_iterator f(shard, ec2), e2; !ec2 && f != e2; f.increment(ec2)) {
      if (f->path().extension() != ".o") continue;
      EntryInfo info;
      info.key = f->path().stem().string();
      if (!valid_key(info.key)) continue;
      std::error_code e3;
      if (f->is_symlink(e3)) continue;
      info.object_bytes = fs::file_size(f->path(), e3);
      info.total_bytes = info.object_bytes;
      for (const char* ext : {".cpp", ".meta"}) {
        const auto sz = fs::file_size(entry_path(info.key, ext), e3);
        if (!e3) info.total_bytes += sz;
      }
      info.last_used = mtime_seconds(f->path(), e3);
      if (auto meta_text = read_listing_file(entry_path(info.key, ".meta"))) {
        const auto meta = parse_meta(*meta_text);
        if (auto it = meta.find("created"); it != meta.end()) info.created = std::atoll(it->second.c_str());
        if (auto it = meta.find("compile_ms"); it != meta.end()) info.compile_ms = std::atof(it->second.c_str());
        if (auto it = meta.find("origin"); it != meta.end()) info.origin = it->second;
        if (auto it = meta.find("kind"); it != meta.end() && !it->second.empty()) info.kind = it->second;
      }
      out.push_back(std::move(info));
    }
  }
  return out;
}

std::size_t CompileCache::clear() {
  std::size_t n = 0;
  for (const EntryInfo& e : entries()) {
    remove_entry(e.key);
    ++n;
  }
  return n;
}

CleanupResult CompileCache::cleanup(std::int64_t max_age_seconds, std::uintmax_t max_bytes) {
  CleanupResult r;
  std::vector<EntryInfo> all = entries();
  std::sort(all.begin(), all.end(), [](const EntryInfo& a, const EntryInfo& b) { return a.last_used < b.last_used; });
  const std::int64_t now = now_seconds();
  std::uintmax_t total = 0;
  for (const EntryInfo& e : all)  // saturating: a sum of file sizes cannot really wrap, but never trust it
    total = e.total_bytes > std::numeric_limits<std::uintmax_t>::max() - total
                ? std::numeric_limits<std::uintmax_t>::max()
                : total + e.total_bytes;
  for (const EntryInfo& e : all) {
    const bool too_old = max_age_seconds >= 0 && now - e.last_used > max_age_seconds;
    const bool too_big = max_bytes > 0 && total > max_bytes;
    if (!too_old && !too_big) continue;
    remove_entry(e.key);
    total -= std::min(total, e.total_bytes);
    r.bytes += e.total_bytes;
    ++r.entries;
  }
  // Leftovers of writers that died: temporaries, and a source or metadata
  // file without its object, once they are an hour old (a live writer
  // publishes within seconds).
  for (const fs::path& shard : shards(dir_)) {
    std::error_code ec2;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator f(shard, ec2), e2; !ec2 && f != e2; f.increment(ec2)) {
      const std::string name = f->path().filename().string();
      const bool tmp = name.find(".tmp.") != std::string::npos;
      const std::string ext = f->path().extension().string();
      std::error_code e3;
      const bool orphan = !tmp && (ext == ".cpp" || ext == ".meta") &&
                          !fs::exists(f->path().parent_path() / (f->path().stem().string() + ".o"), e3);
      if ((tmp || orphan) && now - mtime_seconds(f->path(), e3) > 3600 && !e3) doomed.push_back(f->path());
    }
    for (const fs::path& p : doomed) {
      std::error_code e3;
      const auto sz = fs::file_size(p, e3);
      if (fs::remove(p, e3)) {
        ++r.leftovers;
        r.bytes += e3 ? 0 : sz;
      }
    }
  }
  return r;
}

std::optional<CleanupResult> CompileCache::maybe_cleanup(const CleanupPolicy& policy) {
  if (local_stats().disabled || local_stats().read_only) return std::nullopt;
  const fs::path stamp = dir_ / "last-cleanup";
  auto due = [&] {
    std::error_code ec;
    const std::int64_t last = mtime_seconds(stamp, ec);
    return ec || now_seconds() - last >= policy.interval_seconds;
  };
  if (!due()) return std::nullopt;
  // One process at a time, and nobody waits: a try-lock on a file used only
  // for this (so closing it here drops no other lock of this process).
  if (make_dirs(dir_ / "locks", policy_) != 0) return std::nullopt;
  const fs::path lock_path = dir_ / "locks" / "cleanup.lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, policy_.lock_file_mode());
  if (fd < 0) return std::nullopt;
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  std::optional<CleanupResult> result;
  if (::fcntl(fd, F_SETLK, &fl) == 0 && due() &&
      write_atomic(stamp, std::to_string(now_seconds()) + "\n", policy_) == 0)
    result = cleanup(policy.max_age_seconds, policy.max_bytes);
  ::close(fd);  // drops the lock
  return result;
}

fs::path default_base_compiledir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "theano-cpp";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "theano-cpp";
  // The predictable name in the temporary directory, unless someone else got
  // there first (then nothing of it is used: a fresh private directory).
  const char* t = std::getenv("TMPDIR");
  const fs::path candidate = fs::path(t && *t ? t : "/tmp") / ("theano-cpp-" + std::to_string(::geteuid()));
  struct stat st {};
  if (::lstat(candidate.c_str(), &st) != 0 && errno == ENOENT) return candidate;
  if (S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 077) == 0) return candidate;
  return private_dir();
}

std::optional<std::uintmax_t> parse_size(const std::string& text) {
  // Digits first: stoull would take "-1" as 2^64 - 1 and skip leading spaces.
  if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt;
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &pos);
  } catch (...) {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  std::uintmax_t mult = 1;
  if (unit.empty()) mult = 1;
  else if (unit == "k" || unit == "K") mult = 1ull << 10;
  else if (unit == "M" || unit == "m") mult = 1ull << 20;
  else if (unit == "G" || unit == "g") mult = 1ull << 30;
  else if (unit == "T" || unit == "t") mult = 1ull << 40;
  else return std::nullopt;
  std::uintmax_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uintmax_t>(v), mult, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace theano::cache
