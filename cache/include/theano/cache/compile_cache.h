/// \file
/// `CompileCache`: one compiledir on disk, holding compiled objects under
/// content-addressed keys (docs/jit-and-cache.md, "The compiledir").
///
/// Why this shape: Theano's cache fought lock stalls, stale locks, corrupted
/// entries and a pickled global index for years, and it loads machine code
/// into the process, so whoever can write a compiledir can run code in it.
/// Here:
/// * an entry is `<dir>/<key[0:2]>/<key>.o` (the object), `<key>.cpp` (the
///   source, for people) and `<key>.meta` (a small text file: sizes, a CRC-32 of
///   the object, creation time, compile time, origin, kind). No index file.
///   The kind says what the object is: "cpu" (a host ELF object; also what an
///   entry written before kinds existed reads as) or a CUDA image such as
///   "cuda sm_90 cubin" / "cuda compute_90 ptx" (codegen/cuda_cache.h), whose
///   `.cpp` then holds the CUDA source.
/// * nothing is loaded from a file someone else could have written
///   (dir_security.h): the compiledir must be owned by the effective uid (or,
///   for a team cache, by the group given in CacheOptions::group), writable by
///   nobody else (group write only for that group) and sit under directories
///   owned by root or the user that others cannot write (sticky /tmp is fine).
///   Shard directories and entry files are opened with O_NOFOLLOW and checked
///   on the opened descriptor (a regular file, owner, no foreign write bit) on
///   every look-up. A refused compiledir costs one warning and the cache moves
///   to a uid-private fallback compiledir (CacheOptions::fallback) or runs
///   without caching; a refused entry costs one warning and is compiled again.
///   The CRC is against damage, not against people.
/// * directories are created 0700 (team: 02770, group-owned), files 0600
///   (team: 0640), each file by O_EXCL|O_NOFOLLOW on a private temporary in
///   the same directory, renamed into place, the object last: to every
///   running process an entry whose object is visible is complete. No fsync:
///   an entry a crash loses or tears fails its size / CRC check and is
///   produced again, so durability would only cost time (about 10 ms of each
///   cold compile on a VM's disk).
/// * look-ups take no lock. A miss takes an in-process mutex and an fcntl lock
///   on one of N striped lock files (opened once and kept open: closing any
///   descriptor of a file drops its fcntl locks; reopened when `locks/` was
///   removed under a running process, so the exclusion survives a purge),
///   looks again, produces the entry and publishes it. Locks die with their
///   process, so there are no stale locks and no timeouts.
/// * a truncated, corrupted or foreign entry (size or CRC mismatch, missing
///   metadata) is reported once and produced again; it is removed only under
///   the key's stripe lock and only if the file is still the damaged one, so a
///   concurrent republish of the same key is never deleted.
/// * a compiledir that cannot be created degrades to producing without
///   caching; one that can be read but not written (read-only, or a write
///   failed: a full filesystem) still serves its entries and stops writing.
///   Either way there is one warning and the caller always gets its bytes.
/// * old entries go by age and by total size (LRU by a coarse "last used"
///   touch), from `theano-cache cleanup` or automatically: at most once per
///   interval per compiledir, by one process (a try-lock, never a wait).
/// * a second tier may sit behind the compiledir (set_remote; remote_cache.h:
///   Redis shared by a fleet): on a miss under the stripe lock the key is
///   fetched from it (verified there: HMAC, key, arch, size, CRC) and
///   published locally; only when it has nothing is the entry produced, then
///   published locally and, after the lock is released, to the remote tier.
///   The remote tier never makes a look-up fail: at worst it costs its
///   timeout once and the entry is produced.
/// Keys are computed by the caller (codegen hashes compiler identity, flags,
/// target and source); this library stores bytes and knows nothing of graphs.
/// Thread-safe; several processes may share one compiledir.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "theano/cache/dir_security.h"

namespace theano::cache {

/// What a producer returns for a missing key.
struct Entry {
  std::string object;  ///< the bytes to cache (an ELF object)
  std::string source;  ///< the generated source, kept beside it (may be empty)
  double compile_ms = 0;
  std::string origin;  ///< a one-line summary of what was compiled (e.g. the graph's outputs)
  /// What the object is, one line: "cpu" (a host ELF object), or e.g. "cuda
  /// sm_90 cubin", "cuda compute_90 ptx". Empty is written as "cpu".
  std::string kind = "cpu";
};

/// Counters of one CompileCache in this process.
struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;         ///< look-ups that found nothing (before the lock)
  std::uint64_t compiles = 0;       ///< entries produced by this process
  std::uint64_t corrupt = 0;        ///< entries found damaged and replaced
  std::uint64_t unloadable = 0;     ///< entries that passed the checks but could not be loaded: evicted
  std::uint64_t bytes_written = 0;
  std::uint64_t bytes_read = 0;
  double compile_ms_saved = 0;      ///< compile time recorded in the entries that hit
  double lock_wait_ms = 0;          ///< time spent waiting for stripe locks
  std::uint64_t refused = 0;        ///< entries or directories refused as untrusted (not loaded)
  bool disabled = false;            ///< the compiledir is unusable: producing without caching
  bool fallback = false;            ///< the compiledir asked for was refused (see CompileCache::dir())
  bool read_only = false;           ///< entries are served but nothing is written (read-only or full)
  // The remote tier (set_remote), from its own counters (RemoteStats).
  bool remote = false;                ///< a remote tier is attached
  std::uint64_t remote_hits = 0;      ///< entries fetched from it, verified and used (not compiles)
  std::uint64_t remote_misses = 0;    ///< fetches that found nothing (absent, back-off, error)
  std::uint64_t remote_rejected = 0;  ///< values it held that were refused (HMAC, key, arch, size, CRC)
  std::uint64_t remote_published = 0; ///< fresh compiles written to it
  std::uint64_t remote_errors = 0;    ///< failed connects, commands and refused writes
};

/// When the automatic cleanup runs and what it removes.
struct CleanupPolicy {
  std::int64_t max_age_seconds = 30 * 86400;  ///< < 0: no age limit
  std::uintmax_t max_bytes = 0;               ///< 0: no size limit
  std::int64_t interval_seconds = 86400;      ///< at most one automatic cleanup per interval
};

/// What one cleanup removed.
struct CleanupResult {
  std::size_t entries = 0;       ///< complete entries removed
  std::size_t leftovers = 0;     ///< temporaries and partial entries of dead writers removed
  std::uintmax_t bytes = 0;      ///< bytes freed
};

/// One entry as listed by `entries()`.
struct EntryInfo {
  std::string key;
  std::uintmax_t object_bytes = 0;
  std::uintmax_t total_bytes = 0;  ///< object + source + metadata
  std::int64_t created = 0;        ///< seconds since the epoch
  std::int64_t last_used = 0;      ///< the object's modification time (touched on use, coarsely)
  double compile_ms = 0;
  std::string origin;
  std::string kind = "cpu";  ///< Entry::kind; "cpu" for entries written without one
};

class RemoteTier;

/// How a CompileCache opens its compiledir.
struct CacheOptions {
  int stripes = 64;  ///< striped lock files
  /// A team cache: this group may own and write the compiledir and its entries
  /// (created 02770/0640, group-owned). nullopt: private to the effective uid.
  std::optional<gid_t> group;
  /// Where entries go when the compiledir is refused (foreign owner, writable
  /// by others): nullopt: private_fallback_compiledir(); an empty path: run
  /// without caching.
  std::optional<std::filesystem::path> fallback;
  /// false: open an existing compiledir and create nothing, not even `locks/`
  /// (read-only tools: `theano-cache list`); a missing one runs disabled.
  bool create = true;
  /// The caller vouches that `dir` is <parent>/<name> for a compiledir
  /// `parent` this process opened (its ancestors checked) and has just found
  /// trusted again (trusted_now), `parent` being its resolved dir(): then
  /// only `dir` itself is checked (check_compiledir_child), without
  /// resolving its path or walking the directories above it once more. The
  /// compiledir's inner caches (records, libraries) are opened so: 12 fewer
  /// system calls each in every process's first function.
  bool parent_checked = false;
};

class CompileCache {
 public:
  /// Opens (creating it if needed, 0700 or 02770) the compiledir `dir`. Never
  /// throws for an unusable directory: the cache then runs disabled (see
  /// stats().disabled). An untrusted one is refused with one warning and the
  /// cache uses `options.fallback` instead (stats().fallback).
  explicit CompileCache(std::filesystem::path dir, int stripes = 64);
  CompileCache(std::filesystem::path dir, CacheOptions options);
  ~CompileCache();
  CompileCache(const CompileCache&) = delete;
  CompileCache& operator=(const CompileCache&) = delete;

  /// The directory in use (symlinks resolved): the compiledir asked for, or
  /// the fallback when that one was refused.
  const std::filesystem::path& dir() const { return dir_; }
  /// The compiledir asked for, as given.
  const std::filesystem::path& requested_dir() const { return requested_; }

  /// The cached object for `key`, verified (trusted files, size and CRC);
  /// nullopt when absent, refused or damaged. Takes no lock, except that a
  /// damaged entry is removed under the key's stripe lock, and only while it
  /// is still the damaged file.
  std::optional<std::string> lookup(const std::string& key);
  /// lookup(), the object mapped (map_trusted) instead of read: the same
  /// checks, no copy. For callers that hand the file itself on (a shared
  /// library to dlopen, JitLoader::load_shared_object's `verified_fd`).
  std::shared_ptr<const MappedFile> lookup_mapped(const std::string& key);

  /// The object for `key`: from the cache, else from the remote tier (then
  /// published locally), else from `produce()` (called at most once, under
  /// the key's stripe lock, after a second look-up) and then published
  /// locally and to the remote tier. `hit` (optional) is true when nothing
  /// was produced (a local or remote hit). Exceptions from `produce`
  /// propagate; nothing is published then.
  std::string get_or_produce(const std::string& key, const std::function<Entry()>& produce, bool* hit = nullptr);

  /// Removes the entry of `key`, whose object passed the integrity checks
  /// but could not be loaded (`why`: the loader's error), with one warning,
  /// and stops asking the remote tier for `key` in this process: the next
  /// get_or_produce compiles it and publishes the fresh entry (locally and
  /// remotely, over the remote one). Nothing is removed from a read-only
  /// compiledir; then the next get_or_produce still finds the entry, and the
  /// caller compiles without the cache.
  void evict(const std::string& key, const std::string& why);

  /// Puts `remote` behind this compiledir (nullptr: none). Look-ups that
  /// miss locally ask it before producing; fresh entries go to it when it
  /// writes. lookup() stays local.
  void set_remote(std::shared_ptr<RemoteTier> remote);
  std::shared_ptr<RemoteTier> remote() const;

  /// Whether the compiledir is still trusted now: the check every look-up
  /// makes of it (owner, modes), without looking anything up. When it no
  /// longer is, the cache stops being used for the rest of the process, with
  /// the look-up's one warning. For callers of caches kept inside this one's
  /// directory (whose own checks do not see a parent turned unsafe). False
  /// also when the cache is disabled or its directory is gone.
  bool trusted_now();

  /// This process's counters, with the remote tier's (CacheStats::remote_*).
  CacheStats stats() const;
  /// Every complete entry (unordered scans of the shard directories).
  std::vector<EntryInfo> entries() const;
  /// Removes every entry (not the lock files); returns how many.
  std::size_t clear();
  /// Removes entries unused for more than `max_age_seconds` (< 0: no age
  /// limit), then the least recently used ones until the total size is at
  /// most `max_bytes` (0: no size limit), and the leftovers of writers that
  /// died (temporaries and entries without their object, older than an hour).
  CleanupResult cleanup(std::int64_t max_age_seconds, std::uintmax_t max_bytes);

  /// The automatic cleanup: runs cleanup() with `policy` when the last one in
  /// this compiledir (the mtime of `<dir>/last-cleanup`) is older than
  /// `policy.interval_seconds`, unless another process is doing it right now.
  /// Costs one stat() when there is nothing to do. Returns what it removed
  /// (nullopt when it did not run).
  std::optional<CleanupResult> maybe_cleanup(const CleanupPolicy& policy);

  /// Test hook: called after an entry's source and metadata are written and
  /// before its object is published (a test pauses here and kills the process).
  static void set_before_publish_hook(std::function<void(const std::string& key)> hook);
  /// Test hook: called before each file of the compiledir is written; a
  /// non-zero result fails that write with this errno (ENOSPC: a full disk).
  static void set_write_fault_hook(std::function<int(const std::filesystem::path& file)> hook);

 private:
  struct Stripe;
  class StripeLock;
  /// What one unlocked look at an entry found.
  struct Probe {
    enum Kind { absent, hit, damaged, refused } kind = absent;
    std::string object;                        // read, or
    std::shared_ptr<const MappedFile> mapped;  // mapped (lookup_mapped)
    std::map<std::string, std::string> meta;
    dev_t dev = 0;  // the object file that was read
    ino_t ino = 0;
    time_t mtime = 0;
  };
  Probe probe(const std::string& key, bool map = false);
  Probe probe_checked(const std::string& key, bool map);  // probe(); a damaged entry removed, under the lock
  /// The compiledir opened and checked as every look-up does; -1 when absent
  /// or refused (`refused`: then the cache is disabled, with one warning).
  int open_dir_checked(bool& refused);
  std::optional<std::string> accept(const std::string& key, Probe& p);  // counts a hit, touches; the read bytes
  void handle_damage(const std::string& key, const Probe& p);          // under the stripe lock
  void fall_back(const std::string& why, const std::optional<std::filesystem::path>& fallback);
  void settle(int made);  // read-only / disabled from what can be written
  std::filesystem::path entry_path(const std::string& key, const char* ext) const;
  int publish(const std::string& key, const Entry& e);  // 0 or an errno
  void stop_writing(int err);                            // a failed publish: read-only from now on, one warning
  CacheStats local_stats() const;                        // stats() without asking the remote tier
  void warn_once(const std::string& what);
  void warn_refused(const std::filesystem::path& path, const std::string& why);  // once per path
  void remove_entry(const std::string& key);

  std::filesystem::path requested_;
  std::filesystem::path dir_;
  TrustPolicy policy_;
  std::vector<std::unique_ptr<Stripe>> stripes_;
  mutable std::mutex mu_;  // guards stats_, warned_ and refused_paths_
  CacheStats stats_;
  bool warned_ = false;
  std::set<std::string> refused_paths_;
  std::shared_ptr<RemoteTier> remote_;  // guarded by mu_
  std::set<std::string> no_remote_;     // keys evicted as unloadable: not fetched again; guarded by mu_
};

/// CRC-32 (IEEE) of `bytes`, as stored in an entry's metadata.
std::uint32_t crc32(std::string_view bytes);

/// Default base directory: `$XDG_CACHE_HOME/theano-cpp`, else
/// `$HOME/.cache/theano-cpp`, else `$TMPDIR/theano-cpp-<euid>` (or under
/// `/tmp`) when that does not exist yet or is this user's 0700 directory, else
/// private_dir() (someone else created the predictable name first). Creates
/// nothing except in that last case.
std::filesystem::path default_base_compiledir();

/// Parses "500M", "2G", "1024", "10k" (powers of 1024); nullopt when malformed.
std::optional<std::uintmax_t> parse_size(const std::string& text);

}  // namespace theano::cache
