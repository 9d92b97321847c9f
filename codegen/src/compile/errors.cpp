/// \file
/// CompileError's message layout and keeping a failing source on disk, so that the
/// line numbers in a diagnostic can be looked up after the process is gone.
#include <theano/codegen/errors.h>

#include <llvm/Support/xxhash.h>

#include <theano/cache/dir_security.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>

namespace theano::codegen {

namespace {

std::string compose(const std::string& headline, const std::string& diagnostics,
                    const std::string& path) {
  std::string m = headline;
  m += path.empty() ? std::string("\n(the failing source could not be kept on disk)")
                    : "\nsource kept at: " + path;
  if (!diagnostics.empty()) {
    m += "\n";
    m += diagnostics;
  }
  return m;
}

}  // namespace

CompileError::CompileError(const std::string& headline, std::string diagnostics,
                           std::string source_path)
    : Error(compose(headline, diagnostics, source_path)),
      diagnostics_(std::move(diagnostics)),
      source_path_(std::move(source_path)) {}

std::string keep_failed_source(std::string_view source, std::string_view extension) {
  return keep_source(source, extension, "theano-cpp-failed");
}

std::string keep_source(std::string_view source, std::string_view extension, std::string_view subdir) {
  namespace fs = std::filesystem;
  // Under this user's private directory (0700, verified; never a shared
  // predictable /tmp path another user could have planted a symlink in).
  const fs::path root = cache::private_dir();
  if (root.empty() || subdir.empty() || subdir.find('/') != std::string_view::npos) return {};
  const fs::path dir = root / std::string(subdir);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return {};
  std::string why;
  const int dfd = cache::open_trusted_dir(AT_FDCWD, dir.c_str(), cache::TrustPolicy{}, why);
  if (dfd < 0) return {};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(llvm::xxh3_64bits(llvm::StringRef(source.data(), source.size()))));
  const std::string name = std::string(hex) + std::string(extension);
  // Write to a private temp name (O_EXCL, O_NOFOLLOW), then rename: concurrent
  // failures of the same source never expose a half-written file.
  static std::atomic<unsigned> counter{0};
  const std::string tmp_name = name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::openat(dfd, tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  for (std::size_t done = 0; ok && done < source.size();) {
    const ssize_t n = ::write(fd, source.data() + done, source.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (ok) ok = ::renameat(dfd, tmp_name.c_str(), dfd, name.c_str()) == 0;
  if (!ok && fd >= 0) ::unlinkat(dfd, tmp_name.c_str(), 0);
  ::close(dfd);
  return ok ? (dir / name).string() : std::string();
}

}  // namespace theano::codegen
