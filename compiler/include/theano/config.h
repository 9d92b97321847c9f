/// \file
/// Process-wide configuration, read once from `THEANO_FLAGS` (comma-separated
/// `key=value`, as in Theano) and overridable in code. Only the keys that some
/// part of theano-cpp reads are typed fields; every key given is kept in `flags`
/// so later layers (mode, linker, compiledir, ...) read their own, through the
/// flag registry (config_flags.h: each key declared once; a key not declared
/// there costs one warning naming the closest declared key).
#pragma once

#include <string>
#include <string_view>

#include "theano/graph/small_map.h"
#include "theano/runtime/dtype.h"

namespace theano {

struct Config {
  /// dtype of `matrix()`-style makers and of float constants: float64 or float32.
  DType floatX = DType::Float64;
  /// Frames of the user's call stack recorded for each new Variable (0: none;
  /// see graph/creation_site.h). From `traceback_limit` or `traceback__limit`.
  int traceback_limit = 0;
  /// Every `key=value` pair of THEANO_FLAGS, sorted by key.
  SmallMap<std::string, std::string> flags;

  /// Parses `THEANO_FLAGS` text; throws ValueError naming a malformed entry or
  /// a bad value of a registered key.
  static Config from_flags(const std::string& text);
};

/// The process configuration (parsed from the environment on first use).
/// Every compile reads it, without a lock: change it (assign, or a
/// ConfigGuard) only while no other thread compiles or calls `function()`
/// (README, "Threads and fork"); reading it from several threads is safe.
Config& config();

/// Boolean flag `key` (registered, see config_flags.h): "1", "true", "yes", "on"
/// (any case) are true; absent: its default.
bool config_flag(std::string_view key);

/// Sets `config()` to `c` for the lifetime of the guard (tests, scoped options).
class ConfigGuard {
 public:
  explicit ConfigGuard(Config c) : saved_(config()) { config() = std::move(c); }
  ~ConfigGuard() { config() = std::move(saved_); }
  ConfigGuard(const ConfigGuard&) = delete;
  ConfigGuard& operator=(const ConfigGuard&) = delete;

 private:
  Config saved_;
};

}  // namespace theano
