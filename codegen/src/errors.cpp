/// \file
/// CompileError's message layout and keeping a failing source on disk, so that the
/// line numbers in a diagnostic can be looked up after the process is gone.
#include <theano/codegen/errors.h>

#include <llvm/Support/xxhash.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

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
  const char* tmp = std::getenv("TMPDIR");
  fs::path dir = fs::path(tmp && *tmp ? tmp : "/tmp") / std::string(subdir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return {};
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(llvm::xxh3_64bits(llvm::StringRef(source.data(), source.size()))));
  fs::path path = dir / (std::string(hex) + std::string(extension));
  // Write to a private temp name, then rename: concurrent failures of the same
  // source never expose a half-written file.
  fs::path tmp_path = path;
  tmp_path += ".tmp." + std::to_string(::getpid()) + "." +
              std::to_string(reinterpret_cast<std::uintptr_t>(&ec));
  {
    std::ofstream out(tmp_path, std::ios::binary | std::ios::trunc);
    if (!out) return {};
    out.write(source.data(), static_cast<std::streamsize>(source.size()));
    if (!out) return {};
  }
  fs::rename(tmp_path, path, ec);
  if (ec) {
    fs::remove(tmp_path, ec);
    return {};
  }
  return path.string();
}

}  // namespace theano::codegen
