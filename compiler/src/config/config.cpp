// THEANO_FLAGS parsing: `key=value` pairs into Config::flags, each registered
// key's value checked by its parser (flag_registry.h), one warning per key
// that is not registered, and the typed fields (floatX, traceback_limit).
#include "theano/config.h"

#include <cstdlib>
#include <iostream>

#include "flag_registry.h"
#include "theano/config_flags.h"
#include "theano/runtime/error.h"

namespace theano {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

void warn_unknown(const std::string& key) {
  const std::string near = closest_flag(key);
  std::cerr << "theano-cpp warning: THEANO_FLAGS: unknown flag '" << key << "'"
            << (near.empty() ? std::string(" (`theano-cache flags` lists the known ones)")
                             : " (did you mean '" + near + "'?)")
            << "; it is ignored\n";
}

}  // namespace

Config Config::from_flags(const std::string& text) {
  Config c;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    THEANO_USER_CHECK(eq != std::string::npos && eq > 0, ValueError)
        << "THEANO_FLAGS: entry '" << item << "' is not of the form key=value";
    c.flags[trim(item.substr(0, eq))] = trim(item.substr(eq + 1));
  }
  for (const auto& [key, value] : c.flags) {
    if (const flags::FlagSpec* spec = flags::find(key)) flags::check(*spec, key, value);
    else warn_unknown(key);
  }
  if (auto it = c.flags.find("floatX"); it != c.flags.end()) c.floatX = dtype_from_name(it->second);
  // Theano's spelling counts when the flag's own is absent (config_flags.h).
  for (const char* key : {"traceback__limit", "traceback_limit"})
    if (auto it = c.flags.find(key); it != c.flags.end())
      c.traceback_limit = static_cast<int>(*flags::parse_int(*flags::find(key), it->second));
  return c;
}

Config& config() {
  static Config c = [] {
    const char* env = std::getenv("THEANO_FLAGS");
    return Config::from_flags(env ? env : "");
  }();
  return c;
}

bool config_flag(std::string_view key) { return flag_bool(key); }

}  // namespace theano
