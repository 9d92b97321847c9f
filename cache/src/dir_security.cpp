// Ownership and mode checks of compiledirs and entries, and the uid-private
// directory (see dir_security.h).
#include "theano/cache/dir_security.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <string_view>
#include <vector>

namespace theano::cache {
namespace fs = std::filesystem;

namespace {

std::string octal_mode(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

std::string group_name(gid_t g) {
  std::vector<char> buf(4096);
  struct group gr {};
  struct group* out = nullptr;
  if (::getgrgid_r(g, &gr, buf.data(), buf.size(), &out) == 0 && out) return std::string(out->gr_name);
  return std::to_string(g);
}

/// The owner and write-bit rules shared by directories and files of the
/// compiledir itself.
std::string untrusted_owner_or_mode(const struct stat& st, const TrustPolicy& policy) {
  const uid_t me = ::geteuid();
  const bool team = policy.group && st.st_gid == *policy.group;
  if (st.st_uid != me && !team) {
    std::string why = "it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                      std::to_string(me) + ")";
    if (policy.group) why += " nor by the group " + group_name(*policy.group);
    return why;
  }
  if (st.st_mode & S_IWOTH) return "it is writable by every user (mode " + octal_mode(st.st_mode) + ")";
  if ((st.st_mode & S_IWGRP) && !team)
    return "it is writable by the group " + group_name(st.st_gid) + " (mode " + octal_mode(st.st_mode) +
           "; THEANO_FLAGS compiledir_group=<group> shares a cache with a group on purpose)";
  return "";
}

/// A directory above a compiledir: owned by root, this user or the team's
/// group, and not writable by everyone unless sticky (/tmp).
std::string untrusted_ancestor(std::string_view p, const struct stat& st, const TrustPolicy& policy) {
  const uid_t me = ::geteuid();
  const bool team = policy.group && st.st_gid == *policy.group;
  if (st.st_uid != 0 && st.st_uid != me && !team)
    return "the directory above it, " + std::string(p) + ", is owned by uid " + std::to_string(st.st_uid) +
           " (not root, not this user): its owner can replace the compiledir";
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return "the directory above it, " + std::string(p) + ", is writable by every user and not sticky (mode " +
           octal_mode(st.st_mode) + ")";
  return "";
}

/// Why `p` cannot be this process's private directory ("" when it can): a
/// real directory owned by the effective uid that nobody else can write. One
/// that is ours but readable by others is tightened to 0700.
std::string private_reason(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  if (st.st_uid != ::geteuid())
    return "it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return "it is writable by other users (mode " + octal_mode(st.st_mode) + ")";
  if ((st.st_mode & 07777) != 0700 && ::chmod(p.c_str(), 0700) != 0)
    return std::string("its mode cannot be set to 0700: ") + std::strerror(errno);
  // The directories above it (a TMPDIR that anyone can write, say).
  std::error_code ec;
  const fs::path parent = fs::weakly_canonical(p, ec).parent_path();
  if (ec) return "its path cannot be resolved: " + ec.message();
  for (fs::path a = parent;; a = a.parent_path()) {
    struct stat as {};
    if (::lstat(a.c_str(), &as) != 0) return "cannot read " + a.string() + ": " + std::strerror(errno);
    if (std::string why = untrusted_ancestor(a.native(), as, TrustPolicy{}); !why.empty()) return why;
    if (a == a.parent_path()) break;
  }
  return "";
}

fs::path temp_base() {
  const char* t = std::getenv("TMPDIR");
  return fs::path(t && *t ? t : "/tmp");
}

}  // namespace

std::string untrusted_dir(const struct stat& st, const TrustPolicy& policy) {
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  return untrusted_owner_or_mode(st, policy);
}

std::string untrusted_file(const struct stat& st, const TrustPolicy& policy) {
  if (S_ISLNK(st.st_mode)) return "it is a symbolic link";
  if (!S_ISREG(st.st_mode)) return "it is not a regular file";
  return untrusted_owner_or_mode(st, policy);
}

std::string check_compiledir(const fs::path& dir, const TrustPolicy& policy, fs::path* resolved) {
  char buf[PATH_MAX];
  if (!::realpath(dir.c_str(), buf)) return std::string("its path cannot be resolved: ") + std::strerror(errno);
  const fs::path real(buf);
  if (resolved) *resolved = real;
  struct stat st {};
  if (::lstat(real.c_str(), &st) != 0) return std::string("it cannot be read: ") + std::strerror(errno);
  if (std::string why = untrusted_dir(st, policy); !why.empty()) return why;
  // Every directory above it, up to "/": `buf` (realpath's absolute,
  // normalized result) cut at each '/' in turn.
  for (std::size_t end = std::strlen(buf); end > 0;) {
    while (end > 1 && buf[end - 1] != '/') --end;
    end = end > 1 ? end - 1 : 1;  // "/a/b" -> "/a", "/a" -> "/"
    const std::string a(buf, end);
    struct stat as {};
    if (::lstat(a.c_str(), &as) != 0) return "cannot read " + a + ": " + std::strerror(errno);
    if (std::string why = untrusted_ancestor(a, as, policy); !why.empty()) return why;
    if (end == 1) break;
  }
  return "";
}

std::string check_compiledir_child(const fs::path& dir, const TrustPolicy& policy, fs::path* resolved) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return std::string("it cannot be read: ") + std::strerror(errno);
  if (std::string why = untrusted_dir(st, policy); !why.empty()) return why;
  if (resolved) *resolved = dir;
  return "";
}

int make_dirs(const fs::path& dir, const TrustPolicy& policy) {
  // mkdir ignores the setgid bit and applies the umask: both are set on
  // every directory made here.
  auto made = [&](const fs::path& p) {
    int e = 0;
    if (policy.group && ::chown(p.c_str(), static_cast<uid_t>(-1), *policy.group) != 0) e = errno;
    if (::chmod(p.c_str(), policy.dir_mode()) != 0) e = errno;
    return e;
  };
  // Usually it is there already (a warm start opens three compiledirs, and
  // two of them make their locks/): one stat. Else usually only it is
  // missing: one mkdir, without walking the path.
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
  if (::mkdir(dir.c_str(), 0700) == 0) return made(dir);
  if (errno != EEXIST) {
    // A part above it is missing (or cannot be made): each part from the top.
    fs::path prefix;
    for (const fs::path& part : dir) {
      prefix /= part;
      if (part.empty() || part == "/" || part == "." || part == "..") continue;
      if (::mkdir(prefix.c_str(), 0700) == 0) {
        if (const int e = made(prefix)) return e;
      } else if (errno != EEXIST) {
        return errno;
      }
    }
  }
  if (::stat(dir.c_str(), &st) != 0) return errno;
  return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
}

namespace {

/// Opens `name` under `dirfd` (O_NOFOLLOW) and checks its fstat with
/// untrusted_file: the descriptor, with `st` and the file's identity in `r`;
/// or -1 with r.err (a failed open or fstat) or r.refused set.
int open_trusted_file(int dirfd, const std::string& name, const TrustPolicy& policy, struct stat& st,
                      TrustedOpen& r) {
  // O_NONBLOCK: a planted FIFO must not block the open (it is refused below).
  const int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.err = errno;
    if (r.err == ELOOP) r.refused = "it is a symbolic link";
    return -1;
  }
  if (::fstat(fd, &st) != 0) {
    r.err = errno;
    ::close(fd);
    return -1;
  }
  r.dev = st.st_dev;
  r.ino = st.st_ino;
  r.mtime = st.st_mtime;
  r.refused = untrusted_file(st, policy);
  if (!r.refused.empty()) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<void*>(data_), size_);
  ::close(fd_);
}

TrustedMap map_trusted(int dirfd, const std::string& name, const TrustPolicy& policy) {
  TrustedMap r;
  struct stat st {};
  const int fd = open_trusted_file(dirfd, name, policy, st, r);
  if (fd < 0) return r;
  const auto size = static_cast<std::size_t>(std::max<off_t>(st.st_size, 0));
  void* data = nullptr;
  if (size > 0) {
    // MAP_POPULATE: the pages are in the page cache (a warm entry); mapping
    // them all at once costs less than a fault per 64 KB while checksumming.
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (data == MAP_FAILED) {
      r.err = errno;
      ::close(fd);
      return r;
    }
  }
  // A file that shrinks under the mapping would fault (SIGBUS) on the bytes
  // past its new end; cooperating writers publish by rename and never change
  // a published file, and its size and CRC are checked against the metadata.
  r.file = std::make_shared<const MappedFile>(fd, data, size);
  return r;
}

TrustedRead read_trusted(int dirfd, const std::string& name, const TrustPolicy& policy) {
  TrustedRead r;
  struct stat st {};
  const int fd = open_trusted_file(dirfd, name, policy, st, r);
  if (fd < 0) return r;
  // Straight into the string (a warm start reads a 100-130 KB library here;
  // through a buffer it was copied twice). One byte more than fstat's size, so
  // the read that finds the end needs no room; a file that grew since gets
  // more as it comes.
  std::string bytes(static_cast<std::size_t>(std::max<off_t>(st.st_size, 0)) + 1, '\0');
  std::size_t got = 0;
  for (;;) {
    if (got == bytes.size()) bytes.resize(bytes.size() + (1 << 16));
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      r.err = errno;
      ::close(fd);
      return r;
    }
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  r.bytes = std::move(bytes);
  return r;
}

int open_trusted_dir(int dirfd, const char* path, const TrustPolicy& policy, std::string& why) {
  why.clear();
  const int fd = ::openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    struct stat st {};
    if ((e == ELOOP || e == ENOTDIR) && ::fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0)
      why = S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a directory";
    errno = e;
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  why = untrusted_dir(st, policy);
  if (!why.empty()) {
    ::close(fd);
    return -1;
  }
  return fd;
}

fs::path private_dir() {
  static std::mutex mu;
  static std::map<fs::path, fs::path> substitutes;  // predictable name refused -> mkdtemp directory
  const fs::path base = temp_base();
  const fs::path candidate = base / ("theano-cpp-" + std::to_string(::geteuid()));
  if (::mkdir(candidate.c_str(), 0700) != 0 && errno != EEXIST) return {};
  const std::string why = private_reason(candidate);
  if (why.empty()) return candidate;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = substitutes.find(base); it != substitutes.end() && private_reason(it->second).empty())
    return it->second;
  std::string templ = (base / ("theano-cpp-" + std::to_string(::geteuid()) + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) return {};
  const fs::path made(templ);
  if (!private_reason(made).empty()) return {};
  std::cerr << "theano-cpp warning: not using " << candidate.string() << " (" << why << "); using the new private "
            << "directory " << made.string() << " for the rest of this process\n";
  substitutes[base] = made;
  return made;
}

fs::path private_fallback_compiledir() {
  const fs::path p = private_dir();
  return p.empty() ? p : p / "fallback-compiledir";
}

std::optional<gid_t> group_id(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::vector<char> buf(16384);
  struct group gr {};
  struct group* out = nullptr;
  if (::getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &out) == 0 && out) return out->gr_gid;
  if (name.find_first_not_of("0123456789") == std::string::npos && name.size() < 10) {
    const gid_t g = static_cast<gid_t>(std::strtoul(name.c_str(), nullptr, 10));
    if (::getgrgid_r(g, &gr, buf.data(), buf.size(), &out) == 0 && out) return g;
  }
  return std::nullopt;
}

int create_exclusive(const fs::path& path, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0777);
  if (fd < 0) return -1;
  if (::fchmod(fd, mode) != 0) {
    const int e = errno;
    ::close(fd);
    ::unlink(path.c_str());
    errno = e;
    return -1;
  }
  return fd;
}

}  // namespace theano::cache
