/// \file
/// TempDir: a fresh directory under $TMPDIR (else /tmp) for one test, named
/// by process and a counter, removed with everything in it at scope exit.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace theano::test {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "theano-test") {
    static std::atomic<int> n{0};
    const char* tmp = std::getenv("TMPDIR");
    path = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
           (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace theano::test
