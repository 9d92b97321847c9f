// CompileCache: the on-disk compiledir (see compile_cache.h).
#include "theano/cache/compile_cache.h"

#include <boost/crc.hpp>
#include <boost/interprocess/sync/file_lock.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

namespace theano::cache {
namespace fs = std::filesystem;

namespace {

std::mutex& hook_mutex() {
  static std::mutex m;
  return m;
}
std::function<void(const std::string&)>& hook() {
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

/// Reads a whole file; nullopt when it cannot be read.
std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return ss.str();
}

/// Writes `bytes` to a private temporary beside `path`, fsyncs it and renames
/// it into place. Returns 0, or the errno of the failure (nothing is visible then).
int write_atomic(const fs::path& path, const std::string& bytes) {
  {
    std::lock_guard<std::mutex> lock(hook_mutex());
    if (fault_hook())
      if (const int e = fault_hook()(path)) return e;
  }
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd()) + "." +
                       std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
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
  if (!err && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) ::unlink(tmp.c_str());
  return err;
}

std::int64_t mtime_seconds(const fs::path& p, std::error_code& ec) {
  const auto mt = fs::last_write_time(p, ec);
  if (ec) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::file_clock::to_sys(mt).time_since_epoch())
      .count();
}

std::map<std::string, std::string> parse_meta(const std::string& text) {
  std::map<std::string, std::string> m;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return m;
}

bool valid_key(const std::string& key) {
  if (key.size() < 8 || key.size() > 128) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::uint32_t crc32(const std::string& bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

/// One lock stripe: an in-process mutex (fcntl locks belong to the process,
/// not the thread) and the lock file, opened once and kept open.
struct CompileCache::Stripe {
  std::mutex mu;
  bool opened = false;                                   // the lock file was tried (under mu)
  std::unique_ptr<boost::interprocess::file_lock> lock;  // null when the lock file is unusable

  /// Opens `<dir>/locks/<i>.lock` once; it stays open for the life of the
  /// cache (closing any descriptor of a file drops the process's fcntl locks).
  void open(const fs::path& dir, std::size_t i) {
    if (opened) return;
    opened = true;
    char name[24];
    std::snprintf(name, sizeof name, "%02zx.lock", i);
    const fs::path p = dir / "locks" / name;
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ::close(fd);  // before file_lock opens it: closing later would drop its lock
    try {
      lock = std::make_unique<boost::interprocess::file_lock>(p.c_str());
    } catch (const std::exception&) {
    }
  }
};

CompileCache::CompileCache(fs::path dir, int stripes) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_ / "locks", ec);
  const bool writable = !ec && ::access(dir_.c_str(), W_OK) == 0 && ::access((dir_ / "locks").c_str(), W_OK) == 0;
  const int why = ec ? ec.value() : errno;
  // Lock files are opened on a stripe's first miss: a process whose look-ups
  // all hit opens none.
  for (int i = 0; i < std::max(1, stripes); ++i) stripes_.push_back(std::make_unique<Stripe>());
  if (writable) return;
  std::error_code ec2;
  if (fs::is_directory(dir_, ec2) && ::access(dir_.c_str(), R_OK | X_OK) == 0) {
    stats_.read_only = true;
    warn_once("the compiledir " + dir_.string() + " cannot be written (" + std::strerror(why) +
              "); its entries are used but new code is not cached. Set THEANO_FLAGS=compiledir=<dir> to a "
              "writable directory.");
  } else {
    stats_.disabled = true;
    warn_once("the compiledir " + dir_.string() + " cannot be created or read (" + std::strerror(why) +
              "); compiling without a cache. Set THEANO_FLAGS=compiledir=<dir> to a writable directory.");
  }
}

CompileCache::~CompileCache() = default;

void CompileCache::set_before_publish_hook(std::function<void(const std::string&)> h) {
  std::lock_guard<std::mutex> lock(hook_mutex());
  hook() = std::move(h);
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

void CompileCache::remove_entry(const std::string& key) {
  std::error_code ec;
  fs::remove(entry_path(key, ".o"), ec);
  fs::remove(entry_path(key, ".meta"), ec);
  fs::remove(entry_path(key, ".cpp"), ec);
}

std::optional<std::string> CompileCache::lookup(const std::string& key) {
  if (!valid_key(key)) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.disabled) return std::nullopt;
  }
  std::optional<std::string> obj = read_file(entry_path(key, ".o"));
  if (!obj) return std::nullopt;
  const std::optional<std::string> meta_text = read_file(entry_path(key, ".meta"));
  const auto meta = meta_text ? parse_meta(*meta_text) : std::map<std::string, std::string>{};
  const bool ok = meta.count("key") && meta.at("key") == key && meta.count("object_bytes") &&
                  meta.at("object_bytes") == std::to_string(obj->size()) && meta.count("object_crc32") &&
                  meta.at("object_crc32") == std::to_string(crc32(*obj));
  std::error_code ec;
  const fs::path op = entry_path(key, ".o");
  if (!ok && !fs::exists(op, ec)) return std::nullopt;  // removed under us (a cleanup): a plain miss
  if (!ok) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.corrupt;
    }
    std::cerr << "theano-cpp warning: compiledir entry " << key << " in " << dir_.string()
              << " is damaged (size or checksum mismatch); it is removed and compiled again\n";
    if (!stats().read_only) remove_entry(key);
    return std::nullopt;
  }
  // Touch coarsely (at most once an hour) so cleanup can tell used entries.
  const auto mtime = fs::last_write_time(op, ec);
  if (!ec && fs::file_time_type::clock::now() - mtime > std::chrono::hours(1))
    fs::last_write_time(op, fs::file_time_type::clock::now(), ec);
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.hits;
  stats_.bytes_read += obj->size();
  if (auto it = meta.find("compile_ms"); it != meta.end()) stats_.compile_ms_saved += std::atof(it->second.c_str());
  return obj;
}

int CompileCache::publish(const std::string& key, const Entry& e) {
  std::error_code ec;
  fs::create_directories(dir_ / key.substr(0, 2), ec);
  if (ec) return ec.value();
  std::ostringstream meta;
  meta << "schema=1\nkey=" << key << "\nobject_bytes=" << e.object.size() << "\nobject_crc32=" << crc32(e.object)
       << "\nsource_bytes=" << e.source.size() << "\ncreated=" << now_seconds() << "\ncompile_ms=" << e.compile_ms
       << "\norigin=";
  for (char c : e.origin) meta << (c == '\n' ? ' ' : c);
  meta << "\n";
  int err = e.source.empty() ? 0 : write_atomic(entry_path(key, ".cpp"), e.source);
  if (!err) err = write_atomic(entry_path(key, ".meta"), meta.str());
  if (!err) {
    std::function<void(const std::string&)> h;
    {
      std::lock_guard<std::mutex> lock(hook_mutex());
      h = hook();
    }
    if (h) h(key);
    err = write_atomic(entry_path(key, ".o"), e.object);
  }
  if (err) {
    // Leave no partial entry behind (we hold the key's lock: nobody else
    // publishes it now).
    if (!fs::exists(entry_path(key, ".o"), ec)) remove_entry(key);
    return err;
  }
  std::lock_guard<std::mutex> lock(mu_);
  stats_.bytes_written += e.object.size() + e.source.size();
  return 0;
}

std::string CompileCache::get_or_produce(const std::string& key, const std::function<Entry()>& produce, bool* hit) {
  if (hit) *hit = false;
  const CacheStats st = stats();
  const bool readable = valid_key(key) && !st.disabled;
  const bool usable = readable && !st.read_only;
  if (readable) {
    if (auto obj = lookup(key)) {
      if (hit) *hit = true;
      return *obj;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.misses;
  }
  if (!usable) {
    Entry e = produce();
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiles;
    return std::move(e.object);
  }
  // The stripe comes from the key's leading hex digits: the same in every process.
  const std::size_t stripe = std::stoul(key.substr(0, 6), nullptr, 16) % stripes_.size();
  Stripe& s = *stripes_[stripe];
  const auto t0 = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> in_process(s.mu);
  s.open(dir_, stripe);
  std::unique_lock<boost::interprocess::file_lock> cross_process;
  if (s.lock) {
    try {
      cross_process = std::unique_lock<boost::interprocess::file_lock>(*s.lock);
    } catch (const std::exception&) {
      // No lock (e.g. a filesystem without fcntl locks): still correct, since
      // publishing is atomic; a lost race only duplicates a compile.
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.lock_wait_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (auto obj = lookup(key)) {  // another process published it while we waited
    if (hit) *hit = true;
    return *obj;
  }
  Entry e = produce();
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiles;
  }
  if (const int err = publish(key, e)) {
    // A full or read-only filesystem: stop writing for the life of this
    // process (each attempt would cost a failed write); hits still work.
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.read_only = true;
    }
    warn_once("could not write to the compiledir " + dir_.string() + " (" + std::strerror(err) +
              "); its entries are used but new code is not cached in this process");
  }
  return std::move(e.object);
}

CacheStats CompileCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::vector<EntryInfo> CompileCache::entries() const {
  std::vector<EntryInfo> out;
  std::error_code ec;
  for (fs::directory_iterator shard(dir_, ec), end; !ec && shard != end; shard.increment(ec)) {
    if (!shard->is_directory() || shard->path().filename().string().size() != 2) continue;
    std::error_code ec2;
    for (fs::directory_iterator f(shard->path(), ec2), e2; !ec2 && f != e2; f.increment(ec2)) {
      if (f->path().extension() != ".o") continue;
      EntryInfo info;
      info.key = f->path().stem().string();
      if (!valid_key(info.key)) continue;
      std::error_code e3;
      info.object_bytes = fs::file_size(f->path(), e3);
      info.total_bytes = info.object_bytes;
      for (const char* ext : {".cpp", ".meta"}) {
        const auto sz = fs::file_size(entry_path(info.key, ext), e3);
        if (!e3) info.total_bytes += sz;
      }
      const auto mt = fs::last_write_time(f->path(), e3);
      if (!e3)
        info.last_used = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::file_clock::to_sys(mt).time_since_epoch())
                             .count();
      if (auto meta_text = read_file(entry_path(info.key, ".meta"))) {
        const auto meta = parse_meta(*meta_text);
        if (auto it = meta.find("created"); it != meta.end()) info.created = std::atoll(it->second.c_str());
        if (auto it = meta.find("compile_ms"); it != meta.end()) info.compile_ms = std::atof(it->second.c_str());
        if (auto it = meta.find("origin"); it != meta.end()) info.origin = it->second;
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
  for (const EntryInfo& e : all) total += e.total_bytes;
  for (const EntryInfo& e : all) {
    const bool too_old = max_age_seconds >= 0 && now - e.last_used > max_age_seconds;
    const bool too_big = max_bytes > 0 && total > max_bytes;
    if (!too_old && !too_big) continue;
    remove_entry(e.key);
    total -= e.total_bytes;
    r.bytes += e.total_bytes;
    ++r.entries;
  }
  // Leftovers of writers that died: temporaries, and a source or metadata
  // file without its object, once they are an hour old (a live writer
  // publishes within seconds).
  std::error_code ec;
  for (fs::directory_iterator shard(dir_, ec), end; !ec && shard != end; shard.increment(ec)) {
    if (!shard->is_directory() || shard->path().filename().string().size() != 2) continue;
    std::error_code ec2;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator f(shard->path(), ec2), e2; !ec2 && f != e2; f.increment(ec2)) {
      const std::string name = f->path().filename().string();
      const bool tmp = name.find(".tmp.") != std::string::npos;
      const std::string ext = f->path().extension().string();
      const bool orphan = !tmp && (ext == ".cpp" || ext == ".meta") &&
                          !fs::exists(f->path().parent_path() / (f->path().stem().string() + ".o"), ec2);
      std::error_code e3;
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
  if (stats().disabled || stats().read_only) return std::nullopt;
  const fs::path stamp = dir_ / "last-cleanup";
  auto due = [&] {
    std::error_code ec;
    const std::int64_t last = mtime_seconds(stamp, ec);
    return ec || now_seconds() - last >= policy.interval_seconds;
  };
  if (!due()) return std::nullopt;
  // One process at a time, and nobody waits: a try-lock on a file used only
  // for this (so closing it here drops no other lock of this process).
  const fs::path lock_path = dir_ / "locks" / "cleanup.lock";
  const int fd = ::open(lock_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::nullopt;
  ::close(fd);
  try {
    boost::interprocess::file_lock lock(lock_path.c_str());
    std::unique_lock<boost::interprocess::file_lock> held(lock, std::try_to_lock);
    if (!held.owns_lock() || !due()) return std::nullopt;
    if (write_atomic(stamp, std::to_string(now_seconds()) + "\n") != 0) return std::nullopt;
    return cleanup(policy.max_age_seconds, policy.max_bytes);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

fs::path default_base_compiledir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "theano-cpp";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "theano-cpp";
  return fs::path("/tmp") / ("theano-cpp-" + std::to_string(::getuid()));
}

std::optional<std::uintmax_t> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
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
  return static_cast<std::uintmax_t>(v) * mult;
}

}  // namespace theano::cache
