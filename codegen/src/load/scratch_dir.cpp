// A private scratch directory for in-process tools (see scratch_dir.h).
#include "scratch_dir.h"

#include <theano/cache/dir_security.h>
#include <theano/codegen/errors.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace theano::codegen::detail {

namespace fs = std::filesystem;

bool write_all(int fd, std::string_view bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

ScratchDir::ScratchDir(std::string who, std::string_view prefix) : who_(std::move(who)) {
  const fs::path root = cache::private_dir();
  if (root.empty()) throw LoadError(who_ + ": no private temporary directory");
  std::string templ = (root / (std::string(prefix) + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data()))
    throw LoadError(who_ + ": cannot create a directory in " + root.string() + ": " + std::strerror(errno));
  dir_ = templ;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

fs::path ScratchDir::write(const std::string& name, std::string_view bytes) const {
  const fs::path p = dir_ / name;
  const int fd = cache::create_exclusive(p, 0600);
  bool ok = fd >= 0 && write_all(fd, bytes);
  const int err = errno;
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (!ok) throw LoadError(who_ + ": cannot write " + p.string() + ": " + std::strerror(err));
  return p;
}

}  // namespace theano::codegen::detail
