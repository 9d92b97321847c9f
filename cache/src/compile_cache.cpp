// CompileCache: the on-disk compiledir (see compile_cache.h): opening and
// trusting it, look-ups, the striped locks and publishing, and asking the
// remote tier on a miss. Listing and cleanup are in cache_maintenance.cpp, the
// entry files' helpers in entry_files.cpp, the ownership rules in
// dir_security.cpp, the remote tier in remote_cache.cpp.
#include "theano/cache/compile_cache.h"
#include "theano/cache/remote_cache.h"

#include "cache_internal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <mutex>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>

namespace theano::cache {
namespace fs = std::filesystem;
using namespace detail;

/// One lock stripe: an in-process mutex (fcntl locks belong to the process,
/// not the thread) and the lock file's descriptor, opened once and kept open
/// (closing any descriptor of a file drops the process's fcntl locks on it).
struct CompileCache::Stripe {
  std::mutex mu;
  int fd = -1;
  ~Stripe() {
    if (fd >= 0) ::close(fd);
  }
};

/// Holds a key's stripe: the in-process mutex, then the fcntl lock on
/// `<dir>/locks/<i>.lock`. When the lock file was removed or replaced while
/// this process kept it open (`basecompiledir purge`, a cleanup of `locks/`),
/// the lock it holds is on a file nobody else can open: it is dropped and the
/// file at the path (recreated if needed) locked instead. Without a usable
/// lock file it still proceeds: publishing is atomic, a lost race only
/// duplicates a compile.
class CompileCache::StripeLock {
 public:
  StripeLock(CompileCache& c, const std::string& key) {
    // The stripe comes from the key's leading hex digits: the same in every process.
    const std::size_t i = std::stoul(key.substr(0, 6), nullptr, 16) % c.stripes_.size();
    s_ = c.stripes_[i].get();
    guard_ = std::unique_lock<std::mutex>(s_->mu);
    char name[24];
    std::snprintf(name, sizeof name, "%02zx.lock", i);
    const fs::path path = c.dir_ / "locks" / name;
    for (int attempt = 0; attempt < 4 && !locked_; ++attempt) {
      if (s_->fd < 0) {
        if (make_dirs(c.dir_ / "locks", c.policy_) != 0) return;
        s_->fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, c.policy_.lock_file_mode());
        if (s_->fd < 0) return;
      }
      struct flock fl {};
      fl.l_type = F_WRLCK;
      fl.l_whence = SEEK_SET;
      int rc = 0;
      while ((rc = ::fcntl(s_->fd, F_SETLKW, &fl)) != 0 && errno == EINTR) {
      }
      if (rc != 0) return;  // no fcntl locks here (some network filesystems)
      struct stat held {}, now {};
      if (::fstat(s_->fd, &held) == 0 && ::lstat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
          held.st_ino == now.st_ino) {
        locked_ = true;
      } else {
        ::close(s_->fd);  // drops the lock on the removed file
        s_->fd = -1;
      }
    }
  }
  ~StripeLock() {
    if (!locked_) return;
    struct flock fl {};
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    ::fcntl(s_->fd, F_SETLK, &fl);
  }
  StripeLock(const StripeLock&) = delete;
  StripeLock& operator=(const StripeLock&) = delete;

 private:
  Stripe* s_ = nullptr;
  std::unique_lock<std::mutex> guard_;
  bool locked_ = false;
};

CompileCache::CompileCache(fs::path dir, int stripes)
    : CompileCache(std::move(dir), CacheOptions{stripes, std::nullopt, std::nullopt, true}) {}

CompileCache::CompileCache(fs::path dir, CacheOptions options)
    : requested_(dir), dir_(std::move(dir)), policy_{options.group} {
  // Lock files are opened on a stripe's first miss: a process whose look-ups
  // all hit opens none.
  for (int i = 0; i < std::max(1, options.stripes); ++i) stripes_.push_back(std::make_unique<Stripe>());
  const int made = options.create ? make_dirs(dir_, policy_) : 0;
  std::error_code ec;
  // make_dirs returns 0 only for a directory (its stat); else ask.
  if (!(options.create && made == 0) && !fs::is_directory(dir_, ec)) {
    stats_.disabled = true;
    warn_once("the compiledir " + dir_.string() + " cannot be created or read (" +
              std::strerror(made ? made : ENOTDIR) +
              "); compiling without a cache. Set THEANO_FLAGS=compiledir=<dir> to a writable directory.");
    return;
  }
  fs::path resolved;
  const std::string why = options.parent_checked ? check_compiledir_child(dir_, policy_, &resolved)
                                                 : check_compiledir(dir_, policy_, &resolved);
  if (!why.empty()) {
    fall_back(why, options.fallback);
    return;
  }
  dir_ = resolved;
  if (options.create) settle(made);
}

void CompileCache::settle(int made) {
  const int locks = make_dirs(dir_ / "locks", policy_);
  const bool writable =
      !made && !locks && ::access(dir_.c_str(), W_OK) == 0 && ::access((dir_ / "locks").c_str(), W_OK) == 0;
  if (writable) return;
  const int why = made ? made : locks ? locks : errno;
  if (::access(dir_.c_str(), R_OK | X_OK) == 0) {
    stats_.read_only = true;
    warn_once("the compiledir " + dir_.string() + " cannot be written (" + std::strerror(why) +
              "); its entries are used but new code is not cached. Set THEANO_FLAGS=compiledir=<dir> to a "
              "writable directory.");
  } else {
    stats_.disabled = true;
    warn_once("the compiledir " + dir_.string() + " cannot be read (" + std::strerror(why) +
              "); compiling without a cache. Set THEANO_FLAGS=compiledir=<dir> to a writable directory.");
  }
}

void CompileCache::fall_back(const std::string& why, const std::optional<fs::path>& fallback) {
  stats_.fallback = true;
  ++stats_.refused;
  const std::string refused = "refusing the compiledir " + requested_.string() + ": " + why +
                              ". Nothing is loaded from it (anyone who can write it could run code in this "
                              "process); make it yours and not writable by others (chown, chmod 700), or set "
                              "THEANO_FLAGS compiledir_group=<group> for a cache shared by a group";
  const fs::path fb = fallback ? *fallback : private_fallback_compiledir();
  if (!fb.empty()) {
    const TrustPolicy mine{};  // the fallback is private, whatever the team setting
    const int made = make_dirs(fb, mine);
    fs::path resolved;
    if (!made && check_compiledir(fb, mine, &resolved).empty()) {
      policy_ = mine;
      dir_ = resolved;
      warn_once(refused + ". New code is cached in the private compiledir " + dir_.string() + " instead.");
      settle(0);
      return;
    }
  }
  stats_.disabled = true;
  warn_once(refused + ". Compiling without a cache.");
}

CompileCache::~CompileCache() = default;

void CompileCache::set_before_publish_hook(std::function<void(const std::string&)> h) {
  std::lock_guard<std::mutex> lock(hook_mutex());
  publish_hook() = std::move(h);
}

void CompileCache::set_write_fault_hook(std::function<int(const fs::path&)> h) {
  std::lock_guard<std::mutex> lock(hook_mutex());
  fault_hook() = std::move(h);
}

fs::path CompileCache::entry_path(const std::string& key, const char* ext) const {
  return dir_ / key.substr(0, 2) / (key + ext);
}

void CompileCache::warn_once(const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (warned_) return;
    warned_ = true;
  }
  std::cerr << "theano-cpp warning: " << what << "\n";
}

void CompileCache::warn_refused(const fs::path& path, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.refused;
    if (!refused_paths_.insert(path.string()).second) return;
  }
  std::cerr << "theano-cpp warning: refusing " << path.string() << " in the compile cache: " << why
            << "; it is not loaded (compiled again instead)\n";
}

void CompileCache::remove_entry(const std::string& key) {
  std::error_code ec;
  fs::remove(entry_path(key, ".o"), ec);
  fs::remove(entry_path(key, ".meta"), ec);
  fs::remove(entry_path(key, ".cpp"), ec);
}

int CompileCache::open_dir_checked(bool& refused) {
  std::string why;
  const int dfd = open_trusted_dir(AT_FDCWD, dir_.c_str(), policy_, why);
  refused = dfd < 0 && !why.empty();
  if (refused) {
    // Trusted when opened, not now (chmod, chown, replaced): stop using it.
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.disabled = true;
    }
    warn_refused(dir_, why + "; the cache is not used for the rest of this process");
  }
  return dfd;
}

bool CompileCache::trusted_now() {
  if (local_stats().disabled) return false;
  bool refused = false;
  const int dfd = open_dir_checked(refused);
  if (dfd < 0) return false;
  ::close(dfd);
  return true;
}

CompileCache::Probe CompileCache::probe(const std::string& key, bool map) {
  Probe p;
  std::string why;
  bool refused = false;
  const int dfd = open_dir_checked(refused);
  if (dfd < 0) {
    if (refused) p.kind = Probe::refused;
    return p;
  }
  const std::string shard = key.substr(0, 2);
  const int sfd = open_trusted_dir(dfd, shard.c_str(), policy_, why);
  ::close(dfd);
  if (sfd < 0) {
    if (!why.empty()) {
      warn_refused(dir_ / shard, why);
      p.kind = Probe::refused;
    }
    return p;
  }
  auto refuse = [&](const char* ext, const std::string& reason) {
    warn_refused(dir_ / shard / (key + ext), reason);
    ::close(sfd);
    p.kind = Probe::refused;
    return p;
  };
  auto found = [&](auto&& obj, auto&& take) {
    if (!obj.refused.empty()) return false;
    take();
    p.dev = obj.dev;
    p.ino = obj.ino;
    p.mtime = obj.mtime;
    return true;
  };
  bool present = false;
  if (map) {
    TrustedMap obj = map_trusted(sfd, key + ".o", policy_);
    if (!obj.refused.empty()) return refuse(".o", obj.refused);
    present = obj.file && found(obj, [&] { p.mapped = std::move(obj.file); });
  } else {
    TrustedRead obj = read_trusted(sfd, key + ".o", policy_);
    if (!obj.refused.empty()) return refuse(".o", obj.refused);
    present = obj.bytes && found(obj, [&] { p.object = std::move(*obj.bytes); });
  }
  if (!present) {
    ::close(sfd);
    return p;  // absent (or unreadable): a miss
  }
  TrustedRead meta = read_trusted(sfd, key + ".meta", policy_);
  if (!meta.refused.empty()) return refuse(".meta", meta.refused);
  if (meta.bytes) p.meta = parse_meta(*meta.bytes);
  auto field = [&](const char* k) {
    auto it = p.meta.find(k);
    return it == p.meta.end() ? std::string("\n") : it->second;  // "\n" matches no value
  };
  const std::string_view object = p.mapped ? p.mapped->bytes() : std::string_view(p.object);
  if (field("key") == key && field("object_bytes") == std::to_string(object.size()) &&
      field("object_crc32") == std::to_string(crc32(object))) {
    ::close(sfd);
    p.kind = Probe::hit;
    return p;
  }
  // Damaged, unless the object changed under us (removed by a cleanup, or
  // republished between our two reads): then a plain miss.
  struct stat now {};
  const bool same = ::fstatat(sfd, (key + ".o").c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == p.dev &&
                    now.st_ino == p.ino;
  ::close(sfd);
  p.kind = same ? Probe::damaged : Probe::absent;
  return p;
}

std::optional<std::string> CompileCache::accept(const std::string& key, Probe& p) {
  // Touch coarsely (at most once an hour) so cleanup can tell used entries.
  if (static_cast<std::int64_t>(std::time(nullptr)) - static_cast<std::int64_t>(p.mtime) > 3600)
    ::utimensat(AT_FDCWD, entry_path(key, ".o").c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.hits;
  stats_.bytes_read += p.mapped ? p.mapped->bytes().size() : p.object.size();
  if (auto it = p.meta.find("compile_ms"); it != p.meta.end()) stats_.compile_ms_saved += std::atof(it->second.c_str());
  return std::move(p.object);
}

void CompileCache::handle_damage(const std::string& key, const Probe& p) {
  // Called under the key's stripe lock: no cooperating process publishes this
  // key now, and the object is removed only if it is still the damaged file.
  bool read_only = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.corrupt;
    read_only = stats_.read_only;
  }
  std::cerr << "theano-cpp warning: compiledir entry " << key << " in " << dir_.string()
            << " is damaged (size or checksum mismatch); it is removed and compiled again\n";
  if (read_only) return;
  std::string why;
  const int sfd = open_trusted_dir(AT_FDCWD, (dir_ / key.substr(0, 2)).c_str(), policy_, why);
  if (sfd < 0) return;
  struct stat now {};
  if (::fstatat(sfd, (key + ".o").c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == p.dev &&
      now.st_ino == p.ino) {
    for (const char* ext : {".o", ".meta", ".cpp"}) ::unlinkat(sfd, (key + ext).c_str(), 0);
  }
  ::close(sfd);
}

void CompileCache::evict(const std::string& key, const std::string& why) {
  if (!valid_key(key)) return;
  bool read_only = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.unloadable;
    no_remote_.insert(key);
    read_only = stats_.read_only || stats_.disabled;
  }
  std::cerr << "theano-cpp warning: compiledir entry " << key << " in " << dir_.string()
            << " passed its checks but cannot be loaded (" << why << "); it is "
            << (read_only ? "left in place (the compiledir is read-only) and the code compiled again"
                          : "removed and compiled again")
            << "\n";
  if (read_only) return;
  StripeLock stripe(*this, key);  // no cooperating process publishes this key meanwhile
  remove_entry(key);
}

CompileCache::Probe CompileCache::probe_checked(const std::string& key, bool map) {
  Probe p = probe(key, map);
  if (p.kind == Probe::damaged) {
    StripeLock lock(*this, key);
    p = probe(key, map);  // again, under the lock: a republish may have fixed it
    if (p.kind == Probe::damaged) handle_damage(key, p);
  }
  return p;
}

std::optional<std::string> CompileCache::lookup(const std::string& key) {
  if (!valid_key(key) || local_stats().disabled) return std::nullopt;
  Probe p = probe_checked(key, false);
  if (p.kind != Probe::hit) return std::nullopt;
  return accept(key, p);
}

std::shared_ptr<const MappedFile> CompileCache::lookup_mapped(const std::string& key) {
  if (!valid_key(key) || local_stats().disabled) return nullptr;
  Probe p = probe_checked(key, true);
  if (p.kind != Probe::hit) return nullptr;
  accept(key, p);
  return std::move(p.mapped);
}

int CompileCache::publish(const std::string& key, const Entry& e) {
  const fs::path shard = dir_ / key.substr(0, 2);
  // Recreates the compiledir too when it was removed under us (a purge).
  if (const int err = make_dirs(shard, policy_)) return err;
  std::string why;
  const int sfd = open_trusted_dir(AT_FDCWD, shard.c_str(), policy_, why);
  if (sfd < 0) {
    if (why.empty()) return errno;
    warn_refused(shard, why);  // not ours to write into: skip this entry
    return 0;
  }
  ::close(sfd);
  std::ostringstream meta;
  meta << "schema=1\nkey=" << key << "\nobject_bytes=" << e.object.size() << "\nobject_crc32=" << crc32(e.object)
       << "\nsource_bytes=" << e.source.size() << "\ncreated=" << now_seconds() << "\ncompile_ms=" << e.compile_ms
       << "\norigin=";
  for (char c : e.origin) meta << (c == '\n' ? ' ' : c);
  meta << "\nkind=";
  for (char c : e.kind.empty() ? std::string("cpu") : e.kind) meta << (c == '\n' ? ' ' : c);
  meta << "\n";
  int err = e.source.empty() ? 0 : write_atomic(entry_path(key, ".cpp"), e.source, policy_);
  if (!err) err = write_atomic(entry_path(key, ".meta"), meta.str(), policy_);
  if (!err) {
    std::function<void(const std::string&)> h;
    {
      std::lock_guard<std::mutex> lock(hook_mutex());
      h = publish_hook();
    }
    if (h) h(key);
    err = write_atomic(entry_path(key, ".o"), e.object, policy_);
  }
  if (err) {
    // Leave no partial entry behind (we hold the key's lock: nobody else
    // publishes it now).
    std::error_code ec;
    if (!fs::exists(entry_path(key, ".o"), ec)) remove_entry(key);
    return err;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.bytes_written += e.object.size() + e.source.size();
  return 0;
}

void CompileCache::set_remote(std::shared_ptr<RemoteTier> remote) {
  std::lock_guard<std::mutex> lock(mu_);
  remote_ = std::move(remote);
}

std::shared_ptr<RemoteTier> CompileCache::remote() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remote_;
}

void CompileCache::stop_writing(int err) {
  // A full or read-only filesystem: stop writing for the life of this
  // process (each attempt would cost a failed write); hits still work.
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.read_only = true;
  }
  warn_once("could not write to the compiledir " + dir_.string() + " (" + std::strerror(err) +
            "); its entries are used but new code is not cached in this process");
}

std::string CompileCache::get_or_produce(const std::string& key, const std::function<Entry()>& produce, bool* hit) {
  if (hit) *hit = false;
  const bool readable = valid_key(key) && !local_stats().disabled;
  if (readable) {
    Probe p = probe(key);  // no lock; damage is dealt with under the lock below
    if (p.kind == Probe::hit) {
      if (hit) *hit = true;
      return *accept(key, p);
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.misses;
  }
  // The remote tier (it verifies what it returns, and never throws).
  const std::shared_ptr<RemoteTier> remote = valid_key(key) ? this->remote() : nullptr;
  bool fetch_remote = remote != nullptr;
  if (fetch_remote) {
    std::lock_guard<std::mutex> lock(mu_);
    fetch_remote = no_remote_.count(key) == 0;  // evicted as unloadable: the remote copy is the same
  }
  auto from_remote = [&]() -> std::optional<Entry> {
    std::optional<Entry> e = fetch_remote ? remote->fetch(key) : std::nullopt;
    if (e) {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.compile_ms_saved += e->compile_ms;
      if (hit) *hit = true;
    }
    return e;
  };
  auto produce_counted = [&] {
    Entry e = produce();
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiles;
    return e;
  };
  auto to_remote = [&](const Entry& e) {
    if (remote && remote->writes()) remote->publish(key, e);
  };
  auto produce_only = [&] {
    if (std::optional<Entry> e = from_remote()) return std::move(e->object);
    Entry e = produce_counted();
    to_remote(e);
    return std::move(e.object);
  };
  if (!readable || local_stats().read_only || local_stats().disabled) return produce_only();
  Entry e;
  {
    const auto t0 = std::chrono::steady_clock::now();
    StripeLock stripe(*this, key);
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.lock_wait_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    Probe p = probe(key);
    if (p.kind == Probe::hit) {  // another process published it while we waited
      if (hit) *hit = true;
      return *accept(key, p);
    }
    if (p.kind == Probe::damaged) handle_damage(key, p);
    if (local_stats().disabled) return produce_only();  // the compiledir was refused just now
    // Asked under the stripe lock: processes sharing this compiledir ask once.
    if (std::optional<Entry> fetched = from_remote()) {
      if (const int err = publish(key, *fetched)) stop_writing(err);
      return std::move(fetched->object);
    }
    e = produce_counted();
    if (const int err = publish(key, e)) stop_writing(err);
  }
  // After the stripe lock: a slow remote tier holds up no other process.
  to_remote(e);
  return std::move(e.object);
}

}  // namespace theano::cache
