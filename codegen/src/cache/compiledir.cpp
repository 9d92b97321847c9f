// The compiledir in use, the cache keys of generated translation units and
// the remote tier behind the object cache (see compiledir.h).
#include <theano/codegen/compiledir.h>
#include <theano/cache/dir_security.h>

#include <theano/config_flags.h>
#include <theano/runtime/error.h>

#include <clang/Basic/Version.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/xxhash.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace theano::codegen {
namespace fs = std::filesystem;

namespace {

/// The bytes a key hashes for one field, handed to `sink`: its length (8
/// bytes, little-endian), then the field, so no two field lists frame alike
/// by concatenation. One framing for both kinds of key.
template <class Sink>
void frame_field(std::string_view f, Sink&& sink) {
  const std::uint64_t n = f.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>(n >> (8 * i));
  sink(std::string_view(len, 8));
  sink(f);
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

/// "19.1.7": the version of Clang these headers name (the compiledir's name
/// only; keys hold the build ids of the libraries loaded, clang_driver.cpp).
/// Asking the library for its version string would cost a warm start page
/// faults in libclang-cpp.
std::string clang_short_version() { return CLANG_VERSION_STRING; }

}  // namespace

std::string hash_fields(const std::vector<std::string_view>& fields) {
  llvm::BLAKE3 h;
  for (std::string_view f : fields)
    frame_field(f, [&](std::string_view bytes) { h.update(llvm::StringRef(bytes.data(), bytes.size())); });
  const auto digest = h.final<20>();
  static const char* hex = "0123456789abcdef";
  std::string key;
  for (std::uint8_t b : digest) {
    key += hex[b >> 4];
    key += hex[b & 15];
  }
  return key;
}

std::string local_hash_fields(const std::vector<std::string_view>& fields) {
  // A long field (a function request's text, 5-15 KB) is framed as its own
  // digest: its length with the top bit set (no field's length has it), then
  // its XXH3-128. The framed bytes stay small, and a warm start copies no
  // request into fresh heap pages to hash it.
  constexpr std::size_t kDigestAbove = 1024;
  auto xxh128 = [](std::string_view bytes) {
    return llvm::xxh3_128bits(
        llvm::ArrayRef<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  };
  std::string framed;
  framed.reserve(1024);
  for (std::string_view f : fields) {
    if (f.size() <= kDigestAbove) {
      frame_field(f, [&](std::string_view bytes) { framed += bytes; });
      continue;
    }
    const llvm::XXH128_hash_t d = xxh128(f);
    const std::uint64_t n = static_cast<std::uint64_t>(f.size()) | (std::uint64_t{1} << 63);
    for (std::uint64_t word : {n, d.high64, d.low64})
      for (int i = 0; i < 8; ++i) framed += static_cast<char>(word >> (8 * i));
  }
  const llvm::XXH128_hash_t h = xxh128(framed);
  static const char* hex = "0123456789abcdef";
  std::string key;
  for (std::uint64_t half : {h.high64, h.low64})
    for (int shift = 60; shift >= 0; shift -= 4) key += hex[(half >> shift) & 15u];
  return key;
}

std::string cache_key(const CompileOptions& options, const std::string& source) {
  const std::string abi = std::to_string(kRuntimeAbiVersion), identity = ClangCompiler(options).identity();
  return hash_fields({"theano-cpp cache key 1", abi, identity, source});
}

fs::path current_compiledir() {
  if (const auto dir = flag_value("compiledir"); dir && !dir->empty())
    return *dir == "off" ? fs::path() : fs::path(*dir);
  fs::path base = cache::default_base_compiledir();
  if (const auto b = flag_value("base_compiledir"); b && !b->empty()) base = *b;
  static const std::string name = "compiledir_" + remote_cache_arch();
  return base / name;
}

std::string remote_cache_arch() {
  static const std::string arch = [] {
    const std::string id = compiler_identity();
    return sanitize(field_of(id, "triple") + "-" + field_of(id, "cpu") + "-clang" + clang_short_version() + "-abi" +
                    std::to_string(kRuntimeAbiVersion));
  }();
  return arch;
}

cache::CacheOptions compile_cache_options() {
  cache::CacheOptions o;
  if (const auto group = flag_value("compiledir_group"); group && !group->empty()) {
    o.group = cache::group_id(*group);
    THEANO_USER_CHECK(o.group.has_value(), ValueError)
        << "THEANO_FLAGS compiledir_group: no group named '" << *group
        << "' (give the name or number of a group you belong to, or leave the flag out for a private cache)";
  }
  return o;
}

namespace {
/// The process's CompileCache of `dir` with `options` (one per directory and
/// group setting, never destroyed: lock files stay open), created and
/// cleaned up (usually one stat() of the stamp file) on first use.
cache::CompileCache* process_cache(const fs::path& dir, const cache::CacheOptions& options) {
  static std::mutex mu;
  using Caches = std::map<std::pair<fs::path, long long>, std::unique_ptr<cache::CompileCache>>;
  static Caches* caches = new Caches();
  std::lock_guard<std::mutex> lock(mu);
  auto& c = (*caches)[{dir, options.group ? static_cast<long long>(*options.group) : -1}];
  if (!c) {
    // The cleanup flags are read where they are used: on a cache's first
    // use (a malformed one throws before anything is created).
    const cache::CleanupPolicy policy = auto_cleanup_policy();
    c = std::make_unique<cache::CompileCache>(dir, options);
    c->maybe_cleanup(policy);
  }
  return c.get();
}
}  // namespace

std::string remote_cache_url() {
  const auto url = flag_value("remote_cache");
  return !url || *url == "off" ? std::string() : *url;
}

cache::RemoteOptions remote_cache_options(const std::string& url) {
  auto flag = [](const char* name) { return flag_value(name).value_or(""); };
  cache::RemoteOptions o;
  try {
    o.url = cache::parse_redis_url(url);
  } catch (const std::invalid_argument& e) {
    THEANO_USER_CHECK(false, ValueError) << "THEANO_FLAGS remote_cache: " << e.what();
  }
  // read or read-write; 1..600000 ms (flag_table.cpp)
  if (const std::string mode = flag("remote_cache_mode"); !mode.empty()) o.write = mode == "read-write";
  if (const std::optional<long long> ms = flag_int("remote_cache_timeout_ms"))
    o.connect_timeout_ms = o.io_timeout_ms = static_cast<int>(*ms);
  const std::string key = flag("remote_cache_key"), key_file = flag("remote_cache_key_file");
  THEANO_USER_CHECK(key.empty() || key_file.empty(), ValueError)
      << "THEANO_FLAGS remote_cache_key and remote_cache_key_file are both set: give one";
  if (!key.empty()) {
    try {
      cache::check_remote_key(key);
    } catch (const std::invalid_argument& e) {
      THEANO_USER_CHECK(false, ValueError) << "THEANO_FLAGS remote_cache_key: " << e.what();
    }
    o.hmac_key = key;
  } else if (!key_file.empty()) {
    try {
      o.hmac_key = cache::load_remote_key_file(key_file);
    } catch (const std::exception& e) {
      THEANO_USER_CHECK(false, ValueError) << "THEANO_FLAGS remote_cache_key_file: " << e.what();
    }
  }
  o.password = flag("remote_cache_password");
  o.arch = remote_cache_arch();
  return o;
}

cache::CompileCache* current_cache() {
  const fs::path dir = current_compiledir();
  if (dir.empty()) return nullptr;
  const cache::CacheOptions options = compile_cache_options();
  cache::CompileCache* c = process_cache(dir, options);
  // The remote tier, attached once per object cache (never to the records'
  // or libraries' caches): flags are read on the first call, a malformed one
  // throws on every call until fixed.
  static std::mutex mu;
  static auto* attached = new std::map<cache::CompileCache*, bool>();
  std::lock_guard<std::mutex> lock(mu);
  if ((*attached)[c]) return c;
  if (const std::string url = remote_cache_url(); !url.empty()) {
    cache::RemoteOptions o = remote_cache_options(url);  // may throw: nothing attached yet
    if (o.hmac_key.empty()) {
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::cerr << "theano-cpp warning: THEANO_FLAGS remote_cache=" << url
                  << " is set but there is no key to sign and check its entries with (a remote entry is machine "
                     "code run in this process); set remote_cache_key_file=<a file only you can read, e.g. made by "
                     "`openssl rand -hex 32`> or remote_cache_key=<secret>. The remote cache is not used.\n";
      });
    } else {
      c->set_remote(std::make_shared<cache::RedisTier>(std::move(o)));
    }
  }
  (*attached)[c] = true;
  return c;
}

namespace {
/// The CompileCache of the subdirectory `name` of the directory the object
/// cache really uses (its private fallback when the one asked for was
/// refused). Records and libraries only save time: with an unusable,
/// no-longer-trusted or read-only object cache there are none (and no second
/// warning about the same directory).
cache::CompileCache* inner_cache(const char* name) {
  cache::CompileCache* objects = current_cache();
  if (objects == nullptr) return nullptr;
  // The inner cache checks its own directory on every look-up, not the
  // compiledir around it: a compiledir someone made unsafe since it was
  // opened must stop the inner caches too (they hold code, and what finds it).
  if (objects->stats().read_only || !objects->trusted_now()) return nullptr;
  cache::CacheOptions options = compile_cache_options();
  options.fallback = fs::path();  // refused: run without it, never elsewhere
  options.parent_checked = true;  // objects->dir(): resolved, its ancestors checked, trusted just now
  cache::CompileCache* inner = process_cache(objects->dir() / name, options);
  return inner->stats().disabled ? nullptr : inner;
}
}  // namespace

cache::CompileCache* current_record_cache() { return inner_cache(kRecordsDir); }

cache::CompileCache* current_library_cache() { return inner_cache(kLibrariesDir); }

namespace {
std::string prelude_key(const std::string& text) { return hash_fields({"theano-cpp prelude pch 1", text}); }

/// The build tree's precompiled preludes (THEANO_PRELUDE_SEED_DIR: what the
/// build's `theano-cache precompile` wrote), opened without creating or
/// cleaning anything; nullptr when absent or not trusted as the user's own
/// compiledir would be (silently: another user's build tree is no error).
cache::CompileCache* seed_cache() {
#ifdef THEANO_PRELUDE_SEED_DIR
  static cache::CompileCache* seed = []() -> cache::CompileCache* {
    const fs::path dir = fs::path(THEANO_PRELUDE_SEED_DIR) / kPreludeDir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || !cache::check_compiledir(dir, cache::TrustPolicy{}).empty()) return nullptr;
    cache::CacheOptions options;
    options.create = false;
    options.fallback = fs::path();
    auto* c = new cache::CompileCache(dir, options);  // for the life of the process
    return c->stats().disabled ? nullptr : c;
  }();
  return seed;
#else
  return nullptr;
#endif
}
}  // namespace

std::shared_ptr<const PreludeStore> prelude_store(cache::CompileCache* prelude_cache) {
  if (prelude_cache == nullptr) return nullptr;
  auto s = std::make_shared<PreludeStore>();
  s->load = [prelude_cache](const std::string& text) { return prelude_cache->lookup(prelude_key(text)); };
  s->save = [prelude_cache](const std::string& text, const std::string& bytes) {
    prelude_cache->get_or_produce(prelude_key(text), [&] {
      cache::Entry e;
      e.object = bytes;
      e.origin = "the precompiled prelude";
      e.kind = "pch";
      return e;
    });
  };
  s->evict = [prelude_cache](const std::string& text, const std::string& why) {
    prelude_cache->evict(prelude_key(text), why);
  };
  return s;
}

std::shared_ptr<const PreludeStore> current_prelude_store() {
  // Looked up on each call: a compiledir that stops being trusted stops
  // serving (inner_cache checks it).
  static const std::shared_ptr<const PreludeStore> store = [] {
    auto s = std::make_shared<PreludeStore>();
    s->load = [](const std::string& text) -> std::optional<std::string> {
      if (cache::CompileCache* seed = seed_cache())
        if (std::optional<std::string> bytes = seed->lookup(prelude_key(text))) return bytes;
      if (cache::CompileCache* c = inner_cache(kPreludeDir)) return c->lookup(prelude_key(text));
      return std::nullopt;
    };
    s->save = [](const std::string& text, const std::string& bytes) {
      if (cache::CompileCache* c = inner_cache(kPreludeDir)) prelude_store(c)->save(text, bytes);
    };
    s->evict = [](const std::string& text, const std::string& why) {
      if (cache::CompileCache* c = inner_cache(kPreludeDir)) c->evict(prelude_key(text), why);
    };
    return s;
  }();
  return store;
}

cache::CleanupPolicy auto_cleanup_policy() {
  cache::CleanupPolicy p;
  p.max_bytes = std::uintmax_t{2} << 30;
  // Days are bounded (0..1e6, flag_table.cpp) before the conversion: a double
  // out of int64's range converts to garbage (UB).
  if (const std::optional<double> days = flag_number("cache_max_age_days"))
    p.max_age_seconds = static_cast<std::int64_t>(*days * 86400);
  else if (flag_value("cache_max_age_days") == "off")
    p.max_age_seconds = -1;
  if (const auto size = flag_value("cache_max_size"); size && !size->empty()) {
    if (*size == "off") {
      p.max_bytes = 0;
    } else {
      const auto v = cache::parse_size(*size);
      THEANO_USER_CHECK(v.has_value(), ValueError)
          << "THEANO_FLAGS cache_max_size: expected a size like 500M or 2G (digits, then k, M, G or T), or 'off', got '"
          << *size << "'";
      p.max_bytes = *v;
    }
  }
  return p;
}

std::string compile_cache_report() {
  cache::CompileCache* c = current_cache();
  if (!c) return "";
  const cache::CacheStats s = c->stats();
  auto plural = [](std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  auto kib = [](std::uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
    return std::string(buf);
  };
  char saved[48];
  std::snprintf(saved, sizeof saved, "%.0f ms of compiling saved", s.compile_ms_saved);
  std::string line = plural(s.hits, "hit", "hits") + ", " + plural(s.misses, "miss", "misses") + ", " +
                     plural(s.compiles, "compile", "compiles") + ", " + kib(s.bytes_read) + " read, " +
                     kib(s.bytes_written) + " written, " + saved;
  if (s.corrupt) line += ", " + plural(s.corrupt, "damaged entry replaced", "damaged entries replaced");
  if (s.refused) line += ", " + plural(s.refused, "untrusted file refused", "untrusted files refused");
  if (s.disabled) line += " (compiledir unusable: not caching)";
  else if (s.read_only) line += " (compiledir not writable: nothing new cached)";
  if (s.fallback) line += " (" + c->requested_dir().string() + " refused: using a private fallback)";
  line += "; " + c->dir().string();
  if (const auto remote = c->remote()) {
    line += "; remote " + remote->describe() + ": " + plural(s.remote_hits, "hit", "hits") + ", " +
            plural(s.remote_misses, "miss", "misses") + ", " + std::to_string(s.remote_rejected) + " rejected, " +
            std::to_string(s.remote_published) + " published, " + plural(s.remote_errors, "error", "errors");
    if (!remote->writes()) line += " (read-only)";
  }
  return line;
}

cache::CacheStats compile_cache_stats() {
  cache::CompileCache* c = current_cache();
  return c ? c->stats() : cache::CacheStats{};
}

}  // namespace theano::codegen
