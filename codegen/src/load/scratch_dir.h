/// \file
/// A private scratch directory for the files an in-process tool needs on disk
/// (lld's inputs and output, the system compiler's objects and log).
///
/// Why one helper: such files must never go to a predictable shared /tmp name;
/// both users (shared_object.cpp, export_shared_object.cpp) need the same
/// fresh mkdtemp directory inside this user's 0700 private directory, files
/// created O_EXCL|O_NOFOLLOW, and everything removed afterwards.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace theano::codegen::detail {

/// Writes all of `bytes` to `fd` (retrying short writes and EINTR); false on
/// an error (errno says which).
bool write_all(int fd, std::string_view bytes);

class ScratchDir {
 public:
  /// Creates `<private_dir>/<prefix>-XXXXXX`. Throws LoadError naming `who`.
  ScratchDir(std::string who, std::string_view prefix);
  /// Removes the directory and everything in it.
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  /// Creates the file `name` in it (0600, O_EXCL|O_NOFOLLOW) holding `bytes`;
  /// returns its path. Throws LoadError naming `who` and the file.
  std::filesystem::path write(const std::string& name, std::string_view bytes) const;

 private:
  std::string who_;
  std::filesystem::path dir_;
};

}  // namespace theano::codegen::detail
