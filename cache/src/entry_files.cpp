// The compiledir's entry files (see cache_internal.h): writing one
// atomically, reading a listing's small files, the ".meta" text, the key
// syntax, the clock, and the test hooks that fault a write. Split from
// compile_cache.cpp, which opens, trusts, looks up and publishes.
#include "cache_internal.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>

namespace theano::cache {
namespace fs = std::filesystem;

namespace detail {

std::mutex& hook_mutex() {
  static std::mutex m;
  return m;
}
std::function<void(const std::string&)>& publish_hook() {
  static std::function<void(const std::string&)> h;
  return h;
}
std::function<int(const fs::path&)>& fault_hook() {
  static std::function<int(const fs::path&)> h;
  return h;
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t mtime_seconds(const fs::path& p, std::error_code& ec) {
  // stat itself: fs::last_write_time's clock conversions and first calls cost
  // a warm start (three stamp files) more than the system call.
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    ec = std::error_code(errno, std::generic_category());
    return 0;
  }
  ec.clear();
  return static_cast<std::int64_t>(st.st_mtim.tv_sec);
}

std::optional<std::string> read_listing_file(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    std::string bytes;
    char buf[1 << 14];
    ssize_t n = 0;
    while ((n = ::read(fd, buf, sizeof buf)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      bytes.append(buf, static_cast<std::size_t>(n));
    }
    if (n == 0) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

namespace {

/// A random number for a temporary file's name (two processes of one pid, in
/// two pid namespaces sharing a compiledir). getrandom(2), not
/// std::random_device: libstdc++'s constructor executes CPUID, which traps in
/// a VM (2.3 % of a cold W6 process's samples there, perf; it writes six
/// entries).
/// Where getrandom cannot say (an old kernel, entropy not yet ready), the
/// clock stands in: the name is also made unique by the pid, a counter and
/// create_exclusive.
std::uint64_t name_salt() {
  std::uint64_t v = 0;
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
  return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

}  // namespace

int write_atomic(const fs::path& path, const std::string& bytes, const TrustPolicy& policy) {
  {
    std::lock_guard<std::mutex> lock(hook_mutex());
    if (fault_hook())
      if (const int e = fault_hook()(path)) return e;
  }
  static std::atomic<unsigned> counter{0};
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(name_salt()) +
                       "." + std::to_string(counter++);
  const int fd = create_exclusive(tmp, policy.file_mode());
  if (fd < 0) return errno;
  // Team cache: the group's (the setgid directory already gives it; this is
  // for a directory that lost its setgid bit). Failing is harmless.
  if (policy.group && ::fchown(fd, static_cast<uid_t>(-1), *policy.group) != 0) errno = 0;
  std::size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // No fsync: an entry is a cache, so one that a crash loses or tears is
  // caught by its size and CRC-32 on the next look-up and produced again;
  // running processes see each rename complete either way (the page cache).
  // fsync was 0.4-5 ms a file on a VM's disk, about 10 ms of every cold
  // compile (source, metadata, object, record, shared library).
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;  // replaces a symlink, never follows one
  if (err) ::unlink(tmp.c_str());
  return err;
}

std::map<std::string, std::string> parse_meta(const std::string& text) {
  // Split in place: an istringstream's first use in a process (locale,
  // facets) cost a warm start 3 % of its time, every process, for a 200-byte
  // file read at each look-up.
  std::map<std::string, std::string> m;
  const std::string_view all(text);
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = all.find('\n', at);
    if (end == std::string_view::npos) end = all.size();
    const std::string_view line = all.substr(at, end - at);
    if (const auto eq = line.find('='); eq != std::string_view::npos)
      m[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    at = end + 1;
  }
  return m;
}

bool valid_key(const std::string& key) {
  if (key.size() < 8 || key.size() > 128) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace detail

}  // namespace theano::cache
