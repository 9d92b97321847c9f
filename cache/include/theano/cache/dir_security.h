/// \file
/// Who may have written a compiledir, and private directories for everything
/// else the JIT keeps on disk (issue 15: "the compile cache must not run other
/// people's code").
///
/// Why: the cache loads machine code from disk into the process, so a file that
/// someone else could have written is someone else's code. The checks here use
/// stat()/fstat() ownership and mode bits, never access() (root passes every
/// access() test), and open entry files with O_NOFOLLOW, checking the opened
/// descriptor, so what is checked is what is read.
///
/// The rules (TrustPolicy):
/// * private (the default): a compiledir, its shard and lock directories and
///   every entry file must be owned by the effective uid and writable by nobody
///   else (no group or world write bit). Created directories are 0700, files
///   0600.
/// * team (`group` set, THEANO_FLAGS `compiledir_group=<name>`): owned by the
///   effective uid *or* by that group; group write allowed only for that group;
///   never world-writable. Created directories are 02770 (setgid, so entries
///   inherit the group), files 0640, lock files 0660, all chowned to the group.
/// * the directories above the compiledir (after resolving symlinks) must be
///   owned by root, the effective uid (or, in team mode, the group) and not be
///   world-writable unless sticky (like /tmp). A predictable
///   `/tmp/theano-cpp-<uid>` that someone else created first fails this.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace theano::cache {

/// Who may own and write a compiledir's files.
struct TrustPolicy {
  std::optional<gid_t> group;  ///< team cache: this group may own and write (nullopt: private)

  mode_t dir_mode() const { return group ? 02770 : 0700; }
  mode_t file_mode() const { return group ? 0640 : 0600; }
  mode_t lock_file_mode() const { return group ? 0660 : 0600; }
};

/// Why a directory of the compiledir itself (the compiledir, a shard, `locks/`)
/// with status `st` is not trusted; "" when it is.
std::string untrusted_dir(const struct stat& st, const TrustPolicy& policy);
/// Why an entry file with status `st` (from fstat of the opened descriptor) is
/// not trusted: not a regular file, foreign owner, writable by others; "" when
/// it is.
std::string untrusted_file(const struct stat& st, const TrustPolicy& policy);
/// Why the existing directory `dir` cannot hold a compiledir: the checks on
/// `dir` itself (untrusted_dir) and on every directory above its resolved path.
/// "" when it is trusted. `resolved` (optional) receives the resolved path.
std::string check_compiledir(const std::filesystem::path& dir, const TrustPolicy& policy,
                             std::filesystem::path* resolved = nullptr);
/// check_compiledir for `dir` = <a resolved, checked compiledir>/<name>: only
/// `dir` itself, which must not be a symbolic link (lstat), so the directories
/// above it are the ones already checked and its path is resolved as given.
/// The caller vouches for the parent (CacheOptions::parent_checked).
std::string check_compiledir_child(const std::filesystem::path& dir, const TrustPolicy& policy,
                                   std::filesystem::path* resolved = nullptr);

/// Creates `dir` and any missing parent with policy.dir_mode() (and the group,
/// in team mode). 0, or the errno of the failure. Existing directories are
/// left as they are (check them with check_compiledir).
int make_dirs(const std::filesystem::path& dir, const TrustPolicy& policy);

/// What opening an entry file found (read_trusted, map_trusted).
struct TrustedOpen {
  std::string refused;  ///< why it was refused ("" when not refused)
  int err = 0;          ///< errno of a failed open/read/map (ENOENT: absent)
  dev_t dev = 0;        ///< identity of the file that was opened
  ino_t ino = 0;
  time_t mtime = 0;  ///< its modification time (seconds)
};

/// Opens `name` relative to the directory descriptor `dirfd` (O_RDONLY,
/// O_NOFOLLOW) and reads it whole when its fstat passes untrusted_file().
struct TrustedRead : TrustedOpen {
  std::optional<std::string> bytes;  ///< the content, when read and trusted
};
TrustedRead read_trusted(int dirfd, const std::string& name, const TrustPolicy& policy);

/// A trusted entry file mapped read-only (map_trusted), with the descriptor
/// it was opened, checked and mapped through, which stays open as long as the
/// mapping: a loader can then use that very file (dlopen of /proc/self/fd/N)
/// instead of a copy of its bytes.
class MappedFile {
 public:
  MappedFile(int fd, const void* data, std::size_t size) : fd_(fd), data_(data), size_(size) {}
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  int fd() const { return fd_; }

 private:
  int fd_;
  const void* data_;  // nullptr for an empty file
  std::size_t size_;
};

/// read_trusted's checks, the file then mapped (MAP_PRIVATE, PROT_READ)
/// rather than read: no copy of a 100-200 KB shared library into the heap
/// before it is checksummed and loaded.
struct TrustedMap : TrustedOpen {
  std::shared_ptr<const MappedFile> file;  ///< the mapping, when mapped and trusted
};
TrustedMap map_trusted(int dirfd, const std::string& name, const TrustPolicy& policy);

/// Opens the directory `path` (O_DIRECTORY, O_NOFOLLOW on its last component)
/// and checks it with untrusted_dir(). The descriptor, or -1 with `why` set to
/// the reason (or to "" and errno set when it cannot be opened).
int open_trusted_dir(int dirfd, const char* path, const TrustPolicy& policy, std::string& why);

/// The uid-private directory of this process for things kept outside a
/// compiledir (kept and failed sources, export temporaries, the fallback
/// compiledir): `$TMPDIR/theano-cpp-<euid>` (or `/tmp/...`), created 0700 and
/// verified (a directory, not a symlink, owned by the effective uid, no group
/// or other access). When that predictable name exists and fails the check
/// (someone else created it first), a fresh `mkdtemp` directory
/// `theano-cpp-<euid>-XXXXXX` beside it is used for the rest of the process,
/// with one warning. Empty when neither can be made.
std::filesystem::path private_dir();

/// `private_dir()/fallback-compiledir`: where a refused compiledir's entries
/// are cached instead. Empty when private_dir() is.
std::filesystem::path private_fallback_compiledir();

/// The gid of the group `name` (a name or a number); nullopt when unknown.
std::optional<gid_t> group_id(const std::string& name);

/// Creates `path` with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC (write-only) and
/// `mode` (set with fchmod, whatever the umask). The descriptor, or -1 (errno).
int create_exclusive(const std::filesystem::path& path, mode_t mode);

}  // namespace theano::cache
