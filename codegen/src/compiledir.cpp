// The compiledir in use and the cache keys of generated translation units
// (see compiledir.h).
#include <theano/codegen/compiledir.h>

#include <theano/config.h>

#include <llvm/Support/BLAKE3.h>

#include <map>
#include <memory>
#include <mutex>

namespace theano::codegen {
namespace fs = std::filesystem;

namespace {

void add_field(llvm::BLAKE3& h, std::string_view field) {
  const std::uint64_t n = field.size();
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(n >> (8 * i));
  h.update(llvm::ArrayRef<std::uint8_t>(len, 8));
  h.update(llvm::StringRef(field.data(), field.size()));
}

std::string field_of(const std::string& identity, const std::string& name) {
  const std::string tag = name + "=";
  auto p = identity.find(tag);
  if (p == std::string::npos) return "unknown";
  p += tag.size();
  return identity.substr(p, identity.find('\n', p) - p);
}

/// Keeps [A-Za-z0-9._-]; anything else becomes '-'.
std::string sanitize(const std::string& s) {
  std::string r;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    r += ok ? c : '-';
  }
  return r;
}

/// "19.1.7" from "Debian clang version 19.1.7 (++...)".
std::string clang_short_version() {
  const std::string v = clang_version();
  const auto p = v.find("version ");
  if (p == std::string::npos) return sanitize(v);
  const auto b = p + 8;
  const auto e = v.find_first_of(" (", b);
  return v.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace

std::string cache_key(const CompileOptions& options, const std::string& source) {
  llvm::BLAKE3 h;
  add_field(h, "theano-cpp cache key 1");
  add_field(h, std::to_string(kRuntimeAbiVersion));
  add_field(h, ClangCompiler(options).identity());
  add_field(h, source);
  const auto digest = h.final<20>();
  static const char* hex = "0123456789abcdef";
  std::string key;
  for (std::uint8_t b : digest) {
    key += hex[b >> 4];
    key += hex[b & 15];
  }
  return key;
}

fs::path current_compiledir() {
  const auto& flags = config().flags;
  if (auto it = flags.find("compiledir"); it != flags.end() && !it->second.empty())
    return it->second == "off" ? fs::path() : fs::path(it->second);
  fs::path base = cache::default_base_compiledir();
  if (auto it = flags.find("base_compiledir"); it != flags.end() && !it->second.empty()) base = it->second;
  static const std::string name = [] {
    const std::string id = compiler_identity();
    return sanitize("compiledir_" + field_of(id, "triple") + "-" + field_of(id, "cpu") + "-clang" +
                    clang_short_version() + "-abi" + std::to_string(kRuntimeAbiVersion));
  }();
  return base / name;
}

cache::CompileCache* current_cache() {
  const fs::path dir = current_compiledir();
  if (dir.empty()) return nullptr;
  static std::mutex mu;
  static std::map<fs::path, std::unique_ptr<cache::CompileCache>>* caches =
      new std::map<fs::path, std::unique_ptr<cache::CompileCache>>();  // never destroyed: lock files stay open
  std::lock_guard<std::mutex> lock(mu);
  auto& c = (*caches)[dir];
  if (!c) c = std::make_unique<cache::CompileCache>(dir);
  return c.get();
}

cache::CacheStats compile_cache_stats() {
  cache::CompileCache* c = current_cache();
  return c ? c->stats() : cache::CacheStats{};
}

}  // namespace theano::codegen
